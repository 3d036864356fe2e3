"""The SQLite backend: migrations, WAL, append-only log, compare-and-set, records."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from yahtzee.storage import (
    Event,
    GameInProgressError,
    Outcome,
    SQLiteStorage,
    StaleVersionError,
    Storage,
    StorageError,
    open_storage,
)
from yahtzee.storage.sqlite import MIGRATIONS

PLAYER = "p" * 32


def _new(store: Storage, game_id: str, mode: str = "solo", *, replace: bool = False) -> None:
    store.create_game(
        game_id=game_id,
        player_id=PLAYER,
        mode=mode,
        difficulty=None,
        events=[Event("start", {"mode": mode, "difficulty": None})],
        replace=replace,
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
    _new(store, "g2", replace=True)
    old = store.get_game("g1")
    assert old is not None
    assert (old.status, old.version) == ("abandoned", 2)
    assert [e.kind for e in store.events("g1")] == ["start", "abandon"]
    current = store.current_game(PLAYER)
    assert current is not None
    assert current.id == "g2"
    with pytest.raises(StaleVersionError):  # an abandoned game takes no more events
        store.append(old, [Event("restart_turn")], status="in_progress")


def test_f2_a_new_game_without_replace_keeps_the_unfinished_one(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "d2.db")
    _new(store, "g1")
    with pytest.raises(GameInProgressError) as caught:
        _new(store, "g2")
    assert caught.value.game_id == "g1"
    assert store.get_game("g2") is None  # nothing written
    kept = store.get_game("g1")
    assert kept is not None
    assert (kept.status, kept.version) == ("in_progress", 1)
    assert [e.kind for e in store.events("g1")] == ["start"]
    # Once it is finished, a new game needs no replace.
    store.append(kept, [], status="finished", outcome=Outcome("solo", 100, None))
    _new(store, "g3")
    current = store.current_game(PLAYER)
    assert current is not None
    assert current.id == "g3"


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


def test_u7_records_and_new_record_are_solo_only(tmp_path: Path) -> None:
    store = open_storage(tmp_path / "f.db")
    totals = [
        (200, "solo", None),
        (180, "win", 150),
        (250, "loss", 260),  # a vs total above the solo best: not a record (U7)...
        (250, "draw", 250),
        (230, "solo", None),  # ...nor does it raise the bar for solo games
        (230, "solo", None),  # equal to the best is not a new record
        (190, "solo", None),
    ]
    flags = []
    for i, (total, result, computer) in enumerate(totals):
        _new(store, f"g{i}", "solo" if computer is None else "vs_computer")
        game = store.get_game(f"g{i}")
        assert game is not None
        done = store.append(game, [], status="finished", outcome=Outcome(result, total, computer))
        flags.append(done.new_record)
    assert flags == [True, False, False, False, True, False, False]
    records = store.records(PLAYER)
    assert (records.best_score, records.games_played) == (230, 7)  # the best SOLO total
    assert (records.wins, records.losses, records.draws) == (1, 1, 1)
    assert [g.id for g in records.recent] == [f"g{i}" for i in range(6, -1, -1)]
    assert store.records("someone else").games_played == 0
