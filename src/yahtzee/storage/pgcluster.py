"""A throw-away PostgreSQL cluster from Debian's ``postgresql`` package (tests, benchmarks).

Nothing here is used by the server. :class:`TempCluster` runs ``initdb`` into a temporary
directory and starts ``postgres`` on a free loopback port, with its unix socket in that
directory, so it touches no system cluster and needs no configuration. PostgreSQL refuses
to run as root: when the caller is root, the cluster runs as the ``postgres`` system user
(created by the Debian package) or else ``nobody``, through ``runuser``.

``python -m yahtzee.storage.pgcluster DIR`` starts one in ``DIR`` and prints its URL
(``scripts/stack.sh`` uses it); ``--stop DIR`` stops it.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

SUPERUSER = "postgres"


class ClusterError(RuntimeError):
    """The cluster could not be created or started (with PostgreSQL's log tail)."""


def find_bindir() -> Path:
    """The directory of ``initdb``/``pg_ctl``: the newest ``/usr/lib/postgresql/*/bin``.

    (Debian does not put ``initdb`` on ``PATH``; ``$PG_BINDIR`` overrides.)
    """
    env = os.environ.get("PG_BINDIR")
    if env:
        return Path(env)
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name.split(".")[0]),
    )
    if candidates:
        return Path(candidates[-1]).parent
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    raise ClusterError(
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): "
        "run scripts/install-services.sh or apt-get install postgresql"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_as() -> str | None:
    """The user to run PostgreSQL as, or ``None`` to run as ourselves (not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise ClusterError("running as root and neither a 'postgres' nor a 'nobody' user exists")


class TempCluster:
    """A PostgreSQL server of our own, in ``base`` (a new temporary directory by default).

    ``durable=False`` (the tests) turns ``fsync`` off: a crash of the *server process*
    still loses nothing (the data is in the kernel's page cache), only a machine crash
    could, and the tests never simulate one. The benchmarks keep the defaults.
    """

    def __init__(
        self, base: Path | None = None, *, port: int | None = None, durable: bool = True
    ) -> None:
        self.bindir = find_bindir()
        self.user = _run_as()
        self._owns_base = base is None
        self.base = Path(base) if base is not None else Path(tempfile.mkdtemp(prefix="yahtzee-pg-"))
        self.data = self.base / "data"
        self.log = self.base / "postgres.log"
        self.port = port or _free_port()
        self.durable = durable

    # -- commands ---------------------------------------------------------------------

    def _cmd(self, *args: str) -> list[str]:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        return [*prefix, *args]

    def _run(self, *args: str) -> None:
        proc = subprocess.run(self._cmd(*args), capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise ClusterError(
                f"{Path(args[0]).name} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
                f"\n{self.log_tail()}"
            )

    def log_tail(self) -> str:
        """The end of the server's log (for error messages)."""
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    @property
    def url(self) -> str:
        """The URL of the ``postgres`` database (the superuser, no password: trust auth)."""
        return self.url_for("postgres")

    def url_for(self, dbname: str) -> str:
        """The URL of database ``dbname`` of this cluster, over TCP on loopback."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def init(self) -> TempCluster:
        """``initdb`` (once: an existing data directory is kept)."""
        if (self.data / "PG_VERSION").exists():
            return self
        self.base.mkdir(parents=True, exist_ok=True)
        if self.user:
            # The server's files must be its own; the base is private to it (0700).
            shutil.chown(self.base, user=self.user)
            for path in self.base.iterdir():
                shutil.chown(path, user=self.user)
        self.base.chmod(0o700)
        if self.user:
            probe = subprocess.run(self._cmd("test", "-w", str(self.base)), check=False)
            if probe.returncode != 0:
                raise ClusterError(
                    f"user {self.user!r} cannot reach {self.base}: every parent directory "
                    "must be traversable by it (chmod o+x)"
                )
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        return self

    def start(self, timeout: float = 60.0) -> TempCluster:
        """Start the server (initialising it first if needed) and wait until it accepts."""
        self.init()
        options = [
            f"-p {self.port}",
            "-c listen_addresses=127.0.0.1",
            f"-c unix_socket_directories={self.base}",
            "-c max_connections=300",
            "-c shared_buffers=64MB",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c full_page_writes=off"]
        self._run(
            str(self.bindir / "pg_ctl"),
            "start",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-w",
            "-t",
            str(int(timeout)),
            "-o",
            " ".join(options),
        )
        return self

    @property
    def postmaster_pid(self) -> int:
        """The pid of the running postmaster (first line of ``postmaster.pid``)."""
        return int((self.data / "postmaster.pid").read_text().splitlines()[0])

    def kill(self) -> None:
        """``kill -9`` the postmaster (its backends exit when they notice it gone)."""
        pid = self.postmaster_pid
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        # Backends outlive a killed postmaster briefly; a restart waits for them itself.

    def stop(self) -> None:
        """Stop the server; quiet if it is not running. A durable cluster shuts down
        cleanly ("fast": a final checkpoint); a throw-away one at once ("immediate")."""
        if not (self.data / "postmaster.pid").exists():
            return
        mode = "fast" if self.durable else "immediate"
        with contextlib.suppress(ClusterError):
            self._run(str(self.bindir / "pg_ctl"), "stop", "-D", str(self.data), "-m", mode)

    def create_database(self, name: str) -> str:
        """``CREATE DATABASE name``; returns its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url_for(name)

    def drop_database(self, name: str) -> None:
        """``DROP DATABASE name`` (closing anything still connected to it)."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def cleanup(self) -> None:
        """Stop the server and delete the directory (if we created it)."""
        self.stop()
        if self._owns_base:
            shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> TempCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cleanup()


def main(argv: list[str] | None = None) -> int:
    """Start (or ``--stop``) a cluster in a directory; prints the URL of ``--db NAME``."""
    parser = argparse.ArgumentParser(prog="python -m yahtzee.storage.pgcluster")
    parser.add_argument("dir", type=Path, help="the cluster's directory (created if missing)")
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--db", default="yahtzee", help="database to create (default yahtzee)")
    parser.add_argument("--stop", action="store_true", help="stop the cluster in DIR")
    args = parser.parse_args(argv)
    port = args.port
    port_file = args.dir / "port"
    if port is None and port_file.exists():
        port = int(port_file.read_text())
    cluster = TempCluster(args.dir.resolve(), port=port)
    if args.stop:
        cluster.stop()
        return 0
    try:
        fresh = not (cluster.data / "PG_VERSION").exists()
        cluster.start()
        port_file.write_text(str(cluster.port))
        if fresh:
            cluster.create_database(args.db)
    except ClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(cluster.url_for(args.db))
    return 0


if __name__ == "__main__":
    sys.exit(main())
