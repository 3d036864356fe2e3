"""A connection of its own for a feature's self-contained tables, on the games' database.

The games' storage (:mod:`yahtzee.storage.sqlite`, :mod:`yahtzee.storage.postgres`) owns
the tables of play. Features that only *refer* to games — the invite tokens, the daily
challenge, the groups — keep their tables here instead, in the same database (so every
process on it agrees on them) but through their own connection. Their tables are created
and migrated with the games' by the one mechanism (:mod:`yahtzee.storage.schema`): each
feature gives its :class:`~yahtzee.storage.schema.Migrations` as ``Feature.migrations``.

One code path for both backends: the SQL is written once with ``:name`` parameters, as
the games' statements are (turned into ``%(name)s`` for psycopg), and every call runs **in
a worker thread** (never on the event loop): :meth:`FeatureDb.run` hands a function of a
:class:`Tx` to a thread, which runs it in one transaction. SQLite: one connection in WAL
mode with ``synchronous=FULL`` (F6), guarded by a lock, ``BEGIN IMMEDIATE`` for writes;
reads on a connection of their own thread, never behind a writer. PostgreSQL: a small
synchronous psycopg pool (imported only for a PostgreSQL URL). One exception: a single
statement that is its own transaction (:meth:`FeatureDb.one`: a room's event, a device's
player, on every action) runs on PostgreSQL on the event loop, on a small asynchronous
pool: a thread hand-off costs more than the statement (two wake-ups, the GIL passed back
and forth while the loop serves other requests; issue 31). A fault of the database
(a full or read-only disk, a server that went away) becomes
:class:`~yahtzee.storage.base.StorageUnavailableError` (503), as for the games.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from yahtzee.storage.base import StorageError, StorageUnavailableError
from yahtzee.storage.sql import pyformat
from yahtzee.storage.sqlite import ReadConnections, connect, transaction

T = TypeVar("T")
Row = tuple[Any, ...]
#: A statement's ``:name`` parameters.
Params = Mapping[str, Any]
_NONE: Params = {}


class Tx(Protocol):
    """One transaction: statements with ``:name`` parameters, rows as tuples."""

    def all(self, sql: str, params: Params = _NONE) -> list[Row]:
        """Run ``sql`` and return every row it yields."""
        ...

    def one(self, sql: str, params: Params = _NONE) -> Row | None:
        """Run ``sql`` and return its first row (or ``None``)."""
        ...

    def many(self, sql: str, rows: Sequence[Params]) -> None:
        """Run ``sql`` once per parameter row."""
        ...

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"`` (for the few statements that differ)."""
        ...


class FeatureDb(Protocol):
    """The feature tables' database (see the module docstring)."""

    dialect: str

    async def run(self, work: Callable[[Tx], T], *, write: bool = True, single: bool = False) -> T:
        """``work(tx)`` in one transaction, in a worker thread. ``single``: ``work`` runs
        exactly one statement, which is then its own transaction on PostgreSQL (no
        ``BEGIN`` and ``COMMIT`` round trips; a statement is atomic by itself)."""
        ...

    async def one(self, sql: str, params: Params = _NONE, *, write: bool = True) -> Row | None:
        """The first row of one statement (``None`` without one), which is its own
        transaction, committed when this returns: the hot statements (a room's event, a
        device's player). On PostgreSQL it runs on the event loop, on an asynchronous
        connection (after :meth:`open`): no thread hand-off; on SQLite as :meth:`run`."""
        ...

    async def open(self) -> None:
        """Open what this backend keeps on the running event loop (PostgreSQL: the pool of
        :meth:`one`); without it, :meth:`one` runs as :meth:`run`."""
        ...

    async def close(self) -> None:
        """Release the connections."""
        ...


def _first_row(tx: Tx, sql: str, params: Params) -> Row | None:
    """:meth:`FeatureDb.one`'s statement in ``tx`` (one that yields no rows: ``None``)."""
    rows = tx.all(sql, params)
    return rows[0] if rows else None


async def _one_by_run(db: FeatureDb, sql: str, params: Params, write: bool) -> Row | None:
    """:meth:`FeatureDb.one` as :meth:`FeatureDb.run` (in the worker thread)."""
    return await db.run(
        functools.partial(_first_row, sql=sql, params=params), write=write, single=True
    )


@functools.lru_cache(maxsize=2048)
def _statement(sql: str, dialect: str) -> str:
    """``sql`` as ``dialect`` runs it, once per statement: a ``?`` placeholder (the
    features' old style) is refused by name rather than failing inside the driver."""
    if "?" in sql:
        raise ValueError(f"feature statements take :name parameters, not '?': {sql[:80]!r}")
    return pyformat(sql) if dialect == "postgresql" else sql


def _named(params: Params) -> Params:
    if not isinstance(params, Mapping):
        raise TypeError(f"feature statements take a mapping of :name parameters, not {params!r}")
    return params


class _SQLiteTx:
    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def all(self, sql: str, params: Params = _NONE) -> list[Row]:
        return self._conn.execute(_statement(sql, "sqlite"), _named(params)).fetchall()

    def one(self, sql: str, params: Params = _NONE) -> Row | None:
        row: Row | None = self._conn.execute(_statement(sql, "sqlite"), _named(params)).fetchone()
        return row

    def many(self, sql: str, rows: Sequence[Params]) -> None:
        self._conn.executemany(_statement(sql, "sqlite"), [_named(r) for r in rows])


class SQLiteFeatureDb:
    """The feature tables in the games' SQLite file (or a private in-memory database)."""

    dialect = "sqlite"

    def __init__(self, path: Path | str, *, synchronous: str = "FULL") -> None:
        self.path = path
        self._lock = threading.Lock()  # the write connection's
        try:
            conn = connect(path, synchronous.upper())  # (as the games' storage opens it)
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"cannot open the database {path}: {exc}") from None
        self._conn = conn
        # Reads run on a connection of their own thread, never behind the write lock
        # (issue 22); an in-memory database is one database per connection: no readers.
        self._memory = str(path) == ":memory:"
        self._readers = ReadConnections(path)

    def _run_sync(self, work: Callable[[Tx], T], *, write: bool = True) -> T:
        try:
            if write or self._memory:
                with self._lock:
                    conn = self._conn
                    with transaction(conn, "BEGIN IMMEDIATE" if write else "BEGIN"):
                        return work(_SQLiteTx(conn))
            conn = self._readers.get()
            with transaction(conn, "BEGIN"):  # one snapshot for the work's statements
                return work(_SQLiteTx(conn))
        except sqlite3.OperationalError as exc:
            raise StorageUnavailableError(f"{self.path}: {exc}") from exc

    async def run(self, work: Callable[[Tx], T], *, write: bool = True, single: bool = False) -> T:
        del single  # (one statement or several: the write lock's transaction either way)
        return await asyncio.to_thread(self._run_sync, work, write=write)

    async def one(self, sql: str, params: Params = _NONE, *, write: bool = True) -> Row | None:
        return await _one_by_run(self, sql, params, write)

    async def open(self) -> None:
        pass  # (its connections live in the worker threads)

    async def close(self) -> None:
        with self._lock:
            self._conn.close()
        self._readers.close()


class _PostgresTx:
    dialect = "postgresql"

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def all(self, sql: str, params: Params = _NONE) -> list[Row]:
        cur = self._conn.execute(_statement(sql, self.dialect), _named(params))
        return list(cur.fetchall()) if cur.description is not None else []

    def one(self, sql: str, params: Params = _NONE) -> Row | None:
        row: Row | None = self._conn.execute(
            _statement(sql, self.dialect), _named(params)
        ).fetchone()
        return row

    def many(self, sql: str, rows: Sequence[Params]) -> None:
        with self._conn.cursor() as cur:
            cur.executemany(_statement(sql, self.dialect), [_named(r) for r in rows])


class PostgresFeatureDb:
    """The feature tables in the games' PostgreSQL database, on a small pool of its own."""

    dialect = "postgresql"

    def __init__(
        self, url: str, *, max_size: int = 4, loop_size: int = 4, timeout: float = 5.0
    ) -> None:
        # (only ever for a PostgreSQL URL)
        from psycopg_pool import ConnectionPool

        from yahtzee.storage.pgpool import pool_options

        self.url = url
        self._timeout = timeout
        # one()'s connections: on the event loop, opened with it (open()), always there
        # (a room's every action comes this way: no wait for a connection to be made)
        self._loop_size = loop_size
        self._loop_pool: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            check=self._check_connection,
            **pool_options(timeout),
        )
        self._opened = False

    def _check_connection(self, conn: Any) -> None:
        """As the games' pool does (:mod:`yahtzee.storage.pgpool`): a connection the server
        closed is replaced before a request gets it, and the others tested at once."""
        import psycopg

        from yahtzee.storage.pgpool import ConnectionGoneError, idle_connection_gone

        if idle_connection_gone(conn):
            conn.close()
            with contextlib.suppress(psycopg.Error):
                self._pool.check()
            raise ConnectionGoneError("the server closed this idle connection")

    def _open(self) -> None:
        import psycopg

        if not self._opened:
            try:
                self._pool.open(wait=True, timeout=10)
            except (psycopg.Error, Exception) as exc:
                raise StorageUnavailableError(f"cannot reach the database: {exc}") from exc
            self._opened = True

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        import psycopg

        self._open()
        try:
            with self._pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise StorageUnavailableError(f"database unavailable: {exc}") from exc

    def _run_sync(self, work: Callable[[Tx], T], *, write: bool = True) -> T:
        with self._connection() as conn:
            if not write:
                # Reads run as they come (autocommit): no BEGIN/COMMIT round trips. A board's
                # few statements may then see a result recorded between two of them.
                # (``single``: one statement, its own transaction, committed on return.)
                return work(_PostgresTx(conn))
            with conn.transaction():
                return work(_PostgresTx(conn))

    async def run(self, work: Callable[[Tx], T], *, write: bool = True, single: bool = False) -> T:
        return await asyncio.to_thread(self._run_sync, work, write=write and not single)

    async def open(self) -> None:
        """The pool of :meth:`one`, on the running loop (the server's, for its life)."""
        from psycopg_pool import AsyncConnectionPool

        from yahtzee.storage.pgpool import pool_options

        if self._loop_pool is not None:
            return
        pool: Any = AsyncConnectionPool(
            self.url,
            min_size=self._loop_size,
            max_size=self._loop_size,
            open=False,
            check=self._check_loop_connection,
            **pool_options(self._timeout),
        )
        try:
            await pool.open(wait=True, timeout=10)
        except Exception as exc:  # (psycopg's errors, the pool's timeout)
            raise StorageUnavailableError(f"cannot reach the database: {exc}") from exc
        self._loop_pool = pool
        self._loop = asyncio.get_running_loop()

    async def _check_loop_connection(self, conn: Any) -> None:
        """:meth:`_check_connection`, for the pool of :meth:`one`."""
        from yahtzee.storage.pgpool import check_idle_async

        await check_idle_async(conn, self._loop_pool)

    async def one(self, sql: str, params: Params = _NONE, *, write: bool = True) -> Row | None:
        import psycopg

        pool = self._loop_pool
        if pool is None or asyncio.get_running_loop() is not self._loop:
            # (not opened, or another loop: a command's, a test's)
            return await _one_by_run(self, sql, params, write)
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(_statement(sql, self.dialect), _named(params))
                row: Row | None = await cur.fetchone() if cur.description is not None else None
                return row
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise StorageUnavailableError(f"database unavailable: {exc}") from exc

    async def close(self) -> None:
        if self._loop_pool is not None and asyncio.get_running_loop() is self._loop:
            await self._loop_pool.close()
        self._loop_pool = None
        if self._opened:
            await asyncio.to_thread(self._pool.close)


def open_feature_db(db: Path | str, *, synchronous: str = "FULL") -> FeatureDb:
    """The feature database next to the games of ``db`` (a path or a PostgreSQL URL)."""
    from yahtzee.storage.url import is_postgres_url

    if is_postgres_url(db):
        return PostgresFeatureDb(str(db))
    return SQLiteFeatureDb(db, synchronous=synchronous)
