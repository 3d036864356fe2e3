"""Durable storage of games, their event logs and the players' records.

The server talks only to the :class:`Storage` interface; :func:`open_storage` picks the
backend (SQLite today; a PostgreSQL backend for multi-server deployments will follow).
"""

from __future__ import annotations

from pathlib import Path

from yahtzee.storage.base import (
    GameRecord,
    RecentGame,
    Records,
    Storage,
    StorageError,
    StorageUnavailableError,
)
from yahtzee.storage.events import Event, apply_event, replay, start
from yahtzee.storage.sqlite import SQLiteStorage

__all__ = [
    "Event",
    "GameRecord",
    "RecentGame",
    "Records",
    "SQLiteStorage",
    "Storage",
    "StorageError",
    "StorageUnavailableError",
    "apply_event",
    "open_storage",
    "replay",
    "start",
]


def open_storage(path: Path | str, *, synchronous: str = "FULL") -> Storage:
    """Open (creating and migrating if needed) the database at ``path``."""
    return SQLiteStorage(path, synchronous=synchronous)
