"""The feature tables take one parameter style, the games' ``:name`` (issue 26 item 3): a
statement in the old ``?`` style, or positional parameters, are refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from yahtzee.storage import run_coroutine
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

            def positional(tx: Tx) -> object:
                return tx.all("SELECT n FROM t WHERE n = :n", (7,))  # type: ignore[arg-type]

            with pytest.raises(TypeError, match="mapping"):
                await db.run(positional)
        finally:
            await db.close()

    run_coroutine(body())
