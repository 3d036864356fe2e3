"""F5: games that never had a roll, abandoned or left in progress (issue 22.6), are
deleted after 7 days; nothing else is."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient

from yahtzee import log
from yahtzee.game import Mode, Status
from yahtzee.server.pruning import prune
from yahtzee.storage import GameRecord, SQLiteStorage, Storage, run_coroutine
from yahtzee.storage.games_schema import GAMES

from .old_schema import sqlite_at

OLD = "2026-01-01T00:00:00.000000+00:00"
NOW = datetime(2026, 1, 10, tzinfo=UTC)  # 9 days later
RECENT = "2026-01-05T00:00:00.000000+00:00"  # 5 days before NOW
T = TypeVar("T")
ROLL = log.Roll(0, (False,) * 5, (1, 2, 3, 4, 5))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """SQLite only here (PostgreSQL's pruning: test_storage.py)."""
    return tmp_path / "games.db"


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """The storage's coroutines, run to completion (SQLite runs them inline)."""
    return run_coroutine(coro)


def _new(store: Storage, game_id: str, player: str) -> GameRecord:
    return _run(
        store.create_game(
            game_id=game_id,
            player_id=player,
            mode=Mode.SOLO,
            difficulty=None,
            events=[log.Start.of(Mode.SOLO)],
            replace=True,  # abandons the player's unfinished game, if any
        )
    )


def _scenario(path: Path) -> None:
    """Games of every kind, written on the dates their names say."""
    old = SQLiteStorage(path, clock=lambda: OLD)
    _new(old, "unplayed-old", "a")
    played = _new(old, "played-old", "a")  # abandons unplayed-old
    _run(old.append(played, [ROLL], status=Status.IN_PROGRESS))
    _new(old, "unplayed-old-2", "b")
    _new(old, "in-progress-old", "c")  # never rolled: left like that for 9 days
    rolling = _new(old, "rolling-old", "e")  # rolled, then left: a game in progress
    _run(old.append(rolling, [ROLL], status=Status.IN_PROGRESS))
    _run(old.close())
    recent = SQLiteStorage(path, clock=lambda: RECENT)
    _new(recent, "after-played", "a")  # abandons played-old (it had a roll)
    _new(recent, "b-now", "b")  # abandons unplayed-old-2: 5 days ago, too recent
    _new(recent, "unplayed-recent", "d")
    _new(recent, "d-now", "d")
    _run(recent.close())


def test_f5_prune_deletes_only_old_unplayed_games(tmp_path: Path) -> None:
    _scenario(tmp_path / "g.db")
    store = SQLiteStorage(tmp_path / "g.db")
    assert run_coroutine(prune(store, 7.0, now=lambda: NOW)) == 2
    for gone in ("unplayed-old", "in-progress-old"):  # abandoned / left in progress, unplayed
        assert _run(store.get_game(gone)) is None, gone
        assert _run(store.events(gone)) == [], gone
    assert _run(store.current_game("c")) is None  # c starts afresh next visit
    for kept in ("played-old", "rolling-old", "unplayed-old-2", "unplayed-recent", "b-now"):
        assert _run(store.get_game(kept)) is not None, kept
        assert _run(store.events(kept)), kept
    assert [e.kind for e in _run(store.events("played-old"))] == ["start", "roll", "abandon"]
    assert _run(store.current_game("e")) is not None  # a played game in progress stays
    # Four days later those of 5 days ago that never had a roll go too: two abandoned,
    # three in progress.
    later = datetime(2026, 1, 14, tzinfo=UTC)
    assert run_coroutine(prune(store, 7.0, now=lambda: later)) == 5
    for gone in ("unplayed-old-2", "unplayed-recent", "after-played", "b-now", "d-now"):
        assert _run(store.get_game(gone)) is None, gone
    for kept in ("played-old", "rolling-old"):
        assert _run(store.get_game(kept)) is not None, kept
    assert store.integrity_check() == "ok"


def test_f5_prune_works_in_batches(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "g.db", clock=lambda: OLD)
    for i in range(1201):
        _new(store, f"g{i}", "flood")  # each abandons the one before
    assert run_coroutine(prune(store, 7.0, now=lambda: NOW)) == 1201  # the unfinished one too
    assert _run(store.get_game("g1200")) is None


def test_f5_the_schema_still_refuses_every_other_delete(tmp_path: Path) -> None:
    _scenario(tmp_path / "g.db")
    conn = sqlite3.connect(tmp_path / "g.db")
    for game_id in ("played-old", "rolling-old"):  # abandoned / in progress, both played
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM events WHERE game_id = ?", (game_id,))
        with pytest.raises(sqlite3.DatabaseError, match="only an unplayed game"):
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM events")  # a whole-table delete hits a played game
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE events SET kind = 'x' WHERE game_id = 'unplayed-old'")
    # An unplayed game's row cannot go while its events remain.
    for game_id in ("unplayed-old", "in-progress-old"):
        with pytest.raises(sqlite3.DatabaseError, match="only an unplayed game"):
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
    conn.close()


def test_f5_a_version_1_database_is_migrated(tmp_path: Path) -> None:
    sqlite_at(tmp_path / "v1.db", 1).close()
    _scenario(tmp_path / "v1.db")
    store = SQLiteStorage(tmp_path / "v1.db")
    assert store.schema_version == GAMES.version
    assert run_coroutine(prune(store, 7.0, now=lambda: NOW)) == 2


def test_22_6_a_version_3_database_prunes_unplayed_games_in_progress(tmp_path: Path) -> None:
    """A database written by the previous release (schema v3, whose triggers refused to
    delete a game in progress) is migrated, and its idle unplayed games go too."""
    conn = sqlite_at(tmp_path / "v3.db", 3)
    # A game left in progress before its first roll, 9 days ago, as v3 wrote it.
    conn.execute(
        "INSERT INTO games (id, player_id, mode, status, version, created_at, updated_at) "
        "VALUES ('idle', 'z', 'solo', 'in_progress', 1, ?, ?)",
        (OLD, OLD),
    )
    conn.execute("INSERT INTO events VALUES ('idle', 1, 'start', '{\"mode\":\"solo\"}', ?)", (OLD,))
    conn.commit()
    with pytest.raises(sqlite3.DatabaseError, match="only an unplayed abandoned game"):
        conn.execute("DELETE FROM games WHERE id = 'idle'")  # (v3 refused it)
    conn.close()
    store = SQLiteStorage(tmp_path / "v3.db")
    assert store.schema_version == GAMES.version
    assert run_coroutine(prune(store, 7.0, now=lambda: NOW)) == 1
    assert _run(store.get_game("idle")) is None
    assert _run(store.current_game("z")) is None
    assert _run(store.get_game("in-progress-old")) is None


def test_f5_the_server_prunes_on_start_up(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    """The old unplayed games go when the server starts; the played ones stay."""
    db = tmp_path / "games.db"
    _scenario(db)  # (its dates are all more than 7 days before today)
    make_client(db=db)
    store = SQLiteStorage(db)
    assert _run(store.get_game("unplayed-old")) is None
    assert _run(store.get_game("unplayed-old-2")) is None
    assert _run(store.get_game("played-old")) is not None
    assert _run(store.get_game("in-progress-old")) is None  # never rolled (issue 22.6)
    assert _run(store.get_game("rolling-old")) is not None
