"""我的设备 across server processes (I1, I3): real servers on one PostgreSQL database. A
link code made on one process is redeemed on the other, and the game continues on
either; a device removed through one process is a stranger on the other within
``--device-cache-seconds``; the guesses of a code are counted across both."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import NO_LIMIT_ARGS, RawClient, ServerProcess, start_together

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
