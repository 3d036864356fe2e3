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
* **Versioned schema.** The pending migrations (the games', :mod:`yahtzee.storage.games_schema`,
  and the owners the app adds: :mod:`yahtzee.storage.schema`) are applied in order when the
  storage opens, each in its own transaction under an advisory lock, so several processes
  starting at once migrate the database exactly once.

When the database goes away (restart, failover), a query fails with
:class:`~yahtzee.storage.base.StorageUnavailableError` (HTTP 503); the pool drops the
broken connections and opens new ones as soon as the server is back, with no restart of
the app (:mod:`yahtzee.storage.pgpool`: no connection the server has closed is handed to a
request, and the first request after the restart connects at once). A read whose
connection dies under it is retried once on a fresh one; a write is not (it may have
committed: the client learns the truth by reading the game again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool

from yahtzee.errors import GameInProgressError
from yahtzee.game import Game, GameKind, Mode, Status
from yahtzee.log import Event
from yahtzee.players import Difficulty
from yahtzee.storage import schema, sql
from yahtzee.storage.base import (
    Charge,
    Claim,
    ClaimRefusedError,
    Ending,
    GameRecord,
    NewGame,
    OwnerGoneError,
    RecentGame,
    Records,
    StorageError,
    StorageUnavailableError,
    WriteHealth,
)
from yahtzee.storage.feature_db import PostgresFeatureDb, PostgresTx
from yahtzee.storage.games_schema import GAMES
from yahtzee.storage.notices import Listener
from yahtzee.storage.pgpool import check_idle_async, pool_options
from yahtzee.storage.schema import Migrations, check_owners
from yahtzee.storage.url import redact

log = logging.getLogger("yahtzee.storage")

# The compare-and-set and the append in one statement: one round trip, one transaction.
# The events are inserted only if the header moved from the expected version (and seat
# serial, F24: a position read before a seat's name was erased is no base for a write).
_APPEND = """
WITH moved AS (
    UPDATE games SET version = %(new)s, updated_at = %(now)s{status}
    WHERE id = %(id)s AND version = %(old)s AND seat_serial = %(serial)s
        AND status = 'in_progress'
    RETURNING id
)
INSERT INTO events (game_id, seq, kind, data, created_at)
SELECT moved.id, %(old)s + e.ord, e.kind, e.data, %(now)s
FROM moved, unnest(%(kinds)s::text[], %(datas)s::text[]) WITH ORDINALITY AS e (kind, data, ord)
"""
_APPEND_SAME_STATUS = _APPEND.format(status="")
_CAS_ONLY = """UPDATE games SET version = %(new)s, updated_at = %(now)s, status = %(status)s
    WHERE id = %(id)s AND version = %(old)s AND seat_serial = %(serial)s
        AND status = 'in_progress'"""
_APPEND_NEW_STATUS = _APPEND.format(status=", status = %(status)s")

T = TypeVar("T")


_SQL = sql.POSTGRES
#: The process's pool (the games' and every feature's statements, A3): always open, the
#: connections a steady load keeps busy (a room's action holds one for its append, then
#: one for its event; a request's device read one, briefly), so none waits to be made;
#: at most, what a burst may need before requests wait their turn (then 503 after the
#: timeout) rather than crowd PostgreSQL (each connection is a server process).
MIN_CONNECTIONS = 4
MAX_CONNECTIONS = 12
#: How often a new game is tried when merges keep giving its player an unfinished game
#: that is over before it can be named (F26).
_UNFINISHED_TRIES = 3


async def _run(conn: psycopg.AsyncConnection[Any], steps: sql.Steps[T]) -> T:
    """Run the shared logic ``steps`` (:mod:`yahtzee.storage.sql`) on ``conn``."""
    answer: Any = None
    try:
        while True:
            step = steps.send(answer)
            if isinstance(step, sql.Many):
                async with conn.cursor() as many:
                    await many.executemany(step.sql, step.rows)
                answer = None
            elif isinstance(step, sql.RunClaim):  # (a feature's work, on this connection)
                answer = await step.claim.work(PostgresTx(conn))
            else:
                cur = await conn.execute(step.sql, step.params)
                answer = await cur.fetchone() if cur.description is not None else None
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


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
        min_connections: int = MIN_CONNECTIONS,
        max_connections: int = MAX_CONNECTIONS,
        timeout: float = 5.0,
        clock: Callable[[], str] = sql.now_iso,
        schema: Sequence[Migrations] = (),
    ) -> None:
        """No I/O yet (see :meth:`open`); ``schema``: the owners whose migrations
        :meth:`open` applies after the games' (the app gives the invite tokens' and the
        features')."""
        self.url = url
        self._owners = (GAMES, *schema)
        check_owners(self._owners)
        self._clock = clock
        self._timeout = timeout
        self._pool: AsyncConnectionPool[psycopg.AsyncConnection[Any]] = AsyncConnectionPool(
            url,
            min_size=min_connections,
            max_size=max_connections,
            check=self._check_connection,
            open=False,
            name="yahtzee",
            **pool_options(timeout),
        )
        self._checking: asyncio.Task[None] | None = None
        # The process's one LISTEN connection (its parts' channels), opened with the pool.
        self._listener = Listener(url)
        # Why the database could not be used last, until a write works again (F6:
        # /api/health answers "degraded" meanwhile).
        self.write_health = WriteHealth()

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
        self._listener.start()

    async def _migrate(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Every pending migration, each in a transaction of its own that first takes the
        migrations' advisory lock (:data:`yahtzee.storage.schema.LOCK`)."""

        async def execute(statement: schema.Statement) -> Any:
            cur = await conn.execute(statement.sql, statement.params)
            return await cur.fetchone() if cur.description is not None else None

        while True:
            async with conn.transaction():
                steps = schema.next_migration(schema.POSTGRESQL, self._owners, self._clock())
                applied = await schema.run_async(execute, steps)
            if applied is None:
                return
            log.info("PostgreSQL schema: %s applied", applied)

    async def schema_version(self) -> int:
        """The games' migration level of the database."""
        async with self._connection() as conn:
            cur = await conn.execute(
                "SELECT COALESCE(MAX(version), 0) FROM schema_versions WHERE owner = 'games'"
            )
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    @asynccontextmanager
    async def _connection(
        self, *, write: bool = True
    ) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A pooled connection; a lost server (or a full disk on it) becomes
        :class:`StorageUnavailableError` and is remembered in :attr:`write_health` until a
        ``write`` works again."""
        try:
            async with self._pool.connection() as conn:
                yield conn
        except psycopg.OperationalError as exc:
            # The pool throws the broken connection away on return; have it test the idle
            # ones too, so that after a database restart the next requests find live ones.
            self._check_pool_soon()
            reason = f"PostgreSQL: {_first_line(exc)}"
            self.write_health.failed(reason)
            raise StorageUnavailableError(reason) from exc
        except psycopg.InterfaceError as exc:  # e.g. a connection closed under us
            reason = f"PostgreSQL: {_first_line(exc)}"
            self.write_health.failed(reason)
            raise StorageUnavailableError(reason) from exc
        if write:
            self.write_health.succeeded()

    def connection(self, *, write: bool = True) -> Any:
        """A pooled connection for a feature's work (:mod:`yahtzee.storage.feature_db`), as
        the games' own: an ``async with`` whose faults are 503s and count for health."""
        return self._connection(write=write)

    async def read_with(self, query: Callable[[psycopg.AsyncConnection[Any]], Any]) -> Any:
        """A feature's read ``query``, as the games' reads run (once more on a fresh
        connection if its own died under it)."""
        return await self._read(query)

    def features(self) -> PostgresFeatureDb:
        """See :meth:`Storage.features`: on this pool, on the event loop."""
        return PostgresFeatureDb(self)

    @property
    def write_failure(self) -> str | None:
        """Why the database could not be used last, or ``None`` once a write worked."""
        return self.write_health.failure

    async def health(self) -> str | None:
        """See :meth:`Storage.health`."""
        return await self.write_health.check(self.probe_write)

    async def _check_connection(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """The pool's test of a connection before a request gets it (:func:`~yahtzee.
        storage.pgpool.check_idle_async`)."""
        await check_idle_async(conn, self._pool)

    def _check_pool_soon(self) -> None:
        """Test the idle connections in the background (once at a time), dropping dead ones."""
        if self._checking is None or self._checking.done():
            self._checking = asyncio.get_running_loop().create_task(self._pool.check())

    async def _read(self, query: Callable[[psycopg.AsyncConnection[Any]], Any]) -> Any:
        """Run a read-only ``query``; if its connection died, once more after the pool has
        tested its idle connections (dropping every dead one, e.g. after a restart)."""
        try:
            async with self._connection(write=False) as conn:
                return await query(conn)
        except StorageUnavailableError:
            with contextlib.suppress(psycopg.Error):
                await self._pool.check()
        async with self._connection(write=False) as conn:
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
        claim: Claim | None = None,
        kind: GameKind | None = None,
        owner: Claim | None = None,
    ) -> GameRecord:
        """See :meth:`Storage.create_game`: one transaction."""
        now = self._clock()
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
        for tries_left in reversed(range(_UNFINISHED_TRIES)):
            try:
                async with self._connection() as conn, conn.transaction():
                    # An empty bucket raises: all rolled back. A kept game or a refused
                    # claim is returned: the tokens taken stay taken (committed), then it
                    # is raised (F2).
                    result = await _run(conn, sql.create_game(_SQL, new, now))
            except psycopg.IntegrityError as exc:
                if not sql.is_second_unfinished(exc):
                    raise
                # F26: a merge of two players (我的设备) gave this one an unfinished game
                # after the check (it does not take the player's lock): that game is kept,
                # as the check would have said. (Finished meanwhile: the check again.)
                current = await self.current_game(player_id)
                if current is not None:
                    raise GameInProgressError(current.id) from None
                if not tries_left:  # (a merge each time, each game over at once: a bug)
                    raise
                continue
            if isinstance(result, GameInProgressError | ClaimRefusedError | OwnerGoneError):
                raise result
            return result
        raise AssertionError("unreachable")

    async def take(self, charges: Sequence[Charge]) -> None:
        """See :meth:`Storage.take`: one transaction (one statement per bucket)."""
        if not charges:
            return
        async with self._connection() as conn:
            if len(charges) == 1:
                await _run(conn, sql.take_tokens(_SQL, charges))
                return
            async with conn.transaction():
                await _run(conn, sql.take_tokens(_SQL, charges))

    async def get_game(self, game_id: str) -> GameRecord | None:
        """See :meth:`Storage.get_game`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> GameRecord | None:
            cur = await conn.execute(_SQL.get_game, {"id": game_id})
            row = await cur.fetchone()
            return None if row is None else sql.game_of(row)

        result: GameRecord | None = await self._read(query)
        return result

    async def current_game(self, player_id: str) -> GameRecord | None:
        """See :meth:`Storage.current_game`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> GameRecord | None:
            cur = await conn.execute(_SQL.current_game, {"player": player_id})
            row = await cur.fetchone()
            return None if row is None else sql.game_of(row)

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
            "serial": game.seat_serial,
            "kinds": [e.kind for e in events],
            "datas": [sql.dumps(e.to_json()) for e in events],
        }
        if events:
            statement = _APPEND_SAME_STATUS if status is Status.IN_PROGRESS else _APPEND_NEW_STATUS
        else:  # nothing to log (a caller finishing a game directly): the bare compare-and-set
            statement = _CAS_ONLY
        async with self._connection() as conn:
            if final is None:
                cur = await conn.execute(statement, params)
                if cur.rowcount != max(1, len(events)):
                    raise await _run(conn, sql.refusal(_SQL, game.id))
                return game.appended(status, new_version, now)
            ending = Ending.of(final)
            async with conn.transaction():
                cur = await conn.execute(statement, params)
                if cur.rowcount != max(1, len(events)):
                    raise await _run(conn, sql.refusal(_SQL, game.id))
                new_record = await _run(conn, sql.finish(_SQL, game, ending, now))
        return game.finished(status, new_version, now, ending, new_record)

    async def events(self, game_id: str, after: int = 0, until: int | None = None) -> list[Event]:
        """See :meth:`Storage.events`."""
        last = until if until is not None else 2**31 - 1

        async def query(conn: psycopg.AsyncConnection[Any]) -> list[Event]:
            cur = await conn.execute(_SQL.events, {"id": game_id, "after": after, "until": last})
            return [sql.event_of(row) for row in await cur.fetchall()]

        result: list[Event] = await self._read(query)
        return result

    async def records(self, player_id: str, recent: int = 10) -> Records:
        """See :meth:`Storage.records`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> Records:
            async with conn.transaction():  # both statements see the same snapshot
                cur = await conn.execute(
                    "SELECT COUNT(*), MAX(human_total) FILTER (WHERE kind = 'solo'), "
                    "COUNT(*) FILTER (WHERE result = 'win'), "
                    "COUNT(*) FILTER (WHERE result = 'loss'), "
                    "COUNT(*) FILTER (WHERE result = 'draw') "
                    f"FROM games WHERE player_id = %s AND {sql.COUNTED}",
                    (player_id,),
                )
                row = await cur.fetchone()
                assert row is not None
                played, best, wins, losses, draws = row
                cur = await conn.execute(
                    f"SELECT {sql.RECENT_COLUMNS} FROM games WHERE player_id = %s "
                    f"AND {sql.COUNTED} ORDER BY finished_at DESC, n DESC LIMIT %s",
                    (player_id, recent),
                )
                rows = await cur.fetchall()
            return Records(
                best_score=best,
                wins=wins,
                losses=losses,
                draws=draws,
                games_played=played,
                recent=tuple(sql.recent_of(r) for r in rows),
            )

        result: Records = await self._read(query)
        return result

    async def finished_games(self, player_id: str, limit: int | None = None) -> list[RecentGame]:
        """See :meth:`Storage.finished_games`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> list[RecentGame]:
            cur = await conn.execute(
                f"SELECT {sql.RECENT_COLUMNS} FROM games WHERE player_id = %s "
                f"AND {sql.COUNTED} ORDER BY finished_at DESC, n DESC LIMIT %s",
                (player_id, limit),
            )
            return [sql.recent_of(r) for r in reversed(await cur.fetchall())]

        result: list[RecentGame] = await self._read(query)
        return result

    async def prune_unplayed(self, before: str, limit: int = 500) -> int:
        """See :meth:`Storage.prune_unplayed`: one transaction; games another transaction
        holds are skipped (a player acting on one right now keeps it)."""
        async with self._connection() as conn, conn.transaction():
            cur = await conn.execute(
                _SQL.unplayed + " FOR UPDATE SKIP LOCKED", {"before": before, "limit": limit}
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

    async def register_process(
        self, process_id: str, now: float, ttl: float, forget: Sequence[str] = ()
    ) -> int:
        """See :meth:`Storage.register_process`: one transaction."""
        async with self._connection() as conn, conn.transaction():
            return await _run(conn, sql.register_process(_SQL, process_id, now, ttl, forget))

    async def process_ids(self) -> list[str]:
        """See :meth:`Storage.process_ids`."""

        async def query(conn: psycopg.AsyncConnection[Any]) -> list[str]:
            cur = await conn.execute(_SQL.process_ids)
            return [str(row[0]) for row in await cur.fetchall()]

        result: list[str] = await self._read(query)
        return result

    async def unregister_process(self, process_id: str) -> None:
        """See :meth:`Storage.unregister_process`."""
        async with self._connection() as conn:
            await conn.execute(_SQL.unregister, {"id": process_id})

    async def probe_write(self) -> None:
        """See :meth:`Storage.probe_write`: the heartbeat row rewritten (schema level 4)."""
        async with self._connection() as conn:
            await conn.execute(_SQL.heartbeat, {"now": self._clock()})

    def listen(
        self,
        channel: str,
        on_notice: Callable[[str], None],
        on_reconnect: Callable[[], None] | None = None,
    ) -> None:
        """See :meth:`Storage.listen`: on the process's one LISTEN connection
        (:mod:`yahtzee.storage.notices`)."""
        self._listener.listen(channel, on_notice, on_reconnect)

    @property
    def listening(self) -> threading.Event:
        """Set while the LISTEN connection is up (tests wait for it)."""
        return self._listener.listening

    async def close(self) -> None:
        """Stop listening, close the pool's connections."""
        await self._listener.stop()
        await self._pool.close()
