"""``yahtzee serve``: check the configuration, load the solver, run uvicorn."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from yahtzee.server.identity import SecretError
from yahtzee.server.settings import Settings, SettingsError, from_env
from yahtzee.storage import StorageError, run_coroutine
from yahtzee.storage.url import is_postgres_url


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
    from yahtzee.web.app import SCHEMA

    async def probe() -> None:
        try:
            storage = open_storage(db, schema=SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"cannot open the database {db}: {exc}") from None
        try:
            await storage.open()
        finally:
            await storage.close()

    run_coroutine(probe())


def _shown_host(host: str) -> str:
    """The host part of the URL to open (a wildcard address is opened on loopback)."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return shown


def data_location(db: Path | str) -> str:
    """Where the server keeps its data, in one line for the person who started it (U22): an
    SQLite file by its absolute path, a PostgreSQL database by its host, port, name and
    user, never its password."""
    if not is_postgres_url(db):
        return f"data: SQLite file {Path(db).expanduser().resolve()}"
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(str(db))
    except ProgrammingError:  # (check_storage has refused such a URL already)
        return "data: a PostgreSQL database (its URL could not be read)"
    host = str(parts.get("host") or "localhost")
    port = parts.get("port")
    where = f"{host}:{port}" if port and not host.startswith("/") else host
    line = f"data: PostgreSQL database {parts.get('dbname') or '(default)'} on {where}"
    return f"{line} as {parts['user']}" if parts.get("user") else line


#: Seconds a stopping server gives its open requests (the room streams among them).
STREAMS_GRACE = 3


def limit_malloc_arenas() -> None:
    """At most two glibc malloc arenas in this process and the ones it starts (issue 22:
    every thread that allocates may get an arena of its own, which the process keeps; 44
    threads took it from 228 to 753 MiB). Set in the environment for the processes
    started later (uvicorn's workers, the CPU pool's), and with ``mallopt`` for this one,
    whose threads are not started yet."""
    os.environ.setdefault("MALLOC_ARENA_MAX", "2")
    if sys.platform.startswith("linux"):
        import ctypes

        m_arena_max = -8  # glibc's malloc.h
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6").mallopt(m_arena_max, int(os.environ["MALLOC_ARENA_MAX"]))


def serve(settings: Settings | None = None) -> None:
    """Run the game server until interrupted; prints the URL to open.

    ``settings.db`` is an SQLite file or a ``postgresql://`` URL. With ``settings.workers``
    > 1, that many processes share the port (uvicorn's supervisor) and the database (S1);
    each builds its app from the same settings, handed over in the environment
    (:meth:`Settings.to_env`). The sockets have the limits of
    :mod:`yahtzee.server.protocol`. Raises :class:`StartupError` when the database or the
    secret cannot be used.
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from yahtzee.server.protocol import ServeConfig, install_log_limits
    from yahtzee.web.app import create_app

    limit_malloc_arenas()
    if settings is None:
        from yahtzee.web.app import Settings as AppSettings  # (every feature's section)

        settings = from_env(AppSettings)
    try:
        check_storage(settings.db)  # connects and migrates: a bad path or URL fails now
        app = create_app(settings)
    except (StorageError, SecretError, SettingsError) as exc:
        raise StartupError(str(exc)) from None
    _load_solver()
    workers = settings.workers
    plural = f"  ({workers} worker processes)" if workers > 1 else ""
    print(
        f"Yacht Dice is running: open http://{_shown_host(settings.host)}:{settings.port}/{plural}"
    )
    print(data_location(settings.db))
    print("press Ctrl+C to stop", flush=True)
    common: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "access_log": False,
        "log_level": "warning",
        "connections": settings.connections,
        # A room's event stream lasts as long as its game: on SIGTERM uvicorn waits this
        # long for open requests, then ends them (the streams' EventSources reconnect to
        # another process).
        "timeout_graceful_shutdown": STREAMS_GRACE,
    }
    if workers == 1:
        config = ServeConfig(app, **common)
        install_log_limits()  # (after uvicorn configured its loggers)
        server = uvicorn.Server(config)
        server.run()
        if not server.started:  # (uvicorn logged why: the port is taken, say)
            raise StartupError(f"the server could not listen on {settings.host}:{settings.port}")
        return
    os.environ.update(settings.to_env())  # the workers are new interpreters: see app.py
    config = ServeConfig(
        "yahtzee.web.app:create_app_from_env",
        factory=True,
        workers=workers,
        # A worker loads the solver table and the game players before it answers the
        # supervisor's pings; on a loaded machine that takes longer than uvicorn's 5 s.
        timeout_worker_healthcheck=30,
        **common,
    )
    Multiprocess(config, sockets=[config.bind_socket()]).run()
