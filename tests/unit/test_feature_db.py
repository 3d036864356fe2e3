"""The feature tables take one parameter style, the games' ``:name`` (issue 26 item 3): a
statement in the old ``?`` style, or positional parameters, are refused by name. A
feature's work on SQLite (A3): run in the games' writer thread as one write of the group
commit, awaiting nothing but its transaction, with 练习's relaxed durability kept."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from yahtzee.storage import SQLiteStorage, run_coroutine
from yahtzee.storage.feature_db import Tx, open_feature_db


def test_statements_take_named_parameters_only(tmp_path: Path) -> None:
    async def body() -> None:
        db = open_feature_db(tmp_path / "f.db")
        try:
            await db.run(lambda tx: tx.all("CREATE TABLE t (n INTEGER)"))
            await db.run(lambda tx: tx.all("INSERT INTO t VALUES (:n)", {"n": 7}))
            await db.run(lambda tx: tx.many("INSERT INTO t VALUES (:n)", [{"n": 8}]))
            rows = await db.run(lambda tx: tx.all("SELECT n FROM t ORDER BY n"), write=False)
            assert rows == [(7,), (8,)]
            with pytest.raises(ValueError, match=":name parameters"):
                await db.run(lambda tx: tx.all("SELECT n FROM t WHERE n = ?", {"n": 7}))

            async def positional(tx: Tx) -> object:
                return await tx.all("SELECT n FROM t WHERE n = :n", (7,))  # type: ignore[arg-type]

            with pytest.raises(TypeError, match="mapping"):
                await db.run(positional)
        finally:
            await db.close()

    run_coroutine(body())


def test_a3_a_work_awaits_nothing_but_its_transaction_on_sqlite(tmp_path: Path) -> None:
    """SQLite runs a feature's work in the writer's thread in one step (its awaits are its
    statements, answered at once): a work that awaits anything else is refused whole,
    nothing of it written, and the batch's other writes stand."""

    async def body() -> None:
        db = open_feature_db(tmp_path / "f.db")
        try:
            await db.run(lambda tx: tx.all("CREATE TABLE t (n INTEGER)"))

            async def sleepy(tx: Tx) -> None:
                await tx.all("INSERT INTO t VALUES (:n)", {"n": 1})
                await asyncio.sleep(0)

            async def fine(tx: Tx) -> int:
                await tx.all("INSERT INTO t VALUES (:n)", {"n": 2})
                return 2

            async def refused(tx: Tx) -> None:
                await tx.all("INSERT INTO t VALUES (:n)", {"n": 3})
                raise LookupError("refused")

            # (three writes at once: one batch of the group commit, each in a savepoint)
            results = await asyncio.gather(
                db.run(sleepy), db.run(fine), db.run(refused), return_exceptions=True
            )
            assert isinstance(results[0], RuntimeError)
            assert results[1] == 2
            assert isinstance(results[2], LookupError)
            rows = await db.run(lambda tx: tx.all("SELECT n FROM t"), write=False)
            assert rows == [(2,)]
        finally:
            await db.close()

    run_coroutine(body())


def test_a3_relaxed_writes_alone_do_not_wait_for_the_disk_on_sqlite(tmp_path: Path) -> None:
    """练习's writes (``relaxed()``) keep the durability they had on a connection of their
    own: a batch of nothing else commits with ``synchronous=NORMAL``; a batch with any
    other write, and every other batch, with the games' ``FULL`` (F6)."""

    async def body() -> None:
        storage = SQLiteStorage(tmp_path / "g.db")
        db = storage.features()

        async def level(tx: Tx) -> int:
            row = await tx.one("PRAGMA synchronous")
            assert row is not None
            return int(row[0])

        try:
            assert await db.relaxed().run(level) == 1  # NORMAL
            assert await db.run(level) == 2  # FULL
            together = await asyncio.gather(db.relaxed().run(level), db.run(level))
            assert list(together) == [2, 2]  # (one batch: the durable write's FULL)
            assert await db.relaxed().run(level) == 1
            assert await db.run(level, write=False) in (1, 2)  # (a reader's own)
            assert await db.run(level) == 2  # (set back after a relaxed batch)
        finally:
            await storage.close()

    run_coroutine(body())
