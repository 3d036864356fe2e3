"""Durable storage of games, their event logs and the players' records.

The server talks only to the :class:`Storage` interface; :func:`open_storage` picks the
backend: a file path is SQLite (the embedded default), a ``postgresql://`` (or
``postgres://``) URL is PostgreSQL, for several server processes on several machines.
"""

from __future__ import annotations

from pathlib import Path

from yahtzee.storage.base import (
    RecentGame,
    Records,
    Storage,
    StorageError,
    StorageUnavailableError,
    StoredGame,
)
from yahtzee.storage.events import Event, apply_event, replay, start
from yahtzee.storage.postgres import PostgresStorage, is_postgres_url
from yahtzee.storage.sqlite import SQLiteStorage

__all__ = [
    "Event",
    "PostgresStorage",
    "RecentGame",
    "Records",
    "SQLiteStorage",
    "Storage",
    "StorageError",
    "StorageUnavailableError",
    "StoredGame",
    "apply_event",
    "is_postgres_url",
    "open_storage",
    "replay",
    "start",
]


def open_storage(db: Path | str, *, synchronous: str = "NORMAL") -> Storage:
    """The storage for ``db``: a PostgreSQL URL, else an SQLite file path.

    SQLite is opened (created, migrated) here; PostgreSQL connects in :meth:`Storage.open`,
    which the server awaits at startup. ``synchronous`` is SQLite's durability mode.
    """
    if is_postgres_url(db):
        return PostgresStorage(str(db))
    return SQLiteStorage(db, synchronous=synchronous)
