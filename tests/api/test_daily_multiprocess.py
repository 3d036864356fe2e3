"""One attempt a day across server processes (D2): two real servers on one database."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import NO_LIMIT_ARGS, HttpError, RawClient, ServerProcess, start_together


@pytest.fixture
def two_servers(db: Path | str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two server processes on one fresh database (SQLite file or PostgreSQL)."""
    args = ["--secret-file", str(tmp_path / "cookie.secret"), *NO_LIMIT_ARGS]
    servers = start_together(
        [ServerProcess(db, log=tmp_path / f"server{i}.log", args=args) for i in range(2)]
    )
    yield servers
    for server in servers:
        server.stop()


async def _browser(servers: list[ServerProcess]) -> tuple[RawClient, RawClient]:
    """One browser's connections to each server, sharing its cookie."""
    a = RawClient("127.0.0.1", servers[0].port)
    b = RawClient("127.0.0.1", servers[1].port)
    await a.request("PUT", "/api/daily/name", {"name": "小明"})
    b.cookie = a.cookie
    return a, b


async def _play_out(clients: list[RawClient], game: dict[str, Any]) -> dict[str, Any]:
    step = 0
    while game["status"] == "in_progress":
        here = clients[step % 2]
        step += 1
        if game["dice"] is None:
            game = await here.request(
                "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
            )
            continue
        box = next(c for c, o in game["preview"].items() if o["allowed"])
        game = await here.request(
            "POST",
            f"/api/games/{game['id']}/score",
            {"version": game["version"], "category": box, "confirm_zero": True},
        )
    return game


def test_d2_a_second_attempt_is_refused_on_the_other_process(
    two_servers: list[ServerProcess],
) -> None:
    async def main() -> None:
        a, b = await _browser(two_servers)
        game = await a.request("POST", "/api/daily", {})
        continued = await b.request("POST", "/api/daily", {})  # in progress: continued
        assert continued["id"] == game["id"]
        final = await _play_out([b, a], game)
        assert final["status"] == "finished"
        for client in (a, b):
            with pytest.raises(HttpError) as refused:
                await client.request("POST", "/api/daily", {})
            assert refused.value.status == 409
            assert json.loads(refused.value.body)["error"]["code"] == "already_played"
        status = await b.request("GET", "/api/daily")
        assert status["status"] == "finished"
        assert status["result"]["score"] == final["players"]["human"]["total"]
        # the day's dice and the expert's game agree on both processes
        other = await a.request("GET", "/api/daily")
        assert other["result"] == status["result"]
        for client in (a, b):
            await client.close()

    asyncio.run(main())


def test_d2_two_racing_starts_on_two_processes_make_one_game(
    two_servers: list[ServerProcess],
) -> None:
    async def main() -> None:
        for _ in range(5):  # five browsers, each starting on both processes at once
            a, b = await _browser(two_servers)
            answers = await asyncio.gather(
                a.raw("POST", "/api/daily", {}), b.raw("POST", "/api/daily", {})
            )
            statuses = sorted(status for status, _ in answers)
            assert statuses == [200, 201], answers
            ids = {json.loads(body)["id"] for _, body in answers}
            assert len(ids) == 1
            for client in (a, b):
                await client.close()

    asyncio.run(main())
