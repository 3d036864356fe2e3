"""F26: one line per refusal, and the PostgreSQL race of a merge and a new game (issue 35
item 9).

* A full CPU queue's ``busy`` refusal was logged as an unhandled error with a ~55-line
  traceback each (63 in 20 s): it is one warning line, at most one every 10 s, saying how
  many were refused.
* On PostgreSQL a link that merges two players (我的设备) racing the target player's new
  game gave a 500 (``UniqueViolation games_one_unfinished``) in 6 of 12 races: the check
  that the player has no unfinished game and the write that gives it one are two
  statements, and the merge does not take the new game's lock. Whichever comes second now
  gets the answer it would have had without the race: the new game 409
  ``game_in_progress`` naming the game the merge brought, the merge 409
  ``both_unfinished``. The races are played deterministically: another connection holds a
  row lock that stops the merge between its check and its write (or between its write
  and its commit) while the new game runs. SQLite has one writer at a time (the merge's
  check and write are one ``BEGIN IMMEDIATE`` transaction), so the same two orders run
  one after the other there, with the same answers.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee.server.cpu import CpuPool
from yahtzee.storage import is_postgres_url

from .helpers import Api, error_code
from .test_devices import browser, code_of, link, player_of


def test_f26_a_full_cpu_queue_is_one_log_line_not_a_traceback_per_refusal(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pool: CpuPool = client.app.state.cpu  # type: ignore[attr-defined]
    game = Api(client).new()
    monkeypatch.setattr(pool, "max_waiting", -1)  # (every job refused: the queue is full)
    with caplog.at_level(logging.INFO):
        for path in (f"/api/games/{game['id']}/meter", "/api/advice?dice=13356") * 5:
            r = client.get(path)
            assert (r.status_code, error_code(r)) == (503, "busy")
            assert r.headers["retry-after"] == "1"
    assert not [r for r in caplog.records if r.exc_info], "a refusal logged a traceback"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    busy = [r.getMessage() for r in caplog.records if "CPU queue" in r.getMessage()]
    assert len(busy) == 1, busy  # the first refusal; the next nine within the 10 s are counted
    assert "503 busy" in busy[0]


# -- the race of a merge and a new game --------------------------------------------------


@contextmanager
def _row_lock(url: str, sql: str, params: dict[str, Any]) -> Iterator[Callable[[int], None]]:
    """Another connection holding ``sql``'s row locks (``FOR UPDATE``) until the block ends;
    yields a function that waits until ``n`` statements of others wait for a lock."""
    import psycopg

    with psycopg.connect(url, autocommit=False) as holder, psycopg.connect(url) as watcher:
        watcher.autocommit = True
        assert holder.execute(sql, params).fetchall(), "nothing was locked"

        def waiting(n: int) -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                row = watcher.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()
                if row is not None and row[0] >= n:
                    return
                time.sleep(0.01)
            raise AssertionError(f"fewer than {n} statements ever waited for a lock")

        yield waiting
        holder.rollback()


def _in_thread(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Start ``fn`` in a thread; returns a function that waits for its result."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()

    def result() -> Any:
        thread.join(timeout=60)
        assert out, "the request did not finish"
        return out[0]

    return result


def _two_players(client: TestClient) -> tuple[TestClient, TestClient, dict[str, Any], str]:
    """``home`` (no unfinished game), ``school`` (an unfinished game, and home's link code)."""
    home, school = browser(client), browser(client)
    Api(home).play_to_end(Api(home).new())  # (home has games: a link must merge them)
    moved = Api(school).roll(Api(school).new())
    return home, school, moved, code_of(home)["code"]


def test_f26_a_merge_that_comes_second_to_a_new_game_is_409_both_unfinished(
    client: TestClient, db: Path | str
) -> None:
    home, school, moved, code = _two_players(client)
    if not is_postgres_url(db):
        started = home.post("/api/games", json={"mode": "solo"})
        assert started.status_code == 201
        r = link(school, code, merge=True)
    else:
        # the merge checks (only school has an unfinished game), then waits to move it
        lock = "SELECT 1 FROM games WHERE player_id = %(p)s FOR UPDATE"
        with _row_lock(str(db), lock, {"p": player_of(school)}) as waiting:
            merged = _in_thread(lambda: link(school, code, merge=True))
            waiting(1)
            started = home.post("/api/games", json={"mode": "solo"})  # meanwhile: home's game
            assert started.status_code == 201, started.text
        r = merged()
    assert (r.status_code, error_code(r)) == (409, "both_unfinished"), r.text
    # nothing of the merge was done: each keeps its own game, both go on
    assert school.get("/api/games/current").json()["id"] == moved["id"]
    assert home.get("/api/games/current").json()["id"] == started.json()["id"]
    assert player_of(home) != player_of(school)


def test_f26_a_new_game_that_comes_second_to_a_merge_is_409_game_in_progress(
    client: TestClient, db: Path | str
) -> None:
    home, school, moved, code = _two_players(client)
    if not is_postgres_url(db):
        assert link(school, code, merge=True).status_code == 200
        r = home.post("/api/games", json={"mode": "solo"})
    else:
        # the merge has moved school's game to home, not yet committed, when home's new
        # game looks for an unfinished game (none committed) and inserts its own
        lock = "SELECT 1 FROM link_codes WHERE player_id = %(p)s FOR UPDATE"
        with _row_lock(str(db), lock, {"p": player_of(home)}) as waiting:
            merged = _in_thread(lambda: link(school, code, merge=True))
            waiting(1)
            started = _in_thread(lambda: home.post("/api/games", json={"mode": "solo"}))
            waiting(2)
        assert merged().status_code == 200
        r = started()
    assert (r.status_code, error_code(r)) == (409, "game_in_progress"), r.text
    assert "单人挑战（第 1 回合）" in r.json()["error"]["message"]  # the game the merge brought
    current = home.get("/api/games/current").json()
    assert (current["id"], current["version"]) == (moved["id"], moved["version"])
    assert player_of(home) == player_of(school)
