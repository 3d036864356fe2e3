"""Several server processes on one database: one truth (S1), crashes lose nothing (F6).

Real ``python -m yahtzee.server`` processes on PostgreSQL (the session's throw-away
cluster) and, where the point is the same, on one SQLite file.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import (
    NO_LIMIT_ARGS,
    HttpError,
    RawClient,
    ServerProcess,
    SimPlayer,
    check_log,
    child_pids,
    play,
    start_together,
)
from yahtzee.storage.pgcluster import TempCluster

NO_HOLD = [False] * 5


# The simulated players act at machine speed, which the rate limits (F5) exist to refuse:
# these servers run without them. They share one cookie secret, as configured in a
# deployment (S1).
def _options(directory: Path) -> list[str]:
    return ["--secret-file", str(directory / "cookie.secret"), *NO_LIMIT_ARGS]


def _servers(db: Path | str, logs: Path, n: int = 2) -> list[ServerProcess]:
    return start_together(
        [ServerProcess(db, log=logs / f"server{i}.log", args=_options(logs)) for i in range(n)]
    )


@pytest.fixture
def two_servers(db: Path | str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two server processes on one fresh database (SQLite file or PostgreSQL)."""
    servers = _servers(db, tmp_path)
    yield servers
    for server in servers:
        server.stop()


async def _client_pair(servers: list[ServerProcess]) -> tuple[RawClient, RawClient]:
    """One browser's two connections, one to each server, sharing its cookie."""
    a = RawClient("127.0.0.1", servers[0].port)
    b = RawClient("127.0.0.1", servers[1].port)
    await a.request("GET", "/api/records")  # mints the player id and its cookie
    b.cookie = a.cookie
    return a, b


def test_s1_a_game_alternated_between_two_servers(two_servers: list[ServerProcess]) -> None:
    """Each action goes to the other server; each shows what the other acknowledged."""

    async def main() -> None:
        a, b = await _client_pair(two_servers)
        game: dict[str, Any] = await a.request("POST", "/api/games", {"mode": "vs_computer"})
        clients = [b, a]
        for step in range(30):
            here, there = clients[step % 2], clients[(step + 1) % 2]
            # What the other server acknowledged last is what this one shows now.
            assert await here.request("GET", f"/api/games/{game['id']}") == game
            if game["dice"] is None or (game["rolls_left"] and step % 3):
                game = await here.request(
                    "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
                )
            else:
                allowed = [c for c, o in game["preview"].items() if o["allowed"]]
                body = {"version": game["version"], "category": allowed[0], "confirm_zero": True}
                game = await here.request("POST", f"/api/games/{game['id']}/score", body)
            assert await there.request("GET", f"/api/games/{game['id']}") == game
        # An action on a version the other server already moved past is refused.
        stale = {"version": game["version"] - 1}
        with pytest.raises(HttpError) as info:
            await a.request("POST", f"/api/games/{game['id']}/roll", stale)
        assert info.value.status == 409
        await a.close()
        await b.close()

    asyncio.run(main())


def test_s1_20_identical_rolls_split_across_two_servers_apply_once(
    two_servers: list[ServerProcess],
) -> None:
    async def setup() -> tuple[str, dict[str, Any]]:
        a, b = await _client_pair(two_servers)
        game = await a.request("POST", "/api/games", {"mode": "solo"})
        game = await a.request("POST", f"/api/games/{game['id']}/roll", {"version": 1})
        # Both servers have the position cached at this version (a read on each).
        await b.request("GET", f"/api/games/{game['id']}")
        await a.close()
        await b.close()
        assert a.cookie is not None
        return a.cookie, game

    cookie, game = asyncio.run(setup())
    body = {"version": game["version"], "hold": [True, True, False, False, False]}
    barrier = threading.Barrier(20)
    results: list[tuple[int, bytes]] = []
    lock = threading.Lock()

    def click(i: int) -> None:
        async def one() -> tuple[int, bytes]:
            client = RawClient("127.0.0.1", two_servers[i % 2].port)
            client.cookie = cookie
            await client.request("GET", "/api/health")  # connect before the barrier
            barrier.wait()
            try:
                return await client.raw("POST", f"/api/games/{game['id']}/roll", body)
            finally:
                await client.close()

        result = asyncio.run(one())
        with lock:
            results.append(result)

    threads = [threading.Thread(target=click, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] + [409] * 19
    assert all(b"stale_version" in data for status, data in results if status == 409)

    async def after() -> None:
        for server in two_servers:
            client = RawClient("127.0.0.1", server.port)
            client.cookie = cookie
            shown = await client.request("GET", f"/api/games/{game['id']}")
            assert shown["version"] == game["version"] + 1
            assert shown["rolls_left"] == game["rolls_left"] - 1
            await client.close()

    asyncio.run(after())


async def _burst(
    players: list[SimPlayer], ports: list[int], seconds: float, during: Any = None
) -> None:
    """``players`` play on ``ports`` (each request to the next server) for ``seconds``;
    ``during()`` runs in a thread halfway through (the crash)."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(play(p, stop, ports, resilient=True)) for p in players]
    await asyncio.sleep(seconds / 2)
    if during is not None:
        await asyncio.to_thread(during)
    await asyncio.sleep(seconds / 2)
    stop.set()
    await asyncio.gather(*tasks)


def test_f6_kill_9_of_one_server_mid_burst_the_other_keeps_serving(
    db: Path | str, tmp_path: Path
) -> None:
    servers = _servers(db, tmp_path)
    try:
        players = [SimPlayer(seed=i) for i in range(8)]
        ports = [s.port for s in servers]
        acked_at_kill: list[int] = []

        def kill_one() -> None:
            servers[0].kill()
            acked_at_kill.append(sum(p.actions for p in players))

        asyncio.run(_burst(players, ports, 3.0, kill_one))
        acked = sum(p.actions for p in players)
        assert acked_at_kill
        assert acked > acked_at_kill[0]  # the survivor kept serving
        checked, problems = asyncio.run(check_log(db, players))
        assert checked == acked
        assert problems == []
    finally:
        for server in servers:
            server.stop()


def test_f6_kill_9_of_the_postmaster_mid_burst_loses_nothing_and_servers_reconnect(
    tmp_path: Path,
) -> None:
    """PostgreSQL dies with requests in flight and comes back: the app processes were
    not restarted, yet they serve again, and every acknowledged action is in the log."""
    with TempCluster(durable=False) as cluster:
        url = cluster.create_database("crash")
        servers = _servers(url, tmp_path)
        try:
            players = [SimPlayer(seed=100 + i) for i in range(8)]
            ports = [s.port for s in servers]
            acked_before: list[int] = []

            def crash_and_restart() -> None:
                cluster.kill()
                acked_before.append(sum(p.actions for p in players))
                cluster.start()

            asyncio.run(_burst(players, ports, 4.0, crash_and_restart))
            acked = sum(p.actions for p in players)
            assert acked > acked_before[0], "no action was acknowledged after the restart"
            assert all(s.proc is not None and s.proc.poll() is None for s in servers)
            checked, problems = asyncio.run(check_log(url, players))
            assert checked == acked
            assert problems == []
        finally:
            for server in servers:
                server.stop()


def test_s1_serve_workers_n_runs_n_processes_on_one_database(pg_url: str, tmp_path: Path) -> None:
    """``--workers 2``: two processes behind one port, one game across both."""
    args = ["--workers", "2", *_options(tmp_path)]
    with ServerProcess(pg_url, log=tmp_path / "workers.log", args=args) as server:
        assert server.proc is not None
        workers = child_pids(server.proc.pid)
        assert len(workers) >= 2

        async def main() -> None:
            clients = [RawClient("127.0.0.1", server.port) for _ in range(4)]
            await clients[0].request("GET", "/api/records")  # mints the cookie
            for client in clients[1:]:
                client.cookie = clients[0].cookie
            game: dict[str, Any] = await clients[0].request("POST", "/api/games", {"mode": "solo"})
            for i in range(12):  # new connections land on either worker
                client = clients[i % 4]
                assert await client.request("GET", f"/api/games/{game['id']}") == game
                if game["rolls_left"]:
                    game = await client.request(
                        "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
                    )
                else:
                    allowed = [c for c, o in game["preview"].items() if o["allowed"]]
                    body = {
                        "version": game["version"],
                        "category": allowed[0],
                        "confirm_zero": True,
                    }
                    game = await client.request("POST", f"/api/games/{game['id']}/score", body)
                await client.close()  # the next request reconnects: any worker
            for client in clients:
                await client.close()

        asyncio.run(main())
