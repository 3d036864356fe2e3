"""好友房间 under attack (issue 28, F7-F10) on real servers: two processes on one PostgreSQL
database (one on SQLite), real Server-Sent Events from several client addresses on loopback
(127.0.0.x), and a process killed (``kill -9``) in the middle of a room's start.

The caps are given through the environment (``YAHTZEE_…``), which a server without them
ignores: the same tests run against the old code fail on what they check, not on a flag."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from server_process import NO_LIMIT_ARGS, EventStream, RawClient, ServerProcess, start_together
from yahtzee.storage import is_postgres_url

from .test_rooms_multiprocess import _act, _room

Servers = Callable[[dict[str, str]], list[ServerProcess]]

# The rate limits off, the stream caps left to the environment (a flag would win over it).
_at = NO_LIMIT_ARGS.index("--max-streams-per-address")
_RATES_OFF = NO_LIMIT_ARGS[:_at] + NO_LIMIT_ARGS[_at + 2 :]


@pytest.fixture
def make_servers(
    db: Path | str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Servers]:
    """Two server processes on one fresh PostgreSQL database (one on SQLite), started with
    these environment variables."""
    started: list[ServerProcess] = []

    def make(env: dict[str, str]) -> list[ServerProcess]:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        args = [
            "--secret-file",
            str(tmp_path / "cookie.secret"),
            *_RATES_OFF,
            "--max-rooms-per-hour-per-address",
            "0",
            # each process keeps its share of the caps of every process together: it
            # learns of the other at its next registration
            "--heartbeat-seconds",
            "0.5",
        ]
        count = 2 if is_postgres_url(db) else 1
        servers = [
            ServerProcess(db, log=tmp_path / f"server{i}.log", args=args) for i in range(count)
        ]
        started.extend(start_together(servers))
        time.sleep(1.5)  # three registrations: each process counts the other
        return servers

    yield make
    for server in started:
        server.stop()


def _share(limit: int, servers: list[ServerProcess]) -> int:
    return -(-limit // len(servers))


async def _browser(port: int, address: str = "127.0.0.1") -> RawClient:
    """A browser with its cookie (minted by its first request), from ``address``."""
    client = RawClient("127.0.0.1", port, local_addr=address)
    await client.request("GET", "/api/rooms")
    return client


async def _open(
    port: int, path: str, cookie: str | None, address: str = "127.0.0.1"
) -> tuple[int, EventStream]:
    stream = EventStream("127.0.0.1", port, path, cookie=cookie, local_addr=address)
    return await stream.open(), stream


async def _refusal(stream: EventStream) -> dict[str, Any]:
    """The error body of a refused stream (a JSON answer instead of events)."""
    assert stream._reader is not None
    body = await asyncio.wait_for(stream._reader.read(4096), 10)
    found: dict[str, Any] = json.loads(body.decode())["error"]
    return found


def test_f9_a_watcher_cannot_lock_the_players_out_and_caps_hold_per_cookie_and_address(
    make_servers: Servers,
) -> None:
    """The attacks: one watcher cookie opens every stream a room allows and its players get
    429; one cookie, or five cookies from one address, open streams without end."""
    servers = make_servers(
        {
            "YAHTZEE_MAX_ROOM_STREAMS": "2",
            "YAHTZEE_MAX_STREAMS_PER_PLAYER": "3",
            "YAHTZEE_MAX_STREAMS_PER_ADDRESS": "10",
        }
    )

    async def main() -> None:
        opened: list[EventStream] = []
        host = await _browser(servers[0].port)
        friend = await _browser(servers[-1].port)
        room = await _room(host, friend)
        rid = room["id"]
        watch = room["watch_url"].partition("#w=")[2]
        path = f"/api/rooms/{rid}/events"
        # a watcher cookie takes every watcher stream of the room on each process...
        watcher = await _browser(servers[0].port, "127.0.0.2")
        for server in servers:
            for _ in range(_share(2, servers)):
                status, stream = await _open(
                    server.port, f"{path}?token={watch}", watcher.cookie, "127.0.0.2"
                )
                assert status == 200
                opened.append(stream)
            status, refused = await _open(
                server.port, f"{path}?token={watch}", watcher.cookie, "127.0.0.2"
            )
            assert status == 429
            assert (await _refusal(refused))["code"] == "too_many_streams"
            await refused.close()
        # ...and the room's seat holders still get theirs, on every process
        for client in (host, friend):
            for server in servers:
                status, stream = await _open(server.port, path, client.cookie)
                assert status == 200, f"a seat holder got {status}"
                opened.append(stream)
        # a browser with the invite link is a watcher until it takes a seat (F18: any
        # number of cookies could open a stream with it, uncounted)
        newcomer = await _browser(servers[0].port, "127.0.0.5")
        invite = room["invite_url"].partition("#t=")[2]
        status, refused = await _open(
            servers[0].port, f"{path}?token={invite}", newcomer.cookie, "127.0.0.5"
        )
        assert status == 429
        assert (await _refusal(refused))["code"] == "too_many_streams"
        await refused.close()
        await newcomer.close()
        # one browser: 3 streams in a process, then 429 (the host holds one here already)
        for _ in range(2):
            status, stream = await _open(servers[0].port, path, host.cookie)
            assert status == 200
            opened.append(stream)
        status, refused = await _open(servers[0].port, path, host.cookie)
        assert status == 429
        error = await _refusal(refused)
        assert error["code"] == "too_many_streams"
        assert "页面太多" in error["message"]
        await refused.close()
        # one address: 10 streams over every process together, whatever its cookies
        share = _share(10, servers)
        for server in servers:
            for n in range(share + 1):
                someone = await _browser(server.port, "127.0.0.3")
                mine = await someone.request("POST", "/api/rooms", _seats_alone())
                status, stream = await _open(
                    server.port,
                    f"/api/rooms/{mine['room']['id']}/events",
                    someone.cookie,
                    "127.0.0.3",
                )
                if n < share:
                    assert status == 200
                    opened.append(stream)
                else:
                    assert status == 429
                    assert "网络" in (await _refusal(stream))["message"]
                    await stream.close()
                await someone.close()
        # another address is not concerned
        other = await _browser(servers[0].port, "127.0.0.4")
        mine = await other.request("POST", "/api/rooms", _seats_alone())
        status, stream = await _open(
            servers[0].port, f"/api/rooms/{mine['room']['id']}/events", other.cookie, "127.0.0.4"
        )
        assert status == 200
        opened.append(stream)
        # a stream that ends frees its place at once
        await opened[0].close()
        await asyncio.sleep(0.3)
        status, stream = await _open(
            servers[0].port, f"{path}?token={watch}", watcher.cookie, "127.0.0.2"
        )
        assert status == 200
        opened.append(stream)
        for s in opened:
            await s.close()
        for c in (host, friend, watcher, other):
            await c.close()

    asyncio.run(main())


def _seats_alone() -> dict[str, Any]:
    return {
        "seats": [{"kind": "human", "name": "我"}, {"kind": "computer", "difficulty": "novice"}]
    }


def test_f9_the_server_ends_a_stream_after_its_lifetime_and_a_reconnect_misses_nothing(
    make_servers: Servers,
) -> None:
    """A stream lasts ``--room-stream-minutes`` (here 1.8 s, less up to a tenth): the
    server ends it, the client reconnects with ``Last-Event-ID`` (to either process) and
    gets exactly what it missed meanwhile."""
    servers = make_servers({"YAHTZEE_ROOM_STREAM_MINUTES": "0.03"})

    async def main() -> None:
        host = await _browser(servers[0].port)
        friend = await _browser(servers[-1].port)
        room = await _room(host, friend)
        rid, game = room["id"], room["game"]
        clients = {0: host, 1: friend}
        stream = EventStream(
            "127.0.0.1", servers[-1].port, f"/api/rooms/{rid}/events", cookie=friend.cookie
        )
        assert await stream.open() == 200
        ids: list[int] = []
        versions: list[int] = []
        ends = 0
        began = time.monotonic()
        acting = True

        async def play() -> None:
            nonlocal game, acting
            for _ in range(12):
                game = await _act(clients, game)
                await asyncio.sleep(0.4)
            acting = False

        player = asyncio.create_task(play())
        while acting or not versions or versions[-1] < game["version"]:
            try:
                event_id, data = await stream.next(timeout=15)
            except ConnectionResetError:
                ends += 1
                stream.port = servers[ends % len(servers)].port  # either process
                assert await stream.reopen() == 200
                continue
            ids.append(event_id)
            if data.get("game"):
                versions.append(data["game"]["version"])
            assert time.monotonic() - began < 60
        await player
        assert ends >= 2, "the server never ended the stream"
        assert ids == list(range(1, len(ids) + 1))  # nothing lost, nothing twice, in order
        await stream.close()
        await host.close()
        await friend.close()

    asyncio.run(main())


async def _kinds_until_it_ends(stream: EventStream) -> list[str]:
    """The kinds of the events a stream still carries before the server ends it."""
    kinds: list[str] = []
    while True:
        try:
            kinds.append((await stream.next())[1]["kind"])
        except ConnectionResetError:
            return kinds
        assert len(kinds) < 5, f"the stream did not end: {kinds}"


def test_f7_f8_renewed_links_and_a_removal_end_the_streams_they_no_longer_open(
    make_servers: Servers,
) -> None:
    """A watcher of the old link, or the browser the creator removed, keeps no stream: the
    room's streams end after the ``links``/``leave`` event (on every process) and each
    reconnects, checked again: 404 for the old link, 403 for the removed browser."""
    servers = make_servers({})

    async def main() -> None:
        host = await _browser(servers[0].port)
        friend = await _browser(servers[-1].port)
        seats = {"seats": [{"kind": "human", "name": "房主"}, {"kind": "human"}]}
        room = (await host.request("POST", "/api/rooms", seats))["room"]
        rid = room["id"]
        invite = room["invite_url"].partition("#t=")[2]
        watch = room["watch_url"].partition("#w=")[2]
        await friend.request("POST", f"/api/rooms/{rid}/join", {"token": invite, "name": "甲"})
        path = f"/api/rooms/{rid}/events"
        watcher = EventStream("127.0.0.1", servers[-1].port, f"{path}?token={watch}")
        seated = EventStream("127.0.0.1", servers[-1].port, path, cookie=friend.cookie)
        host_stream = EventStream("127.0.0.1", servers[-1].port, path, cookie=host.cookie)
        for s in (watcher, seated, host_stream):
            assert await s.open() == 200
            assert [(await s.next())[1]["kind"] for _ in range(2)] == ["created", "join"]
        await host.request("POST", f"/api/rooms/{rid}/links", {})
        for s in (watcher, seated, host_stream):
            assert (await s.next())[1]["kind"] == "links"
            with pytest.raises(ConnectionResetError):
                await s.next()
        assert await watcher.reopen() == 404  # the old link opens nothing
        assert await seated.reopen() == 200  # a seat holder is back at once
        assert await host_stream.reopen() == 200
        await host.request("POST", f"/api/rooms/{rid}/remove", {"seat": 1})
        assert (await seated.next())[1]["kind"] == "leave"
        # F27: a removal renews the room's links too; the stream ends after that event at
        # the latest (the two are delivered together).
        assert await _kinds_until_it_ends(seated) in ([], ["links"])
        assert await seated.reopen() == 403  # removed: out of the room
        assert (await host_stream.next())[1]["kind"] == "leave"
        for s in (watcher, seated, host_stream):
            await s.close()
        await host.close()
        await friend.close()

    asyncio.run(main())


async def _status(client: RawClient, room_id: str) -> str:
    room = await client.request("GET", f"/api/rooms/{room_id}")
    status: str = room["room"]["status"]
    return status


def test_f10_a_start_whose_process_is_killed_midway_recovers_on_the_other_process(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack's recipe: a slow database (the games table locked) holds the start
    between its claim and its game; the process that claimed it is killed. The other
    process's sweep resolves the claim once ``--room-start-timeout`` (here 2 s) has passed:
    back to ``waiting`` (or on to ``playing`` if the game got stored after all), and the
    room is played."""
    monkeypatch.setenv("YAHTZEE_ROOM_START_TIMEOUT", "2")
    args = ["--secret-file", str(tmp_path / "cookie.secret"), *NO_LIMIT_ARGS]
    servers = start_together(
        [ServerProcess(pg_url, log=tmp_path / f"server{i}.log", args=args) for i in range(2)]
    )
    doomed, survivor = servers

    async def main() -> None:
        host = await _browser(doomed.port)
        friend = await _browser(survivor.port)
        seats = {"seats": [{"kind": "human", "name": "房主"}, {"kind": "human"}]}
        room = (await host.request("POST", "/api/rooms", seats))["room"]
        rid = room["id"]
        invite = room["invite_url"].partition("#t=")[2]
        await friend.request("POST", f"/api/rooms/{rid}/join", {"token": invite, "name": "甲"})
        there = RawClient("127.0.0.1", survivor.port)
        there.cookie = host.cookie  # the host's browser, served by the other process
        with psycopg.connect(pg_url) as lock:
            lock.execute("LOCK TABLE games IN ACCESS EXCLUSIVE MODE")
            start = asyncio.create_task(host.raw("POST", f"/api/rooms/{rid}/start", {}))
            for _ in range(200):
                if await _status(there, rid) == "starting":
                    break
                await asyncio.sleep(0.1)
            assert await _status(there, rid) == "starting"
            doomed.kill()  # between the claim and the stored game
            lock.rollback()
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            await start
        status = "starting"
        for _ in range(300):  # the timeout, then a sweep (twice a second)
            status = await _status(there, rid)
            if status != "starting":
                break
            await asyncio.sleep(0.1)
        assert status in ("waiting", "playing"), status
        if status == "waiting":
            started = await there.request("POST", f"/api/rooms/{rid}/start", {})
            assert started["room"]["status"] == "playing"
        game = (await there.request("GET", f"/api/rooms/{rid}"))["room"]["game"]
        rolled = await there.request(
            "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
        )
        assert rolled["version"] == game["version"] + 1
        for c in (host, friend, there):
            await c.close()

    try:
        asyncio.run(main())
    finally:
        for server in servers:
            server.stop()
