"""The 快艇骰子 game server: HTTP API, storage of games and records, the browser game.

``yahtzee serve`` calls :func:`serve`; tests build an app with :func:`create_app`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sqlite3
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from yahtzee.server.app import create_app
from yahtzee.server.settings import Settings, default_db_path

__all__ = ["Settings", "create_app", "default_db_path", "run_coroutine", "serve"]

T = TypeVar("T")


def _load_solver() -> None:
    """Load (building with progress, if missing) the solver table before serving."""
    try:
        from yahtzee.solver import load_table
    except ImportError as exc:
        print(f"warning: solver unavailable ({exc}); computer players disabled", file=sys.stderr)
        return
    print("loading the solver table (built once if missing)…", flush=True)
    load_table(progress=True)


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, in a thread of its own when this thread already runs an event
    loop (a caller inside async code, or a test runner's loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def check_storage(db: Path | str) -> None:
    """Open (creating and migrating) the database once and close it again.

    Raises :class:`~yahtzee.storage.StorageError` with one readable line when it cannot be
    used (a bad path, an unreachable or wrong PostgreSQL URL), so that ``serve`` fails at
    start rather than on the first request.
    """
    from yahtzee.storage import StorageError, open_storage

    async def probe() -> None:
        try:
            storage = open_storage(db)
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"cannot open the database {db}: {exc}") from None
        try:
            await storage.open()
        finally:
            await storage.close()

    run_coroutine(probe())


def serve(
    host: str = "127.0.0.1", port: int = 8000, db: Path | str | None = None, workers: int = 1
) -> None:
    """Run the game server until interrupted; prints the URL to open.

    ``db`` is an SQLite file or a ``postgresql://`` URL. With ``workers`` > 1, that many
    processes share the port (uvicorn's supervisor) and the database (S1).
    """
    import uvicorn

    from yahtzee.storage import is_postgres_url
    from yahtzee.storage.postgres import redact

    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    settings = Settings(db=db) if db is not None else Settings()
    check_storage(settings.db)
    _load_solver()
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    where = redact(str(settings.db)) if is_postgres_url(settings.db) else settings.db
    plural = f", {workers} worker processes" if workers > 1 else ""
    print(f"快艇骰子 is running: open http://{shown}:{port}/  (database: {where}{plural})")
    print("press Ctrl+C to stop", flush=True)
    options = {"host": host, "port": port, "access_log": False, "log_level": "warning"}
    if workers == 1:
        uvicorn.run(create_app(settings), **options)  # type: ignore[arg-type]
        return
    # The workers are new interpreters: they learn the database from the environment.
    os.environ["YAHTZEE_DB"] = str(settings.db)
    uvicorn.run(
        "yahtzee.server.app:create_app_from_env",
        factory=True,
        workers=workers,
        **options,  # type: ignore[arg-type]
    )
