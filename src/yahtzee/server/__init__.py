"""The 快艇骰子 game server: HTTP API, storage of games and records, the browser game.

``yahtzee serve`` calls :func:`serve`; tests build an app with :func:`create_app`.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from yahtzee.serve_config import Limits
from yahtzee.server.app import create_app
from yahtzee.server.identity import SecretError
from yahtzee.server.settings import Settings, default_db_path
from yahtzee.storage import StorageError

__all__ = ["Limits", "Settings", "StartupError", "create_app", "default_db_path", "serve"]


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


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: Path | None = None,
    *,
    secret_file: Path | None = None,
    limits: Limits | None = None,
) -> None:
    """Run the game server until interrupted; prints the URL to open.

    Raises :class:`StartupError` when the database or the secret cannot be used.
    """
    import uvicorn

    settings = Settings(db=db) if db is not None else Settings()
    if secret_file is not None:
        settings = replace(settings, secret_file=secret_file)
    if limits is not None:
        settings = replace(settings, limits=limits)
    try:
        app = create_app(settings)  # opens the database first: a bad path fails at once
    except (StorageError, SecretError) as exc:
        raise StartupError(str(exc)) from None
    _load_solver()
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    print(f"快艇骰子 is running: open http://{shown}:{port}/  (database: {settings.db})")
    print("press Ctrl+C to stop", flush=True)
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning")
