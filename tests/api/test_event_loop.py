"""Issue 22.4: the event loop never waits on the database.

Another connection holds SQLite's write lock (``BEGIN IMMEDIATE``) for a few seconds, as
a second server process or a backup tool may. The action that needs the lock waits for
it (or, past the busy timeout, answers 503), but meanwhile every other request is served
at once: another player's ``GET``, ``/api/advice`` (which never touches the database), and
``/api/health``. Before, a read waited on the writer's lock on the event loop (3.4 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import ServerProcess
from yahtzee import log
from yahtzee.game import Mode, Status
from yahtzee.rooms import store as rooms_store
from yahtzee.rooms.store import RoomStore
from yahtzee.storage import GameRecord, SQLiteStorage, invites, migrate
from yahtzee.storage.base import Charge
from yahtzee.storage.feature_db import open_feature_db

HOLD_SECONDS = 3.0
# A request served while the lock is held: milliseconds when quiet; a generous bound for
# a busy shared machine, still well under the stall it replaces (the whole hold).
PROMPT_SECONDS = 1.0

START = log.Start.of(Mode.SOLO)
ROLL = log.Roll(0, (False,) * 5, (1, 2, 3, 4, 5))


@contextlib.contextmanager
def write_lock(db: Path) -> Iterator[sqlite3.Connection]:
    """Another connection holding the database's write lock until the block ends."""
    other = sqlite3.connect(db, isolation_level=None, timeout=10)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield other
    finally:
        if other.in_transaction:
            other.execute("ROLLBACK")
        other.close()


class Client:
    """One player: a keep-alive connection and a cookie."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.cookie = ""

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        """(status, JSON body, seconds taken)."""
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        began = time.perf_counter()
        self.conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = self.conn.getresponse()
        data = json.loads(response.read())
        took = time.perf_counter() - began
        cookie = response.headers.get("set-cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return response.status, data, took


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "games.db") as proc:
        yield proc


def test_22_4_a_held_write_lock_stalls_only_the_writes(server: ServerProcess) -> None:
    alice, bob = Client(server.port), Client(server.port)
    status, game, _ = alice.request("POST", "/api/games", {"mode": "solo"})
    assert status == 201
    status, bobs, _ = bob.request("POST", "/api/games", {"mode": "solo"})
    assert status == 201
    for player in (alice, bob):  # warm: connection, cookie, caches
        assert player.request("GET", "/api/advice?dice=13356")[0] == 200
    assert isinstance(server.db, Path)

    outcome: list[tuple[int, float]] = []

    def alice_rolls() -> None:
        body = {"version": game["version"], "hold": [False] * 5}
        status, _, took = alice.request("POST", f"/api/games/{game['id']}/roll", body)
        outcome.append((status, took))

    with write_lock(server.db):
        locked_at = time.monotonic()
        roller = threading.Thread(target=alice_rolls)
        roller.start()
        time.sleep(0.3)  # alice's roll is now waiting for the lock in the server
        took: dict[str, float] = {}
        answers: dict[str, Any] = {}

        def ask(name: str, path: str) -> None:
            asker = Client(server.port)
            asker.cookie = bob.cookie
            status, body, took[name] = asker.request("GET", path)
            answers[name] = (status, body)

        askers = [
            threading.Thread(target=ask, args=item)
            for item in (
                ("get", f"/api/games/{bobs['id']}"),
                ("advice", "/api/advice?dice=13356&rolls_left=1"),
                ("health", "/api/health"),
                ("records", "/api/records"),
            )
        ]
        for asker in askers:  # all at once, as several players would
            asker.start()
        for asker in askers:
            asker.join(timeout=30)
        assert max(took.values()) < PROMPT_SECONDS, (took, answers)
        assert all(status == 200 for status, _ in answers.values()), answers
        assert answers["get"][1]["version"] == bobs["version"]
        assert outcome == []  # (the roll was still waiting all along)
        # (the time gone by, not the sum of the asks' times: they ran at once)
        time.sleep(max(0.0, HOLD_SECONDS - (time.monotonic() - locked_at)))
    roller.join(timeout=30)
    ((status, roll_took),) = outcome
    assert status == 200  # the lock came back within the busy timeout: the roll went in
    assert roll_took > HOLD_SECONDS * 0.8


# -- every storage call, straight on the storage: the loop keeps ticking ---------------------


async def _max_gap(work: Awaitable[Any], *, release: Callable[[], None], after: float) -> float:
    """The longest the loop went without running a 10 ms ticker while ``work`` ran (the
    lock is given back ``after`` seconds in)."""
    loop = asyncio.get_running_loop()
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = loop.time()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = loop.time()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    loop.call_later(after, release)
    try:
        await work
    finally:
        done.set()
        await ticker
    return max(gaps)


def _calls(store: SQLiteStorage, game: GameRecord) -> dict[str, Callable[[], Awaitable[Any]]]:
    charge = Charge("new_games", "carol", 5, 60.0, time.time())
    return {
        "append": lambda: store.append(game, [ROLL], status=Status.IN_PROGRESS),
        "create_game": lambda: store.create_game(
            game_id="g2", player_id="dave", mode=Mode.SOLO, difficulty=None, events=[START]
        ),
        "take": lambda: store.take([charge]),
        "probe_write": store.probe_write,
        "prune_unplayed": lambda: store.prune_unplayed("2000-01-01T00:00:00+00:00"),
        "prune_buckets": lambda: store.prune_buckets(0.0),
        "register_process": lambda: store.register_process("p1", time.time(), 30.0),
        "unregister_process": lambda: store.unregister_process("p1"),
    }


@pytest.mark.parametrize(
    "call",
    [
        "append",
        "create_game",
        "take",
        "probe_write",
        "prune_unplayed",
        "prune_buckets",
        "register_process",
        "unregister_process",
    ],
)
def test_22_4_a_write_waiting_for_the_lock_does_not_hold_the_loop(
    tmp_path: Path, call: str
) -> None:
    """Each write waits for the lock in a worker thread; meanwhile reads answer at once."""
    db = tmp_path / "g.db"
    store = SQLiteStorage(db)

    async def run() -> tuple[float, float]:
        game = await store.create_game(
            game_id="g1", player_id="bob", mode=Mode.SOLO, difficulty=None, events=[START]
        )
        with write_lock(db) as other:
            write = asyncio.ensure_future(_calls(store, game)[call]())
            await asyncio.sleep(0.2)  # the write is waiting for the lock now
            began = time.perf_counter()
            # Reads while the write waits: they do not queue behind it.
            assert (await store.get_game("g1")) == game
            assert [e.kind for e in await store.events("g1")] == ["start"]
            assert (await store.current_game("bob")) == game
            assert (await store.records("bob")).games_played == 0
            read = time.perf_counter() - began
            gap = await _max_gap(write, release=other.rollback, after=1.0)
        await store.close()
        return read, gap

    read, gap = asyncio.run(run())
    assert read < PROMPT_SECONDS, read
    assert gap < 0.5, gap  # the loop ticked throughout the wait for the lock


def test_22_4_the_feature_tables_are_read_while_a_write_waits_for_the_lock(
    tmp_path: Path,
) -> None:
    """The rooms' (and daily's, groups') tables: a write waiting for the lock does not hold
    their reads, and the rooms' sweep takes no write lock when nothing is due (it runs
    twice a second in every process)."""
    db = tmp_path / "g.db"
    features = open_feature_db(db)
    rooms = RoomStore(features, b"s" * 32)

    async def run() -> tuple[bool, list[str]]:
        await migrate(db, [invites.MIGRATIONS, rooms_store.MIGRATIONS])
        with write_lock(db) as other:
            write = asyncio.ensure_future(
                features.run(lambda tx: tx.all("DELETE FROM rooms WHERE id = 'none'"))
            )
            await asyncio.sleep(0.2)  # the write waits for the lock now
            swept = await rooms.expire(time.time(), 60.0)  # nothing waiting: no write
            mine = await rooms.finished_seats_of("bob", 10)
            rooms_of = await rooms.rooms_of("bob")
            still_waiting = not write.done()  # the reads did not queue behind it
            other.rollback()
            await write
        await features.close()
        return still_waiting, [*map(str, swept), *map(str, mine[0]), *map(str, rooms_of)]

    still_waiting, found = asyncio.run(run())
    assert still_waiting
    assert found == []


def test_s5_a_serving_process_collects_its_young_objects_after_10_000(
    make_client: Callable[..., Any],
) -> None:
    """Issue 31: once serving, the start-up heap is frozen and the youngest generation is
    collected after 10,000 objects, not Python's 700 (at 700 the oldest generation was
    scanned every ~10 s under load, each scan stopping the loop for 50-120 ms)."""
    import gc

    from yahtzee.web.app import GC_THRESHOLDS

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        make_client()
        assert gc.get_threshold() == GC_THRESHOLDS == (10_000, 10, 10)
        assert gc.get_freeze_count() > 0
    finally:
        gc.set_threshold(*before)
