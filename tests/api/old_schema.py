"""Databases in the layouts earlier releases wrote, with their version markers as those
releases kept them (before the one mechanism, storage/schema.py, K3): SQLite's ``PRAGMA
user_version`` (the games' level), PostgreSQL's ``schema_migrations`` (its own numbering)
and ``feature_schema`` (a version per feature). The tables are built by the shipped
migrations themselves (never edited), so they are what those releases created."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path

from yahtzee.storage.games_schema import GAMES
from yahtzee.storage.schema import Migrations

_FEATURE_SCHEMA = "CREATE TABLE feature_schema (feature TEXT PRIMARY KEY, version INTEGER NOT NULL)"


def old_postgres_version(level: int) -> int:
    """PostgreSQL's ``schema_migrations`` version of the games' ``level`` (its migration 1
    brought levels 1 and 2: a database at level 1 never existed there)."""
    assert level != 1, "PostgreSQL shipped levels 1 and 2 as one migration"
    return 0 if level == 0 else level - 1


def sqlite_at(
    path: Path, level: int, features: Mapping[Migrations, int] = {}
) -> sqlite3.Connection:
    """An SQLite file at the games' ``level`` and each of ``features`` at its version; the
    connection is left open (autocommit) for the caller's rows."""
    conn = sqlite3.connect(path, isolation_level=None)
    for step in GAMES.steps[:level]:
        for statement in step.sqlite:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {level}")
    if features:
        conn.execute(_FEATURE_SCHEMA)
    for owner, version in features.items():
        for step in owner.steps[:version]:
            for statement in step.sqlite:
                conn.execute(statement)
        conn.execute("INSERT INTO feature_schema VALUES (?, ?)", (owner.owner, version))
    return conn


def postgres_at(url: str, level: int, features: Mapping[Migrations, int] = {}) -> None:
    """A PostgreSQL database at the games' ``level`` and each of ``features`` at its
    version, as those releases migrated it."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        for step in GAMES.steps[:level]:
            for statement in step.postgresql:
                conn.execute(statement)
        for version in range(1, old_postgres_version(level) + 1):
            conn.execute("INSERT INTO schema_migrations VALUES (%s, 'then')", (version,))
        if features:
            conn.execute(_FEATURE_SCHEMA)
        for owner, version in features.items():
            for step in owner.steps[:version]:
                for statement in step.postgresql:
                    conn.execute(statement)
            conn.execute("INSERT INTO feature_schema VALUES (%s, %s)", (owner.owner, version))
