"""我的设备 across server processes (I1, I3, F23): real servers on one PostgreSQL
database. A link code made on one process is redeemed on the other, and the game
continues on either; a device removed through one process is a stranger on the other
within ``--device-cache-seconds`` (its streams end and its sensitive requests are refused
at once); the guesses of a code are counted across both."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import NO_LIMIT_ARGS, EventStream, RawClient, ServerProcess, start_together

CACHE_SECONDS = 0.5

pytestmark = pytest.mark.parametrize("db", ["postgresql"], indirect=True)


@pytest.fixture
def servers(db: Path | str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two server processes on one fresh PostgreSQL database."""
    args = [
        "--secret-file",
        str(tmp_path / "cookie.secret"),
        "--device-cache-seconds",
        str(CACHE_SECONDS),
        *NO_LIMIT_ARGS,
    ]
    started = start_together(
        [ServerProcess(db, log=tmp_path / f"server{i}.log", args=args) for i in range(2)]
    )
    yield started
    for server in started:
        server.stop()


async def _json(client: RawClient, method: str, path: str, body: Any = None) -> Any:
    status, data = await client.raw(method, path, body)
    return status, (json.loads(data) if data else None)


def test_i1_a_code_made_on_one_process_is_redeemed_on_the_other(
    servers: list[ServerProcess],
) -> None:
    one, other = servers

    async def main() -> None:
        phone = RawClient("127.0.0.1", one.port)
        game = await phone.request("POST", "/api/games", {"mode": "solo"})
        game = await phone.request("POST", f"/api/games/{game['id']}/roll", {"version": 1})
        made = await phone.request("POST", "/api/devices/code", {})
        tablet = RawClient("127.0.0.1", other.port)
        linked = await tablet.request("POST", "/api/devices/link", {"code": made["code"]})
        assert linked["linked"] is True
        # the same player on the other process: the saved game, continued there
        current = await tablet.request("GET", "/api/games/current")
        assert (current["id"], current["version"]) == (game["id"], game["version"])
        body = {"version": current["version"], "hold": [True] * 4 + [False]}
        rolled = await tablet.request("POST", f"/api/games/{game['id']}/roll", body)
        seen = await phone.request("GET", f"/api/games/{game['id']}")
        assert seen["version"] == rolled["version"]
        # replayed on the first process: used
        stranger = RawClient("127.0.0.1", one.port)
        status, answer = await _json(stranger, "POST", "/api/devices/link", {"code": made["code"]})
        assert (status, answer["error"]["code"]) == (404, "invalid_code")
        # I3: the tablet removed through the first process: a stranger on the second
        listed = await phone.request("GET", "/api/devices")
        tablet_id = next(d["id"] for d in listed["devices"] if not d["this"])
        await phone.request("POST", f"/api/devices/{tablet_id}/remove", {})
        await asyncio.sleep(CACHE_SECONDS + 0.2)
        status, _ = await _json(tablet, "GET", f"/api/games/{game['id']}")
        assert status == 404
        records = await tablet.request("GET", "/api/records")
        assert records["games_played"] == 0
        for client in (phone, tablet, stranger):
            await client.close()

    asyncio.run(main())


def test_i1_guesses_are_counted_across_processes(servers: list[ServerProcess]) -> None:
    """10 tries an hour per address, every process together (the database's buckets)."""

    async def main() -> None:
        clients = [RawClient("127.0.0.1", s.port) for s in servers]
        started = time.monotonic()
        for n in range(10):
            client = clients[n % 2]
            status, answer = await _json(
                client, "POST", "/api/devices/link", {"code": f"3333-{n + 2}333"}
            )
            assert (status, answer["error"]["code"]) == (404, "invalid_code")
        for client in clients:
            status, answer = await _json(client, "POST", "/api/devices/link", {"code": "4444-4444"})
            assert (status, answer["error"]["code"]) == (429, "rate_limited")
        assert time.monotonic() - started < 60
        for client in clients:
            await client.close()

    asyncio.run(main())


@pytest.fixture
def slow_caches(db: Path | str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two server processes whose device caches believe an answer for a minute: only the
    revocation notice, or a read of the database, can tell one a device ended elsewhere."""
    args = [
        "--secret-file",
        str(tmp_path / "cookie.secret"),
        "--device-cache-seconds",
        "60",
        *NO_LIMIT_ARGS,
    ]
    started = start_together(
        [ServerProcess(db, log=tmp_path / f"server{i}.log", args=args) for i in range(2)]
    )
    yield started
    for server in started:
        server.stop()


async def _ends(stream: EventStream, within: float = 5.0) -> bool:
    """Whether the stream ends (the server closes it) within ``within`` seconds."""
    try:
        async with asyncio.timeout(within):
            while True:
                await stream.next(timeout=within)
    except (ConnectionResetError, asyncio.IncompleteReadError):
        return True
    except TimeoutError:
        return False


async def _games_of(db: Path | str, player: str) -> int:
    from yahtzee.storage import open_storage

    storage = open_storage(db)
    await storage.open()
    try:
        return (await storage.records(player)).games_played
    finally:
        await storage.close()


def test_f23_removal_and_deletion_end_streams_on_every_process_at_once(
    slow_caches: list[ServerProcess], db: Path | str
) -> None:
    """Issue 35 item 6: a removed device kept its room stream (a new joiner's name for up
    to 30 minutes), made a recovery code on the other process 0.17 s later, and after a
    deletion the other process wrote games under the deleted player's id. Now the
    platform's revocation notice (PostgreSQL NOTIFY) ends the device's streams on every
    process at once, and what could lock the owner out, or write, reads the database."""
    one, other = slow_caches

    async def main() -> None:
        phone = RawClient("127.0.0.1", one.port)
        await phone.request("POST", "/api/games", {"mode": "solo"})
        recovery = (await phone.request("POST", "/api/devices/recovery", {}))["code"]
        seats = [{"kind": "human", "name": "房主"}, {"kind": "human"}]
        room = (await phone.request("POST", "/api/rooms", {"seats": seats}))["room"]
        rid = room["id"]
        # the tablet, the same player on the other process, watches the room's stream
        tablet = RawClient("127.0.0.1", other.port)
        made = await phone.request("POST", "/api/devices/code", {})
        await tablet.request("POST", "/api/devices/link", {"code": made["code"]})
        await tablet.request("GET", f"/api/rooms/{rid}")
        stream = EventStream(
            "127.0.0.1", other.port, f"/api/rooms/{rid}/events", cookie=tablet.cookie
        )
        assert await stream.open() == 200
        await stream.next()
        listed = await phone.request("GET", "/api/devices")
        tablet_id = next(d["id"] for d in listed["devices"] if not d["this"])
        await phone.request("POST", f"/api/devices/{tablet_id}/remove", {"recovery_code": recovery})
        assert await _ends(stream), "the removed device's stream went on"
        await stream.close()
        # at once, on the other process: the removed device's recovery code is a stranger's
        status, body = await _json(tablet, "POST", "/api/devices/recovery", {})
        assert status == 201, body
        fresh = RawClient("127.0.0.1", one.port)
        await fresh.request("POST", "/api/devices/recover", {"code": body["code"]})
        assert (await fresh.request("GET", "/api/records"))["games_played"] == 0

        # deletion: the laptop's stream on the other process ends, and the laptop's next
        # games there are a stranger's, none under the deleted id
        laptop = RawClient("127.0.0.1", other.port)
        made = await phone.request("POST", "/api/devices/code", {})
        await laptop.request("POST", "/api/devices/link", {"code": made["code"]})
        player = (await laptop.request("GET", "/api/me/export"))["player_id"]
        watching = EventStream(
            "127.0.0.1", other.port, f"/api/rooms/{rid}/events", cookie=laptop.cookie
        )
        assert await watching.open() == 200
        await watching.next()
        await phone.request("POST", "/api/me/delete", {"confirm": True, "recovery_code": recovery})
        assert await _ends(watching), "the deleted player's stream went on"
        await watching.close()
        for _ in range(3):
            await laptop.request("POST", "/api/games", {"mode": "solo", "replace": True})
        assert await _games_of(db, player) == 0
        # kill -9 of the other process: this one's own removals still end its streams
        other.kill()
        survivor = RawClient("127.0.0.1", one.port)
        await survivor.request("POST", "/api/games", {"mode": "solo"})
        code = (await survivor.request("POST", "/api/devices/recovery", {}))["code"]
        room2 = (await survivor.request("POST", "/api/rooms", {"seats": seats}))["room"]
        second = RawClient("127.0.0.1", one.port)
        made = await survivor.request("POST", "/api/devices/code", {})
        await second.request("POST", "/api/devices/link", {"code": made["code"]})
        there = EventStream(
            "127.0.0.1", one.port, f"/api/rooms/{room2['id']}/events", cookie=second.cookie
        )
        assert await there.open() == 200
        await there.next()
        listed = await survivor.request("GET", "/api/devices")
        second_id = next(d["id"] for d in listed["devices"] if not d["this"])
        await survivor.request("POST", f"/api/devices/{second_id}/remove", {"recovery_code": code})
        assert await _ends(there)
        await there.close()
        for client in (phone, tablet, fresh, laptop, survivor, second):
            await client.close()

    asyncio.run(main())
