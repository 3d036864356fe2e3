"""Old databases keep every game: a log stored by the server of commit 339df8a (seats as
``"human"``/``"computer"``, hints with their advice, legacy ``restart_turn`` events, an
``abandon``) replays to exactly what that server showed.

``tests/fixtures/legacy_main.sqlite`` was written by that server through its HTTP API
(``tests/fixtures/make_legacy_db.py``) and ``legacy_main.json`` holds what it answered
then: each game, its review (or the refusal), each player's records and stats. Here the
same database is served by today's code (SQLite: a copy of the file; PostgreSQL: its rows
copied verbatim into a fresh database), nothing cached, and every answer must be equal.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee.storage import is_postgres_url

from .helpers import TEST_SECRET, Api
from .old_schema import postgres_at

# The tests put an old schema into the database before the app opens it (tests/conftest.py).
pytestmark = pytest.mark.empty_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOLDEN: dict[str, Any] = json.loads((FIXTURES / "legacy_main.json").read_text())
COLUMNS = (
    "id, player_id, mode, difficulty, status, version, created_at, updated_at, "
    "finished_at, result, human_total, computer_total, new_record"
)


def _copy_into_postgres(url: str) -> None:
    """The fixture's games and events rows, byte for byte, into ``url`` at the fixture's
    schema level (3: PostgreSQL's migrations 1 and 2), which the server then migrates."""
    import psycopg

    source = sqlite3.connect(FIXTURES / "legacy_main.sqlite")
    games = source.execute(f"SELECT {COLUMNS} FROM games").fetchall()
    events = source.execute("SELECT game_id, seq, kind, data, created_at FROM events").fetchall()
    source.close()
    holders = ", ".join(["%s"] * 13)
    postgres_at(url, 3)
    with psycopg.connect(url) as conn:
        conn.cursor().executemany(
            f"INSERT INTO games ({COLUMNS}) VALUES ({holders})",
            [(*g[:12], None if g[12] is None else bool(g[12])) for g in games],
        )
        conn.cursor().executemany(
            "INSERT INTO events (game_id, seq, kind, data, created_at) VALUES (%s, %s, %s, %s, %s)",
            events,
        )


@pytest.fixture
def legacy(db: Path | str, tmp_path: Path) -> Path | str:
    """The legacy database on this backend (not yet opened by a server)."""
    if is_postgres_url(db):
        _copy_into_postgres(str(db))
        return db
    copy = tmp_path / "legacy.sqlite"
    shutil.copyfile(FIXTURES / "legacy_main.sqlite", copy)
    return copy


# Fields the game JSON gained after the fixture was written, with their value for every old
# game: exactly these, so any other change to what an old game shows still fails.
ADDED_SINCE = {
    "daily": None,  # issue 20: the day a daily-challenge game belongs to
    "undo": None,  # issue 21: the box that may be taken back (none in an old game)
}
# T2: every game's one shape, added to every old game's JSON (their values depend on the game).
SEAT_FIELDS = {"seats", "turn", "computer_turns", "ranking"}
# K2: what the game is; an old solo or vs game is of its mode's kind (the migration's).
KIND_FIELDS = {"kind"}


def _kept(now: Any, then: Any) -> bool:
    """Whether ``now`` shows everything ``then`` did, unchanged: the same values, with
    only new object fields added (T2, T6: every game gained ``seats``/``turn``/…, which
    nothing that read the old fields notices)."""
    if isinstance(then, dict):
        return isinstance(now, dict) and all(k in now and _kept(now[k], v) for k, v in then.items())
    if isinstance(then, list):
        return (
            isinstance(now, list)
            and len(now) == len(then)
            and all(_kept(a, b) for a, b in zip(now, then, strict=True))
        )
    return bool(now == then)


def _browser(make_client: Callable[..., TestClient], db: Path | str, player: str) -> Api:
    api = Api(make_client(db=db, secret=TEST_SECRET))
    api.client.cookies.set("yahtzee_player", GOLDEN["players"][player]["cookie"])
    return api


def test_every_game_of_an_old_database_shows_as_it_did(
    legacy: Path | str, make_client: Callable[..., TestClient]
) -> None:
    apis = {number: _browser(make_client, legacy, number) for number in GOLDEN["players"]}
    assert len(GOLDEN["games"]) == 8
    for name, then in GOLDEN["games"].items():
        api = apis[str(then["player"])]
        now = api.get(then["id"])
        assert _kept(now, then["game"]), name
        assert set(now) - set(then["game"]) == {*ADDED_SINCE, *SEAT_FIELDS, *KIND_FIELDS}, name
        assert {k: now[k] for k in ADDED_SINCE} == ADDED_SINCE, name
        assert now["kind"] == now["mode"], name
        r = api.client.get(f"/api/games/{then['id']}/review")
        assert r.status_code == then["review"]["status"], name
        assert _kept(r.json(), then["review"]["body"]), name
    for number, then in GOLDEN["players"].items():
        client = apis[number].client
        assert _kept(client.get("/api/records").json(), then["records"]), number
        assert _kept(client.get("/api/stats").json(), then["stats"]), number


def test_old_games_in_progress_play_on(
    legacy: Path | str, make_client: Callable[..., TestClient]
) -> None:
    """The legacy in-progress games take new actions (whose events are the new shape) and
    then still replay, old and new events together."""
    for name in ("vs_in_progress_after_hint", "solo_in_progress_restart_turn"):
        then = GOLDEN["games"][name]
        api = _browser(make_client, legacy, str(then["player"]))
        game = api.get(then["id"])
        hold = [True, False, True, False, False] if game["dice"] else [False] * 5
        game = api.play_to_end(api.roll(game, hold))
        assert game["status"] == "finished"
        later = _browser(make_client, legacy, str(then["player"]))  # nothing cached
        assert later.get(then["id"]) == game
        assert later.client.get(f"/api/games/{then['id']}/review").status_code == 200


def test_t1_an_old_database_takes_table_games(
    legacy: Path | str, make_client: Callable[..., TestClient]
) -> None:
    """The schema's upgrade lets an old database store a table game's mode and result, and
    still refuses a mode that does not exist."""
    api = Api(make_client(db=legacy, secret=TEST_SECRET))
    seats = [{"kind": "human", "name": "a"}, {"kind": "computer", "difficulty": "novice"}]
    r = api.client.post("/api/games", json={"mode": "table", "seats": seats})
    assert r.status_code == 201, r.text
    game = api.play_to_end(r.json())
    assert (game["status"], game["result"]) == ("finished", "table")
    if not is_postgres_url(legacy):
        conn = sqlite3.connect(legacy)
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute("UPDATE games SET mode = 'bogus' WHERE id = ?", (game["id"],))
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.close()
