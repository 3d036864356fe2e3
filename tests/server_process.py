"""Run a real server in a subprocess (benchmarks, the crash test, end-to-end tests).

A test helper, not part of the package (the wheel ships no test code): the tests import it
as ``server_process`` (pytest puts ``tests/`` on the path) and the benchmarks and scripts
add ``tests/`` to ``sys.path`` first. The subprocess is ``python -m yahtzee.server``,
exactly what ``yahtzee serve`` runs, with its own database file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """``python -m yahtzee.server`` on 127.0.0.1 with the database ``db``.

    ``program`` replaces the command before ``--port``/``--db`` (the browser tests run
    their seeded launcher this way) and ``args`` follow them. The environment is inherited,
    so the solver table cache (``YAHTZEE_CACHE_DIR``) is shared with the caller.
    """

    def __init__(
        self,
        db: Path,
        port: int | None = None,
        log: Path | None = None,
        *,
        program: Sequence[str] = (sys.executable, "-m", "yahtzee.server"),
        args: Sequence[str] = (),
    ) -> None:
        self.db = db
        self.port = port or free_port()
        self.log = log or db.with_suffix(".log")
        self.program = list(program)
        self.args = list(args)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:8123``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        """The server's process id."""
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 120.0) -> ServerProcess:
        """Start the server and wait until ``/api/health`` answers."""
        cmd = [*self.program, "--port", str(self.port), "--db", str(self.db), *self.args]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ}
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self._log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/health", timeout=1) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"server did not answer within {timeout}s:\n{self._log_tail()}")

    def _log_tail(self) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"(log {self.log})\n{text[-3000:]}"

    def peak_rss_mb(self) -> float:
        """The server's peak resident set size so far (VmHWM), in MiB (Linux)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("VmHWM not found")

    def cpu_seconds(self) -> float:
        """User + system CPU time the server has used so far (Linux)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self) -> None:
        """``kill -9``: no cleanup, no checkpoint, mid-request."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        """Graceful shutdown (SIGTERM)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServerProcess:
        return self.start() if self.proc is None else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class HttpError(Exception):
    """A non-2xx answer of :class:`RawClient`."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(f"{status} {body[:200]!r}")
        self.status = status
        self.body = body


class RawClient:
    """A minimal HTTP/1.1 keep-alive JSON client on asyncio streams, with one cookie.

    The load benchmark needs a client far cheaper than the server it measures: httpx
    spends about 1 ms of CPU per request on the benchmark machine, more than the server
    does, so with httpx the benchmark would mostly measure itself. This client only speaks
    what our server answers (``Content-Length`` bodies, no chunking).
    """

    def __init__(self, host: str, port: int, *, local_addr: str | None = None) -> None:
        self.host = host
        self.port = port
        self.local_addr = local_addr  # e.g. 127.0.1.7: another client address on loopback
        self.cookie: str | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        """Send one request; return the decoded JSON of a 2xx answer, raise otherwise."""
        status, data = await self.raw(method, path, body)
        if status >= 400:
            raise HttpError(status, data)
        return json.loads(data) if data else None

    async def raw(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """Send one request; return the status and the body bytes."""
        if self._writer is None:
            local = None if self.local_addr is None else (self.local_addr, 0)
            self._reader, self._writer = await asyncio.open_connection(
                self.host, self.port, local_addr=local
            )
        assert self._reader is not None
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        if self.cookie:
            head += f"Cookie: {self.cookie}\r\n"
        try:
            self._writer.write(head.encode() + b"\r\n" + payload)
            status_line = await self._reader.readline()
            if not status_line:
                raise ConnectionResetError("server closed the connection")
            status = int(status_line.split()[1])
            length = 0
            close = False
            while True:
                line = await self._reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.partition(b":")
                key = name.strip().lower()
                if key == b"content-length":
                    length = int(value)
                elif key == b"set-cookie":
                    self.cookie = value.strip().split(b";", 1)[0].decode()
                elif key == b"connection" and value.strip().lower() == b"close":
                    close = True
            data = await self._reader.readexactly(length) if length else b""
        except BaseException:
            await self.close()
            raise
        if close:
            await self.close()
        return status, data

    async def close(self) -> None:
        """Close the connection (the next request reconnects)."""
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
