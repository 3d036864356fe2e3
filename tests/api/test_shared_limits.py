"""F5 across processes: the rate limits hold for the sum of every server process.

The limits of what makes the database grow (new games per player and per address, new
player ids per address) are buckets in the database, taken in the transaction that
stores the game; the per-player action limit is split between the live processes. Both
on SQLite and on PostgreSQL: the storage's buckets directly, then two real server
processes that a client alternates between.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import RawClient, ServerProcess, start_together
from yahtzee import log
from yahtzee.errors import GameInProgressError, RateLimitExceededError
from yahtzee.game import Mode
from yahtzee.server.limits import RateLimiter, is_gone, process_id
from yahtzee.storage import Storage
from yahtzee.storage.base import Charge

from .test_storage import _with_store

START = log.Start.of(Mode.SOLO)


async def _new(store: Storage, game_id: str, player: str, charges: list[Charge]) -> None:
    await store.create_game(
        game_id=game_id,
        player_id=player,
        mode=Mode.SOLO,
        difficulty=None,
        events=[START],
        replace=True,
        charges=charges,
    )


# -- the shared buckets, on each backend --------------------------------------------------


def test_f5_a_shared_bucket_is_a_token_bucket(db: Path | str) -> None:
    """30 a minute: 30 at once, then one every 2 s, with the seconds to wait."""

    async def body(store: Storage) -> None:
        def charge(now: float, key: str = "a") -> list[Charge]:
            return [Charge("new_games", key, 30, 60.0, now)]

        for _ in range(30):
            await store.take(charge(1000.0))
        with pytest.raises(RateLimitExceededError) as caught:
            await store.take(charge(1000.0))
        assert (caught.value.bucket, caught.value.retry_after) == ("new_games", 2)
        with pytest.raises(RateLimitExceededError) as caught:
            await store.take(charge(1001.0))  # half a token: 1 s to go
        assert caught.value.retry_after == 1
        await store.take(charge(1002.0))
        with pytest.raises(RateLimitExceededError):
            await store.take(charge(1002.0))
        await store.take(charge(1002.0, key="b"))  # another key, its own bucket
        # A minute later the bucket is full again: 30 at once.
        for _ in range(30):
            await store.take(charge(1062.0))
        with pytest.raises(RateLimitExceededError):
            await store.take(charge(1062.0))

    _with_store(db, body)


def test_f5_20_a_second_holds_exactly_despite_float_rounding(db: Path | str) -> None:
    async def body(store: Storage) -> None:
        for _ in range(20):
            await store.take([Charge("x", "k", 20, 1.0, 5000.0)])
        with pytest.raises(RateLimitExceededError):
            await store.take([Charge("x", "k", 20, 1.0, 5000.0)])
        await store.take([Charge("x", "k", 20, 1.0, 5000.051)])  # one twentieth later

    _with_store(db, body)


def test_f5_tokens_of_several_buckets_are_taken_all_or_none(db: Path | str) -> None:
    async def body(store: Storage) -> None:
        full = Charge("one", "k", 5, 60.0, 1000.0)
        await store.take([Charge("two", "k", 1, 60.0, 1000.0)])  # empties "two"
        with pytest.raises(RateLimitExceededError) as caught:
            await store.take([full, Charge("two", "k", 1, 60.0, 1000.0)])
        assert caught.value.bucket == "two"
        for _ in range(5):  # "one" lost nothing to the refused pair
            await store.take([full])
        with pytest.raises(RateLimitExceededError):
            await store.take([full])

    _with_store(db, body)


def test_f5_a_new_games_tokens_are_taken_in_its_transaction(db: Path | str) -> None:
    """Over the limit nothing is stored; a start refused for a kept game (409) still
    spends its token, as a start always did."""

    async def body(store: Storage) -> None:
        def charges() -> list[Charge]:
            return [
                Charge("new_games", "alice", 3, 60.0, 1000.0),
                Charge("address_games", "192.0.2.1", 60, 60.0, 1000.0),
            ]

        await _new(store, "g1", "alice", charges())
        with pytest.raises(GameInProgressError):
            await store.create_game(
                game_id="g2",
                player_id="alice",
                mode=Mode.SOLO,
                difficulty=None,
                events=[START],
                charges=charges(),
            )
        await _new(store, "g3", "alice", charges())
        with pytest.raises(RateLimitExceededError) as caught:
            await _new(store, "g4", "alice", charges())
        assert caught.value.retry_after == 20
        assert await store.get_game("g2") is None
        assert await store.get_game("g4") is None
        current = await store.current_game("alice")
        assert current is not None
        assert current.id == "g3"
        # The address lost only the tokens of the games that were stored or refused 409.
        for _ in range(57):
            await store.take([Charge("address_games", "192.0.2.1", 60, 60.0, 1000.0)])
        with pytest.raises(RateLimitExceededError):
            await store.take([Charge("address_games", "192.0.2.1", 60, 60.0, 1000.0)])

    _with_store(db, body)


def test_f5_full_buckets_are_pruned(db: Path | str) -> None:
    async def body(store: Storage) -> None:
        await store.take([Charge("new_games", "a", 30, 60.0, 1000.0)])  # full at 1002
        await store.take([Charge("new_games", "b", 1, 60.0, 1000.0)])  # full at 1060
        assert await store.prune_buckets(1001.0) == 0
        assert await store.prune_buckets(1002.0) == 1
        # "b" is still empty: its limit was not forgotten.
        with pytest.raises(RateLimitExceededError):
            await store.take([Charge("new_games", "b", 1, 60.0, 1030.0)])
        assert await store.prune_buckets(1060.0) == 1

    _with_store(db, body)


def test_f5_live_processes_are_counted_and_expire(db: Path | str) -> None:
    async def body(store: Storage) -> None:
        assert await store.register_process("a", 1000.0, ttl=35.0) == 1
        assert await store.register_process("b", 1005.0, ttl=35.0) == 2
        assert await store.register_process("a", 1010.0, ttl=35.0) == 2
        # "b" stopped beating: gone once its registration is older than the ttl.
        assert await store.register_process("a", 1041.0, ttl=35.0) == 1
        assert await store.register_process("c", 1042.0, ttl=35.0) == 2
        await store.unregister_process("c")
        assert await store.register_process("a", 1043.0, ttl=35.0) == 1

    _with_store(db, body)


def test_f5_processes_known_dead_are_forgotten(db: Path | str) -> None:
    """A registration forgets the processes it is told are dead, at once (never itself)."""

    async def body(store: Storage) -> None:
        assert await store.register_process("a", 1000.0, ttl=35.0) == 1
        assert await store.register_process("b", 1001.0, ttl=35.0) == 2
        assert sorted(await store.process_ids()) == ["a", "b"]
        assert await store.register_process("a", 1002.0, ttl=35.0, forget=["b", "a"]) == 1
        assert await store.process_ids() == ["a"]

    _with_store(db, body)


def test_f5_a_registration_says_where_its_process_runs() -> None:
    """The id of a process on this machine whose PID is gone is a dead process; a live
    PID, this process, another machine, or an id in no known form are not."""
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead_pid = int(ended.stdout)
    mine = process_id()
    host, namespace, pid, _ = mine.split("|")
    assert int(pid) == os.getpid()
    assert is_gone(f"{host}|{namespace}|{dead_pid}|0123")
    assert not is_gone(mine)
    assert not is_gone(f"{host}|{namespace}|{os.getppid()}|0123")
    assert not is_gone(f"{host}-elsewhere|{namespace}|{dead_pid}|0123")
    assert not is_gone(f"{host}|pid:[1]|{dead_pid}|0123")
    assert not is_gone("9f86d081884c7d65")  # (an id of an older server)


def test_f5_the_action_share_of_a_process() -> None:
    """With n live processes each keeps rate / n a second (a burst of at least one)."""
    now = [1000.0]
    limiter = RateLimiter(20, 1.0, clock=lambda: now[0])
    limiter.share(2)
    for _ in range(10):
        limiter.take("p")
    with pytest.raises(RateLimitExceededError):
        limiter.take("p")
    now[0] += 0.1  # 10 a second: one more token
    limiter.take("p")
    limiter.share(40)  # more processes than tokens: one token, one every 2 s
    assert limiter.capacity == 1.0
    now[0] += 2.0
    limiter.take("p")
    with pytest.raises(RateLimitExceededError):
        limiter.take("p")
    limiter.share(1)
    now[0] += 1.0
    for _ in range(20):
        limiter.take("p")


# -- two real server processes -------------------------------------------------------------

# Small limits, so that each is reached in a few requests: 3 new ids a minute per
# address, 5 new games a minute per player, 8 per address, 4 actions a second per player.
LIMIT_ARGS = (
    "--max-new-players-per-minute",
    "3",
    "--max-new-games-per-minute",
    "5",
    "--max-new-games-per-minute-per-address",
    "8",
    "--max-actions-per-second",
    "4",
)


@pytest.fixture
def limited_servers(
    db: Path | str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[ServerProcess]]:
    """Two server processes on one database, with :data:`LIMIT_ARGS`, beating every 0.5 s
    (so that the first soon learns of the second)."""
    monkeypatch.setenv("YAHTZEE_HEARTBEAT_SECONDS", "0.5")
    args = ["--secret-file", str(tmp_path / "cookie.secret"), *LIMIT_ARGS]
    servers = start_together(
        [ServerProcess(db, log=tmp_path / f"server{i}.log", args=args) for i in range(2)]
    )
    # The second registered at its start; the first counts it at its next beat.
    time.sleep(4 * 0.5)
    yield servers
    for server in servers:
        server.stop()


async def _alternate(
    servers: list[ServerProcess], address: str, requests: list[tuple[str, str, Any]]
) -> list[int]:
    """The statuses of ``requests`` sent by one browser at ``address`` (one cookie), each
    to the other server. ``requests`` entries whose body is ``"new-id"`` clear the cookie
    first (a client that throws its id away)."""
    clients = [RawClient("127.0.0.1", s.port, local_addr=address) for s in servers]
    statuses = []
    cookie: str | None = None
    try:
        for i, (method, path, body) in enumerate(requests):
            client = clients[i % 2]
            client.cookie = None if body == "new-id" else cookie
            status, _ = await client.raw(method, path, None if body == "new-id" else body)
            cookie = client.cookie if status < 400 or cookie is None else cookie
            statuses.append(status)
    finally:
        for client in clients:
            await client.close()
    return statuses


def test_f5_limits_hold_across_two_server_processes(limited_servers: list[ServerProcess]) -> None:
    """A client alternating between two processes meets each limit at its configured
    count, not at twice it."""
    new_game = ("POST", "/api/games", {"mode": "solo", "replace": True})

    async def main() -> None:
        # 3 new player ids a minute per address: the 4th is refused, whichever server.
        statuses = await _alternate(
            limited_servers, "127.0.4.1", [("GET", "/api/records", "new-id")] * 6
        )
        assert statuses == [200, 200, 200, 429, 429, 429]

        # 5 new games a minute per player (one id throughout).
        statuses = await _alternate(limited_servers, "127.0.4.2", [new_game] * 8)
        assert statuses == [201] * 5 + [429] * 3

        # 8 new games a minute per address, whatever its ids: two players, 4 games each
        # (under their own 5), then the address is spent.
        one = await _alternate(limited_servers, "127.0.4.3", [new_game] * 4)
        two = await _alternate(limited_servers, "127.0.4.3", [new_game] * 6)
        assert one == [201] * 4
        assert two == [201] * 4 + [429] * 2

        # 4 actions a second per player: each process keeps half (2 a second). Hints
        # before the first roll are refused (409) but count as actions.
        clients = [RawClient("127.0.0.1", s.port, local_addr="127.0.4.4") for s in limited_servers]
        game = await clients[0].request("POST", "/api/games", {"mode": "solo"})
        clients[1].cookie = clients[0].cookie
        started = time.monotonic()
        statuses = []
        for i in range(12):
            status, _ = await clients[i % 2].raw(
                "POST", f"/api/games/{game['id']}/hint", {"version": game["version"]}
            )
            statuses.append(status)
        elapsed = time.monotonic() - started
        for client in clients:
            await client.close()
        served = sum(1 for s in statuses if s != 429)
        assert statuses[:4] == [409] * 4, statuses
        assert 429 in statuses
        # 4 at once, plus what 4 a second refill while the requests ran; one process's
        # own limit (4 each, 8 in all) would have served 8 of them.
        assert served <= 4 + int(4 * elapsed), (statuses, elapsed)

    asyncio.run(main())


def test_f5_a_server_killed_and_restarted_keeps_the_whole_action_limit(
    db: Path | str, tmp_path: Path
) -> None:
    """The crash test's restart: the killed process was still registered, so for up to
    35 s the new one kept half of every player's action limit (10 of 20 at once), as if
    two processes shared it. Now the new process's first registration sees that the old
    one's PID is gone on this machine and forgets it: the whole 20 at once."""
    args = ["--secret-file", str(tmp_path / "cookie.secret")]
    first = ServerProcess(db, log=tmp_path / "first.log", args=args).start()
    first.kill()
    second = ServerProcess(db, log=tmp_path / "second.log", args=args).start()

    async def burst() -> list[int]:
        client = RawClient("127.0.0.1", second.port, local_addr="127.0.4.9")
        try:
            game = await client.request("POST", "/api/games", {"mode": "solo"})
            statuses = []
            for _ in range(20):  # hints before the first roll: 409, each an action
                status, _ = await client.raw(
                    "POST", f"/api/games/{game['id']}/hint", {"version": game["version"]}
                )
                statuses.append(status)
            return statuses
        finally:
            await client.close()

    try:
        statuses = asyncio.run(burst())
    finally:
        second.stop()
    assert statuses == [409] * 20, statuses
