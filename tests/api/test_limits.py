"""F5: one client cannot flood the server: rate limits per player and per client address."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee.errors import RateLimitExceededError
from yahtzee.server.limits import RateLimiter
from yahtzee.server.settings import Limits

from .helpers import NO_HOLD, Api, error_code
from .test_same_origin import assert_security_headers


class Clock:
    """A monotonic clock the test moves by hand (no timing in tests)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def limited(make_client: Callable[..., TestClient], clock: Clock) -> Callable[..., TestClient]:
    """Clients of apps with the DEFAULT limits and a stopped clock."""

    def make(**overrides: Any) -> TestClient:
        return make_client(limits=Limits(), clock=clock, **overrides)

    return make


def assert_rate_limited(response: Any, retry_after: int) -> None:
    assert (response.status_code, error_code(response)) == (429, "rate_limited"), response.text
    assert response.headers["retry-after"] == str(retry_after)
    assert f"{retry_after} 秒后再试" in response.json()["error"]["message"]
    assert_security_headers(response)


def test_f5_defaults() -> None:
    assert Limits() == Limits(
        new_games_per_minute=30,
        new_players_per_minute=60,
        actions_per_second=20,
        prune_after_days=7.0,
        new_games_per_minute_per_address=60,
    )


def test_f5_a_player_gets_20_actions_a_second_then_429(
    limited: Callable[..., TestClient], clock: Clock
) -> None:
    api = Api(limited())
    game = api.roll(api.new())  # action 1
    for _ in range(19):  # actions 2-20: 3 hints, then refusals (which count too)
        r = api.post(game, "hint")
        if r.status_code == 200:
            game = r.json()["game"]
    # That was 20 actions at one instant: the 21st is refused...
    r = api.post(game, "roll", hold=NO_HOLD)
    assert_rate_limited(r, 1)
    assert api.get(game["id"]) == game  # ...and changed nothing
    # Each twentieth of a second earns one more; a second refills the bucket.
    clock.now += 0.051
    game = api.roll(game)
    assert_rate_limited(api.post(game, "roll", hold=NO_HOLD), 1)
    clock.now += 1.0
    assert api.roll(game)["rolls_left"] == 0


def test_f5_the_action_limit_counts_per_player(limited: Callable[..., TestClient]) -> None:
    alice, bob = Api(limited()), Api(limited())
    games = {id(alice): alice.new(), id(bob): bob.new()}
    for _ in range(20):
        r = alice.post(games[id(alice)], "hint")  # refused before a roll, but an action
        assert r.status_code == 409
    assert_rate_limited(alice.post(games[id(alice)], "hint"), 1)
    assert bob.roll(games[id(bob)])["rolls_left"] == 2  # bob is not slowed by alice


def test_f5_the_limit_holds_on_both_routes_to_an_action(limited: Callable[..., TestClient]) -> None:
    """The direct route and FastAPI's route share one bucket per player."""
    api = Api(limited())
    game = api.new()
    for _ in range(20):
        api.post(game, "hint")
    from .test_fastpath import _without_fast_path

    # (the same app, rebuilt without the fast path: its guard is the same object)
    assert_rate_limited(api.post(game, "hint"), 1)
    _without_fast_path(api.client)
    assert_rate_limited(api.post(game, "hint"), 1)


def test_f5_30_new_games_a_minute_per_player(
    limited: Callable[..., TestClient], clock: Clock
) -> None:
    api = Api(limited())
    for _ in range(30):
        api.new(replace=True)
    r = api.client.post("/api/games", json={"mode": "solo", "replace": True})
    assert_rate_limited(r, 2)  # one more game every 2 s
    clock.now += 2.0
    api.new(replace=True)
    assert_rate_limited(api.client.post("/api/games", json={"mode": "solo", "replace": True}), 2)


def test_f5_60_new_games_a_minute_per_address_whatever_its_player_ids(
    limited: Callable[..., TestClient], clock: Clock
) -> None:
    client = limited()
    for i in range(60):
        if i % 30 == 0:
            client.cookies.clear()  # a fresh player id every 30 games
        assert client.post("/api/games", json={"mode": "solo", "replace": True}).status_code == 201
    client.cookies.clear()
    assert_rate_limited(client.post("/api/games", json={"mode": "solo", "replace": True}), 1)
    other = TestClient(client.app, client=("203.0.113.9", 5000))
    assert other.post("/api/games", json={"mode": "solo", "replace": True}).status_code == 201
    clock.now += 1.0
    assert client.post("/api/games", json={"mode": "solo", "replace": True}).status_code == 201


def test_f5_60_new_player_ids_a_minute_per_address(
    limited: Callable[..., TestClient], clock: Clock
) -> None:
    client = limited()
    # (a read that needs a player and costs no work units: /api/records has a budget now,
    # charged to the address of a request without a cookie, F14)
    for _ in range(60):
        client.cookies.clear()
        assert client.get("/api/groups").status_code == 200
    client.cookies.clear()
    r = client.get("/api/groups")
    assert_rate_limited(r, 1)
    assert "set-cookie" not in r.headers  # no id was issued
    r = client.post("/api/games", json={"mode": "solo", "replace": True})
    assert_rate_limited(r, 1)
    # What needs no player still works; players with an id still play.
    assert client.get("/api/health").status_code == 200
    assert client.get("/").status_code == 200
    # Another address is not affected.
    other = TestClient(client.app, client=("203.0.113.7", 5000))
    assert other.get("/api/groups").status_code == 200
    clock.now += 1.0
    assert client.get("/api/groups").status_code == 200


def test_f5_a_known_player_is_not_charged_for_new_ids(
    limited: Callable[..., TestClient],
) -> None:
    client = limited()
    # one id, reused (a read with no other limit: none of the actions' or the work budget's)
    for _ in range(100):
        assert client.get("/api/games/current").status_code == 404  # (no game saved)


# -- a clock stepped back (issue 22 item 7) ----------------------------------------------


_AGAIN = {"mode": "solo", "replace": True}


def _retry_after(response: Any) -> int:
    if response.status_code != 429:
        return 0
    assert_rate_limited(response, int(response.headers["retry-after"]))
    return int(response.headers["retry-after"])


def test_f5_a_clock_stepped_back_an_hour_locks_nobody_out(
    limited: Callable[..., TestClient], clock: Clock
) -> None:
    """The attack: with the clock set back an hour, every player active in the last minute
    got 429 with Retry-After of about 3,540 s. Now a bucket written "in the future" holds
    one token, then refills from the new time as an empty one (2 s a game, 1 s an id)."""
    api = Api(limited())
    game = api.roll(api.new())
    newcomer = limited()
    assert newcomer.get("/api/records").status_code == 200  # a new id for this address
    clock.now -= 3600.0
    newcomer.cookies.clear()
    assert newcomer.get("/api/records").status_code == 200
    game = api.roll(api.new(replace=True))
    # The in-memory action buckets never took tokens away: the game plays on at once.
    assert api.roll(game)["rolls_left"] == 1
    assert _retry_after(api.client.post("/api/games", json=_AGAIN)) == 2
    for _ in range(3):  # and the game limit refills from the new time as it should
        clock.now += 2.0
        assert api.client.post("/api/games", json=_AGAIN).status_code == 201
    newcomer.cookies.clear()  # (6 s later on the new clock: ids refilled too)
    assert newcomer.get("/api/records").status_code == 200


def test_f5_a_clock_stepped_back_forgives_one_token_not_a_burst(
    limited: Callable[..., TestClient], clock: Clock
) -> None:
    api = Api(limited())
    for _ in range(30):
        api.new(replace=True)
    clock.now -= 3600.0
    api.new(replace=True)
    assert _retry_after(api.client.post("/api/games", json=_AGAIN)) == 2
    clock.now += 2.0
    api.new(replace=True)
    assert _retry_after(api.client.post("/api/games", json=_AGAIN)) == 2


def test_f5_a_few_seconds_of_skew_give_no_token_away(
    limited: Callable[..., TestClient], clock: Clock
) -> None:
    """A clock a little behind (another machine's, within the margin) is not a step
    back: the spent burst stays spent, the wait grows by the skew at most."""
    api = Api(limited())
    for _ in range(30):
        api.new(replace=True)
    clock.now -= 4.0
    assert _retry_after(api.client.post("/api/games", json=_AGAIN)) == 6


def test_rate_limiter_tolerates_a_clock_stepped_back() -> None:
    clock = Clock()
    limiter = RateLimiter(5, 1.0, clock=clock)
    for _ in range(4):
        limiter.take("a")
    clock.now -= 3600.0
    limiter.take("a")  # the token it still had
    with pytest.raises(RateLimitExceededError) as caught:
        limiter.take("a")
    assert caught.value.retry_after == 1
    clock.now += 0.25  # one token a fifth of a second, counted from the new time
    limiter.take("a")


# -- the limiter itself -----------------------------------------------------------------


def test_rate_limiter_burst_refill_and_retry_after() -> None:
    clock = Clock()
    limiter = RateLimiter(30, 60.0, clock=clock)
    for _ in range(30):
        limiter.take("a")
    with pytest.raises(RateLimitExceededError) as caught:
        limiter.take("a")
    assert caught.value.retry_after == 2
    clock.now += 1.0  # half a token: still refused, 1 s to go
    with pytest.raises(RateLimitExceededError) as caught:
        limiter.take("a")
    assert caught.value.retry_after == 1
    clock.now += 1.0
    limiter.take("a")
    limiter.take("b")  # another key has its own bucket


def test_rate_limiter_zero_is_off() -> None:
    limiter = RateLimiter(0, 1.0)
    for _ in range(1000):
        limiter.take("a")
    assert len(limiter) == 0


def test_rate_limiter_memory_is_bounded() -> None:
    clock = Clock()
    limiter = RateLimiter(5, 1.0, max_keys=100, clock=clock)
    for i in range(10_000):
        limiter.take(f"client-{i}")
    assert len(limiter) == 100
    # Buckets that have refilled completely are dropped as time passes.
    clock.now += 2.0
    limiter.take("late")
    assert len(limiter) == 1
