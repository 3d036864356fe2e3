"""The 快艇骰子 game server: HTTP API, storage of games and records, the browser game.

``yahtzee serve`` calls :func:`serve`; tests build an app with :func:`create_app`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from dataclasses import asdict, replace
from pathlib import Path

from yahtzee.serve_config import Limits
from yahtzee.server.app import create_app
from yahtzee.server.identity import SecretError
from yahtzee.server.settings import Settings, default_db_path
from yahtzee.storage import StorageError, is_postgres_url, run_coroutine

__all__ = [
    "Limits",
    "Settings",
    "StartupError",
    "create_app",
    "default_db_path",
    "run_coroutine",
    "serve",
]

# How ``serve --workers N`` hands its configuration to the worker processes (new
# interpreters that build their own app, see yahtzee.server.app.create_app_from_env).
WORKER_CONFIG_ENV = "YAHTZEE_SERVE_CONFIG"


class StartupError(Exception):
    """The server cannot start (a database or secret file it cannot use): one line for
    the user, exit status 2, no traceback."""


def _load_solver() -> None:
    """Load (building with progress, if missing) the solver table before serving."""
    try:
        from yahtzee.solver import load_table
    except ImportError as exc:
        print(f"warning: solver unavailable ({exc}); computer players disabled", file=sys.stderr)
        return
    print("loading the solver table (built once if missing)…", flush=True)
    load_table(progress=True)


def check_storage(db: Path | str) -> None:
    """Open (creating and migrating) the database once and close it again.

    Raises :class:`~yahtzee.storage.StorageError` with one readable line when it cannot be
    used (a bad path, an unreachable or wrong PostgreSQL URL), so that ``serve`` fails at
    start rather than on the first request.
    """
    from yahtzee.storage import open_storage

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


def settings_from_env() -> Settings:
    """The settings a ``--workers`` process was started with (from the environment)."""
    raw = os.environ.get(WORKER_CONFIG_ENV)
    if not raw:
        return Settings()
    config = json.loads(raw)
    secret_file = config.get("secret_file")
    return Settings(
        db=config["db"] if is_postgres_url(config["db"]) else Path(config["db"]),
        secret_file=None if secret_file is None else Path(secret_file),
        limits=Limits(**config["limits"]),
    )


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: Path | str | None = None,
    *,
    secret_file: Path | None = None,
    limits: Limits | None = None,
    workers: int = 1,
) -> None:
    """Run the game server until interrupted; prints the URL to open.

    ``db`` is an SQLite file or a ``postgresql://`` URL. With ``workers`` > 1, that many
    processes share the port (uvicorn's supervisor) and the database (S1). Raises
    :class:`StartupError` when the database or the secret cannot be used.
    """
    import uvicorn

    from yahtzee.storage.url import redact

    if workers < 1:
        raise StartupError(f"--workers must be at least 1, got {workers}")
    settings = Settings(db=db) if db is not None else Settings()
    if secret_file is not None:
        settings = replace(settings, secret_file=secret_file)
    if limits is not None:
        settings = replace(settings, limits=limits)
    try:
        check_storage(settings.db)  # connects and migrates: a bad path or URL fails now
        app = create_app(settings)
    except (StorageError, SecretError) as exc:
        raise StartupError(str(exc)) from None
    _load_solver()
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    where = redact(str(settings.db)) if is_postgres_url(settings.db) else settings.db
    plural = f", {workers} worker processes" if workers > 1 else ""
    print(f"快艇骰子 is running: open http://{shown}:{port}/  (database: {where}{plural})")
    print("press Ctrl+C to stop", flush=True)
    if workers == 1:
        uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning")
        return
    os.environ[WORKER_CONFIG_ENV] = json.dumps(
        {
            "db": str(settings.db),
            "secret_file": None if settings.secret_file is None else str(settings.secret_file),
            "limits": asdict(settings.limits),
        }
    )
    uvicorn.run(
        "yahtzee.server.app:create_app_from_env",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        access_log=False,
        log_level="warning",
    )
