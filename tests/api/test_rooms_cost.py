"""What a room action costs the rooms' tables (issue 31 item 2: more actions per core), on
SQLite and PostgreSQL, and that the cheaper path keeps the log's guarantees (O4: ids dense
and in order, every event's room state right, whichever process wrote before).

A game action of a room logs its event by one statement, planned on the room as the
process last wrote it: no read of the room, no ``BEGIN``/``COMMIT`` on PostgreSQL. When
another process (an app of its own here) wrote in between, the write is refused by its
condition and the room is read again, so its plan is never made on a stale room."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fastapi.testclient import TestClient

from yahtzee.rooms.service import RoomService
from yahtzee.rooms.store import RoomEvent, RoomStore
from yahtzee.rooms.stream import RoomHub, sse_frame
from yahtzee.storage import run_coroutine
from yahtzee.storage.feature_db import FeatureDb, Params, Row, Tx, Work

from .helpers import on_app_loop

T = TypeVar("T")


class _CountingTx:
    """A transaction that writes down each statement it runs, with its parameters."""

    def __init__(self, tx: Tx, statements: list[tuple[str, Params]]) -> None:
        self._tx = tx
        self._statements = statements

    @property
    def dialect(self) -> str:
        return self._tx.dialect

    async def all(self, sql: str, params: Params = {}) -> list[Row]:  # noqa: B006 (never changed)
        self._statements.append((sql, params))
        return await self._tx.all(sql, params)

    async def one(self, sql: str, params: Params = {}) -> Row | None:  # noqa: B006
        self._statements.append((sql, params))
        return await self._tx.one(sql, params)

    async def many(self, sql: str, rows: Sequence[Params]) -> None:
        self._statements.extend((sql, row) for row in rows)
        await self._tx.many(sql, rows)

    async def pause(self) -> None:
        await self._tx.pause()


class CountingDb:
    """The rooms' database, writing down each call: its statements, and whether it ran
    as a single statement. (The app's sweeper reads too, twice a second: :meth:`of`
    keeps the calls about one room.)"""

    def __init__(self, db: FeatureDb) -> None:
        self.db = db
        self.dialect = db.dialect
        self.calls: list[tuple[bool, list[tuple[str, Params]]]] = []

    async def run(self, work: Work[T], *, write: bool = True, single: bool = False) -> T:
        statements: list[tuple[str, Params]] = []
        self.calls.append((single, statements))

        async def counted(tx: Tx) -> T:
            return await work(_CountingTx(tx, statements))

        if single:
            return await self.db.run(counted, write=write, single=True)
        return await self.db.run(counted, write=write)

    async def one(self, sql: str, params: Params = {}, *, write: bool = True) -> Row | None:  # noqa: B006
        self.calls.append((True, [(sql, params)]))
        return await self.db.one(sql, params, write=write)

    def relaxed(self) -> FeatureDb:
        return self

    def of(self, room_id: str) -> list[tuple[bool, list[str]]]:
        """The calls whose statements name room ``room_id``, with their statements."""
        return [
            (single, [sql for sql, _ in statements])
            for single, statements in self.calls
            if any(params.get("room") == room_id for _, params in statements)
        ]


def _reads(calls: list[tuple[bool, list[str]]]) -> list[str]:
    return [
        sql for _, statements in calls for sql in statements if sql.lstrip().startswith("SELECT")
    ]


def _rooms(client: TestClient) -> RoomService:
    svc: RoomService = client.app.state.rooms  # type: ignore[attr-defined]
    return svc


def _counted(client: TestClient) -> CountingDb:
    store = _rooms(client).store
    counting = CountingDb(store.db)
    store.db = counting
    return counting


def _act(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """The next action of the seat on turn (its first roll, or a box), from ``client``."""
    gid = game["id"]
    if game["dice"] is None or game["rolls_left"] == 3:
        r = client.post(f"/api/games/{gid}/roll", json={"version": game["version"]})
    else:
        box = next(c for c, o in game["preview"].items() if o["allowed"])
        body = {"version": game["version"], "category": box, "confirm_zero": True}
        r = client.post(f"/api/games/{gid}/score", json=body)
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def _log(client: TestClient, room_id: str) -> list[RoomEvent]:
    return on_app_loop(client, _rooms(client).store.events, room_id, 0)


def test_s5_a_room_action_is_logged_by_one_statement_without_reading_the_room(
    make_client: Callable[..., TestClient],
) -> None:
    """Before: every action read the room and its seats, then wrote, in a transaction of
    its own (PostgreSQL: BEGIN, two SELECTs, the write, COMMIT: five round trips)."""
    host = make_client()
    room = host.post(
        "/api/rooms",
        json={
            "seats": [
                {"kind": "human", "name": "房主"},
                {"kind": "computer", "difficulty": "novice"},
            ]
        },
    ).json()["room"]
    game = host.post(f"/api/rooms/{room['id']}/start", json={}).json()["room"]["game"]
    game = _act(host, game)  # (the game service reads the seats' browsers once)
    counting = _counted(host)
    actions = 0
    while actions < 12 and game["status"] == "in_progress":
        game = _act(host, game)
        actions += 1
    assert actions == 12
    calls = counting.of(room["id"])
    assert _reads(calls) == []
    assert len(calls) == actions  # one call to the database an action
    assert all(single for single, _ in calls)  # one statement each (no BEGIN/COMMIT)
    log = _log(host, room["id"])
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    assert [e.kind for e in log[-actions:]].count("roll") == 6  # a roll and a score a turn


def test_o4_an_event_written_elsewhere_in_between_is_planned_on_the_room_as_it_is_now(
    make_client: Callable[..., TestClient],
) -> None:
    """Two processes (apps) on one database: the host's knows the room as it wrote it; the
    friend's then marks the host away (托管) and reacts. The host's next action must see
    it: its ``back`` event is logged before its score, the ids stay dense."""
    host, friend = make_client(), make_client()
    created = host.post(
        "/api/rooms", json={"seats": [{"kind": "human", "name": "房主"}, {"kind": "human"}]}
    ).json()["room"]
    rid = created["id"]
    token = created["invite_url"].partition("#t=")[2]
    assert friend.post(f"/api/rooms/{rid}/join", json={"token": token, "name": "友"}).is_success
    game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    game = _act(host, game)  # the host's process wrote the room last: it knows it

    async def mark_away(store: RoomStore) -> RoomEvent:
        return await store.publish(rid, "away", {"seat": 0}, 0.0, away={0: True})

    on_app_loop(friend, mark_away, _rooms(friend).store)
    assert friend.post(f"/api/rooms/{rid}/react", json={"reaction": "nice"}).is_success

    game = _act(host, game)
    kinds = [e.kind for e in _log(host, rid)]
    assert kinds[-4:] == ["away", "reaction", "back", "score"]
    log = _log(host, rid)
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    seats = host.get(f"/api/rooms/{rid}").json()["room"]["seats"]
    assert seats[0]["away"] is False
    # the friend's turn: its process reads the room once, then knows it
    game = _act(friend, game)
    counting = _counted(friend)
    _act(friend, game)
    assert _reads(counting.of(rid)) == []


class _NoStore:
    """A hub's store that must not be read (the events here come whole)."""

    async def events(self, room_id: str, after: int, limit: int = 1000) -> list[RoomEvent]:
        raise AssertionError(f"read room {room_id} after {after} ({limit})")


def _payload(event: RoomEvent) -> str:
    return event.to_json()


def test_o4_a_process_skips_its_own_events_notification_and_frames_the_rest_as_sent() -> None:
    """The process that wrote an event delivers it at once; its own notification then
    costs no decoding and no frame (before: decoded, framed and queued again for every
    stream of the room here, each of which then skipped it). Another process's event is
    framed from the data's text as sent: the same bytes as encoding it again."""
    hub = RoomHub(_NoStore())  # type: ignore[arg-type]
    sub = hub.admit("ab" * 8)
    data = {"seat": 1, "game": {"dice": [1, 2, 3], "名": "小红", "x": 0.5}, "proxy": False}
    own = RoomEvent("ab" * 8, 5, "roll", data, None)
    hub.deliver(own)
    hub.notified(_payload(own))  # this process's own event, notified back
    other = RoomEvent("ab" * 8, 6, "score", {**data, "seat": 2})
    hub.notified(_payload(other))

    async def drain() -> list[tuple[RoomEvent, bytes]]:
        got = []
        for _ in range(2):
            item = await asyncio.wait_for(sub.get(), 1)
            assert item is not None
            got.append(item)
        return got

    got = run_coroutine(drain())
    assert [e.seq for e, _ in got] == [5, 6]
    assert got[1][1] == sse_frame(other)  # framed from the text, as encoding it again
    assert got[1][0].text is not None
    assert got[1][0].data == other.data
    # an event whose data has the frame's own keys is encoded whole
    clash = RoomEvent("ab" * 8, 7, "x", {"id": 1}, '{"id":1}')
    assert sse_frame(clash) == sse_frame(RoomEvent("ab" * 8, 7, "x", {"id": 1}))


def test_o9_keep_alives_go_out_in_slices_each_stream_once_a_round() -> None:
    """The keep-alives go out a slice of the rooms at a time (before: every stream of the
    process in one turn of the loop, ~40 ms with 800 streams, every 15 s): over one round
    of the slices each stream is pinged exactly once, a room's streams together, and no
    slice holds most of the streams."""
    hub = RoomHub(_NoStore())  # type: ignore[arg-type]
    rooms = [f"{n:016x}" for n in range(60)]
    subs = [hub.admit(room) for room in rooms for _ in range(4)]
    pinged: list[list[int]] = []
    for index in range(15):
        for sub in subs:
            sub.pinged = False
        hub.ping_slice(index, 15)
        pinged.append([n for n, sub in enumerate(subs) if sub.pinged])
    every = sorted(n for chunk in pinged for n in chunk)
    assert every == list(range(len(subs)))  # each once
    for chunk in pinged:
        assert len({subs[n].room_id for n in chunk}) * 4 == len(chunk)  # whole rooms
        assert len(chunk) < len(subs) / 2
    for sub in subs:
        sub.pinged = False
    hub.ping_slice(0)  # one slice: all of them
    assert all(sub.pinged for sub in subs)


class _Data(dict[str, Any]):
    """An event's data that can be watched with a weak reference."""


class _OneEventStore:
    """A room's log of one event (a game's start), decoded anew at each read, as the
    store's reads are."""

    def __init__(self) -> None:
        self.decoded: list[weakref.ref[_Data]] = []

    async def events(self, room_id: str, after: int, limit: int = 1000) -> list[RoomEvent]:
        if after >= 1 or limit < 1:
            return []
        data = _Data(game={"dice": [1, 2, 3, 4, 5], "seats": ["房主", "小明"] * 50})
        self.decoded.append(weakref.ref(data))
        return [RoomEvent(room_id, 1, "start", data)]


def test_o9_an_idle_stream_keeps_no_event_it_read_from_the_log() -> None:
    """A stream that sent the log's events and now waits for live ones holds none of
    them (each was read and decoded for it alone: a game's start is several KB, and an
    idle stream went from 26 to 34 KB with it; the live events are shared)."""
    store = _OneEventStore()
    hub = RoomHub(store)  # type: ignore[arg-type]
    sub = hub.admit("ab" * 8)

    async def main() -> None:
        frames = hub.frames("ab" * 8, 0, sub)
        event, frame = await frames.__anext__()
        assert event is not None
        assert event.kind == "start"
        assert frame.startswith(b"id: 1\n")
        del event, frame
        waiting = asyncio.ensure_future(frames.__anext__())
        await asyncio.sleep(0.01)  # (it now waits for a live event)
        assert not waiting.done()
        gc.collect()
        assert [ref() for ref in store.decoded] == [None]
        sub.close()
        with contextlib.suppress(StopAsyncIteration):
            await waiting

    run_coroutine(main())
