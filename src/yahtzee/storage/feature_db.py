"""The one way to the database for a feature's tables (A3): its transactions, on the games'
connections.

The games' storage (:mod:`yahtzee.storage.sqlite`, :mod:`yahtzee.storage.postgres`) owns
the process's connections to the database; a feature's tables (the invite tokens, the
rooms', the daily challenge's and the groups', 练习's, the devices') live in the same
database and are reached through the same connections, as its :class:`FeatureDb`
(``storage.features``), which the app factory gives every feature (``Platform.db``): no
feature opens a connection of its own. Their tables are created and migrated with the
games' by the one mechanism (:mod:`yahtzee.storage.schema`): each feature gives its
:class:`~yahtzee.storage.schema.Migrations` as ``Feature.migrations``.

Every access is one shape, whatever the backend::

    async def work(tx: Tx) -> Room | None:
        row = await tx.one("SELECT ... WHERE id = :room", {"room": room_id})
        ...

    room = await db.run(work)              # one transaction (write=False: a read)
    row = await db.one(sql, params)        # one statement, its own transaction

The SQL is written once with ``:name`` parameters, as the games' statements are (turned
into ``%(name)s`` for psycopg). A feature's row that a new game needs is the same kind of
work run inside the game's own transaction (:class:`~yahtzee.storage.base.Claim`).

* **PostgreSQL**: on the event loop, on the games' asynchronous pool (psycopg's
  ``AsyncConnectionPool``): no worker thread, no hand-off (issue 31 measured a thread
  hand-off costing more than a room's statement). A write is a transaction
  (``BEGIN``/``COMMIT``), ``single=True`` one statement that commits by itself (no
  round trips for them), a read runs as it comes (autocommit) and is tried once more on
  a fresh connection when its connection died under it.
* **SQLite**: the file's I/O stays off the event loop, in the games' threads. A write is
  one write of the games' group commit (:mod:`yahtzee.storage.group_commit`, on the one
  write connection, in the writer thread): it shares the batch's transaction and its one
  sync to disk, in a savepoint of its own (what it raises undoes it alone). A read runs on
  a reader thread's connection, in one snapshot. There the work's awaits are its
  statements, which SQLite answers at once, so the thread runs the work's coroutine to its
  end in one step (:func:`drive`): a work awaits nothing but its ``tx``.
* **Durability**: a write is durable when ``run`` returns (F6: SQLite ``synchronous=FULL``,
  PostgreSQL's commit). 练习's answers ask less (:meth:`FeatureDb.relaxed`): on SQLite a
  batch of nothing but such writes commits with ``synchronous=NORMAL`` (a crash of the
  machine may lose the last ones, never a game's, which always wait for the disk).

A fault of the database (a full or read-only disk, a server that went away) becomes
:class:`~yahtzee.storage.base.StorageUnavailableError` (503), as for the games.
:func:`open_feature_db` opens a storage for a feature's tables alone (the commands, tests
and benchmarks that reach them without the app).
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from yahtzee.storage.sql import pyformat

if TYPE_CHECKING:
    from yahtzee.storage.base import Storage
    from yahtzee.storage.postgres import PostgresStorage
    from yahtzee.storage.sqlite import SQLiteStorage

T = TypeVar("T")
Row = tuple[Any, ...]
#: A statement's ``:name`` parameters.
Params = Mapping[str, Any]
_NONE: Params = {}
#: A feature's work: a coroutine function of one transaction.
Work = Callable[["Tx"], Coroutine[Any, Any, T]]


class Tx(Protocol):
    """One transaction: statements with ``:name`` parameters, rows as tuples."""

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"`` (for the few statements that differ)."""
        ...

    async def all(self, sql: str, params: Params = _NONE) -> list[Row]:
        """Run ``sql`` and return every row it yields."""
        ...

    async def one(self, sql: str, params: Params = _NONE) -> Row | None:
        """Run ``sql`` and return its first row (or ``None``)."""
        ...

    async def many(self, sql: str, rows: Sequence[Params]) -> None:
        """Run ``sql`` once per parameter row."""
        ...

    async def pause(self) -> None:
        """Let the rest of the server run for a moment in a long work (an export, F22):
        on the event loop, a turn of it; in SQLite's thread, a millisecond for the GIL to
        reach the loop's thread. Cheap when no pause is due (see :class:`Pacer`)."""
        ...


class FeatureDb(Protocol):
    """A feature's way to the database (see the module docstring)."""

    dialect: str

    async def run(self, work: Work[T], *, write: bool = True, single: bool = False) -> T:
        """``await work(tx)`` in one transaction and its result. ``write=False``: it only
        reads. ``single``: ``work`` runs exactly one statement, which is then its own
        transaction on PostgreSQL (no ``BEGIN`` and ``COMMIT`` round trips; a statement
        is atomic by itself)."""
        ...

    async def one(self, sql: str, params: Params = _NONE, *, write: bool = True) -> Row | None:
        """The first row of one statement (``None`` without one), which is its own
        transaction, committed when this returns: the hot statements (a room's event, a
        device's player)."""
        ...

    def relaxed(self) -> FeatureDb:
        """This database, whose writes need not wait for the disk (see the module
        docstring: 练习's)."""
        ...


class Pacer:
    """When a long work's pause is due: every ``every`` seconds of it (F22: an export must
    not hold up every other player's requests). In a thread a pause of ``pause`` seconds
    lets the GIL pass to the event loop's thread (``time.sleep(0)`` is not enough: the
    thread takes the GIL back before the waiting thread has woken; a 1 ms pause every 2 ms
    let the loop run as if idle, at half the work's speed)."""

    def __init__(self, every: float = 0.002, pause: float = 0.001) -> None:
        self.every = every
        self.pause = pause
        self._last = time.perf_counter()

    def due(self) -> bool:
        """Whether a pause is due now (and counted from now)."""
        now = time.perf_counter()
        if now - self._last < self.every:
            return False
        self._last = now
        return True

    def __call__(self) -> None:
        """In a worker thread, between two steps of its work: the pause when it is due."""
        if self.due():
            time.sleep(self.pause)


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


def drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end in this thread, in one step: a feature's work on SQLite,
    whose every await (its statements) is answered at once. A work that awaits anything
    else (a sleep, another coroutine's future) is refused, not left half done."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("a feature's work awaited something other than its transaction")


class SQLiteTx:
    """A transaction on an SQLite connection, in the thread that holds it (its methods are
    coroutines that never suspend: see :func:`drive`)."""

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._pacer: Pacer | None = None

    async def all(self, sql: str, params: Params = _NONE) -> list[Row]:
        return self._conn.execute(_statement(sql, "sqlite"), _named(params)).fetchall()

    async def one(self, sql: str, params: Params = _NONE) -> Row | None:
        row: Row | None = self._conn.execute(_statement(sql, "sqlite"), _named(params)).fetchone()
        return row

    async def many(self, sql: str, rows: Sequence[Params]) -> None:
        self._conn.executemany(_statement(sql, "sqlite"), [_named(r) for r in rows])

    async def pause(self) -> None:
        if self._pacer is None:
            self._pacer = Pacer()
        self._pacer()


class PostgresTx:
    """A transaction on an asynchronous psycopg connection, on the event loop."""

    dialect = "postgresql"

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._pacer: Pacer | None = None

    async def all(self, sql: str, params: Params = _NONE) -> list[Row]:
        cur = await self._conn.execute(_statement(sql, self.dialect), _named(params))
        return list(await cur.fetchall()) if cur.description is not None else []

    async def one(self, sql: str, params: Params = _NONE) -> Row | None:
        cur = await self._conn.execute(_statement(sql, self.dialect), _named(params))
        row: Row | None = await cur.fetchone() if cur.description is not None else None
        return row

    async def many(self, sql: str, rows: Sequence[Params]) -> None:
        async with self._conn.cursor() as cur:
            await cur.executemany(_statement(sql, self.dialect), [_named(r) for r in rows])

    async def pause(self) -> None:
        if self._pacer is None:
            self._pacer = Pacer()
        if self._pacer.due():
            await asyncio.sleep(0)


async def _first_row(tx: Tx, sql: str, params: Params) -> Row | None:
    return await tx.one(sql, params)


class SQLiteFeatureDb:
    """The feature tables in the games' SQLite file, on the games' connections and threads
    (see the module docstring)."""

    dialect = "sqlite"

    def __init__(self, storage: SQLiteStorage, *, durable: bool = True) -> None:
        self.storage = storage
        self.durable = durable

    async def run(self, work: Work[T], *, write: bool = True, single: bool = False) -> T:
        del single  # (one statement or several: a write of the batch either way)
        if write:
            return await self.storage.write_work(work, durable=self.durable)
        return await self.storage.read_work(work)

    async def one(self, sql: str, params: Params = _NONE, *, write: bool = True) -> Row | None:
        return await self.run(functools.partial(_first_row, sql=sql, params=params), write=write)

    def relaxed(self) -> SQLiteFeatureDb:
        return SQLiteFeatureDb(self.storage, durable=False)


class PostgresFeatureDb:
    """The feature tables in the games' PostgreSQL database, on the games' pool, on the
    event loop (see the module docstring)."""

    dialect = "postgresql"

    def __init__(self, storage: PostgresStorage) -> None:
        self.storage = storage

    async def run(self, work: Work[T], *, write: bool = True, single: bool = False) -> T:
        if not write:
            # Reads run as they come (autocommit): no BEGIN/COMMIT round trips. A board's
            # few statements may then see a result recorded between two of them.
            read: T = await self.storage.read_with(lambda conn: work(PostgresTx(conn)))
            return read
        async with self.storage.connection() as conn:
            if single:
                return await work(PostgresTx(conn))
            async with conn.transaction():
                return await work(PostgresTx(conn))

    async def one(self, sql: str, params: Params = _NONE, *, write: bool = True) -> Row | None:
        return await self.run(
            functools.partial(_first_row, sql=sql, params=params), write=write, single=True
        )

    def relaxed(self) -> PostgresFeatureDb:
        # (PostgreSQL's commits stay durable: its WAL flushes concurrent commits together)
        return self


class OwnFeatureDb:
    """A :class:`FeatureDb` on a storage of its own, opened on first use and closed with
    :meth:`close`: the feature tables of a command, a test or a benchmark that runs
    without the app (whose features share its storage)."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._db: FeatureDb | None = None
        self._opening = asyncio.Lock()
        self.dialect = storage.features().dialect

    async def _open(self) -> FeatureDb:
        if self._db is None:
            async with self._opening:
                if self._db is None:
                    await self._storage.open()
                    self._db = self._storage.features()
        return self._db

    async def run(self, work: Work[T], *, write: bool = True, single: bool = False) -> T:
        return await (await self._open()).run(work, write=write, single=single)

    async def one(self, sql: str, params: Params = _NONE, *, write: bool = True) -> Row | None:
        return await (await self._open()).one(sql, params, write=write)

    def relaxed(self) -> FeatureDb:
        return self  # (a command's or a test's writes: durable, as any)

    async def close(self) -> None:
        """Close the storage (after its last use)."""
        await self._storage.close()


def open_feature_db(db: Path | str) -> OwnFeatureDb:
    """The feature tables of ``db`` (a path or a PostgreSQL URL) for a command, a test or
    a benchmark, on a storage of their own (:class:`OwnFeatureDb`); the app's features use
    the app's (``Platform.db``)."""
    from yahtzee.storage import open_storage

    return OwnFeatureDb(open_storage(db))
