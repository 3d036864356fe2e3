"""SQLite backend of :class:`~yahtzee.storage.base.Storage`.

One connection per process, guarded by a lock: SQLite serialises writers anyway, and a
single connection keeps every statement prepared and avoids reopening costs. The database
runs in WAL mode with ``synchronous=NORMAL``: a commit survives the death of the process
(``kill -9``) because the WAL is written before the commit returns; only an operating
system crash or power loss may drop the last transactions (``synchronous="FULL"`` closes
that gap at the cost of an fsync per action).

The schema is versioned with ``PRAGMA user_version`` and upgraded by :data:`MIGRATIONS`
when the database is opened. Events are append-only: triggers refuse UPDATE and DELETE.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from yahtzee.errors import GameInProgressError, GameNotFoundError, StaleVersionError
from yahtzee.game import GameState, Mode, Result, Status
from yahtzee.players import Difficulty
from yahtzee.storage.base import (
    RecentGame,
    Records,
    StorageError,
    StoredGame,
)
from yahtzee.storage.events import Event

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
)

# Pages (4 KiB) of WAL between automatic checkpoints: a WAL file of up to ~16 MiB.
WAL_AUTOCHECKPOINT = 4000

_GAME_COLUMNS = (
    "id, player_id, mode, difficulty, status, version, created_at, updated_at, "
    "finished_at, result, human_total, computer_total, new_record"
)


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
        synchronous: str = "NORMAL",
        clock: Callable[[], str] = _now,
    ) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        # isolation_level=None: we issue BEGIN IMMEDIATE / COMMIT ourselves.
        self._conn = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, cached_statements=64
        )
        self._conn.execute("PRAGMA busy_timeout = 5000")
        mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal" and str(path) != ":memory:":
            raise StorageError(f"could not switch {path} to WAL mode (got {mode})")
        self._conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
        # Checkpoint (copy the WAL back into the database, with its two fsyncs) every
        # WAL_AUTOCHECKPOINT pages rather than SQLite's 1000: each checkpoint then costs
        # about the same (a hot page is written back once however often it changed), so
        # a write costs ~20% less. Commits are as durable either way (in the WAL).
        self._conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT}")
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._migrate()

    # -- plumbing ---------------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

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
    def _game(row: tuple[Any, ...]) -> StoredGame:
        new_record = row[12]
        return StoredGame(
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

    def _get(self, conn: sqlite3.Connection, game_id: str) -> StoredGame | None:
        row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else self._game(row)

    @staticmethod
    def _insert_events(
        conn: sqlite3.Connection, game_id: str, first_seq: int, events: Sequence[Event], now: str
    ) -> None:
        conn.executemany(
            "INSERT INTO events (game_id, seq, kind, data, created_at) VALUES (?, ?, ?, ?, ?)",
            [(game_id, first_seq + i, e.kind, _dumps(e.data), now) for i, e in enumerate(events)],
        )

    # -- the Storage interface ----------------------------------------------------------

    def create_game(
        self,
        *,
        game_id: str,
        player_id: str,
        mode: Mode,
        difficulty: Difficulty | None,
        events: Sequence[Event],
        replace: bool = False,
    ) -> StoredGame:
        """See :meth:`Storage.create_game`."""
        now = self._clock()
        with self._transaction() as conn:
            old = conn.execute(
                "SELECT id, version FROM games WHERE player_id = ? AND status = 'in_progress'",
                (player_id,),
            ).fetchone()
            if old is not None and not replace:
                raise GameInProgressError(old[0])  # (rolls back: nothing written)
            if old is not None:
                conn.execute(
                    "UPDATE games SET status = 'abandoned', version = version + 1, "
                    "updated_at = ? WHERE id = ?",
                    (now, old[0]),
                )
                self._insert_events(conn, old[0], old[1] + 1, [Event("abandon")], now)
            conn.execute(
                "INSERT INTO games (id, player_id, mode, difficulty, status, version, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, 'in_progress', ?, ?, ?)",
                (
                    game_id,
                    player_id,
                    mode.value,
                    None if difficulty is None else difficulty.value,
                    len(events),
                    now,
                    now,
                ),
            )
            self._insert_events(conn, game_id, 1, events, now)
        return StoredGame(
            id=game_id,
            player_id=player_id,
            mode=mode,
            difficulty=difficulty,
            status=Status.IN_PROGRESS,
            version=len(events),
            created_at=now,
            updated_at=now,
            finished_at=None,
            result=None,
            human_total=None,
            computer_total=None,
            new_record=None,
        )

    def get_game(self, game_id: str) -> StoredGame | None:
        """See :meth:`Storage.get_game`."""
        with self._lock:
            return self._get(self._conn, game_id)

    def current_game(self, player_id: str) -> StoredGame | None:
        """See :meth:`Storage.current_game`."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE player_id = ? AND status = 'in_progress'",
                (player_id,),
            ).fetchone()
        return None if row is None else self._game(row)

    def owns_games(self, player_id: str) -> bool:
        """See :meth:`Storage.owns_games` (two lookups, each in a partial index)."""
        with self._lock:
            for status in ("in_progress", "finished"):
                row = self._conn.execute(
                    "SELECT 1 FROM games WHERE player_id = ? AND status = ? LIMIT 1",
                    (player_id, status),
                ).fetchone()
                if row is not None:
                    return True
        return False

    def append(
        self,
        game: StoredGame,
        events: Sequence[Event],
        *,
        status: Status,
        final: GameState | None = None,
    ) -> StoredGame:
        """See :meth:`Storage.append`."""
        now = self._clock()
        new_version = game.version + len(events)
        with self._transaction() as conn:
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
                return StoredGame(  # (not dataclasses.replace: several times slower)
                    game.id,
                    game.player_id,
                    game.mode,
                    game.difficulty,
                    status,
                    new_version,
                    game.created_at,
                    now,
                    game.finished_at,
                    game.result,
                    game.human_total,
                    game.computer_total,
                    game.new_record,
                )
            result = final.result
            assert result is not None, "a final position is a finished game"
            human_total = final.cards[0].total
            computer_total = final.cards[1].total if len(final.cards) > 1 else None
            new_record = False  # U7: vs games count wins/losses/draws, never records
            if result is Result.SOLO:
                best = conn.execute(
                    "SELECT MAX(human_total) FROM games WHERE player_id = ? "
                    "AND status = 'finished' AND mode = 'solo' AND id != ?",
                    (game.player_id, game.id),
                ).fetchone()[0]
                new_record = best is None or human_total > best
            conn.execute(
                "UPDATE games SET finished_at = ?, result = ?, human_total = ?, "
                "computer_total = ?, new_record = ? WHERE id = ?",
                (
                    now,
                    result.value,
                    human_total,
                    computer_total,
                    int(new_record),
                    game.id,
                ),
            )
        return replace(
            game,
            version=new_version,
            status=status,
            updated_at=now,
            finished_at=now,
            result=result,
            human_total=human_total,
            computer_total=computer_total,
            new_record=new_record,
        )

    def events(self, game_id: str, after: int = 0) -> list[Event]:
        """See :meth:`Storage.events`."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT kind, data FROM events WHERE game_id = ? AND seq > ? ORDER BY seq",
                (game_id, after),
            ).fetchall()
        return [Event(kind, orjson.loads(data)) for kind, data in rows]

    def records(self, player_id: str, recent: int = 10) -> Records:
        """See :meth:`Storage.records`."""
        with self._lock:
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

    def finished_games(self, player_id: str) -> list[RecentGame]:
        """See :meth:`Storage.finished_games`."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, finished_at, mode, difficulty, human_total, computer_total, result "
                "FROM games WHERE player_id = ? AND status = 'finished' "
                "ORDER BY finished_at, rowid",
                (player_id,),
            ).fetchall()
        return [_recent(*row) for row in rows]

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check``: ``"ok"`` for a healthy file."""
        with self._lock:
            return str(self._conn.execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
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
