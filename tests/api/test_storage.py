"""The SQLite backend: migrations, WAL, append-only log, compare-and-set, records."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from yahtzee.storage import (
    Event,
    Outcome,
    SQLiteStorage,
    StaleVersionError,
    Storage,
    StorageError,
    open_storage,
)
from yahtzee.storage.sqlite import MIGRATIONS

PLAYER = "p" * 32


def _new(store: Storage, game_id: str, mode: str = "solo") -> None:
    store.create_game(
        game_id=game_id,
        player_id=PLAYER,
        mode=mode,
        difficulty=None,
        events=[Event("start", {"mode": mode, "difficulty": None})],
    )


def test_new_database_is_migrated_and_in_wal_mode(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "sub" / "a.db")
    assert store.schema_version == len(MIGRATIONS)
    conn = sqlite3.connect(tmp_path / "sub" / "a.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.integrity_check() == "ok"
    store.close()
    # Reopening does not re-run migrations.
    assert SQLiteStorage(tmp_path / "sub" / "a.db").schema_version == len(MIGRATIONS)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "b.db")
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(StorageError, match="newer"):
        SQLiteStorage(tmp_path / "b.db")


def test_the_event_log_is_append_only(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "c.db")
    _new(store, "g")
    conn = sqlite3.connect(tmp_path / "c.db")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE events SET kind = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM events")


def test_one_unfinished_game_per_player_and_abandon_event(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "d.db")
    _new(store, "g1")
    _new(store, "g2")
    old = store.get_game("g1")
    assert old is not None
    assert (old.status, old.version) == ("abandoned", 2)
    assert [e.kind for e in store.events("g1")] == ["start", "abandon"]
    current = store.current_game(PLAYER)
    assert current is not None
    assert current.id == "g2"
    with pytest.raises(StaleVersionError):  # an abandoned game takes no more events
        store.append(old, [Event("restart_turn")], status="in_progress")


def test_append_is_compare_and_set(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "e.db")
    _new(store, "g")
    game = store.get_game("g")
    assert game is not None
    after = store.append(game, [Event("restart_turn"), Event("restart_turn")], status="in_progress")
    assert after.version == 3
    with pytest.raises(StaleVersionError):
        store.append(game, [Event("restart_turn")], status="in_progress")
    assert len(store.events("g")) == 3
    assert [e.kind for e in store.events("g", after=2)] == ["restart_turn"]


def test_records_and_new_record(tmp_path: Path) -> None:
    store = open_storage(tmp_path / "f.db")
    totals = [(200, "solo", None), (180, "win", 150), (250, "loss", 260), (250, "draw", 250)]
    flags = []
    for i, (total, result, computer) in enumerate(totals):
        _new(store, f"g{i}", "solo" if computer is None else "vs_computer")
        game = store.get_game(f"g{i}")
        assert game is not None
        done = store.append(game, [], status="finished", outcome=Outcome(result, total, computer))
        flags.append(done.new_record)
    assert flags == [True, False, True, False]  # equal to the best is not a new record
    records = store.records(PLAYER)
    assert (records.best_score, records.games_played) == (250, 4)
    assert (records.wins, records.losses, records.draws) == (1, 1, 1)
    assert [g.id for g in records.recent] == ["g3", "g2", "g1", "g0"]
    assert store.records("someone else").games_played == 0
