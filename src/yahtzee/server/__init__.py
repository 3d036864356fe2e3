"""The 快艇骰子 game server: HTTP API, storage of games and records, the browser game.

``yahtzee serve`` calls :func:`serve`; tests build an app with :func:`create_app`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from yahtzee.server.app import create_app
from yahtzee.server.settings import Settings, default_db_path

__all__ = ["Settings", "create_app", "default_db_path", "serve"]


def _load_solver() -> None:
    """Load (building with progress, if missing) the solver table before serving."""
    try:
        from yahtzee.solver import load_table
    except ImportError as exc:
        print(f"warning: solver unavailable ({exc}); computer players disabled", file=sys.stderr)
        return
    print("loading the solver table (built once if missing)…", flush=True)
    load_table(progress=True)


def serve(host: str = "127.0.0.1", port: int = 8000, db: Path | None = None) -> None:
    """Run the game server until interrupted; prints the URL to open."""
    import uvicorn

    settings = Settings(db=db) if db is not None else Settings()
    _load_solver()
    app = create_app(settings)
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    print(f"快艇骰子 is running: open http://{shown}:{port}/  (database: {settings.db})")
    print("press Ctrl+C to stop", flush=True)
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning")
