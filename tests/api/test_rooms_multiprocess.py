"""好友房间 across server processes (O4): real servers on one PostgreSQL database, real
Server-Sent Events. An action acknowledged by one process reaches the streams held by the
other (LISTEN/NOTIFY); a stream that reconnects, to either process, with ``Last-Event-ID``
gets exactly what it missed, then the live events. With SQLite there is one process and
the fan-out is in memory: the single-process case runs on both backends."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import NO_LIMIT_ARGS, EventStream, RawClient, ServerProcess, start_together
from yahtzee.storage import is_postgres_url


@pytest.fixture
def servers(db: Path | str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two server processes on one fresh PostgreSQL database (one on SQLite)."""
    args = ["--secret-file", str(tmp_path / "cookie.secret"), *NO_LIMIT_ARGS]
    count = 2 if is_postgres_url(db) else 1
    started = start_together(
        [ServerProcess(db, log=tmp_path / f"server{i}.log", args=args) for i in range(count)]
    )
    yield started
    for server in started:
        server.stop()


def _token(url: str) -> str:
    return url.partition("#t=")[2]


async def _room(host: RawClient, friend: RawClient) -> dict[str, Any]:
    """A started room: ``host`` (seat 0) and ``friend`` (seat 1) and a novice computer."""
    seats = [
        {"kind": "human", "name": "房主"},
        {"kind": "human"},
        {"kind": "computer", "difficulty": "novice"},
    ]
    room = (await host.request("POST", "/api/rooms", {"seats": seats}))["room"]
    await friend.request(
        "POST",
        f"/api/rooms/{room['id']}/join",
        {"token": _token(room["invite_url"]), "name": "小明"},
    )
    started: dict[str, Any] = (await host.request("POST", f"/api/rooms/{room['id']}/start", {}))[
        "room"
    ]
    return started


async def _act(clients: dict[int, RawClient], game: dict[str, Any]) -> dict[str, Any]:
    """One action of the seat on turn, from its own browser."""
    client = clients[game["turn"]]
    if game["dice"] is None or game["rolls_left"] == 3:
        body = {"version": game["version"]}
        result: dict[str, Any] = await client.request("POST", f"/api/games/{game['id']}/roll", body)
        return result
    box = next(c for c, o in game["preview"].items() if o["allowed"])
    body2 = {"version": game["version"], "category": box, "confirm_zero": True}
    scored: dict[str, Any] = await client.request("POST", f"/api/games/{game['id']}/score", body2)
    return scored


async def _until_version(stream: EventStream, version: int) -> list[tuple[int, dict[str, Any]]]:
    """Events until one carries the game at ``version``."""
    got = []
    while True:
        event = await stream.next()
        got.append(event)
        game = event[1].get("game")
        if game is not None and game["version"] >= version:
            return got


def test_o4_an_action_on_one_process_reaches_the_other_and_a_reconnect_misses_nothing(
    servers: list[ServerProcess],
) -> None:
    first, last = servers[0], servers[-1]

    async def main() -> None:
        host = RawClient("127.0.0.1", first.port)
        friend = RawClient("127.0.0.1", last.port)
        room = await _room(host, friend)
        rid, game = room["id"], room["game"]
        clients = {0: host, 1: friend}
        # the friend watches on the *other* process, from the start of the room's log
        stream = EventStream(
            "127.0.0.1", last.port, f"/api/rooms/{rid}/events", cookie=friend.cookie
        )
        assert await stream.open() == 200
        replayed = [await stream.next() for _ in range(3)]
        assert [(i, d["kind"]) for i, d in replayed] == [(1, "created"), (2, "join"), (3, "start")]
        # the host acts on its process: each event reaches the friend's stream
        seen: list[tuple[int, dict[str, Any]]] = list(replayed)
        for _ in range(6):
            game = await _act(clients, game)
            seen += await _until_version(stream, game["version"])
        # the stream drops; meanwhile the game goes on
        await stream.close()
        missed_from = seen[-1][0]
        for _ in range(8):
            game = await _act(clients, game)
        # reconnect to the first process with Last-Event-ID: exactly what was missed, then live
        again = EventStream(
            "127.0.0.1",
            first.port,
            f"/api/rooms/{rid}/events",
            cookie=friend.cookie,
            last_event_id=missed_from,
        )
        assert await again.open() == 200
        resumed = await _until_version(again, game["version"])
        game = await _act(clients, game)
        resumed += await _until_version(again, game["version"])
        ids = [i for i, _ in seen + resumed]
        assert ids == list(range(1, len(ids) + 1))  # nothing lost, nothing twice, in order
        # the whole log from a fresh stream is the same events
        fresh = EventStream("127.0.0.1", first.port, f"/api/rooms/{rid}/events", cookie=host.cookie)
        assert await fresh.open() == 200
        everything = [await fresh.next() for _ in ids]
        assert everything == seen + resumed
        # a browser with no seat and no token gets no stream
        stranger = EventStream("127.0.0.1", first.port, f"/api/rooms/{rid}/events")
        assert await stranger.open() == 404
        # the watch link streams (read-only)
        watch = room["watch_url"].partition("#w=")[2]
        watcher = EventStream(
            "127.0.0.1", last.port, f"/api/rooms/{rid}/events?token={watch}", last_event_id=ids[-1]
        )
        assert await watcher.open() == 200
        game = await _act(clients, game)
        event_id, data = await watcher.next()
        assert event_id == ids[-1] + 1
        assert data["game"]["version"] == game["version"]
        for s in (again, fresh, stranger, watcher):
            await s.close()
        await host.close()
        await friend.close()

    asyncio.run(main())


def test_o3_a_forged_seat_action_on_either_process_is_refused(
    servers: list[ServerProcess],
) -> None:
    async def main() -> None:
        host = RawClient("127.0.0.1", servers[0].port)
        friend = RawClient("127.0.0.1", servers[-1].port)
        room = await _room(host, friend)
        game = room["game"]
        assert game["turn"] == 0
        for server in servers:
            forger = RawClient("127.0.0.1", server.port)
            forger.cookie = friend.cookie  # the friend's own browser, out of turn
            status, _ = await forger.raw(
                "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
            )
            assert status == 404
            await forger.close()
            outsider = RawClient("127.0.0.1", server.port)
            status, _ = await outsider.raw(
                "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
            )
            assert status == 404
            # a cookie of its own making (not signed by the server) is a new browser
            outsider.cookie = "yahtzee_player=" + "A" * 32
            status, _ = await outsider.raw(
                "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
            )
            assert status in (403, 404)
            await outsider.close()
        rolled = await host.request(
            "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
        )
        assert rolled["version"] == game["version"] + 1
        await host.close()
        await friend.close()

    asyncio.run(main())
