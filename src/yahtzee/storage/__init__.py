"""Durable storage of games, their event logs and the players' records.

The server talks only to the :class:`Storage` interface; :func:`open_storage` picks the
backend: a file path is SQLite (the embedded default), a ``postgresql://`` (or
``postgres://``) URL is PostgreSQL, for several server processes on several machines
(:func:`~yahtzee.storage.url.is_postgres_url` decides). The PostgreSQL driver (psycopg,
with its pool) is imported only when such a URL is opened.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from yahtzee.storage.base import (
    GameRecord,
    RecentGame,
    Records,
    Storage,
    StorageError,
    StorageUnavailableError,
)
from yahtzee.storage.schema import Migrations
from yahtzee.storage.sqlite import SQLiteStorage
from yahtzee.storage.url import is_postgres_url

if TYPE_CHECKING:
    from yahtzee.storage.postgres import PostgresStorage

__all__ = [
    "GameRecord",
    "PostgresStorage",
    "RecentGame",
    "Records",
    "SQLiteStorage",
    "Storage",
    "StorageError",
    "StorageUnavailableError",
    "is_postgres_url",
    "migrate",
    "open_storage",
    "run_coroutine",
]


def open_storage(
    db: Path | str, *, synchronous: str = "FULL", schema: Sequence[Migrations] = ()
) -> Storage:
    """The storage for ``db``: a PostgreSQL URL, else an SQLite file path.

    SQLite is opened (created, migrated) here; PostgreSQL connects in :meth:`Storage.open`,
    which the server awaits at startup. ``synchronous`` is SQLite's durability mode;
    ``schema`` the owners whose tables are migrated with the games'
    (:mod:`yahtzee.storage.schema`: the app gives the invite tokens' and the features').
    """
    if is_postgres_url(db):
        from yahtzee.storage.postgres import PostgresStorage

        return PostgresStorage(str(db), schema=schema)
    return SQLiteStorage(db, synchronous=synchronous, schema=schema)


async def migrate(db: Path | str, schema: Sequence[Migrations] = ()) -> None:
    """Bring the database ``db`` up to date (the games' tables and ``schema``'s) and close
    it again: for the commands and the tests that reach a feature's tables without the
    app, which migrates when it opens the storage."""
    storage = open_storage(db, schema=schema)
    try:
        await storage.open()
    finally:
        await storage.close()


T = TypeVar("T")


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` for the storage's coroutines outside the server (commands,
    startup checks), in a thread of its own when this thread already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def __getattr__(name: str) -> Any:
    """``PostgresStorage`` on first use (importing psycopg costs ~0.3 s and most runs
    never need it)."""
    if name == "PostgresStorage":
        from yahtzee.storage.postgres import PostgresStorage

        return PostgresStorage
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
