"""Run a real server in a subprocess (benchmarks, the crash tests, end-to-end tests).

A test helper, not part of the package (the wheel ships no test code): the tests import it
as ``server_process`` (pytest puts ``tests/`` on the path) and the benchmarks and scripts
add ``tests/`` to ``sys.path`` first. The subprocess is ``python -m yahtzee.server``,
exactly what ``yahtzee serve`` runs, with its own database (a file or a PostgreSQL URL).
:class:`SimPlayer`/:func:`play` are simulated browsers that remember every acknowledged
game object, and :func:`check_log` proves the database still reproduces each of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

# `yahtzee serve` flags that turn every rate limit (F5) off, for test and benchmark clients
# that play at machine speed, faster than the limits let a person (each is 0 = no limit).
NO_LIMIT_ARGS: tuple[str, ...] = (
    "--max-actions-per-second",
    "0",
    "--max-new-games-per-minute",
    "0",
    "--max-new-players-per-minute",
    "0",
    "--max-new-games-per-minute-per-address",
    "0",
    "--max-work-per-second",
    "0",
    # (not a rate, but what such clients trip over: a benchmark opens thousands of room
    # streams from one loopback address, F9)
    "--max-streams-per-address",
    "0",
)


_ROOT = Path(__file__).resolve().parents[1]


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
        db: Path | str,
        port: int | None = None,
        log: Path | None = None,
        *,
        program: Sequence[str] = (sys.executable, "-m", "yahtzee.server"),
        args: Sequence[str] = (),
    ) -> None:
        self.db = db
        self.port = port or free_port()
        if log is None and not isinstance(db, Path):
            raise ValueError("a server on a database URL needs an explicit log file")
        self.log = log or Path(db).with_suffix(".log")
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
        self.launch()
        return self.wait_ready(timeout)

    def launch(self) -> None:
        """Start the server's process; :meth:`wait_ready` waits for it to answer."""
        cmd = [*self.program, "--port", str(self.port), "--db", str(self.db), *self.args]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ}
            )

    def wait_ready(self, timeout: float = 120.0) -> ServerProcess:
        """Wait until the launched server's ``/api/health`` answers."""
        assert self.proc is not None, "launch() first"
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


def child_pids(pid: int) -> list[int]:
    """The pids of the processes whose parent is ``pid`` (read from /proc)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


@contextlib.contextmanager
def postgres_reachable_dir(prefix: str) -> Iterator[Path]:
    """A new directory that PostgreSQL, which runs as its own user when we are root, can
    reach (mode 755, straight under the temporary directory), removed afterwards.

    Not under pytest's own ``pytest-of-<user>``: every pytest session that starts resets
    that one to 700, so a second session on the machine (or a developer's run beside the
    suite) made initdb fail with "Permission denied" halfway through a stack's start."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        base.chmod(0o755)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


class Stack:
    """``scripts/stack.sh`` (PostgreSQL, two app processes, nginx) in ``base/stack``, on free
    loopback ports; ``app_args`` are more ``yahtzee serve`` options for the app processes,
    ``limit_exempt`` networks exempt from nginx's per-address limits (besides 127.0.0.1)."""

    def __init__(
        self,
        base: Path,
        app_args: Sequence[str] = (),
        limit_exempt: Sequence[str] = (),
        *,
        access_log: bool = False,
    ) -> None:
        self.dir = base / "stack"
        self.port = free_port()
        self.app_ports = [free_port(), free_port()]
        self.env = {
            **os.environ,
            "STACK_PORT": str(self.port),
            "STACK_APP_PORTS": " ".join(map(str, self.app_ports)),
            "STACK_PYTHON": sys.executable,
            "STACK_APP_ARGS": " ".join(app_args),
            "STACK_LIMIT_EXEMPT": " ".join(limit_exempt),
            "STACK_ACCESS_LOG": "1" if access_log else "",
        }

    def run(self, action: str) -> subprocess.CompletedProcess[str]:
        """``stack.sh ACTION DIR`` (``start`` or ``stop``), its output captured."""
        return subprocess.run(
            ["bash", str(_ROOT / "scripts" / "stack.sh"), action, str(self.dir)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )

    def served(self) -> list[tuple[str, int, str, str]]:
        """nginx's access log (a stack made with ``access_log``): each request's player
        cookie (``""`` without one), the app port that served it at last (0: none, a
        static file), its method and its path, in order."""
        out = []
        path = self.dir / "nginx-access.log"
        for line in path.read_text().splitlines() if path.exists() else ():
            parts = line.split(" ")  # (an upstream tried twice is "a:1, b:2")
            cookie, upstream, method, uri = parts[0], parts[-4], parts[-3], parts[-2]
            port = upstream.rpartition(":")[2]
            # nginx writes "-" for a missing cookie; a signed id may itself start or end
            # with "-" (URL-safe base64), so only the lone dash means "none"
            player = "" if cookie == "-" else cookie
            out.append((player, int(port) if port.isdigit() else 0, method, uri))
        return out


def start_together(servers: Sequence[ServerProcess]) -> list[ServerProcess]:
    """Launch every server at once, then wait for each: processes of one deployment start
    together (``scripts/stack.sh``, ``--workers``), and a test waits for the slowest only
    (each start is ~3 s of imports and tables). On a failure the others are stopped."""
    try:
        for server in servers:
            server.launch()
        return [server.wait_ready() for server in servers]
    except BaseException:
        for server in servers:
            server.stop()
        raise


class HttpError(Exception):
    """A non-2xx answer of :class:`RawClient`."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(f"{status} {body[:200]!r}")
        self.status = status
        self.body = body


class _NothingReceivedError(ConnectionResetError):
    """The connection closed before any byte of the answer came."""


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
        self.headers: dict[str, str] = {}  # more request headers (X-Forwarded-For, say)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        """Send one request; return the decoded JSON of a 2xx answer, raise otherwise."""
        status, data = await self.raw(method, path, body)
        if status >= 400:
            raise HttpError(status, data)
        return json.loads(data) if data else None

    async def raw(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """Send one request; return the status and the body bytes.

        A connection kept alive may have been closed by the server while it was idle (its
        keep-alive timeout) just as the request went out: then the server never read the
        request, no byte of an answer came, and the request is sent once more on a new
        connection, as browsers do. A fresh connection that fails is an error as before.
        """
        reused = self._writer is not None
        try:
            return await self._send(method, path, body)
        except _NothingReceivedError:
            if not reused:
                raise ConnectionResetError("server closed the connection") from None
            return await self._send(method, path, body)

    async def _send(self, method: str, path: str, body: Any) -> tuple[int, bytes]:
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
        if self.headers:
            head += "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
        try:
            try:
                self._writer.write(head.encode() + b"\r\n" + payload)
                status_line = await self._reader.readline()
            except (ConnectionResetError, BrokenPipeError) as error:
                raise _NothingReceivedError from error
            if not status_line:
                raise _NothingReceivedError
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
                elif key == b"set-cookie" and value.strip().startswith(b"yahtzee_player="):
                    # (the player's cookie; a notice cookie, U20, is the page's to read)
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


class EventStream:
    """A Server-Sent Events stream (``GET`` of a room's events) on a raw connection, as
    cheap as :class:`RawClient`: the cookie and ``Last-Event-ID`` go with the request;
    :meth:`next` returns each event's id and JSON data (comments, the keep-alive pings,
    are skipped), reading the chunked body as it comes."""

    def __init__(
        self,
        host: str,
        port: int,
        path: str,
        *,
        cookie: str | None = None,
        last_event_id: int | None = None,
        local_addr: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.path = path
        self.cookie = cookie
        self.last_event_id = last_event_id
        self.local_addr = local_addr
        self.headers = headers or {}  # more request headers (X-Forwarded-For, say)
        self.status = 0
        self.response_headers: dict[str, str] = {}  # the answer's, names in lower case
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._buffer = b""
        self._chunked = False

    async def open(self) -> int:
        """Connect and read the answer's head; returns its status (200: streaming)."""
        local = None if self.local_addr is None else (self.local_addr, 0)
        self._reader, self._writer = await asyncio.open_connection(
            self.host, self.port, local_addr=local
        )
        head = f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: text/event-stream\r\n"
        if self.cookie:
            head += f"Cookie: {self.cookie}\r\n"
        if self.last_event_id is not None:
            head += f"Last-Event-ID: {self.last_event_id}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
        self._writer.write(head.encode() + b"\r\n")
        line = await self._reader.readline()
        if not line:
            raise ConnectionResetError("server closed the connection")
        self.status = int(line.split()[1])
        self.response_headers = {}
        while True:
            line = await self._reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            key = name.strip().lower().decode("latin-1")
            self.response_headers[key] = value.strip().decode("latin-1")
            if key == "transfer-encoding" and b"chunked" in value.lower():
                self._chunked = True
            elif key == "set-cookie":  # (a cookie minted by this request: kept for the next)
                self.cookie = value.strip().split(b";", 1)[0].decode()
        return self.status

    async def _more(self) -> None:
        assert self._reader is not None
        if not self._chunked:
            data = await self._reader.read(65536)
            if not data:
                raise ConnectionResetError("stream ended")
            self._buffer += data
            return
        size_line = await self._reader.readline()
        if not size_line:
            raise ConnectionResetError("stream ended")
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            raise ConnectionResetError("stream ended")
        self._buffer += await self._reader.readexactly(size)
        await self._reader.readexactly(2)

    async def next(self, timeout: float = 10.0) -> tuple[int, dict[str, Any]]:
        """The next event: ``(id, data)``; remembers the id for a reconnection."""
        async with asyncio.timeout(timeout):
            while True:
                text = self._buffer.replace(b"\r\n", b"\n")
                block, sep, rest = text.partition(b"\n\n")
                if not sep:
                    await self._more()
                    continue
                self._buffer = rest
                event_id, data = None, []
                for line in block.decode().split("\n"):
                    if line.startswith(":"):
                        continue
                    key, _, value = line.partition(":")
                    value = value.removeprefix(" ")
                    if key == "id":
                        event_id = int(value)
                    elif key == "data":
                        data.append(value)
                if event_id is None or not data:
                    continue  # a ping or a retry hint
                self.last_event_id = event_id
                return event_id, json.loads("\n".join(data))

    async def reopen(self) -> int:
        """Reconnect from the last event received (``Last-Event-ID``), as an
        ``EventSource`` does; returns the new answer's status."""
        await self.close()
        return await self.open()

    async def close(self) -> None:
        """Close the connection."""
        writer, self._writer, self._reader = self._writer, None, None
        self._buffer = b""
        self._chunked = False
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()


# -- simulated players and the check of their acknowledged games ---------------------------

# The parts of the game object that the event log determines.
POSITION_KEYS: tuple[str, ...] = (
    "mode",
    "difficulty",
    "round",
    "current_player",
    "dice",
    "rolls_left",
    "hints_left",
    "players",
    "preview",
    "computer_turn",
)


@dataclass
class SimPlayer:
    """One simulated browser: its cookie and every game object it was shown, per game."""

    seed: int
    cookie: str | None = None
    acked: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    actions: int = 0
    unavailable: int = 0  # 503 answers (the database was down)
    resyncs: int = 0  # times the player reloaded its game after a failure


class _ResyncError(Exception):
    """The last request's fate is unknown or refused: reload the game and carry on."""


class _GoneError(Exception):
    """No server left to talk to."""


async def play(
    player: SimPlayer,
    stop: asyncio.Event,
    ports: Sequence[int],
    *,
    resilient: bool = False,
    host: str = "127.0.0.1",
) -> None:
    """Play games until ``stop``, sending each request to the next of ``ports`` in turn.

    Plain mode ends at the first connection error (the crash test kills the one server).
    ``resilient`` mode is a browser that survives: a dead server is dropped from the
    rotation, a 503 is waited out, a 409 ``stale_version`` (an action that was applied
    but whose answer was lost) is followed by reloading the game.
    """
    rng = random.Random(player.seed)
    clients = {port: RawClient(host, port) for port in ports}
    live = list(ports)
    turn = 0

    async def act(method: str, path: str, body: Any = None) -> Any:
        nonlocal turn
        if not live:
            raise _GoneError
        port = live[turn % len(live)]
        turn += 1
        client = clients[port]
        client.cookie = player.cookie
        try:
            result = await client.request(method, path, body)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            if not resilient:
                raise _GoneError from None
            live.remove(port)
            raise _ResyncError from None
        except HttpError as exc:
            if resilient and exc.status == 503:
                player.unavailable += 1
                await asyncio.sleep(0.05)
                raise _ResyncError from None
            if resilient and exc.status == 409 and b"stale_version" in exc.body:
                raise _ResyncError from None
            raise
        player.cookie = client.cookie
        game = result.get("game", result) if isinstance(result, dict) else result
        if isinstance(game, dict) and "version" in game:
            player.acked.setdefault(game["id"], []).append(game)
            player.actions += 1
        return result

    async def current() -> dict[str, Any] | None:
        try:
            game: dict[str, Any] = await act("GET", "/api/games/current")
        except HttpError as exc:
            if exc.status == 404:
                return None
            raise
        return game

    game: dict[str, Any] | None = None
    try:
        while not stop.is_set():
            try:
                if game is None and player.cookie is not None:
                    game = await current()
                if game is None or game["status"] != "in_progress":
                    mode = rng.choice(["solo", "vs_computer"])
                    game = await act("POST", "/api/games", {"mode": mode})
                game = await _play_turn(act, rng, game)
            except _ResyncError:
                player.resyncs += 1
                game = None
    except _GoneError:
        return
    finally:
        for client in clients.values():
            await client.close()


async def _play_turn(act: Any, rng: random.Random, game: dict[str, Any]) -> dict[str, Any]:
    """One human turn: roll, maybe roll again holding some dice, maybe a hint, score."""
    gid = game["id"]
    game = await act("POST", f"/api/games/{gid}/roll", {"version": game["version"]})
    if rng.random() < 0.5 and game["rolls_left"]:
        hold = [rng.random() < 0.5 for _ in range(4)] + [False]
        game = await act(
            "POST", f"/api/games/{gid}/roll", {"version": game["version"], "hold": hold}
        )
    if rng.random() < 0.1 and game["hints_left"]:
        game = (await act("POST", f"/api/games/{gid}/hint", {"version": game["version"]}))["game"]
    allowed = [c for c, o in game["preview"].items() if o["allowed"]]
    body = {"version": game["version"], "category": rng.choice(allowed), "confirm_zero": True}
    result: dict[str, Any] = await act("POST", f"/api/games/{gid}/score", body)
    return result


class Acked(Protocol):
    """A simulated player as :func:`check_log` reads it."""

    acked: dict[str, list[dict[str, Any]]]


async def check_log(db: Path | str, players: Sequence[Acked]) -> tuple[int, list[str]]:
    """Check every acknowledged game object against the database ``db``.

    For each, the stored version is at least the acknowledged one and replaying the log up
    to that version gives exactly the position the player was shown. Returns the number
    of objects checked and the problems found.
    """
    from yahtzee.log import replay
    from yahtzee.server.game_view import from_log
    from yahtzee.server.views import game_json
    from yahtzee.storage import open_storage

    problems: list[str] = []
    checked = 0
    storage = open_storage(db)
    await storage.open()
    try:
        for player in players:
            for gid, acks in player.acked.items():
                stored = await storage.get_game(gid)
                if stored is None:
                    problems.append(f"game {gid} lost")
                    continue
                log = await storage.events(gid)
                for shown in acks:
                    checked += 1
                    version = shown["version"]
                    if len(log) < version:
                        problems.append(f"game {gid}: {len(log)} events < acked v{version}")
                        continue
                    status = replay(log[:version]).status
                    at_version = replace(stored, status=status, version=version)
                    rebuilt = game_json(from_log(at_version, log[:version]))
                    for key in POSITION_KEYS:
                        if rebuilt[key] != shown[key]:
                            problems.append(f"game {gid} v{version}: {key} differs")
    finally:
        await storage.close()
    return checked, problems
