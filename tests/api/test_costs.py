"""Issue 22 item 3: the costly reads have a budget, run in their own bounded pool, and a
review is computed once however many ask; the stats are capped and incremental."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import yahtzee.server.reviews as reviews_module
from yahtzee.review import jobs
from yahtzee.server.cpu import WORKER_NICE, BusyError, CpuPool
from yahtzee.server.reviews import ReviewService
from yahtzee.server.settings import Limits

from .helpers import NO_LIMITS, Api, error_code, on_app_loop, player_of
from .test_limits import Clock, assert_rate_limited
from .test_review import _play_to_end

BUDGET = 20  # Limits().work_per_second


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def budgeted(make_client: Callable[..., TestClient], clock: Clock) -> Callable[..., TestClient]:
    """Apps with the default work budget (and everything else off), a stopped clock."""

    def make(**overrides: Any) -> TestClient:
        limits = Limits(0, 0, 0, new_games_per_minute_per_address=0)
        return make_client(limits=limits, clock=clock, **overrides)

    return make


# -- the budget ---------------------------------------------------------------------------


def test_the_work_budget_default() -> None:
    assert Limits().work_per_second == BUDGET


def test_a_flood_of_meters_is_429_after_the_budget(
    budgeted: Callable[..., TestClient], clock: Clock, tmp_path: Path
) -> None:
    """The attack: ~125 meters a second from one cookie, each 8-11 ms of CPU, unlimited.
    Now a meter costs 1 unit of a budget of 20 a second, a review and the stats 4."""
    api = Api(budgeted())
    game = api.roll(api.new("vs_computer", "expert"))
    meter = f"/api/games/{game['id']}/meter"
    for _ in range(BUDGET):
        assert api.client.get(meter).status_code == 200
    r = api.client.get(meter)
    assert_rate_limited(r, 1)
    # Another player has a budget of its own. (On a database of its own: a second app on
    # the same one would count as a second process, and halve both apps' budgets.)
    other = Api(budgeted(db=tmp_path / "other.db"))
    other_game = other.new()
    assert other.client.get(f"/api/games/{other_game['id']}/meter").status_code == 200
    # A second later the budget is back; a review (4) and the stats (4) share it.
    clock.now += 1.0
    finished = _play_to_end(api, api.new(replace=True))
    assert api.client.get(f"/api/games/{finished['id']}/review").status_code == 200
    for _ in range(4):  # 4 + 4 x 4 = 20
        assert api.client.get("/api/stats").status_code == 200
    assert_rate_limited(api.client.get(f"/api/games/{finished['id']}/review"), 1)
    assert_rate_limited(api.client.get("/api/stats"), 1)
    # The actions have a limit of their own: the game plays on.
    assert api.roll(api.new(replace=True))["rolls_left"] == 2


def test_a_refused_costly_read_is_answered_only_when_its_units_are_back(
    budgeted: Callable[..., TestClient],
) -> None:
    """The flood benchmark's attack on the event loop: a client that never backs off, on
    16 connections, had its 429s answered as fast as it asked (~1,500 a second, a core of
    the server's CPU), and every other player's request waited in line behind them. A
    refusal now comes only after the time its units take to come back at the budget's
    rate (1/20 s for a meter, 4/20 s for a review), so each connection gets at most that
    many refusals a second. (Lower bounds only: a pause is never shorter.)"""
    api = Api(budgeted())
    game = api.roll(api.new("vs_computer", "expert"))
    meter = f"/api/games/{game['id']}/meter"
    for _ in range(BUDGET):
        assert api.client.get(meter).status_code == 200
    started = time.perf_counter()
    assert_rate_limited(api.client.get(meter), 1)
    assert time.perf_counter() - started >= 1 / BUDGET
    started = time.perf_counter()
    assert_rate_limited(api.client.get("/api/stats"), 1)
    assert time.perf_counter() - started >= 4 / BUDGET


def test_advice_is_budgeted_by_address_without_minting_an_id(
    budgeted: Callable[..., TestClient], clock: Clock
) -> None:
    client = budgeted()
    for _ in range(BUDGET):
        r = client.get("/api/advice?dice=13356")
        assert r.status_code == 200
        assert "set-cookie" not in r.headers  # still no id issued (F4)
    assert_rate_limited(client.get("/api/advice?dice=13356"), 1)
    other = TestClient(client.app, client=("203.0.113.5", 5000))
    assert other.get("/api/advice?dice=13356").status_code == 200
    clock.now += 1.0
    assert client.get("/api/advice?dice=13356").status_code == 200


def test_zero_switches_the_budget_off(make_client: Callable[..., TestClient]) -> None:
    client = make_client(sections=NO_LIMITS)
    for _ in range(3 * BUDGET):
        assert client.get("/api/advice?dice=13356").status_code == 200


# -- the CPU pool -------------------------------------------------------------------------


def test_the_pool_runs_one_job_per_key_at_a_time_and_others_between() -> None:
    order: list[str] = []
    gate = threading.Event()

    def job(name: str) -> str:
        if name == "a1":
            gate.wait(5)
        order.append(name)
        return name

    async def main() -> list[str]:
        pool = CpuPool(workers=2, processes=False)
        try:
            a1 = asyncio.ensure_future(pool.run("a", job, "a1"))
            await asyncio.sleep(0.05)
            a2 = asyncio.ensure_future(pool.run("a", job, "a2"))  # waits for a1
            b1 = asyncio.ensure_future(pool.run("b", job, "b1"))  # runs beside it
            await asyncio.wait_for(b1, 5)
            assert not a2.done()
            gate.set()
            return list(await asyncio.gather(a1, a2, b1))
        finally:
            pool.shutdown()

    assert asyncio.run(main()) == ["a1", "a2", "b1"]
    assert order == ["b1", "a1", "a2"]


def test_the_pool_refuses_at_once_when_its_queue_is_full() -> None:
    gate = threading.Event()

    async def main() -> None:
        pool = CpuPool(workers=1, max_waiting=2, processes=False)
        try:
            jobs = [asyncio.ensure_future(pool.run(f"k{i}", gate.wait, 5)) for i in range(3)]
            await asyncio.sleep(0.05)  # one running, two waiting
            with pytest.raises(BusyError):
                await pool.run("late", gate.wait, 5)
            gate.set()
            await asyncio.gather(*jobs)
            assert await pool.run("late", str, 1) == "1"
        finally:
            pool.shutdown()

    asyncio.run(main())


def test_the_pool_s_workers_are_processes_of_their_own_at_a_lower_priority() -> None:
    async def main() -> tuple[int, int]:
        pool = CpuPool()
        try:
            return await pool.run("k", os.getpid), await pool.run("k", os.nice, 0)
        finally:
            pool.shutdown()

    pid, nice = asyncio.run(main())
    assert pid != os.getpid()
    assert nice == os.nice(0) + WORKER_NICE


def test_a_worker_ends_when_its_server_is_killed() -> None:
    """``kill -9`` of a server process left its CPU worker running, idle, for ever."""
    program = (
        "import asyncio, os, sys, time\n"
        "from yahtzee.server.cpu import CpuPool\n"
        "pool = CpuPool()\n"
        "print(asyncio.run(pool.run('k', os.getpid)), flush=True)\n"
        "time.sleep(600)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        os.kill(worker, 0)  # alive
    finally:
        server.kill()
        server.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(worker, signal.SIGKILL)
    pytest.fail(f"the worker {worker} outlived its killed server")


def test_a_dead_worker_is_replaced(make_client: Callable[..., TestClient]) -> None:
    client = make_client(cpu_processes=True)
    pool: CpuPool = client.app.state.cpu  # type: ignore[attr-defined]
    game = Api(client).new()
    meter = f"/api/games/{game['id']}/meter"
    assert client.get(meter).status_code == 200

    async def kill_worker() -> None:
        pid = await pool.run("k", os.getpid)
        os.kill(pid, signal.SIGKILL)

    on_app_loop(client, kill_worker)
    answers = [client.get(meter).status_code for _ in range(2)]
    assert answers in ([503, 200], [200, 200])  # the job in flight, if any, is 503 busy
    assert client.get(meter).json()["expected_final"] == 254.59


def test_the_pool_s_threads_are_its_own() -> None:
    async def main() -> str:
        pool = CpuPool(processes=False)
        try:
            return await pool.run("k", lambda: threading.current_thread().name)
        finally:
            pool.shutdown()

    assert asyncio.run(main()).startswith("yahtzee-cpu")


@pytest.fixture
def blocked_reviews(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every review computation waits until the event is set (or 20 s)."""
    gate = threading.Event()
    real = jobs.compute_review

    def slow(*args: Any) -> Any:
        gate.wait(20)
        return real(*args)

    monkeypatch.setattr(jobs, "compute_review", slow)
    yield gate
    gate.set()


@pytest.fixture
def threaded(make_client: Callable[..., TestClient]) -> TestClient:
    """A client whose app runs its CPU jobs in threads, so that a test can patch them."""
    return make_client(cpu_processes=False)


def test_reviews_stuck_in_the_pool_do_not_hold_up_the_writes(
    threaded: TestClient, blocked_reviews: threading.Event
) -> None:
    """The attack: 24 concurrent reviews filled asyncio's default executor, which the
    group commit shares: a paced player's actions waited 1-2 s. Now reviews queue in the
    CPU pool; the actions' writes go on."""
    client = threaded
    api = Api(client)
    finished = [_play_to_end(api, api.new(replace=True)) for _ in range(2)]
    game = api.new(replace=True)
    svc = client.app.state.service  # type: ignore[attr-defined]
    reviews: ReviewService = client.app.state.reviews  # type: ignore[attr-defined]
    pool: CpuPool = client.app.state.cpu  # type: ignore[attr-defined]
    player = player_of(api.client)

    async def flood_then_play() -> int:
        floods = [
            asyncio.ensure_future(
                reviews.review(player, finished[i % 2]["id"], pool.jobs_of(f"attacker{i}"))
            )
            for i in range(24)
        ]
        await asyncio.sleep(0.1)
        assert not any(f.done() for f in floods)
        for _ in range(3):  # actions while the pool is stuck: each answered
            loaded = await asyncio.wait_for(svc.load(player, game["id"]), 10)
            if loaded.game.rolls_left == 0:
                break
            await asyncio.wait_for(
                svc.roll(player, game["id"], loaded.record.version, [False] * 5), 10
            )
        blocked_reviews.set()
        await asyncio.gather(*floods)
        return int((await svc.load(player, game["id"])).game.rolls_left)

    assert on_app_loop(client, flood_then_play) == 0


def test_a_review_is_computed_once_however_many_ask(
    threaded: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack: each of 24 concurrent requests for a just-finished vs game recomputed
    its review. Now they share one computation (single-flight), then the cache."""
    client = threaded
    api = Api(client)
    game = _play_to_end(api, api.new("vs_computer", "novice"))
    calls = []
    gate = threading.Event()
    real = jobs.compute_review

    def counted(*args: Any) -> Any:
        calls.append(args[1])
        gate.wait(20)
        return real(*args)

    monkeypatch.setattr(jobs, "compute_review", counted)
    reviews: ReviewService = client.app.state.reviews  # type: ignore[attr-defined]
    pool: CpuPool = client.app.state.cpu  # type: ignore[attr-defined]
    player = player_of(api.client)

    async def many() -> list[bytes]:
        asks = [
            asyncio.ensure_future(reviews.review(player, game["id"], pool.jobs_of(f"client{i}")))
            for i in range(24)
        ]
        await asyncio.sleep(0.1)
        gate.set()
        return list(await asyncio.gather(*asks))

    bodies = on_app_loop(client, many)
    assert calls == [game["id"]]
    assert len(set(bodies)) == 1
    r = api.client.get(f"/api/games/{game['id']}/review")
    assert r.content == bodies[0]
    assert calls == [game["id"]]  # (the cache)


# -- the stats ----------------------------------------------------------------------------


def test_the_stats_are_capped_and_incremental(
    threaded: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack: the stats analysed every finished game of the player on each cold
    request (1.3 s at 800 games). Now at most STATS_GAMES of the most recent, each game
    analysed once, and a new game adds one analysis."""
    monkeypatch.setattr(reviews_module, "STATS_GAMES", 3)
    analysed: list[int] = []
    real = jobs.summaries

    def counted(logs: list[Any]) -> Any:
        analysed.append(len(logs))
        return real(logs)

    monkeypatch.setattr(jobs, "summaries", counted)
    api = Api(threaded)
    games = [_play_to_end(api, api.new(replace=True)) for _ in range(4)]
    stats = api.client.get("/api/stats").json()
    assert stats["solo"]["games"] == 3
    totals = [g["players"]["human"]["total"] for g in games[1:]]
    assert stats["solo"]["mean"] == round(sum(totals) / 3, 2)
    assert sum(analysed) == 3
    assert api.client.get("/api/stats").json() == stats
    assert sum(analysed) == 3  # nothing new: nothing analysed
    games.append(_play_to_end(api, api.new(replace=True)))
    again = api.client.get("/api/stats").json()
    assert again["solo"]["games"] == 3
    assert sum(analysed) == 4  # one new game, one analysis
    totals = [g["players"]["human"]["total"] for g in games[2:]]
    assert again["solo"]["mean"] == round(sum(totals) / 3, 2)


def test_a_busy_pool_is_503_with_the_error_shape(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool: CpuPool = client.app.state.cpu  # type: ignore[attr-defined]
    monkeypatch.setattr(pool, "max_waiting", -1)  # (every job refused)
    r = client.get("/api/advice?dice=13356")
    assert (r.status_code, error_code(r)) == (503, "busy")
    assert r.headers["retry-after"] == "1"


# -- the routes that came after the budget: 练习, the daily challenge, groups -------------


def _flood(client: TestClient, method: str, path: str, **kw: Any) -> list[int]:
    """Send ``method path`` until the first 429 (at most 30 times): every status."""
    statuses = []
    for _ in range(30):
        r = client.request(method, path, **kw)
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert_rate_limited(r, 1)
            break
    return statuses


def test_a_flood_of_the_trainer_and_the_boards_is_429_after_the_budget(
    budgeted: Callable[..., TestClient], clock: Clock
) -> None:
    """练习 (next puzzle 2 units, answer 1, progress 2), the daily and group boards
    (today's status 1, a board 2, a group's page 4, its QR code 2) and a room's QR code
    (2): each flood passes the budget's 20 units, then 429 with Retry-After, nothing
    done; a second later it is back."""
    api = Api(budgeted())
    client = api.client
    _play_to_end(api, api.new())  # (the trainer imports its mistakes on the next puzzle)
    assert _flood(client, "GET", "/api/puzzles/next") == [200] * 10 + [429]
    clock.now += 1.0
    assert _flood(client, "GET", "/api/puzzles/progress") == [200] * 10 + [429]
    clock.now += 1.0
    # An answer is charged before it is looked at: 404 for a puzzle not served, still 1.
    assert _flood(client, "POST", "/api/puzzles/nope/answer", json={"keep": "stop"}) == (
        [404] * 20 + [429]
    )
    clock.now += 1.0
    day = client.get("/api/daily").json()["date"]
    assert _flood(client, "GET", "/api/daily") == [200] * 19 + [429]
    clock.now += 1.0
    assert _flood(client, "GET", f"/api/daily/{day}/leaderboard") == [200] * 10 + [429]
    clock.now += 1.0
    created = client.post("/api/groups", json={"name": "三年二班", "your_name": "王老师"})
    assert created.status_code == 201, created.text
    group = created.json()["group"]["id"]
    clock.now += 1.0
    assert _flood(client, "GET", f"/api/groups/{group}") == [200] * 5 + [429]
    clock.now += 1.0
    qr = _flood(client, "GET", f"/api/groups/{group}/qr.svg")
    assert qr == [200] * 10 + [429]
    clock.now += 1.0
    r = client.get(f"/api/groups/{group}/qr.svg")
    assert (r.status_code, r.headers["content-type"]) == (200, "image/svg+xml")
    assert r.content.startswith(b"<?xml")
    clock.now += 1.0
    seats = [{"kind": "human", "name": "房主"}, {"kind": "human"}]
    room = client.post("/api/rooms", json={"seats": seats}).json()["room"]
    assert _flood(client, "GET", room["qr_url"]) == [200] * 10 + [429]
    clock.now += 1.0
    r = client.get(room["qr_url"])
    assert (r.status_code, r.headers["content-type"]) == (200, "image/svg+xml")
    assert b"<svg" in r.content
    # The game actions keep their own limit: the player plays on meanwhile.
    assert api.roll(api.new(replace=True))["rolls_left"] == 2


def test_a_flood_of_my_devices_routes_is_429_after_the_budget(
    budgeted: Callable[..., TestClient], clock: Clock
) -> None:
    """我的设备 (I1-I4): the list 1 unit, a link code or a recovery code 3 (a QR code
    each), a link, a recovery or a removal 2, the export and the deletion 10; each
    charged before any work (a wrong code, a missing device, an unconfirmed deletion
    still pay)."""
    client = budgeted(max_code_tries_per_hour=0, max_link_codes_per_hour=0)
    client.get("/api/records")  # (a player: the first request of a browser is its address's)
    assert _flood(client, "GET", "/api/devices") == [200] * 20 + [429]
    clock.now += 1.0
    assert _flood(client, "POST", "/api/devices/code", json={}) == [201] * 6 + [429]
    clock.now += 1.0
    # (the first at once; the next ones replace it, asked without it: they wait, F20)
    assert _flood(client, "POST", "/api/devices/recovery", json={}) == [201] + [202] * 5 + [429]
    clock.now += 1.0
    wrong = {"code": "2222-2222"}
    assert _flood(client, "POST", "/api/devices/link", json=wrong) == [404] * 10 + [429]
    clock.now += 1.0
    wrong = {"code": "2222-2222-2222-2222-2222"}
    assert _flood(client, "POST", "/api/devices/recover", json=wrong) == [404] * 10 + [429]
    clock.now += 1.0
    missing = f"/api/devices/{'A' * 22}/remove"
    assert _flood(client, "POST", missing, json={}) == [404] * 10 + [429]
    clock.now += 1.0
    assert _flood(client, "GET", "/api/me/export") == [200] * 2 + [429]
    clock.now += 1.0
    assert _flood(client, "POST", "/api/me/delete", json={}) == [422] * 2 + [429]


def test_every_job_runs_in_a_worker_process(make_client: Callable[..., TestClient]) -> None:
    """The costly routes' jobs cross to the CPU pool's worker process and back (their
    arguments and results pickle): a meter, a review, the stats, advice, the trainer's
    next puzzle and grade, a group's and a room's QR code."""
    client = make_client(cpu_processes=True)
    api = Api(client)
    finished = _play_to_end(api, api.new())
    assert client.get(f"/api/games/{finished['id']}/review").status_code == 200
    assert client.get("/api/stats").json()["solo"]["games"] == 1
    assert client.get("/api/advice?dice=13356").status_code == 200
    puzzle = client.get("/api/puzzles/next").json()["puzzle"]
    assert puzzle["source"] == "mine"
    body = {"keep": "stop"} if puzzle["rolls_left"] else {"category": "chance"}
    graded = client.post(f"/api/puzzles/{puzzle['id']}/answer", json=body)
    assert graded.status_code in (200, 409), graded.text  # (409: not an option there)
    game = api.roll(api.new())
    assert client.get(f"/api/games/{game['id']}/meter").status_code == 200
    group = client.post("/api/groups", json={"name": "小组", "your_name": "我"}).json()
    assert client.get(f"/api/groups/{group['group']['id']}/qr.svg").status_code == 200
    seats = [{"kind": "human", "name": "房主"}, {"kind": "human"}]
    room = client.post("/api/rooms", json={"seats": seats}).json()["room"]
    assert client.get(room["qr_url"]).status_code == 200
    # 我的设备's QR codes (I1, I2)
    assert client.post("/api/devices/code", json={}).status_code == 201
    assert client.post("/api/devices/recovery", json={}).status_code == 201
    pool: CpuPool = client.app.state.cpu  # type: ignore[attr-defined]
    assert pool.processes
