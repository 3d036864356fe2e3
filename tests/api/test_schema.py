"""K3: one schema-migration mechanism (storage/schema.py) on both backends (the ``db``
fixture): numbered migrations per owner (the games' and each feature's), recorded in one
table, each applied once in its own transaction, processes starting together migrating
once, and every earlier layout (SQLite's ``user_version``, PostgreSQL's
``schema_migrations``, the features' ``feature_schema``) migrated without loss."""

from __future__ import annotations

import concurrent.futures
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from yahtzee.practice import store as practice
from yahtzee.rooms import store as rooms
from yahtzee.storage import StorageError, invites, is_postgres_url, migrate, run_coroutine
from yahtzee.storage.games_schema import GAMES
from yahtzee.storage.schema import Migration, Migrations, check_owners
from yahtzee.web.app import SCHEMA

from .old_schema import postgres_at, sqlite_at

NOW = "2026-11-30T10:00:00.000000+00:00"


def _query(db: Path | str, sql: str) -> list[tuple[Any, ...]]:
    if is_postgres_url(db):
        import psycopg

        with psycopg.connect(str(db), autocommit=True) as pg:
            return list(pg.execute(sql).fetchall())
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _table_exists(db: Path | str, name: str) -> bool:
    if is_postgres_url(db):
        return _query(db, f"SELECT to_regclass('{name}') IS NOT NULL")[0][0] is True
    return bool(_query(db, f"SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '{name}'"))


def _versions(db: Path | str) -> list[tuple[str, int]]:
    return [
        (str(owner), int(version))
        for owner, version in _query(
            db, "SELECT owner, version FROM schema_versions ORDER BY owner, version"
        )
    ]


def _all_current() -> list[tuple[str, int]]:
    return sorted((o.owner, v) for o in (GAMES, *SCHEMA) for v in range(1, o.version + 1))


def _old_layout(db: Path | str, level: int, features: Mapping[Migrations, int]) -> None:
    """``db`` as a release at the games' ``level`` and ``features``' versions left it, with
    a finished game and, where their tables exist, an invite and a practice player."""
    game = (
        "INSERT INTO games (id, player_id, mode, difficulty, status, version, created_at, "
        "updated_at, finished_at, result, human_total, computer_total, new_record{kind}) "
        "VALUES ('old-game', 'p', 'solo', NULL, 'finished', 2, {n}, {n}, {n}, 'solo', 180, "
        "NULL, {t}{solo})"
    )
    # (From level 7 every insert names the kind: PostgreSQL's column has no default.)
    kind = (", kind", ", 'solo'") if level >= 7 else ("", "")
    game = game.replace("{kind}", kind[0]).replace("{solo}", kind[1])
    event = "INSERT INTO events VALUES ('old-game', {i}, {k}, '[]', {n})"
    invite = "INSERT INTO invite_tokens VALUES ('d1', 'group', 'g1', {n}, NULL)"
    player = "INSERT INTO practice_players VALUES ('p', 1500, 350, 0.06, NULL, {n})"
    statements = [
        game,
        event.format(i=1, k="'start'", n="{n}"),
        event.format(i=2, k="'abandon'", n="{n}"),
    ]
    if features.get(invites.MIGRATIONS, 0):
        statements.append(invite)
    if features.get(practice.MIGRATIONS, 0):
        statements.append(player)
    if is_postgres_url(db):
        import psycopg

        postgres_at(str(db), level, features)
        with psycopg.connect(str(db), autocommit=True) as pg:
            for text in statements:
                pg.execute(text.format(n="%(now)s", t="TRUE"), {"now": NOW})
    else:
        conn = sqlite_at(Path(db), level, features)
        for text in statements:
            conn.execute(text.format(n=":now", t="1"), {"now": NOW})
        conn.close()


LAYOUTS = {
    # The first releases: the games alone (PostgreSQL had no level 1 of its own).
    "games-1": (1, {}),
    "games-3": (3, {}),
    # Features at their first versions, the games at the tutorial's level.
    "mid": (6, {invites.MIGRATIONS: 1, practice.MIGRATIONS: 1, rooms.MIGRATIONS: 1}),
    # The last release before the one mechanism (the games at level 8): the features
    # current, markers the old way; the games' levels 9 and 10 are applied on it.
    "last": (8, {o: o.version for o in SCHEMA}),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_k3_every_earlier_layout_is_migrated_without_loss(db: Path | str, layout: str) -> None:
    level, features = LAYOUTS[layout]
    if level == 1 and is_postgres_url(db):
        pytest.skip("PostgreSQL shipped levels 1 and 2 as one migration")
    _old_layout(db, level, features)
    run_coroutine(migrate(db, SCHEMA))
    # One table records every owner's versions; the old markers are gone.
    assert _versions(db) == _all_current()
    assert not _table_exists(db, "feature_schema")
    assert not _table_exists(db, "schema_migrations")
    if not is_postgres_url(db):
        assert _query(db, "PRAGMA user_version") == [(0,)]
    # Nothing was lost: the old rows are there, and the game has the kind K2 gave it.
    assert _query(db, "SELECT id, kind, human_total FROM games") == [("old-game", "solo", 180)]
    assert _query(db, "SELECT COUNT(*) FROM events") == [(2,)]
    if features.get(invites.MIGRATIONS, 0):
        assert _query(db, "SELECT target FROM invite_tokens") == [("g1",)]
    if features.get(practice.MIGRATIONS, 0):
        assert _query(db, "SELECT player_id FROM practice_players") == [("p",)]
    # Opening it again applies nothing (no row added, none applied twice).
    run_coroutine(migrate(db, SCHEMA))
    assert _versions(db) == _all_current()


def test_k3_processes_starting_together_migrate_a_new_database_once(db: Path | str) -> None:
    """Four processes open a new database at once: each migration runs once (a second
    run of a CREATE TABLE would fail the process that ran it) and all of them start."""
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(run_coroutine, migrate(db, SCHEMA)) for _ in range(4)]
        for future in futures:
            future.result()
    assert _versions(db) == _all_current()


def _owner(*steps: tuple[str, ...]) -> Migrations:
    return Migrations.shared("scratch", steps)


def test_k3_each_migration_is_one_transaction(db: Path | str) -> None:
    """A migration that fails leaves nothing of itself (its first statement rolled back,
    no version recorded) and keeps the ones before it; once fixed, it runs."""
    good = ("CREATE TABLE scratch_a (n INTEGER)",)
    bad = ("CREATE TABLE scratch_b (n INTEGER)", "INSERT INTO no_such_table VALUES (1)")
    with pytest.raises(Exception, match="no_such_table"):
        run_coroutine(migrate(db, [_owner(good, bad)]))
    assert ("scratch", 1) in _versions(db)
    assert ("scratch", 2) not in _versions(db)
    assert _table_exists(db, "scratch_a")
    assert not _table_exists(db, "scratch_b")
    fixed = ("CREATE TABLE scratch_b (n INTEGER)",)
    run_coroutine(migrate(db, [_owner(good, fixed)]))
    assert [v for o, v in _versions(db) if o == "scratch"] == [1, 2]
    assert _table_exists(db, "scratch_b")


def test_k3_a_database_newer_than_the_program_is_refused(db: Path | str) -> None:
    run_coroutine(migrate(db, SCHEMA))
    run_coroutine(migrate(db, [_owner(("CREATE TABLE scratch_a (n INTEGER)",))] * 1))
    with pytest.raises(StorageError, match="scratch tables are at v1, newer than this program"):
        run_coroutine(migrate(db, [_owner()]))


def test_k3_a_migration_may_differ_by_backend_and_an_owner_is_given_once() -> None:
    step = Migration(("SELECT 1",), ("SELECT 2",))
    assert (step.statements("sqlite"), step.statements("postgresql")) == (
        ("SELECT 1",),
        ("SELECT 2",),
    )
    with pytest.raises(ValueError, match="backend"):
        step.statements("mysql")
    with pytest.raises(ValueError, match="given twice for rooms"):
        check_owners([rooms.MIGRATIONS, GAMES, rooms.MIGRATIONS])
    # The app's owners: the games' (the storage's own), the invites', the players' settings
    # (G3), each feature's.
    assert [o.owner for o in SCHEMA] == [
        "invites",
        "player_settings",
        "practice",
        "daily",
        "rooms",
        "devices",
        "push",
    ]
