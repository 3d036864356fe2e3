"""SQLite backend of :class:`~yahtzee.storage.base.Storage`.

One connection per process, guarded by a lock: SQLite serialises writers anyway, and a
single connection keeps every statement prepared and avoids reopening costs. The database
runs in WAL mode with ``synchronous=FULL`` (F6): the WAL is fsynced before a commit
returns, so an acknowledged action survives the death of the process and a crash or power
loss of the machine (``NORMAL`` only survived the former, one fsync per action cheaper).

A full, read-only or failing disk raises :class:`StorageUnavailableError` (nothing is
written) and is remembered in ``write_failure`` until a write commits again; the same
connection carries on once the disk does.

The :class:`~yahtzee.storage.base.Storage` methods are coroutines, but their bodies run
inline with no ``await``: a statement here costs tens of microseconds, less than handing
it to a thread. Several processes may share one file on one machine: ``BEGIN IMMEDIATE``
serialises their writers and ``busy_timeout`` makes them wait their turn.

The schema is versioned with ``PRAGMA user_version`` and upgraded by :data:`MIGRATIONS`
when the database is opened. Events are append-only: triggers refuse UPDATE and DELETE,
except the deletion of a whole game that was abandoned before its first roll (pruning, F5).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from yahtzee.errors import (
    GameInProgressError,
    GameNotFoundError,
    RateLimitExceededError,
    StaleVersionError,
)
from yahtzee.game import Game, Mode, Result, Status
from yahtzee.log import Abandon, Event, from_json
from yahtzee.players import Difficulty
from yahtzee.storage.base import (
    Append,
    Charge,
    Ending,
    GameRecord,
    NewGame,
    RecentGame,
    Records,
    StorageError,
    StorageUnavailableError,
    TakeTokens,
    Write,
)

# The refusals of one write of a batch: they roll back that write alone.
_REFUSALS = (StaleVersionError, GameNotFoundError, GameInProgressError, RateLimitExceededError)

# Each migration is a list of statements run in one transaction; never edit a shipped one,
# append a new one instead.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games (
            id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            mode TEXT NOT NULL CHECK (mode IN ('solo', 'vs_computer')),
            difficulty TEXT,
            status TEXT NOT NULL CHECK (status IN ('in_progress', 'finished', 'abandoned')),
            version INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            finished_at TEXT,
            result TEXT CHECK (result IN ('win', 'loss', 'draw', 'solo')),
            human_total INTEGER,
            computer_total INTEGER,
            new_record INTEGER
        )""",
        # At most one unfinished game per player, enforced by the database itself.
        """CREATE UNIQUE INDEX games_one_unfinished ON games (player_id)
            WHERE status = 'in_progress'""",
        """CREATE INDEX games_finished ON games (player_id, finished_at)
            WHERE status = 'finished'""",
        """CREATE TABLE events (
            game_id TEXT NOT NULL REFERENCES games (id),
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID""",
        """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
        """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
    ),
    # v2 (F5): the one exception to the append-only log, stated in the schema itself. A
    # game abandoned before its first roll may be deleted whole (pruning, see
    # SQLiteStorage.prune_unplayed); any other event or game still refuses DELETE, whoever
    # issues it. The condition holds for every row while such a game's events are deleted
    # (it has no roll event to lose), then the game row goes once it has no events left.
    (
        "DROP TRIGGER events_no_delete",
        """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
            WHEN (SELECT status FROM games WHERE id = OLD.game_id) IS NOT 'abandoned'
                OR EXISTS (SELECT 1 FROM events
                           WHERE game_id = OLD.game_id AND kind = 'roll')
            BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END""",
        """CREATE TRIGGER games_no_delete BEFORE DELETE ON games
            WHEN OLD.status IS NOT 'abandoned'
                OR EXISTS (SELECT 1 FROM events WHERE game_id = OLD.id)
            BEGIN SELECT RAISE(ABORT, 'only an unplayed abandoned game can be deleted'); END""",
        # F6: one row that /api/health rewrites to learn whether writes work again.
        """CREATE TABLE heartbeat (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            at TEXT NOT NULL
        )""",
    ),
    # v3 (F5 across processes): the rate limits every process shares (one number per
    # bucket, see storage.base.Charge), and the live server processes, by which each
    # process divides its share of the per-player action limit (server/limits.py).
    (
        """CREATE TABLE rate_buckets (
            bucket TEXT NOT NULL,
            key TEXT NOT NULL,
            full_at REAL NOT NULL,
            PRIMARY KEY (bucket, key)
        ) WITHOUT ROWID""",
        """CREATE TABLE server_processes (
            id TEXT PRIMARY KEY,
            seen_at REAL NOT NULL
        ) WITHOUT ROWID""",
    ),
)

# One token of a shared bucket (storage.base.Charge): the conditional upsert returns the
# new full_at, or no row when the bucket is empty (then nothing changed).
_TAKE = """INSERT INTO rate_buckets (bucket, key, full_at) VALUES (:bucket, :key, :now + :interval)
    ON CONFLICT (bucket, key) DO UPDATE SET full_at = MAX(full_at, :now) + :interval
    WHERE full_at - :now <= :slack
    RETURNING full_at"""

# Pages (4 KiB) of WAL between automatic checkpoints: a WAL file of up to ~16 MiB.
WAL_AUTOCHECKPOINT = 4000

_GAME_COLUMNS = (
    "id, player_id, mode, difficulty, status, version, created_at, updated_at, "
    "finished_at, result, human_total, computer_total, new_record"
)


def _is_unavailable(exc: sqlite3.Error) -> bool:
    """A fault of the database file or its disk, not of our SQL: full, read-only, I/O
    error, cannot open, locked past the busy timeout, corrupt. (IntegrityError and
    ProgrammingError are bugs or refusals and keep their own type.)"""
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _dumps(data: Any) -> str:
    # The same text as json.dumps(data, separators=(",", ":"), ensure_ascii=False).
    return orjson.dumps(data).decode()


class SQLiteStorage:
    """A :class:`~yahtzee.storage.base.Storage` in one SQLite file (or ``":memory:"``)."""

    def __init__(
        self,
        path: Path | str,
        *,
        synchronous: str = "FULL",
        clock: Callable[[], str] = _now,
    ) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        self.write_failure: str | None = None
        try:
            self._conn = self._open(path, synchronous.upper())
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

    @staticmethod
    def _open(path: Path | str, synchronous: str) -> sqlite3.Connection:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN IMMEDIATE / COMMIT ourselves.
        conn = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, cached_statements=64
        )
        try:
            conn.execute("PRAGMA busy_timeout = 5000")
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

    # -- plumbing ---------------------------------------------------------------------

    async def open(self) -> None:
        """Nothing to do: the file was opened and migrated by the constructor."""

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a fault of the disk (full, read-only, I/O) becomes
        :class:`StorageUnavailableError` and is remembered in :attr:`write_failure` until
        a later write commits."""
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    # SQLite may already have rolled back (a full disk does): only if open.
                    if conn.in_transaction:
                        with suppress(sqlite3.Error):
                            conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                if not _is_unavailable(exc):
                    raise
                self.write_failure = str(exc)
                raise StorageUnavailableError(f"{self.path}: {exc}") from exc
            self.write_failure = None

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """The lock for a read; a fault of the disk becomes :class:`StorageUnavailableError`."""
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                if not _is_unavailable(exc):
                    raise
                raise StorageUnavailableError(f"{self.path}: {exc}") from exc

    async def probe_write(self) -> None:
        """See :meth:`Storage.probe_write`: one tiny write transaction."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO heartbeat (id, at) VALUES (1, ?)", (self._clock(),)
            )

    @property
    def schema_version(self) -> int:
        """The migration level of the open database."""
        with self._lock:
            return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        current = self.schema_version
        if current > len(MIGRATIONS):
            raise StorageError(
                f"database schema v{current} is newer than this program (v{len(MIGRATIONS)})"
            )
        for version in range(current + 1, len(MIGRATIONS) + 1):
            with self._transaction() as conn:
                for statement in MIGRATIONS[version - 1]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")

    @staticmethod
    def _game(row: tuple[Any, ...]) -> GameRecord:
        new_record = row[12]
        return GameRecord(
            id=row[0],
            player_id=row[1],
            mode=Mode(row[2]),
            difficulty=None if row[3] is None else Difficulty(row[3]),
            status=Status(row[4]),
            version=row[5],
            created_at=row[6],
            updated_at=row[7],
            finished_at=row[8],
            result=None if row[9] is None else Result(row[9]),
            human_total=row[10],
            computer_total=row[11],
            new_record=None if new_record is None else bool(new_record),
        )

    def _get(self, conn: sqlite3.Connection, game_id: str) -> GameRecord | None:
        row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else self._game(row)

    @staticmethod
    def _insert_events(
        conn: sqlite3.Connection, game_id: str, first_seq: int, events: Sequence[Event], now: str
    ) -> None:
        conn.executemany(
            "INSERT INTO events (game_id, seq, kind, data, created_at) VALUES (?, ?, ?, ?, ?)",
            [
                (game_id, first_seq + i, e.kind, _dumps(e.to_json()), now)
                for i, e in enumerate(events)
            ],
        )

    # -- the Storage interface ----------------------------------------------------------

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
    ) -> GameRecord:
        """See :meth:`Storage.create_game` (one transaction, inline; the server batches
        its new games with the actions instead, through :meth:`write_many`)."""
        write = NewGame(game_id, player_id, mode, difficulty, events, replace, charges)
        result = self.write_many([write])[0]
        if isinstance(result, Exception):
            raise result
        assert result is not None
        return result

    async def take(self, charges: Sequence[Charge]) -> None:
        """See :meth:`Storage.take` (inline; the server batches it, :meth:`write_many`)."""
        result = self.write_many([TakeTokens(charges)])[0]
        if isinstance(result, Exception):
            raise result

    @staticmethod
    def _take(conn: sqlite3.Connection, charges: Sequence[Charge]) -> None:
        """One token of each bucket, or :class:`RateLimitExceededError` (the caller rolls
        back what was taken)."""
        for charge in charges:
            params = charge.params()
            if conn.execute(_TAKE, params).fetchone() is None:
                (full_at,) = conn.execute(
                    "SELECT full_at FROM rate_buckets WHERE bucket = ? AND key = ?",
                    (charge.bucket, charge.key),
                ).fetchone()
                raise RateLimitExceededError(charge.bucket, charge.retry_after(full_at))

    def _create(
        self, conn: sqlite3.Connection, new: NewGame, now: str
    ) -> GameRecord | GameInProgressError:
        """A new game (see :meth:`Storage.create_game`); a kept unfinished game is returned
        as the refusal, not raised, so that the tokens taken stay taken."""
        self._take(conn, new.charges)
        old = conn.execute(
            "SELECT id, version FROM games WHERE player_id = ? AND status = 'in_progress'",
            (new.player_id,),
        ).fetchone()
        if old is not None and not new.replace:
            return GameInProgressError(old[0])
        if old is not None:
            conn.execute(
                "UPDATE games SET status = 'abandoned', version = version + 1, "
                "updated_at = ? WHERE id = ?",
                (now, old[0]),
            )
            self._insert_events(conn, old[0], old[1] + 1, [Abandon()], now)
        conn.execute(
            "INSERT INTO games (id, player_id, mode, difficulty, status, version, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, 'in_progress', ?, ?, ?)",
            (
                new.game_id,
                new.player_id,
                new.mode.value,
                None if new.difficulty is None else new.difficulty.value,
                len(new.events),
                now,
                now,
            ),
        )
        self._insert_events(conn, new.game_id, 1, new.events, now)
        return GameRecord(
            id=new.game_id,
            player_id=new.player_id,
            mode=new.mode,
            difficulty=new.difficulty,
            status=Status.IN_PROGRESS,
            version=len(new.events),
            created_at=now,
            updated_at=now,
            finished_at=None,
            result=None,
            human_total=None,
            computer_total=None,
            new_record=None,
        )

    async def get_game(self, game_id: str) -> GameRecord | None:
        """See :meth:`Storage.get_game`."""
        with self._reading():
            return self._get(self._conn, game_id)

    async def current_game(self, player_id: str) -> GameRecord | None:
        """See :meth:`Storage.current_game`."""
        with self._reading():
            row = self._conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE player_id = ? AND status = 'in_progress'",
                (player_id,),
            ).fetchone()
        return None if row is None else self._game(row)

    async def owns_games(self, player_id: str) -> bool:
        """See :meth:`Storage.owns_games` (two lookups, each in a partial index)."""
        with self._reading():
            for status in ("in_progress", "finished"):
                row = self._conn.execute(
                    "SELECT 1 FROM games WHERE player_id = ? AND status = ? LIMIT 1",
                    (player_id, status),
                ).fetchone()
                if row is not None:
                    return True
        return False

    async def append(
        self,
        game: GameRecord,
        events: Sequence[Event],
        *,
        status: Status,
        final: Game | None = None,
    ) -> GameRecord:
        """See :meth:`Storage.append`."""
        with self._transaction() as conn:
            return self._append(conn, game, events, status, final, self._clock())

    def append_many(self, appends: Sequence[Append]) -> list[GameRecord | Exception]:
        """Several appends in one transaction (:meth:`write_many` of appends only)."""
        return [r for r in self.write_many(appends) if r is not None]

    def write_many(self, writes: Sequence[Write]) -> list[GameRecord | Exception | None]:
        """See :meth:`BatchWriter.write_many`: one transaction, one sync to disk; each write
        in its own savepoint, so a refused one (stale version, a game in progress, an empty
        rate-limit bucket) leaves the others."""
        now = self._clock()
        results: list[GameRecord | Exception | None] = []
        with self._transaction() as conn:
            for write in writes:
                conn.execute("SAVEPOINT one_write")
                try:
                    if isinstance(write, NewGame):
                        results.append(self._create(conn, write, now))
                    elif isinstance(write, TakeTokens):
                        self._take(conn, write.charges)
                        results.append(None)
                    else:
                        game, events, status, final = write
                        results.append(self._append(conn, game, events, status, final, now))
                except _REFUSALS as exc:
                    conn.execute("ROLLBACK TO one_write")
                    results.append(exc)
                conn.execute("RELEASE one_write")
        return results

    def _append(
        self,
        conn: sqlite3.Connection,
        game: GameRecord,
        events: Sequence[Event],
        status: Status,
        final: Game | None,
        now: str,
    ) -> GameRecord:
        new_version = game.version + len(events)
        # The compare-and-set: only one writer can move the game from this version.
        # The status column is only written when it changes: writing it, even unchanged,
        # makes SQLite maintain both partial indexes that filter on it (~30% of a write).
        if status is Status.IN_PROGRESS:
            cur = conn.execute(
                "UPDATE games SET version = ?, updated_at = ? "
                "WHERE id = ? AND version = ? AND status = 'in_progress'",
                (new_version, now, game.id, game.version),
            )
        else:
            cur = conn.execute(
                "UPDATE games SET version = ?, status = ?, updated_at = ? "
                "WHERE id = ? AND version = ? AND status = 'in_progress'",
                (new_version, status.value, now, game.id, game.version),
            )
        if cur.rowcount != 1:
            exists = conn.execute("SELECT 1 FROM games WHERE id = ?", (game.id,)).fetchone()
            if exists is None:
                raise GameNotFoundError(game.id)
            raise StaleVersionError(game.id)
        self._insert_events(conn, game.id, game.version + 1, events, now)
        if final is None:
            return game.appended(status, new_version, now)
        ending = Ending.of(final)
        new_record = False
        if ending.result is Result.SOLO:
            best = conn.execute(
                "SELECT MAX(human_total) FROM games WHERE player_id = ? "
                "AND status = 'finished' AND mode = 'solo' AND id != ?",
                (game.player_id, game.id),
            ).fetchone()[0]
            new_record = ending.solo_record(best)
        conn.execute(
            "UPDATE games SET finished_at = ?, result = ?, human_total = ?, "
            "computer_total = ?, new_record = ? WHERE id = ?",
            (
                now,
                ending.result.value,
                ending.human_total,
                ending.computer_total,
                int(new_record),
                game.id,
            ),
        )
        return game.finished(status, new_version, now, ending, new_record)

    async def events(self, game_id: str, after: int = 0, until: int | None = None) -> list[Event]:
        """See :meth:`Storage.events`."""
        last = until if until is not None else 2**62
        with self._reading():
            rows = self._conn.execute(
                "SELECT kind, data FROM events WHERE game_id = ? AND seq > ? AND seq <= ? "
                "ORDER BY seq",
                (game_id, after, last),
            ).fetchall()
        return [from_json(kind, orjson.loads(data)) for kind, data in rows]

    async def records(self, player_id: str, recent: int = 10) -> Records:
        """See :meth:`Storage.records`."""
        with self._reading():
            played, best, wins, losses, draws = self._conn.execute(
                "SELECT COUNT(*), MAX(CASE WHEN mode = 'solo' THEN human_total END), "
                "COALESCE(SUM(result = 'win'), 0), COALESCE(SUM(result = 'loss'), 0), "
                "COALESCE(SUM(result = 'draw'), 0) "
                "FROM games WHERE player_id = ? AND status = 'finished'",
                (player_id,),
            ).fetchone()
            rows = self._conn.execute(
                "SELECT id, finished_at, mode, difficulty, human_total, computer_total, result "
                "FROM games WHERE player_id = ? AND status = 'finished' "
                "ORDER BY finished_at DESC, rowid DESC LIMIT ?",
                (player_id, recent),
            ).fetchall()
        return Records(
            best_score=best,
            wins=wins,
            losses=losses,
            draws=draws,
            games_played=played,
            recent=tuple(_recent(*row) for row in rows),
        )

    async def finished_games(self, player_id: str) -> list[RecentGame]:
        """See :meth:`Storage.finished_games`."""
        with self._reading():
            rows = self._conn.execute(
                "SELECT id, finished_at, mode, difficulty, human_total, computer_total, result "
                "FROM games WHERE player_id = ? AND status = 'finished' "
                "ORDER BY finished_at, rowid",
                (player_id,),
            ).fetchall()
        return [_recent(*row) for row in rows]

    async def prune_unplayed(self, before: str, limit: int = 500) -> int:
        """See :meth:`Storage.prune_unplayed`: one transaction of at most ``limit`` games,
        in a worker thread (its commit waits for the disk; the event loop must not)."""
        return await asyncio.to_thread(self._prune_unplayed, before, limit)

    def _prune_unplayed(self, before: str, limit: int) -> int:
        with self._transaction() as conn:
            ids = [
                row[0]
                for row in conn.execute(
                    "SELECT id FROM games WHERE status = 'abandoned' AND updated_at < ? "
                    "AND NOT EXISTS (SELECT 1 FROM events "
                    "WHERE events.game_id = games.id AND kind = 'roll') LIMIT ?",
                    (before, limit),
                )
            ]
            for game_id in ids:  # the triggers check every row of it again
                conn.execute("DELETE FROM events WHERE game_id = ?", (game_id,))
                conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return len(ids)

    async def prune_buckets(self, now: float, limit: int = 5000) -> int:
        """See :meth:`Storage.prune_buckets` (a commit: in a worker thread)."""
        return await asyncio.to_thread(self._prune_buckets, now, limit)

    def _prune_buckets(self, now: float, limit: int) -> int:
        with self._transaction() as conn:
            return conn.execute(
                "DELETE FROM rate_buckets WHERE (bucket, key) IN "
                "(SELECT bucket, key FROM rate_buckets WHERE full_at <= ? LIMIT ?)",
                (now, limit),
            ).rowcount

    def _register(self, process_id: str, now: float, ttl: float) -> int:
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO server_processes (id, seen_at) VALUES (?, ?) "
                "ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
                (process_id, now),
            )
            conn.execute("DELETE FROM server_processes WHERE seen_at < ?", (now - ttl,))
            (count,) = conn.execute("SELECT COUNT(*) FROM server_processes").fetchone()
        return int(count)

    async def register_process(self, process_id: str, now: float, ttl: float) -> int:
        """See :meth:`Storage.register_process` (a commit: in a worker thread)."""
        return await asyncio.to_thread(self._register, process_id, now, ttl)

    async def unregister_process(self, process_id: str) -> None:
        """See :meth:`Storage.unregister_process`."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM server_processes WHERE id = ?", (process_id,))

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check``: ``"ok"`` for a healthy file."""
        with self._lock:
            return str(self._conn.execute("PRAGMA integrity_check").fetchone()[0])

    async def close(self) -> None:
        """Close the connection (checkpointing the WAL)."""
        with self._lock:
            self._conn.close()


def _recent(
    game_id: str,
    finished_at: str,
    mode: str,
    difficulty: str | None,
    human_total: int,
    computer_total: int | None,
    result: str,
) -> RecentGame:
    level = None if difficulty is None else Difficulty(difficulty)
    return RecentGame(
        game_id, finished_at, Mode(mode), level, human_total, computer_total, Result(result)
    )
