"""Double clicks and second tabs never act twice: 20 identical concurrent rolls."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import ServerProcess
from yahtzee import log
from yahtzee.errors import StaleVersionError
from yahtzee.game import Mode, Status
from yahtzee.server.game_view import from_log
from yahtzee.server.views import game_json
from yahtzee.storage import SQLiteStorage

N = 20


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A real server process (uvicorn) with its own database."""
    db = tmp_path_factory.mktemp("concurrency") / "games.db"
    with ServerProcess(db) as proc:
        yield proc


def _request(
    conn: http.client.HTTPConnection, method: str, path: str, cookie: str, body: Any = None
) -> tuple[int, Any]:
    headers = {"Cookie": cookie, "Content-Type": "application/json"}
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def test_20_concurrent_identical_rolls_exactly_one_succeeds(server: ServerProcess) -> None:
    setup = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    setup.request("GET", "/api/records")
    response = setup.getresponse()
    response.read()
    cookie = response.headers["set-cookie"].split(";", 1)[0]
    status, game = _request(setup, "POST", "/api/games", cookie, {"mode": "vs_computer"})
    assert status == 201
    status, game = _request(
        setup, "POST", f"/api/games/{game['id']}/roll", cookie, {"version": 1, "hold": [False] * 5}
    )
    assert status == 200

    # 20 connections opened beforehand; a barrier releases all the requests at once.
    conns = [http.client.HTTPConnection("127.0.0.1", server.port, timeout=30) for _ in range(N)]
    for conn in conns:
        conn.connect()
    barrier = threading.Barrier(N)
    results: list[tuple[int, Any]] = []
    lock = threading.Lock()
    body = {"version": game["version"], "hold": [True, False, True, False, False]}

    def click(conn: http.client.HTTPConnection) -> None:
        barrier.wait()
        result = _request(conn, "POST", f"/api/games/{game['id']}/roll", cookie, body)
        with lock:
            results.append(result)

    threads = [threading.Thread(target=click, args=(c,)) for c in conns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    ok = [r for status, r in results if status == 200]
    # The others are refused: stale (409), or, past a player's 20 actions a second, rate
    # limited (429, F5); either way nothing is applied twice.
    refused = [r for status, r in results if status in (409, 429)]
    assert len(ok) == 1
    assert len(refused) == N - 1
    assert {r["error"]["code"] for r in refused} <= {"stale_version", "rate_limited"}
    assert ok[0]["version"] == game["version"] + 1
    assert ok[0]["rolls_left"] == 1

    # The stored game equals the replay of its event log (read from the database file).
    status, current = _request(setup, "GET", f"/api/games/{game['id']}", cookie)
    assert current == ok[0]
    storage = SQLiteStorage(server.db)
    try:
        events = asyncio.run(storage.events(game["id"]))
        assert [e.kind for e in events] == ["start", "roll", "roll"]
        stored = asyncio.run(storage.get_game(game["id"]))
        assert stored is not None
        assert game_json(from_log(stored, events)) == current
    finally:
        asyncio.run(storage.close())


def test_compare_and_set_across_connections(tmp_path: Path) -> None:
    """Two storage objects (as two server processes would) racing on one game."""
    db = tmp_path / "cas.db"
    stores = [SQLiteStorage(db), SQLiteStorage(db)]
    game = asyncio.run(
        stores[0].create_game(
            game_id="g", player_id="p" * 32, mode=Mode.SOLO, difficulty=None, events=[_start()]
        )
    )
    barrier = threading.Barrier(N)
    wins: list[int] = []
    stale: list[int] = []

    def append(i: int) -> None:
        barrier.wait()
        try:
            asyncio.run(stores[i % 2].append(game, [log.RestartTurn()], status=Status.IN_PROGRESS))
            wins.append(i)
        except StaleVersionError:
            stale.append(i)

    threads = [threading.Thread(target=append, args=(i,)) for i in range(N)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (len(wins), len(stale)) == (1, N - 1)
    assert [e.kind for e in asyncio.run(stores[1].events("g"))] == ["start", "restart_turn"]
    for store in stores:
        asyncio.run(store.close())


def _start() -> log.Event:
    return log.Start.of(Mode.SOLO)
