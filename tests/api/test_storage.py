"""The SQLite backend: migrations, WAL, append-only log, compare-and-set, records."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from yahtzee.errors import GameInProgressError, StaleVersionError
from yahtzee.game import Game, Mode, Result, Status
from yahtzee.rules import Category, Scorecard
from yahtzee.storage import (
    Event,
    SQLiteStorage,
    Storage,
    StorageError,
    open_storage,
)
from yahtzee.storage.sqlite import MIGRATIONS

PLAYER = "p" * 32


def _new(store: Storage, game_id: str, mode: Mode = Mode.SOLO, *, replace: bool = False) -> None:
    store.create_game(
        game_id=game_id,
        player_id=PLAYER,
        mode=mode,
        difficulty=None,
        events=[Event("start", {"mode": mode.value, "difficulty": None})],
        replace=replace,
    )


_FLEXIBLE = {  # on top of 快艇 50, 大顺 40, 小顺 30, 葫芦 25 (145); every other box 0
    150: {Category.CHANCE: 5},
    180: {Category.CHANCE: 30, Category.THREE_OF_A_KIND: 5},
    190: {Category.CHANCE: 30, Category.THREE_OF_A_KIND: 15},
    200: {Category.CHANCE: 30, Category.THREE_OF_A_KIND: 25},
    230: {Category.CHANCE: 30, Category.THREE_OF_A_KIND: 30, Category.FOUR_OF_A_KIND: 25},
    250: {
        Category.CHANCE: 30,
        Category.THREE_OF_A_KIND: 30,
        Category.FOUR_OF_A_KIND: 30,
        Category.FIVES: 15,
    },
    260: {
        Category.CHANCE: 30,
        Category.THREE_OF_A_KIND: 30,
        Category.FOUR_OF_A_KIND: 30,
        Category.FIVES: 25,
    },
}


def _complete_card(total: int) -> Scorecard:
    scores = dict.fromkeys(Category, 0)
    scores.update({Category.YAHTZEE: 50, Category.LARGE_STRAIGHT: 40})
    scores.update({Category.SMALL_STRAIGHT: 30, Category.FULL_HOUSE: 25})
    scores.update(_FLEXIBLE[total])
    card = Scorecard.from_scores(scores)
    assert card.total == total
    return card


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
    assert (old.status, old.version) == (Status.ABANDONED, 2)
    assert [e.kind for e in store.events("g1")] == ["start", "abandon"]
    current = store.current_game(PLAYER)
    assert current is not None
    assert current.id == "g2"
    with pytest.raises(StaleVersionError):  # an abandoned game takes no more events
        store.append(old, [Event("restart_turn")], status=Status.IN_PROGRESS)


def test_f2_a_new_game_without_replace_keeps_the_unfinished_one(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "d2.db")
    _new(store, "g1")
    with pytest.raises(GameInProgressError) as caught:
        _new(store, "g2")
    assert caught.value.game_id == "g1"
    assert store.get_game("g2") is None  # nothing written
    kept = store.get_game("g1")
    assert kept is not None
    assert (kept.status, kept.version) == (Status.IN_PROGRESS, 1)
    assert [e.kind for e in store.events("g1")] == ["start"]
    # Once it is finished, a new game needs no replace.
    final = Game(Mode.SOLO, (_complete_card(150),))
    store.append(kept, [], status=Status.FINISHED, final=final)
    _new(store, "g3")
    current = store.current_game(PLAYER)
    assert current is not None
    assert current.id == "g3"


def test_append_is_compare_and_set(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "e.db")
    _new(store, "g")
    game = store.get_game("g")
    assert game is not None
    after = store.append(
        game, [Event("restart_turn"), Event("restart_turn")], status=Status.IN_PROGRESS
    )
    assert after.version == 3
    with pytest.raises(StaleVersionError):
        store.append(game, [Event("restart_turn")], status=Status.IN_PROGRESS)
    assert len(store.events("g")) == 3
    assert [e.kind for e in store.events("g", after=2)] == ["restart_turn"]


def test_u7_records_and_new_record_are_solo_only(tmp_path: Path) -> None:
    store = open_storage(tmp_path / "f.db")
    totals = [
        (200, Result.SOLO, None),
        (180, Result.WIN, 150),
        (250, Result.LOSS, 260),  # a vs total above the solo best: not a record (U7)...
        (250, Result.DRAW, 250),
        (230, Result.SOLO, None),  # ...nor does it raise the bar for solo games
        (230, Result.SOLO, None),  # equal to the best is not a new record
        (190, Result.SOLO, None),
    ]
    flags = []
    for i, (total, result, computer) in enumerate(totals):
        mode = Mode.SOLO if computer is None else Mode.VS_COMPUTER
        _new(store, f"g{i}", mode)
        game = store.get_game(f"g{i}")
        assert game is not None
        cards = [_complete_card(total)] + ([] if computer is None else [_complete_card(computer)])
        final = Game(mode, tuple(cards))
        assert final.result is result
        done = store.append(game, [], status=Status.FINISHED, final=final)
        assert (done.result, done.human_total, done.computer_total) == (result, total, computer)
        flags.append(done.new_record)
    assert flags == [True, False, False, False, True, False, False]
    records = store.records(PLAYER)
    assert (records.best_score, records.games_played) == (230, 7)  # the best SOLO total
    assert (records.wins, records.losses, records.draws) == (1, 1, 1)
    assert [g.id for g in records.recent] == [f"g{i}" for i in range(6, -1, -1)]
    assert store.records("someone else").games_played == 0
