"""Both storage backends: migrations, append-only log, compare-and-set, records (S1).

The behaviour tests run on SQLite and on PostgreSQL (the ``db`` fixture); the tests of a
backend's own mechanics (WAL, the advisory lock, the pool) run on that one; the one
migration mechanism on both is tests/api/test_schema.py's.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest

from yahtzee import log
from yahtzee.errors import GameInProgressError, StaleVersionError
from yahtzee.game import Game, Mode, Result, Status
from yahtzee.rules import Category, Scorecard
from yahtzee.storage import (
    PostgresStorage,
    SQLiteStorage,
    Storage,
    StorageError,
    StorageUnavailableError,
    open_storage,
    run_coroutine,
)
from yahtzee.storage.feature_db import Tx, open_feature_db
from yahtzee.storage.games_schema import GAMES
from yahtzee.storage.pgcluster import TempCluster
from yahtzee.storage.url import is_postgres_url, redact

PLAYER = "p" * 32


def _with_store(db: Path | str, body: Callable[[Storage], Awaitable[None]]) -> None:
    """Open the storage of ``db``, run ``body`` on it in a new event loop, close it."""

    async def main() -> None:
        store = open_storage(db)
        await store.open()
        try:
            await body(store)
        finally:
            await store.close()

    run_coroutine(main())


async def _new(
    store: Storage, game_id: str, mode: Mode = Mode.SOLO, *, replace: bool = False
) -> None:
    await store.create_game(
        game_id=game_id,
        player_id=PLAYER,
        mode=mode,
        difficulty=None,
        events=[log.Start.of(mode, "expert" if mode is Mode.VS_COMPUTER else None)],
        replace=replace,
    )


_FLEXIBLE = {  # on top of 快艇 50, 大顺 40, 小顺 30, 葫芦 25 (145); every other box 0
    150: {Category.CHANCE: 5},
    180: {Category.CHANCE: 30, Category.THREE_OF_A_KIND: 5},
    190: {Category.CHANCE: 30, Category.THREE_OF_A_KIND: 15},
    200: {Category.CHANCE: 30, Category.THREE_OF_A_KIND: 25},
    230: {Category.CHANCE: 30, Category.THREE_OF_A_KIND: 30, Category.FOUR_OF_A_KIND: 25},
    250: {
        Category.CHANCE: 30,
        Category.THREE_OF_A_KIND: 30,
        Category.FOUR_OF_A_KIND: 30,
        Category.FIVES: 15,
    },
    260: {
        Category.CHANCE: 30,
        Category.THREE_OF_A_KIND: 30,
        Category.FOUR_OF_A_KIND: 30,
        Category.FIVES: 25,
    },
}


def _complete_card(total: int) -> Scorecard:
    scores = dict.fromkeys(Category, 0)
    scores.update({Category.YAHTZEE: 50, Category.LARGE_STRAIGHT: 40})
    scores.update({Category.SMALL_STRAIGHT: 30, Category.FULL_HOUSE: 25})
    scores.update(_FLEXIBLE[total])
    card = Scorecard.from_scores(scores)
    assert card.total == total
    return card


def test_open_storage_picks_the_backend_by_the_db_value(tmp_path: Path) -> None:
    assert isinstance(open_storage("postgresql://u@127.0.0.1:1/x"), PostgresStorage)
    assert isinstance(open_storage("postgres://u@127.0.0.1:1/x"), PostgresStorage)
    store = open_storage(tmp_path / "postgresql" / "a.db")  # a path, even one named so
    assert isinstance(store, SQLiteStorage)
    assert redact("postgresql://ann:s3cret@db:5432/y") == "postgresql://ann:***@db:5432/y"


def test_s1_one_function_tells_a_postgres_url_from_a_file() -> None:
    assert is_postgres_url("postgresql://u@h/db")
    assert is_postgres_url("postgres://u@h/db")
    assert not is_postgres_url("games.db")
    assert not is_postgres_url(Path("postgresql://u@h/db"))  # a Path is a file, whatever its name
    assert not is_postgres_url("postgresql:/missing-slash")
    # The one reader of --db and $YAHTZEE_DB (the settings) asks it.
    from yahtzee.server.settings import Settings

    assert Settings(db="postgres://u@h/db").db == "postgres://u@h/db"
    assert Settings(db="a.db").db == Path("a.db")


def test_s1_sqlite_runs_never_import_the_postgres_driver(tmp_path: Path) -> None:
    """psycopg (and its pool) load only when a PostgreSQL URL is opened."""
    code = (
        "import sys, asyncio\n"
        "from yahtzee.web import create_app, Settings\n"
        f"create_app(Settings(db={str(tmp_path / 'a.db')!r}))\n"
        "from yahtzee.storage import open_storage\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_pool')]\n"
        "assert not bad, bad\n"
        "assert 'yahtzee.storage.postgres' not in sys.modules\n"
        "open_storage('postgresql://u@127.0.0.1:1/x')\n"
        "assert 'psycopg' in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# -- SQLite's own mechanics --------------------------------------------------------------


def test_new_database_is_migrated_and_in_wal_mode(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "sub" / "a.db")
    assert store.schema_version == GAMES.version
    conn = sqlite3.connect(tmp_path / "sub" / "a.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.integrity_check() == "ok"
    run_coroutine(store.close())
    # Reopening does not re-run migrations.
    assert SQLiteStorage(tmp_path / "sub" / "a.db").schema_version == GAMES.version


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    run_coroutine(SQLiteStorage(tmp_path / "b.db").close())
    conn = sqlite3.connect(tmp_path / "b.db")
    with conn:
        conn.execute(
            "INSERT INTO schema_versions VALUES ('games', ?, 'later')", (GAMES.version + 1,)
        )
    conn.close()
    with pytest.raises(StorageError, match="newer"):
        SQLiteStorage(tmp_path / "b.db")


async def _played(store: Storage) -> None:
    """A game "g" with a roll (an unplayed one may be pruned: issue 22.6)."""
    await _new(store, "g")
    game = await store.get_game("g")
    assert game is not None
    await store.append(game, [log.Roll(0, (False,) * 5, (1,) * 5)], status=Status.IN_PROGRESS)


def test_the_sqlite_event_log_is_append_only(tmp_path: Path) -> None:
    _with_store(tmp_path / "c.db", _played)
    conn = sqlite3.connect(tmp_path / "c.db")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE events SET kind = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM events")


# -- PostgreSQL's own mechanics ----------------------------------------------------------


def test_s1_postgres_is_migrated_once_with_versioned_migrations(pg_url: str) -> None:
    async def body(store: Storage) -> None:
        assert isinstance(store, PostgresStorage)
        assert await store.schema_version() == GAMES.version

    _with_store(pg_url, body)
    _with_store(pg_url, body)  # reopening applies nothing twice
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT version FROM schema_versions WHERE owner = 'games' ORDER BY version"
        ).fetchall()
    assert [r[0] for r in rows] == list(range(1, GAMES.version + 1))


def test_s1_postgres_refuses_a_newer_schema(pg_url: str) -> None:
    _with_store(pg_url, lambda store: _new(store, "g"))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO schema_versions VALUES ('games', %s, 'later')", (GAMES.version + 1,)
        )
    with pytest.raises(StorageError, match="newer than this program"):
        _with_store(pg_url, lambda store: _new(store, "h"))


def test_s1_the_postgres_event_log_is_append_only(pg_url: str) -> None:
    _with_store(pg_url, _played)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for statement in (
            "UPDATE events SET kind = 'x'",
            "DELETE FROM events",
            "TRUNCATE events CASCADE",
        ):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(statement)
        assert conn.execute("SELECT COUNT(*) FROM events").fetchone() == (2,)  # start, roll


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("postgresql://postgres@127.0.0.1:{port}/no_such_db", 'database "no_such_db"'),
        ("postgresql://nobody_here@127.0.0.1:{port}/postgres", 'role "nobody_here"'),
        ("postgresql://postgres@127.0.0.1:{free}/postgres", "Connection refused"),
        ("postgresql://postgres@127.0.0.1:notaport/postgres", "invalid"),
    ],
)
def test_s1_an_unusable_url_fails_to_open_with_one_line(
    pg_cluster: TempCluster, url: str, says: str
) -> None:
    from server_process import free_port

    url = url.format(port=pg_cluster.port, free=free_port())
    with pytest.raises(StorageError) as info:
        _with_store(url, lambda store: _new(store, "g"))
    message = str(info.value)
    assert "\n" not in message
    assert says in message
    assert message.startswith("cannot connect to PostgreSQL at postgresql://")


def test_s1_a_password_never_appears_in_errors(pg_cluster: TempCluster) -> None:
    url = f"postgresql://postgres:hunter2@127.0.0.1:{pg_cluster.port}/no_such_db"
    with pytest.raises(StorageError) as info:
        _with_store(url, lambda store: _new(store, "g"))
    assert "hunter2" not in str(info.value)
    assert "postgres:***@" in str(info.value)


def test_s1_a_lost_database_is_503_then_reconnects_by_itself(pg_url: str) -> None:
    """Every connection of the pool killed by the server while idle: no request is handed
    one of them (each is found closed when taken, before anything is sent on it), so the
    very next read and every write after it work; the writes count exactly once."""

    async def body(store: Storage) -> None:
        await _new(store, "g")
        game = await store.get_game("g")
        assert game is not None
        # Several connections in the pool, all idle.
        await asyncio.gather(*(store.get_game("g") for _ in range(6)))
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        await asyncio.sleep(0.2)  # (the terminations reach the sockets)
        outcomes = []
        for _ in range(12):
            try:
                game = await store.append(game, [log.RestartTurn()], status=Status.IN_PROGRESS)
                outcomes.append("ok")
            except StorageUnavailableError:
                outcomes.append("503")
        assert outcomes == ["ok"] * 12
        assert game.version == 1 + 12
        assert len(await store.events("g")) == 1 + 12

    _with_store(pg_url, body)


def test_a3_a_features_statements_run_on_the_loop_on_the_games_pool(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A3 (issue 36; issue 31 for the hot statements): on PostgreSQL a feature's work — a
    transaction, one statement, a read — runs on the event loop, on the games' own pool
    (``storage.features()``): no worker thread, no pool of its own; it commits when it
    returns, and after a restart of the database's connections it is served again. (It
    ran in a worker thread on a pool of its own, and one statement on another.)"""
    storage = PostgresStorage(pg_url)
    threads: list[object] = []
    real_to_thread = asyncio.to_thread

    async def to_thread(fn: Any, *args: Any, **kwargs: Any) -> Any:
        threads.append(fn)
        return await real_to_thread(fn, *args, **kwargs)

    async def main() -> None:
        await storage.open()
        features = storage.features()
        assert features.storage is storage  # (the games' pool)
        monkeypatch.setattr(asyncio, "to_thread", to_thread)
        try:
            await features.run(lambda tx: tx.all("CREATE TABLE t1 (n INTEGER)"))
            row = await features.one("INSERT INTO t1 VALUES (:n) RETURNING n", {"n": 7})
            assert row == (7,)
            with psycopg.connect(pg_url, autocommit=True) as admin:
                assert admin.execute("SELECT n FROM t1").fetchall() == [(7,)]  # committed
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            await asyncio.sleep(0.2)
            for n in range(3):
                await features.one("INSERT INTO t1 VALUES (:n)", {"n": n})

            async def two(tx: Tx) -> Any:
                await tx.all("INSERT INTO t1 VALUES (:n)", {"n": 10})
                return await tx.one("SELECT count(*) FROM t1")

            assert await features.run(two) == (5,)
            assert await features.one("SELECT count(*) FROM t1", write=False) == (5,)
            assert await features.one("SELECT n FROM t1 WHERE n = 99", write=False) is None
            assert threads == []  # every statement on the loop
        finally:
            await storage.close()

    run_coroutine(main())


async def _insert(tx: Tx, n: int) -> None:
    await tx.all("INSERT INTO t VALUES (:n)", {"n": n})


def test_s1_the_feature_tables_are_never_handed_a_closed_connection(pg_url: str) -> None:
    """A feature's transactions (rooms, invites, the daily board) on the games' pool: a
    connection the server closed is never handed to them either."""
    features = open_feature_db(pg_url)

    async def main() -> None:
        try:
            await features.run(lambda tx: tx.all("CREATE TABLE t (n INTEGER)"))
            with psycopg.connect(pg_url, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            await asyncio.sleep(0.2)
            for n in range(3):
                await features.run(functools.partial(_insert, n=n))
            rows = await features.run(lambda tx: tx.all("SELECT n FROM t ORDER BY n"), write=False)
            assert rows == [(0,), (1,), (2,)]
        finally:
            await features.close()

    run_coroutine(main())


def test_s1_after_a_long_postgresql_outage_the_first_requests_are_served() -> None:
    """The crash test's 1-in-10 failure: while the database is down, requests keep failing
    and psycopg_pool retries the lost connections with an exponential backoff (1, 2, 4, 8,
    16 s … for 5 minutes by default), so after an outage of ~10 s its next attempt came up to
    16 s after the database was back, and every request until then waited its timeout and
    answered 503. A retry now gives up after the request timeout, and the next request that
    waits opens a connection at once."""
    with TempCluster(durable=False) as cluster:
        url = cluster.create_database("outage")

        async def main() -> None:
            store = PostgresStorage(url, timeout=2.0)
            await store.open()
            try:
                await _new(store, "g")
                await asyncio.gather(*(store.get_game("g") for _ in range(6)))
                cluster.kill()
                loop = asyncio.get_running_loop()
                down_until = loop.time() + 9.0
                failures = 0
                while loop.time() < down_until:  # players keep trying meanwhile
                    try:
                        await store.probe_write()
                    except StorageUnavailableError:
                        failures += 1
                    await asyncio.sleep(0.2)
                assert failures > 0
                await asyncio.to_thread(cluster.start)
                await store.probe_write()  # the first write after the restart: served
                game = await store.get_game("g")
                assert game is not None
                game = await store.append(game, [log.RestartTurn()], status=Status.IN_PROGRESS)
                assert [e.kind for e in await store.events("g")] == ["start", "restart_turn"]
                assert store.write_failure is None
            finally:
                await store.close()

        run_coroutine(main())


# -- the same behaviour on both ----------------------------------------------------------


def test_one_unfinished_game_per_player_and_abandon_event(db: Path | str) -> None:
    async def body(store: Storage) -> None:
        await _new(store, "g1")
        await _new(store, "g2", replace=True)
        old = await store.get_game("g1")
        assert old is not None
        assert (old.status, old.version) == (Status.ABANDONED, 2)
        assert [e.kind for e in await store.events("g1")] == ["start", "abandon"]
        current = await store.current_game(PLAYER)
        assert current is not None
        assert current.id == "g2"
        with pytest.raises(StaleVersionError):  # an abandoned game takes no more events
            await store.append(old, [log.RestartTurn()], status=Status.IN_PROGRESS)

    _with_store(db, body)


def test_append_is_compare_and_set(db: Path | str) -> None:
    async def body(store: Storage) -> None:
        await _new(store, "g")
        game = await store.get_game("g")
        assert game is not None
        two = [log.RestartTurn(), log.RestartTurn()]
        after = await store.append(game, two, status=Status.IN_PROGRESS)
        assert after.version == 3
        assert after == await store.get_game("g")
        with pytest.raises(StaleVersionError):
            await store.append(game, [log.RestartTurn()], status=Status.IN_PROGRESS)
        assert len(await store.events("g")) == 3
        assert [e.kind for e in await store.events("g", after=2)] == ["restart_turn"]

    _with_store(db, body)


def test_s1_20_concurrent_identical_appends_apply_once(db: Path | str) -> None:
    """20 writers on one version (PostgreSQL: on 10 pooled connections): one wins."""

    async def body(store: Storage) -> None:
        await _new(store, "g")
        game = await store.get_game("g")
        assert game is not None

        async def roll() -> bool:
            try:
                await store.append(game, [log.RestartTurn()], status=Status.IN_PROGRESS)
            except StaleVersionError:
                return False
            return True

        results = await asyncio.gather(*(roll() for _ in range(20)))
        assert results.count(True) == 1
        assert [e.kind for e in await store.events("g")] == ["start", "restart_turn"]

    _with_store(db, body)


def test_f2_a_new_game_without_replace_keeps_the_unfinished_one(db: Path | str) -> None:
    async def body(store: Storage) -> None:
        await _new(store, "g1")
        with pytest.raises(GameInProgressError) as caught:
            await _new(store, "g2")
        assert caught.value.game_id == "g1"
        assert await store.get_game("g2") is None  # nothing written
        kept = await store.get_game("g1")
        assert kept is not None
        assert (kept.status, kept.version) == (Status.IN_PROGRESS, 1)
        assert [e.kind for e in await store.events("g1")] == ["start"]
        # Once it is finished, a new game needs no replace.
        final = replace(Game.new(Mode.SOLO), cards=(_complete_card(150),))
        await store.append(kept, [], status=Status.FINISHED, final=final)
        await _new(store, "g3")
        current = await store.current_game(PLAYER)
        assert current is not None
        assert current.id == "g3"

    _with_store(db, body)


def test_u7_records_and_new_record_are_solo_only(db: Path | str) -> None:
    async def body(store: Storage) -> None:
        totals = [
            (200, Result.SOLO, None),
            (180, Result.WIN, 150),
            (250, Result.LOSS, 260),  # a vs total above the solo best: not a record (U7)...
            (250, Result.DRAW, 250),
            (230, Result.SOLO, None),  # ...nor does it raise the bar for solo games
            (230, Result.SOLO, None),  # equal to the best is not a new record
            (190, Result.SOLO, None),
        ]
        flags = []
        for i, (total, result, computer) in enumerate(totals):
            mode = Mode.SOLO if computer is None else Mode.VS_COMPUTER
            await _new(store, f"g{i}", mode)
            game = await store.get_game(f"g{i}")
            assert game is not None
            cards = [_complete_card(total)]
            cards += [] if computer is None else [_complete_card(computer)]
            final = replace(Game.new(mode), cards=tuple(cards))
            assert final.result is result
            done = await store.append(game, [], status=Status.FINISHED, final=final)
            assert (done.result, done.human_total, done.computer_total) == (
                result,
                total,
                computer,
            )
            assert done == await store.get_game(f"g{i}")
            flags.append(done.new_record)
        assert flags == [True, False, False, False, True, False, False]
        records = await store.records(PLAYER)
        assert (records.best_score, records.games_played) == (230, 7)  # the best SOLO total
        assert (records.wins, records.losses, records.draws) == (1, 1, 1)
        assert [g.id for g in records.recent] == [f"g{i}" for i in range(6, -1, -1)]
        assert (await store.records("someone else")).games_played == 0
        finished = await store.finished_games(PLAYER)
        assert [g.id for g in finished] == [f"g{i}" for i in range(7)]  # oldest first (L5)

    _with_store(db, body)


def test_f5_s1_postgres_prunes_only_unplayed_games(pg_url: str) -> None:
    """The one deliberate exception to the append-only log, enforced by the triggers:
    games that never had a roll, abandoned or still in progress (issue 22.6)."""

    async def body(store: Storage) -> None:
        assert isinstance(store, PostgresStorage)
        roll = log.Roll(0, (False,) * 5, (1,) * 5)
        await _new(store, "unplayed")
        await _new(store, "rolled", replace=True)  # abandons "unplayed"
        rolled = await store.get_game("rolled")
        assert rolled is not None
        await store.append(rolled, [roll], status=Status.IN_PROGRESS)
        await _new(store, "current", replace=True)  # abandons "rolled" (which has a roll)
        current = await store.get_game("current")
        assert current is not None
        await store.append(current, [roll], status=Status.IN_PROGRESS)
        await store.create_game(  # another player's game, left before its first roll
            game_id="idle",
            player_id="someone else",
            mode=Mode.SOLO,
            difficulty=None,
            events=[log.Start.of(Mode.SOLO)],
        )
        assert await store.prune_unplayed("0000") == 0  # nothing that old
        assert await store.prune_unplayed("9999") == 2
        assert await store.get_game("unplayed") is None
        assert await store.get_game("idle") is None
        assert await store.current_game("someone else") is None
        assert await store.get_game("rolled") is not None
        assert await store.get_game("current") is not None
        assert await store.prune_unplayed("9999") == 0

    _with_store(pg_url, body)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for statement in (
            "DELETE FROM events WHERE game_id = 'rolled'",  # abandoned, but played
            "DELETE FROM events WHERE game_id = 'current'",  # in progress, played
            "DELETE FROM games WHERE id = 'rolled'",
            "TRUNCATE games CASCADE",
        ):
            with pytest.raises(psycopg.errors.RaiseException):
                conn.execute(statement)
