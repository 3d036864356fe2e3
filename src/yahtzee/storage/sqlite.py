"""SQLite backend of :class:`~yahtzee.storage.base.Storage`.

The database runs in WAL mode with ``synchronous=FULL`` (F6): the WAL is fsynced before a
commit returns, so an acknowledged action survives the death of the process and a crash
or power loss of the machine.

**Nothing here runs on the event loop** (issue 22.4). Every write runs in one writer
thread on the one write connection, the game writes batched by a
:class:`~yahtzee.storage.group_commit.GroupCommit` (one fsync for concurrent requests).
Every read runs in a small pool of reader threads, each with a connection of its own: in
WAL mode a reader never waits for a writer, so while the write lock is held (a commit
syncing, another process's transaction, a writer waiting out ``busy_timeout``) the reads,
and every request that does not touch the database, go on. Both pools are this storage's
own, bounded, and separate from asyncio's default executor (and from the server's CPU
pool). Several processes may share one file on one machine: ``BEGIN IMMEDIATE`` serialises
their writers and ``busy_timeout`` makes them wait their turn (then 503).

A full, read-only or failing disk raises :class:`StorageUnavailableError` (nothing is
written) and is remembered (:class:`~yahtzee.storage.base.WriteHealth`) until a write
commits again; the same connection carries on once the disk does.

The schema (the games' tables, :mod:`yahtzee.storage.games_schema`, and the owners the app
adds) is brought up to date when the database is opened, by the one migration mechanism
(:mod:`yahtzee.storage.schema`). Events are
append-only: triggers refuse UPDATE and DELETE, except the deletion of a whole game that
never had a roll (pruning, F5).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

from yahtzee.errors import (
    GameInProgressError,
    GameNotFoundError,
    RateLimitExceededError,
    StaleVersionError,
)
from yahtzee.game import Game, GameKind, Mode, Status
from yahtzee.log import Event
from yahtzee.players import Difficulty
from yahtzee.storage import schema, sql
from yahtzee.storage.base import (
    Append,
    Charge,
    Claim,
    Ending,
    FeatureWrite,
    GameRecord,
    NewGame,
    RecentGame,
    Records,
    StorageError,
    StorageUnavailableError,
    TakeTokens,
    Write,
    WriteHealth,
)
from yahtzee.storage.feature_db import SQLiteFeatureDb, SQLiteTx, Work, drive
from yahtzee.storage.games_schema import GAMES
from yahtzee.storage.group_commit import GroupCommit, Results
from yahtzee.storage.schema import Migrations, check_owners

T = TypeVar("T")

# The refusals of one write of a batch: they roll back that write alone.
_REFUSALS = (StaleVersionError, GameNotFoundError, GameInProgressError, RateLimitExceededError)

# Pages (4 KiB) of WAL between automatic checkpoints: a WAL file of up to ~16 MiB.
WAL_AUTOCHECKPOINT = 4000

#: Reader threads (each with its own connection): the games' reads and the features' (a
#: board, an export) share them, so a long read leaves others free; two cores.
READERS = 4

#: How long a connection waits for another's write lock before giving up (then 503).
BUSY_TIMEOUT_MS = 5000

_SQL = sql.SQLITE


def _is_unavailable(exc: sqlite3.Error) -> bool:
    """A fault of the database file or its disk, not of our SQL: full, read-only, I/O
    error, cannot open, locked past the busy timeout, corrupt. (IntegrityError and
    ProgrammingError are bugs or refusals and keep their own type.)"""
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


def _run(conn: sqlite3.Connection, steps: sql.Steps[T]) -> T:
    """Run the shared logic ``steps`` (:mod:`yahtzee.storage.sql`) on ``conn``."""
    answer: Any = None
    try:
        while True:
            step = steps.send(answer)
            if isinstance(step, sql.Many):
                conn.executemany(step.sql, step.rows)
                answer = None
            elif isinstance(step, sql.RunClaim):  # (a feature's work, on this connection)
                answer = drive(step.claim.work(SQLiteTx(conn)))
            else:
                answer = conn.execute(step.sql, step.params).fetchone()
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


def connect(path: Path | str, synchronous: str) -> sqlite3.Connection:
    """A connection to the database file ``path`` as every part of the program opens one
    (the games' storage, the features' tables): WAL, ``synchronous`` (FULL: F6), a busy
    timeout, foreign keys; transactions are ours (``isolation_level=None``)."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    # isolation_level=None: we issue BEGIN IMMEDIATE / COMMIT ourselves.
    conn = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, cached_statements=64
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal" and str(path) != ":memory:":
            raise StorageError(f"could not switch {path} to WAL mode (got {mode})")
        # FULL (F6): the WAL is synced at every commit, so an acknowledged action
        # survives a power loss or kernel crash too, not only the death of the process.
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        # Checkpoint (copy the WAL back into the database, with its two fsyncs) every
        # WAL_AUTOCHECKPOINT pages rather than SQLite's 1000: each checkpoint then
        # costs about the same (a hot page is written back once however often it
        # changed), so a write costs ~20% less. Commits are as durable either way.
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT}")
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn


class ReadConnections:
    """A read-only connection to the database file ``path`` for each thread that reads
    (``PRAGMA query_only``), opened on its first read and kept; :meth:`close` closes them
    all. In WAL mode such a reader sees the last commit while a writer (of this process, of
    another, or a transaction someone left open) holds the write lock."""

    def __init__(self, path: Path | str) -> None:
        self.path = path
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        self._lock = threading.Lock()  # (not the write lock: a writer may hold it long)

    def get(self) -> sqlite3.Connection:
        """The calling thread's connection."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, cached_statements=64
            )
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA query_only = 1")  # a reader never writes
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    def close(self) -> None:
        """Close every thread's connection."""
        with self._lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()


@contextmanager
def transaction(conn: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> Iterator[None]:
    """``begin`` … ``COMMIT`` on ``conn``; on any exception ``ROLLBACK``, unless SQLite has
    rolled back already (a full disk does), and the exception goes on."""
    conn.execute(begin)
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


class SQLiteStorage:
    """A :class:`~yahtzee.storage.base.Storage` in one SQLite file (or ``":memory:"``)."""

    def __init__(
        self,
        path: Path | str,
        *,
        synchronous: str = "FULL",
        clock: Callable[[], str] = sql.now_iso,
        readers: int = READERS,
        schema: Sequence[Migrations] = (),
    ) -> None:
        """Open (create) the file ``path`` and migrate it: the games' tables and those of
        the owners of ``schema`` (the app gives the invite tokens' and the features')."""
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        self.path = path
        self._clock = clock
        self._synchronous = synchronous.upper()
        self._memory = str(path) == ":memory:"
        self._owners = (GAMES, *schema)
        check_owners(self._owners)
        # The write connection: used by the writer thread (and by the constructor, the
        # tests' fault injection and integrity_check), always under this lock.
        self._lock = threading.Lock()
        self.write_health = WriteHealth()
        try:
            self._conn = connect(path, synchronous.upper())
        except (OSError, sqlite3.Error) as exc:
            # One line naming the file (``yahtzee serve`` prints it and exits with 2).
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise StorageError(f"cannot open the database {path}: {reason}") from None
        try:
            self._migrate()
        except (sqlite3.Error, StorageUnavailableError) as exc:
            self._conn.close()
            cause = exc.__cause__ if isinstance(exc, StorageUnavailableError) else exc
            raise StorageError(f"cannot open the database {path}: {cause}") from None
        except BaseException:
            self._conn.close()
            raise
        self._writer = concurrent.futures.ThreadPoolExecutor(1, "yahtzee-sqlite-write")
        self._readers = concurrent.futures.ThreadPoolExecutor(readers, "yahtzee-sqlite-read")
        self._read_conns = ReadConnections(path)
        # One group commit per event loop: a batch's futures belong to the loop of the
        # requests that wait on them (the server has one loop; a command, a test may run
        # several, each in its thread). The writes of every loop share the writer thread.
        self._groups: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, GroupCommit] = (
            weakref.WeakKeyDictionary()
        )

    # -- plumbing: the threads ---------------------------------------------------------

    async def open(self) -> None:
        """Nothing to do: the file was opened and migrated by the constructor."""

    async def _write(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the writer thread (it takes the write connection itself)."""
        return await asyncio.get_running_loop().run_in_executor(self._writer, fn, *args)

    async def _write_batch(self, writes: Sequence[Write]) -> Results:
        return await self._write(self.write_many, writes)

    def _group(self) -> GroupCommit:
        """The group commit of the running event loop."""
        loop = asyncio.get_running_loop()
        group = self._groups.get(loop)
        if group is None:
            group = self._groups[loop] = GroupCommit(self._write_batch)
        return group

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(conn, *args)`` on a reader thread's own connection."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, self._reading, fn, *args)

    def _reading(self, fn: Callable[..., T], *args: Any) -> T:
        """In a reader thread: ``fn`` on its connection; a fault of the disk becomes
        :class:`StorageUnavailableError`."""
        try:
            if self._memory:  # one database per connection: read on the write connection
                with self._lock:
                    return fn(self._conn, *args)
            return fn(self._read_conns.get(), *args)
        except sqlite3.Error as exc:
            if not _is_unavailable(exc):
                raise
            raise StorageUnavailableError(f"{self.path}: {exc}") from exc

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the write connection (call it in the writer thread); a
        fault of the disk (full, read-only, I/O) becomes :class:`StorageUnavailableError`
        and is remembered in :attr:`write_health` until a later write commits."""
        with self._lock:
            conn = self._conn
            try:
                with transaction(conn):
                    yield conn
            except sqlite3.Error as exc:
                if not _is_unavailable(exc):
                    raise
                self.write_health.failed(str(exc))
                raise StorageUnavailableError(f"{self.path}: {exc}") from exc
            self.write_health.succeeded()

    # -- health ---------------------------------------------------------------------------

    @property
    def write_failure(self) -> str | None:
        """Why the last write failed, or ``None`` once one has succeeded since."""
        return self.write_health.failure

    async def health(self) -> str | None:
        """See :meth:`Storage.health`."""
        return await self.write_health.check(self.probe_write)

    async def probe_write(self) -> None:
        """See :meth:`Storage.probe_write`: one tiny write transaction."""
        await self._write(self._probe)

    def _probe(self) -> None:
        with self._transaction() as conn:
            conn.execute(_SQL.heartbeat, {"now": self._clock()})

    @property
    def schema_version(self) -> int:
        """The games' migration level of the open database."""
        with self._lock:
            row = self._conn.execute(
                "SELECT COALESCE(MAX(version), 0) FROM schema_versions WHERE owner = 'games'"
            ).fetchone()
        return int(row[0])

    def _migrate(self) -> None:
        """Every pending migration, each in a transaction of its own (``BEGIN IMMEDIATE``:
        processes opening a new file together take turns, and each reads the versions
        again once it has the write lock)."""
        while True:
            with self._transaction() as conn:

                def execute(statement: schema.Statement) -> Any:
                    if statement.params is None:
                        return conn.execute(statement.sql).fetchone()
                    return conn.execute(statement.sql, statement.params).fetchone()

                steps = schema.next_migration(schema.SQLITE, self._owners, self._clock())
                if schema.run_sync(execute, steps) is None:
                    return

    # -- the Storage interface: writes ------------------------------------------------------

    async def create_game(
        self,
        *,
        game_id: str,
        player_id: str,
        mode: Mode,
        difficulty: Difficulty | None,
        events: Sequence[Event],
        replace: bool = False,
        charges: Sequence[Charge] = (),
        claim: Claim | None = None,
        kind: GameKind | None = None,
        owner: Claim | None = None,
    ) -> GameRecord:
        """See :meth:`Storage.create_game` (batched with concurrent writes)."""
        new = NewGame(
            game_id,
            player_id,
            mode,
            difficulty,
            events,
            replace,
            charges,
            claim,
            kind or GameKind.of(mode),
            owner,
        )
        result: GameRecord = await self._group().write(new)
        return result

    async def take(self, charges: Sequence[Charge]) -> None:
        """See :meth:`Storage.take` (batched with concurrent writes)."""
        if charges:
            await self._group().write(TakeTokens(charges))

    async def append(
        self,
        game: GameRecord,
        events: Sequence[Event],
        *,
        status: Status,
        final: Game | None = None,
    ) -> GameRecord:
        """See :meth:`Storage.append` (batched with concurrent writes)."""
        result: GameRecord = await self._group().write((game, events, status, final))
        return result

    def append_many(self, appends: Sequence[Append]) -> list[GameRecord | Exception]:
        """Several appends in one transaction (:meth:`write_many` of appends only)."""
        return [r for r in self.write_many(appends) if isinstance(r, GameRecord | Exception)]

    def write_many(self, writes: Sequence[Write]) -> Results:
        """Several writes in one transaction, one sync to disk (blocking: the writer
        thread's job). Each write runs in its own savepoint, so a refused one (stale
        version, a game in progress, an empty rate-limit bucket, whatever a feature's work
        raised) leaves the others. Each result is what the write returns (the game's
        header; ``None`` for tokens taken; a feature's result in a 1-tuple) or its refusal
        alone; a storage fault raises, failing them all. A batch of nothing but relaxed
        feature writes (练习's) commits with ``synchronous=NORMAL``: no wait for the disk."""
        relaxed = self._synchronous in ("FULL", "EXTRA") and all(
            isinstance(w, FeatureWrite) and not w.durable for w in writes
        )
        if not relaxed:
            return self._write_many(writes)
        with self._lock:  # (a safety level is set outside a transaction)
            self._conn.execute("PRAGMA synchronous = NORMAL")
        try:
            return self._write_many(writes)
        finally:
            with self._lock:
                self._conn.execute(f"PRAGMA synchronous = {self._synchronous}")

    def _write_many(self, writes: Sequence[Write]) -> Results:
        now = self._clock()
        results: Results = []
        with self._transaction() as conn:
            for write in writes:
                conn.execute("SAVEPOINT one_write")
                if isinstance(write, FeatureWrite):
                    results.append(_feature_write(conn, write))
                    conn.execute("RELEASE one_write")
                    continue
                try:
                    if isinstance(write, NewGame):
                        results.append(_run(conn, sql.create_game(_SQL, write, now)))
                    elif isinstance(write, TakeTokens):
                        _run(conn, sql.take_tokens(_SQL, write.charges))
                        results.append(None)
                    else:
                        game, events, status, final = write
                        results.append(self._append(conn, game, events, status, final, now))
                except _REFUSALS as exc:
                    conn.execute("ROLLBACK TO one_write")
                    results.append(exc)
                conn.execute("RELEASE one_write")
        return results

    @staticmethod
    def _append(
        conn: sqlite3.Connection,
        game: GameRecord,
        events: Sequence[Event],
        status: Status,
        final: Game | None,
        now: str,
    ) -> GameRecord:
        new_version = game.version + len(events)
        # The compare-and-set: only one writer can move the game from this version (at the
        # seat serial it was read at, F24).
        # The status column is only written when it changes: writing it, even unchanged,
        # makes SQLite maintain both partial indexes that filter on it (~30% of a write).
        if status is Status.IN_PROGRESS:
            cur = conn.execute(
                "UPDATE games SET version = ?, updated_at = ? "
                "WHERE id = ? AND version = ? AND seat_serial = ? AND status = 'in_progress'",
                (new_version, now, game.id, game.version, game.seat_serial),
            )
        else:
            cur = conn.execute(
                "UPDATE games SET version = ?, status = ?, updated_at = ? "
                "WHERE id = ? AND version = ? AND seat_serial = ? AND status = 'in_progress'",
                (new_version, status.value, now, game.id, game.version, game.seat_serial),
            )
        if cur.rowcount != 1:
            raise _run(conn, sql.refusal(_SQL, game.id))
        step = sql.insert_events(_SQL, game.id, game.version + 1, events, now)
        conn.executemany(step.sql, step.rows)
        if final is None:
            return game.appended(status, new_version, now)
        ending = Ending.of(final)
        new_record = _run(conn, sql.finish(_SQL, game, ending, now))
        return game.finished(status, new_version, now, ending, new_record)

    # -- the features' way to the database (A3: storage/feature_db.py) ------------------

    def features(self) -> SQLiteFeatureDb:
        """See :meth:`Storage.features`: on these connections and threads."""
        return SQLiteFeatureDb(self)

    async def write_work(self, work: Work[T], *, durable: bool = True) -> T:
        """A feature's write ``work``, one write of the group commit (its savepoint, the
        batch's transaction and sync); what it raised is raised here."""
        done: tuple[T] = await self._group().write(FeatureWrite(work, durable))
        return done[0]

    def listen(
        self,
        channel: str,
        on_notice: Callable[[str], None],
        on_reconnect: Callable[[], None] | None = None,
    ) -> None:
        """See :meth:`Storage.listen`: nothing to hear on SQLite, whose one process hands
        what it writes to its parts itself."""
        del channel, on_notice, on_reconnect

    async def read_work(self, work: Work[T]) -> T:
        """A feature's read ``work`` on a reader thread's connection, in one snapshot."""
        return await self._read(_read_work, work)

    async def prune_unplayed(self, before: str, limit: int = 500) -> int:
        """See :meth:`Storage.prune_unplayed`: one transaction of at most ``limit`` games."""
        return await self._write(self._prune_unplayed, before, limit)

    def _prune_unplayed(self, before: str, limit: int) -> int:
        with self._transaction() as conn:
            ids = [
                row[0] for row in conn.execute(_SQL.unplayed, {"before": before, "limit": limit})
            ]
            for game_id in ids:  # the triggers check every row of it again
                conn.execute("DELETE FROM events WHERE game_id = ?", (game_id,))
                conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return len(ids)

    async def prune_buckets(self, now: float, limit: int = 5000) -> int:
        """See :meth:`Storage.prune_buckets`."""
        return await self._write(self._prune_buckets, now, limit)

    def _prune_buckets(self, now: float, limit: int) -> int:
        with self._transaction() as conn:
            return conn.execute(
                "DELETE FROM rate_buckets WHERE (bucket, key) IN "
                "(SELECT bucket, key FROM rate_buckets WHERE full_at <= ? LIMIT ?)",
                (now, limit),
            ).rowcount

    async def register_process(
        self, process_id: str, now: float, ttl: float, forget: Sequence[str] = ()
    ) -> int:
        """See :meth:`Storage.register_process`."""
        return await self._write(self._register, process_id, now, ttl, forget)

    def _register(self, process_id: str, now: float, ttl: float, forget: Sequence[str]) -> int:
        with self._transaction() as conn:
            return _run(conn, sql.register_process(_SQL, process_id, now, ttl, forget))

    async def process_ids(self) -> list[str]:
        """See :meth:`Storage.process_ids`."""
        return await self._read(_process_ids)

    async def unregister_process(self, process_id: str) -> None:
        """See :meth:`Storage.unregister_process`."""
        await self._write(self._unregister, process_id)

    def _unregister(self, process_id: str) -> None:
        with self._transaction() as conn:
            conn.execute(_SQL.unregister, {"id": process_id})

    # -- the Storage interface: reads ------------------------------------------------------

    async def get_game(self, game_id: str) -> GameRecord | None:
        """See :meth:`Storage.get_game`."""
        return await self._read(_get_game, game_id)

    async def current_game(self, player_id: str) -> GameRecord | None:
        """See :meth:`Storage.current_game`."""
        return await self._read(_current_game, player_id)

    async def events(self, game_id: str, after: int = 0, until: int | None = None) -> list[Event]:
        """See :meth:`Storage.events`."""
        return await self._read(_events, game_id, after, 2**62 if until is None else until)

    async def records(self, player_id: str, recent: int = 10) -> Records:
        """See :meth:`Storage.records`."""
        return await self._read(_records, player_id, recent)

    async def finished_games(self, player_id: str, limit: int | None = None) -> list[RecentGame]:
        """See :meth:`Storage.finished_games`."""
        return await self._read(_finished_games, player_id, limit)

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check``: ``"ok"`` for a healthy file."""
        with self._lock:
            return str(self._conn.execute("PRAGMA integrity_check").fetchone()[0])

    async def close(self) -> None:
        """Close the connections (checkpointing the WAL) and end the threads."""
        await self._write(self._close)
        self._writer.shutdown(wait=False)
        self._readers.shutdown(wait=False)

    def _close(self) -> None:
        self._read_conns.close()
        with self._lock:
            self._conn.close()


# -- the reads (each in a reader thread, on its connection) -------------------------------


def _get_game(conn: sqlite3.Connection, game_id: str) -> GameRecord | None:
    row = conn.execute(_SQL.get_game, {"id": game_id}).fetchone()
    return None if row is None else sql.game_of(row)


def _current_game(conn: sqlite3.Connection, player_id: str) -> GameRecord | None:
    row = conn.execute(_SQL.current_game, {"player": player_id}).fetchone()
    return None if row is None else sql.game_of(row)


def _events(conn: sqlite3.Connection, game_id: str, after: int, until: int) -> list[Event]:
    rows = conn.execute(_SQL.events, {"id": game_id, "after": after, "until": until})
    return [sql.event_of(row) for row in rows.fetchall()]


def _records(conn: sqlite3.Connection, player_id: str, recent: int) -> Records:
    conn.execute("BEGIN")  # both statements see the same snapshot
    try:
        played, best, wins, losses, draws = conn.execute(
            "SELECT COUNT(*), MAX(CASE WHEN kind = 'solo' THEN human_total END), "
            "COALESCE(SUM(result = 'win'), 0), COALESCE(SUM(result = 'loss'), 0), "
            "COALESCE(SUM(result = 'draw'), 0) "
            f"FROM games WHERE player_id = ? AND {sql.COUNTED}",
            (player_id,),
        ).fetchone()
        rows = conn.execute(
            f"SELECT {sql.RECENT_COLUMNS} FROM games WHERE player_id = ? "
            f"AND {sql.COUNTED} ORDER BY finished_at DESC, rowid DESC LIMIT ?",
            (player_id, recent),
        ).fetchall()
    finally:
        conn.execute("COMMIT")
    return Records(
        best_score=best,
        wins=wins,
        losses=losses,
        draws=draws,
        games_played=played,
        recent=tuple(sql.recent_of(row) for row in rows),
    )


def _read_work(conn: sqlite3.Connection, work: Work[T]) -> T:
    with transaction(conn, "BEGIN"):  # one snapshot for the work's statements
        return drive(work(SQLiteTx(conn)))


#: SQLite's result codes of a fault of the file or its disk, not of a feature's SQL: a
#: feature write that meets one fails its batch (the disk failed them all, F6).
_FILE_FAULTS = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_BUSY",
                "SQLITE_LOCKED", "SQLITE_CANTOPEN", "SQLITE_CORRUPT", "SQLITE_NOTADB")  # fmt: skip


def _feature_write(conn: sqlite3.Connection, write: FeatureWrite) -> tuple[Any] | Exception:
    """A feature's write in the batch's open savepoint: its result in a 1-tuple, or what
    it raised (its savepoint rolled back: the batch's other writes stand). A fault of the
    file (a full disk) raises, failing the batch; a statement SQLite refused otherwise (a
    missing table, a bad statement) is that write's own 503, as it always was."""
    try:
        return (drive(write.work(SQLiteTx(conn))),)
    except sqlite3.Error as exc:
        name = getattr(exc, "sqlite_errorname", "")
        if not conn.in_transaction or name.startswith(_FILE_FAULTS):
            raise
        conn.execute("ROLLBACK TO one_write")
        if _is_unavailable(exc):
            return StorageUnavailableError(f"{exc}")
        return exc
    except Exception as exc:
        conn.execute("ROLLBACK TO one_write")
        return exc


def _process_ids(conn: sqlite3.Connection) -> list[str]:
    return [str(row[0]) for row in conn.execute(_SQL.process_ids)]


def _finished_games(
    conn: sqlite3.Connection, player_id: str, limit: int | None
) -> list[RecentGame]:
    # The most recent ``limit`` (newest first, by the index), returned oldest first.
    rows = conn.execute(
        f"SELECT {sql.RECENT_COLUMNS} FROM games WHERE player_id = ? AND {sql.COUNTED} "
        "ORDER BY finished_at DESC, rowid DESC LIMIT ?",
        (player_id, -1 if limit is None else limit),
    ).fetchall()
    return [sql.recent_of(row) for row in reversed(rows)]
