"""PostgreSQL backend of :class:`~yahtzee.storage.base.Storage`, for several server processes.

The driver is psycopg 3 with its async connection pool. psycopg rather than asyncpg: it is
built on libpq, so ``--db`` takes exactly what every PostgreSQL tool takes (any libpq URL
or key=value string, ``PGPASSFILE``, ``sslmode``, unix-socket hosts, service files), and
its binary wheel carries libpq, so ``pip install`` is the whole setup.

Guarantees, the same as the SQLite backend's:

* **One truth for every process.** Nothing is cached here; every read is a query. A game
  action is one statement that updates the header *only if* it still has the version the
  caller read and, in the same statement (so the same transaction), appends the events.
  Of two processes acting on one version, exactly one writes; the other gets
  :class:`~yahtzee.storage.base.StaleVersionError`.
* **Durable on return.** A statement returns once PostgreSQL has committed it (with the
  server's default ``synchronous_commit = on``, flushed to its WAL): an acknowledged
  action survives ``kill -9`` of the app process or of the postmaster.
* **Append-only log.** Triggers refuse ``UPDATE``, ``DELETE`` and ``TRUNCATE`` on
  ``events``.
* **Versioned schema.** :data:`MIGRATIONS` are applied in order when the storage opens,
  each in its own transaction under an advisory lock, so several processes starting at
  once migrate the database exactly once.

When the database goes away (restart, failover), a query fails with
:class:`~yahtzee.storage.base.StorageUnavailableError` (HTTP 503); the pool drops the
broken connections and opens new ones as soon as the server is back, with no restart of
the app. Reads are retried once on a fresh connection; writes are not (the client learns
the truth by reading the game again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson
import psycopg
from psycopg_pool import AsyncConnectionPool

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
    Charge,
    Ending,
    GameRecord,
    RecentGame,
    Records,
    StorageError,
    StorageUnavailableError,
)
from yahtzee.storage.url import redact

log = logging.getLogger("yahtzee.storage")

# Each migration is a list of statements run in one transaction; never edit a shipped one,
# append a new one instead. The applied level is the number of rows of schema_migrations.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games (
            n BIGINT GENERATED ALWAYS AS IDENTITY,
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
            new_record BOOLEAN
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
        )""",
        # The one exception to the append-only log (F5 pruning, as on SQLite): a game
        # abandoned before its first roll may be deleted whole, its events first, then
        # its row. Anything else refuses DELETE, whoever issues it; UPDATE and TRUNCATE
        # always refuse.
        """CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE'
                    AND (SELECT status FROM games WHERE id = OLD.game_id) = 'abandoned'
                    AND NOT EXISTS (SELECT 1 FROM events
                                    WHERE game_id = OLD.game_id AND kind = 'roll') THEN
                    RETURN OLD;
                END IF;
                RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP;
            END $$""",
        """CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events
            FOR EACH ROW EXECUTE FUNCTION events_append_only()""",
        """CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
            FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()""",
        """CREATE FUNCTION games_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' AND OLD.status = 'abandoned'
                    AND NOT EXISTS (SELECT 1 FROM events WHERE game_id = OLD.id) THEN
                    RETURN OLD;
                END IF;
                RAISE EXCEPTION 'only an unplayed abandoned game can be deleted (% refused)',
                    TG_OP;
            END $$""",
        """CREATE TRIGGER games_no_delete BEFORE DELETE ON games
            FOR EACH ROW EXECUTE FUNCTION games_no_delete()""",
        """CREATE TRIGGER games_no_truncate BEFORE TRUNCATE ON games
            FOR EACH STATEMENT EXECUTE FUNCTION games_no_delete()""",
    ),
    # v2 (F5 across processes): the rate limits every process shares (one number per
    # bucket, see storage.base.Charge), and the live server processes, by which each
    # process divides its share of the per-player action limit (server/limits.py).
    # UNLOGGED: no WAL, so a token costs no disk flush; after a crash of the database
    # server PostgreSQL empties them, which only forgives the limits for a minute.
    (
        """CREATE UNLOGGED TABLE rate_buckets (
            bucket TEXT NOT NULL,
            key TEXT NOT NULL,
            full_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (bucket, key)
        )""",
        """CREATE UNLOGGED TABLE server_processes (
            id TEXT PRIMARY KEY,
            seen_at DOUBLE PRECISION NOT NULL
        )""",
    ),
)

# One token of a shared bucket (storage.base.Charge): the conditional upsert returns the
# new full_at, or no row when the bucket is empty (then nothing changed).
_TAKE = """INSERT INTO rate_buckets AS b (bucket, key, full_at)
    VALUES (%(bucket)s, %(key)s, %(now)s + %(interval)s)
    ON CONFLICT (bucket, key) DO UPDATE SET full_at = GREATEST(b.full_at, %(now)s) + %(interval)s
    WHERE b.full_at - %(now)s <= %(slack)s
    RETURNING full_at"""

# Serialises migrations between processes (an arbitrary constant: "yahtzee" in ASCII).
_MIGRATION_LOCK = 0x7961687473656500

_GAME_COLUMNS = (
    "id, player_id, mode, difficulty, status, version, created_at, updated_at, "
    "finished_at, result, human_total, computer_total, new_record"
)

# The compare-and-set and the append in one statement: one round trip, one transaction.
# The events are inserted only if the header moved from the expected version.
_APPEND = """
WITH moved AS (
    UPDATE games SET version = %(new)s, updated_at = %(now)s{status}
    WHERE id = %(id)s AND version = %(old)s AND status = 'in_progress'
    RETURNING id
)
INSERT INTO events (game_id, seq, kind, data, created_at)
SELECT moved.id, %(old)s + e.ord, e.kind, e.data, %(now)s
FROM moved, unnest(%(kinds)s::text[], %(datas)s::text[]) WITH ORDINALITY AS e (kind, data, ord)
"""
_APPEND_SAME_STATUS = _APPEND.format(status="")
_CAS_ONLY = """UPDATE games SET version = %(new)s, updated_at = %(now)s, status = %(status)s
    WHERE id = %(id)s AND version = %(old)s AND status = 'in_progress'"""
_APPEND_NEW_STATUS = _APPEND.format(status=", status = %(status)s")

T = TypeVar("T")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _dumps(data: Any) -> str:
    return orjson.dumps(data).decode()


def _game(row: tuple[Any, ...]) -> GameRecord:
    return GameRecord(
        row[0],
        row[1],
        Mode(row[2]),
        None if row[3] is None else Difficulty(row[3]),
        Status(row[4]),
        row[5],
        row[6],
        row[7],
        row[8],
        None if row[9] is None else Result(row[9]),
        row[10],
        row[11],
        row[12],
    )


def _recent(row: tuple[Any, ...]) -> RecentGame:
    game_id, finished_at, mode, difficulty, human_total, computer_total, result = row
    level = None if difficulty is None else Difficulty(difficulty)
    return RecentGame(
        game_id, finished_at, Mode(mode), level, human_total, computer_total, Result(result)
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


class PostgresStorage:
    """A :class:`~yahtzee.storage.base.Storage` in a PostgreSQL database.

    Construction does no I/O; :meth:`open` connects, migrates and fills the pool (the
    server does it at startup and fails with one line if it cannot).
    """

    def __init__(
        self,
        url: str,
        *,
        min_connections: int = 2,
        max_connections: int = 10,
        timeout: float = 5.0,
        clock: Callable[[], str] = _now,
    ) -> None:
        self.url = url
        self._clock = clock
        self._timeout = timeout
        self._pool = AsyncConnectionPool(
            url,
            min_size=min_connections,
            max_size=max_connections,
            kwargs={"autocommit": True},
            timeout=timeout,
            open=False,
            name="yahtzee",
        )
        self._checking: asyncio.Task[None] | None = None
        # Why the database could not be used last, until a statement works again (F6:
        # /api/health answers "degraded" meanwhile).
        self.write_failure: str | None = None

    def __repr__(self) -> str:
        return f"PostgresStorage({redact(self.url)!r})"

    # -- plumbing ---------------------------------------------------------------------

    async def open(self) -> None:
        """Connect, apply the pending migrations and open the pool.

        Raises :class:`~yahtzee.storage.base.StorageError` with one readable line when the
        URL is malformed, the server unreachable, the login refused or the schema newer
        than this program.
        """
        try:
            conn = await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, connect_timeout=max(2, int(self._timeout))
            )
        except (psycopg.Error, ValueError) as exc:
            raise StorageError(
                f"cannot connect to PostgreSQL at {redact(self.url)}: {_first_line(exc)}"
            ) from None
        try:
            await self._migrate(conn)
        except psycopg.Error as exc:
            raise StorageError(
                f"cannot migrate the PostgreSQL database {redact(self.url)}: {_first_line(exc)}"
            ) from None
        finally:
            await conn.close()
        await self._pool.open(wait=True, timeout=self._timeout)

    async def _migrate(self, conn: psycopg.AsyncConnection[Any]) -> None:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            cur = await conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
            row = await cur.fetchone()
            current = int(row[0]) if row else 0
            if current > len(MIGRATIONS):
                raise StorageError(
                    f"database schema v{current} is newer than this program (v{len(MIGRATIONS)})"
                )
            for version in range(current + 1, len(MIGRATIONS) + 1):
                for statement in MIGRATIONS[version - 1]:
                    await conn.execute(statement)
                await conn.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (%s, %s)",
                    (version, self._clock()),
                )
                log.info("PostgreSQL schema migrated to v%d", version)

    async def schema_version(self) -> int:
        """The migration level of the database."""
        async with self._connection() as conn:
            cur = await conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A pooled connection; a lost server becomes :class:`StorageUnavailableError`."""
        try:
            async with self._pool.connection() as conn:
                yield conn
        except psycopg.OperationalError as exc:
            # The pool throws the broken connection away on return; have it test the idle
            # ones too, so that after a database restart the next requests find live ones.
            self._check_pool_soon()
            self.write_failure = f"PostgreSQL: {_first_line(exc)}"
            raise StorageUnavailableError(self.write_failure) from exc
        except psycopg.InterfaceError as exc:  # e.g. a connection closed under us
            self.write_failure = f"PostgreSQL: {_first_line(exc)}"
            raise StorageUnavailableError(self.write_failure) from exc
        self.write_failure = None

    def _check_pool_soon(self) -> None:
        """Test the idle connections in the background (once at a time), dropping dead ones."""
        if self._checking is None or self._checking.done():
            self._checking = asyncio.get_running_loop().create_task(self._pool.check())

    async def _read(self, query: Callable[[psycopg.AsyncConnection[Any]], Any]) -> Any:
        """Run a read-only ``query``; if its connection died, once more after the pool has
        tested its idle connections (dropping every dead one, e.g. after a restart)."""
        try:
            async with self._connection() as conn:
                return await query(conn)
        except StorageUnavailableError:
            with contextlib.suppress(psycopg.Error):
                await self._pool.check()
        async with self._connection() as conn:
            return await query(conn)

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
        """See :meth:`Storage.create_game`."""
        now = self._clock()
        kept: str | None = None  # the unfinished game that refuses this one (F2)
        async with self._connection() as conn, conn.transaction():
            await self._take(conn, charges)  # (an empty bucket raises: all rolled back)
            # Two processes creating a game for one player at once take turns here, so
            # exactly one abandons the old game and the other abandons the first's.
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 1))", (player_id,)
            )
            cur = await conn.execute(
                "SELECT id, version FROM games WHERE player_id = %s AND status = 'in_progress'",
                (player_id,),
            )
            old = await cur.fetchone()
            if old is not None and not replace:
                kept = old[0]  # refused, but the tokens taken stay taken (committed)
            elif old is not None:
                await conn.execute(
                    "UPDATE games SET status = 'abandoned', version = version + 1, "
                    "updated_at = %s WHERE id = %s",
                    (now, old[0]),
                )
                await self._insert_events(conn, old[0], old[1] + 1, [Abandon()], now)
            if kept is None:
                await conn.execute(
                    "INSERT INTO games (id, player_id, mode, difficulty, status, version, "
                    "created_at, updated_at) VALUES (%s, %s, %s, %s, 'in_progress', %s, %s, %s)",
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
                await self._insert_events(conn, game_id, 1, events, now)
        if kept is not None:
            raise GameInProgressError(kept)
        return GameRecord(
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

    async def take(self, charges: Sequence[Charge]) -> None:
        """See :meth:`Storage.take`: one transaction (one statement per bucket)."""
        if not charges:
            return
        async with self._connection() as conn:
            if len(charges) == 1:
                await self._take(conn, charges)
                return
            async with conn.transaction():
                await self._take(conn, charges)

    @staticmethod
    async def _take(conn: psycopg.AsyncConnection[Any], charges: Sequence[Charge]) -> None:
        """One token of each bucket, or :class:`RateLimitExceededError` (the caller's
        transaction rolls back what was taken)."""
        for charge in charges:
            params = charge.params()
            cur = await conn.execute(_TAKE, params)
            if await cur.fetchone() is None:
                cur = await conn.execute(
                    "SELECT full_at FROM rate_buckets WHERE bucket = %s AND key = %s",
                    (charge.bucket, charge.key),
                )
                row = await cur.fetchone()
                full_at = row[0] if row is not None else charge.now
                raise RateLimitExceededError(charge.bucket, charge.retry_after(full_at))

    @staticmethod
    async def _insert_events(
        conn: psycopg.AsyncConnection[Any],
        game_id: str,
        first_seq: int,
        events: Sequence[Event],
        now: str,
    ) -> None:
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO events (game_id, seq, kind, data, created_at) "
                "VALUES (%s, %s, %s, %s, %s)",
                [
                    (game_id, first_seq + i, e.kind, _dumps(e.to_json()), now)
                    for i, e in enumerate(events)
                ],
            )

    async def get_game(self, game_id: str) -> GameRecord | None:
        """See :meth:`Storage.get_game`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> GameRecord | None:
            cur = await conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = %s", (game_id,))
            row = await cur.fetchone()
            return None if row is None else _game(row)

        result: GameRecord | None = await self._read(query)
        return result

    async def current_game(self, player_id: str) -> GameRecord | None:
        """See :meth:`Storage.current_game`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> GameRecord | None:
            cur = await conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games "
                "WHERE player_id = %s AND status = 'in_progress'",
                (player_id,),
            )
            row = await cur.fetchone()
            return None if row is None else _game(row)

        result: GameRecord | None = await self._read(query)
        return result

    async def append(
        self,
        game: GameRecord,
        events: Sequence[Event],
        *,
        status: Status,
        final: Game | None = None,
    ) -> GameRecord:
        """See :meth:`Storage.append`."""
        now = self._clock()
        new_version = game.version + len(events)
        params = {
            "new": new_version,
            "now": now,
            "status": status.value,
            "id": game.id,
            "old": game.version,
            "kinds": [e.kind for e in events],
            "datas": [_dumps(e.to_json()) for e in events],
        }
        if events:
            sql = _APPEND_SAME_STATUS if status is Status.IN_PROGRESS else _APPEND_NEW_STATUS
        else:  # nothing to log (a caller finishing a game directly): the bare compare-and-set
            sql = _CAS_ONLY
        async with self._connection() as conn:
            if final is None:
                cur = await conn.execute(sql, params)
                if cur.rowcount != max(1, len(events)):
                    await self._refused(conn, game.id)
                return game.appended(status, new_version, now)
            ending = Ending.of(final)
            new_record = False
            async with conn.transaction():
                cur = await conn.execute(sql, params)
                if cur.rowcount != max(1, len(events)):
                    await self._refused(conn, game.id)
                if ending.result is Result.SOLO:
                    cur = await conn.execute(
                        "SELECT MAX(human_total) FROM games WHERE player_id = %s "
                        "AND status = 'finished' AND mode = 'solo' AND id <> %s",
                        (game.player_id, game.id),
                    )
                    row = await cur.fetchone()
                    new_record = ending.solo_record(row[0] if row else None)
                await conn.execute(
                    "UPDATE games SET finished_at = %s, result = %s, human_total = %s, "
                    "computer_total = %s, new_record = %s WHERE id = %s",
                    (
                        now,
                        ending.result.value,
                        ending.human_total,
                        ending.computer_total,
                        new_record,
                        game.id,
                    ),
                )
        return game.finished(status, new_version, now, ending, new_record)

    @staticmethod
    async def _refused(conn: psycopg.AsyncConnection[Any], game_id: str) -> None:
        """Raise the reason a compare-and-set wrote nothing."""
        cur = await conn.execute("SELECT 1 FROM games WHERE id = %s", (game_id,))
        if await cur.fetchone() is None:
            raise GameNotFoundError(game_id)
        raise StaleVersionError(game_id)

    async def events(self, game_id: str, after: int = 0, until: int | None = None) -> list[Event]:
        """See :meth:`Storage.events`."""
        last = until if until is not None else 2**31 - 1

        async def query(conn: psycopg.AsyncConnection[Any]) -> list[Event]:
            cur = await conn.execute(
                "SELECT kind, data FROM events WHERE game_id = %s AND seq > %s AND seq <= %s "
                "ORDER BY seq",
                (game_id, after, last),
            )
            return [from_json(kind, orjson.loads(data)) for kind, data in await cur.fetchall()]

        result: list[Event] = await self._read(query)
        return result

    async def records(self, player_id: str, recent: int = 10) -> Records:
        """See :meth:`Storage.records`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> Records:
            cur = await conn.execute(
                "SELECT COUNT(*), MAX(human_total) FILTER (WHERE mode = 'solo'), "
                "COUNT(*) FILTER (WHERE result = 'win'), "
                "COUNT(*) FILTER (WHERE result = 'loss'), "
                "COUNT(*) FILTER (WHERE result = 'draw') "
                "FROM games WHERE player_id = %s AND status = 'finished'",
                (player_id,),
            )
            row = await cur.fetchone()
            assert row is not None
            played, best, wins, losses, draws = row
            cur = await conn.execute(
                "SELECT id, finished_at, mode, difficulty, human_total, computer_total, result "
                "FROM games WHERE player_id = %s AND status = 'finished' "
                "ORDER BY finished_at DESC, n DESC LIMIT %s",
                (player_id, recent),
            )
            rows = await cur.fetchall()
            return Records(
                best_score=best,
                wins=wins,
                losses=losses,
                draws=draws,
                games_played=played,
                recent=tuple(_recent(r) for r in rows),
            )

        result: Records = await self._read(query)
        return result

    async def finished_games(self, player_id: str) -> list[RecentGame]:
        """See :meth:`Storage.finished_games`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> list[RecentGame]:
            cur = await conn.execute(
                "SELECT id, finished_at, mode, difficulty, human_total, computer_total, result "
                "FROM games WHERE player_id = %s AND status = 'finished' "
                "ORDER BY finished_at, n",
                (player_id,),
            )
            return [_recent(r) for r in await cur.fetchall()]

        result: list[RecentGame] = await self._read(query)
        return result

    async def owns_games(self, player_id: str) -> bool:
        """See :meth:`Storage.owns_games` (one lookup in the unique index of unfinished
        games, one in the index of finished ones)."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> bool:
            cur = await conn.execute(
                "SELECT EXISTS (SELECT 1 FROM games WHERE player_id = %s "
                "AND status = 'in_progress') OR EXISTS (SELECT 1 FROM games "
                "WHERE player_id = %s AND status = 'finished')",
                (player_id, player_id),
            )
            row = await cur.fetchone()
            return bool(row and row[0])

        result: bool = await self._read(query)
        return result

    async def prune_unplayed(self, before: str, limit: int = 500) -> int:
        """Delete up to ``limit`` games abandoned before their first roll and unchanged
        since ``before`` (ISO 8601 UTC), with their events, in one transaction; returns how
        many (F5). The triggers check every deleted row again."""
        async with self._connection() as conn, conn.transaction():
            cur = await conn.execute(
                "SELECT id FROM games WHERE status = 'abandoned' AND updated_at < %s "
                "AND NOT EXISTS (SELECT 1 FROM events "
                "WHERE events.game_id = games.id AND kind = 'roll') "
                "LIMIT %s FOR UPDATE SKIP LOCKED",
                (before, limit),
            )
            ids = [row[0] for row in await cur.fetchall()]
            if ids:
                await conn.execute("DELETE FROM events WHERE game_id = ANY(%s)", (ids,))
                await conn.execute("DELETE FROM games WHERE id = ANY(%s)", (ids,))
        return len(ids)

    async def prune_buckets(self, now: float, limit: int = 5000) -> int:
        """See :meth:`Storage.prune_buckets`."""
        async with self._connection() as conn:
            cur = await conn.execute(
                "DELETE FROM rate_buckets WHERE (bucket, key) IN (SELECT bucket, key "
                "FROM rate_buckets WHERE full_at <= %s LIMIT %s FOR UPDATE SKIP LOCKED)",
                (now, limit),
            )
            return cur.rowcount

    async def register_process(self, process_id: str, now: float, ttl: float) -> int:
        """See :meth:`Storage.register_process`: one statement."""
        async with self._connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO server_processes (id, seen_at) VALUES (%s, %s) "
                "ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
                (process_id, now),
            )
            await conn.execute("DELETE FROM server_processes WHERE seen_at < %s", (now - ttl,))
            cur = await conn.execute("SELECT COUNT(*) FROM server_processes")
            row = await cur.fetchone()
        return int(row[0]) if row else 1

    async def unregister_process(self, process_id: str) -> None:
        """See :meth:`Storage.unregister_process`."""
        async with self._connection() as conn:
            await conn.execute("DELETE FROM server_processes WHERE id = %s", (process_id,))

    async def probe_write(self) -> None:
        """See :meth:`Storage.probe_write`: one round trip on a pooled connection."""
        async with self._connection() as conn:
            await conn.execute("SELECT 1")

    async def close(self) -> None:
        """Close the pool's connections."""
        await self._pool.close()
