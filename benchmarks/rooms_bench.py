"""好友房间 benchmark (issue 18, O4; issue 31, S3-S5): live rooms on the production stack.

``scripts/stack.sh`` (PostgreSQL, ``--apps`` app processes (default 2), nginx in front),
``--rooms`` rooms of 4 people (default 500: 2,000 browsers), every browser holding its
room's event stream through nginx (nginx sends a room's streams and actions to one process,
by a hash of the room's id, and spreads the rooms over the processes). Then the rooms
play: the seat on turn rolls (up to three times) or
scores, from its own browser, through nginx, each room at its share of ``--rate`` actions
a second (default: one a second per room, as people play), for ``--seconds``.

Figures (each with its target; a missed target makes the run exit 1):

* **click → answer**: the time a person waits for their own action, from the request
  leaving the browser to its whole answer; p50 and p99 over every action asked. Target
  p50 ≤ 20 ms, p99 ≤ 100 ms.
* **failed actions**, by status and code (``503 busy``, ``502 http_error``,
  ``ConnectionResetError``...): an action that was asked and not served. Target 0; any 5xx
  or failed action fails the run.
* **served**: actions answered per second against the rate asked.
* **ack → event**: for each action, from the moment its answer reached the acting browser
  to the moment its event reached each of the room's other three streams; p50 and p99
  over every (action, stream) pair. An event that arrives before the acknowledgement (the
  event is sent right after the commit, the answer after it) counts as 0. Target p50 ≤ 20
  ms, p99 ≤ 100 ms.
* **memory per idle stream**: the app processes' resident memory (RSS) with every stream
  open and idle, minus before the streams were opened, divided by the streams. Target
  ≤ 30 KB.
* **lost / duplicated / missing events, and durability**: every stream's ids must be 1,
  2, 3, ... with no gap and no repeat, each stream sees every acknowledged action's event,
  and at the end every room's stored game is at least at its last acknowledged version.
  Target 0.
* **CPU of each process** (read from ``/proc``): each app process (with its CPU pool's
  workers), PostgreSQL (every backend), nginx (master and workers) and the benchmark's
  clients, in cores (CPU seconds per second of play), and the load average; and the CPU
  milliseconds per action served, of the apps and of the whole stack (apps, PostgreSQL,
  nginx): the figure to compare on a shared machine, where the rates are the machine's.
* **kill -9** (unless ``--no-kill``; never with ``--capacity``): after the load phase, one
  app process is killed; the streams it held reconnect through nginx with
  ``Last-Event-ID`` to another (as a browser's EventSource does), the rooms play on for
  ``--after-kill`` seconds, and the same checks run over the whole game. The actions in
  flight on the killed process fail (counted, by status); the run then exits 1 only for
  what the kill cannot excuse: a lost, duplicated or missing event, or a failure that is
  not an answer in the error shape (a gateway's timeout, an HTML page).

**Capacity** (``--capacity``): the same rooms, the rate stepped up in one run (``--rates``,
``--step-seconds`` each); each step prints its figures and the run prints the highest
rate served with click p99 ≤ 100 ms, no failed action and ack → event p99 ≤ 100 ms, at
that step and every one below it (the capacity), and the CPU of each process at that
step. Stepping stops at the first step that misses (``--past`` steps more are run to show
what happens beyond; they do not count). The exit status is 1 when no step met the
targets, or the capacity is below ``--min-capacity``.

The browsers are split over ``--clients`` processes (default 2), each with its rooms
whole (an action's acknowledgement and its events are timed by one clock), so that the
client's own event loop does not become the bottleneck it measures.

    .venv/bin/python benchmarks/rooms_bench.py --no-kill          # 500 rooms, ~1 minute
    .venv/bin/python benchmarks/rooms_bench.py --rooms 300 --capacity --rates 150,200,250,300
    .venv/bin/python benchmarks/rooms_bench.py --quick --json     # smoke test (the suite)

Exit status 1 when an event was lost, duplicated or missing, an acknowledged action is not
stored, an action failed or a target was missed; 2 when the stack did not start. With
``--quick`` (a shared test machine) the timing targets are 2 s unless given.
``--inject-stale N`` sends N actions with an old version (a double click): they must be
counted as failed (409 ``stale_version``) and fail the run, a check of the benchmark's own
accounting.

**Where the time goes** (``--profile DIR``): during the load phase (or each capacity
step) ``py-spy`` (``--py-spy``; by default the venv's, one of the ``[dev]`` tools, else
``PATH``'s) samples every thread of each app process (``DIR/app1.txt``...: collapsed
stacks, one line a stack and its samples, the input of any flame graph tool), and
PostgreSQL logs every statement
(``log_min_duration_statement = 0`` for the phase): ``DIR/statements.txt`` counts them by
text, per action served, with their total time.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers

from server_process import (
    NO_LIMIT_ARGS,
    EventStream,
    HttpError,
    RawClient,
    Stack,
    free_port,
)

APP_ARGS = (
    "--max-connections",
    "4000",  # a thousand idle streams per process and more (the default is 1,000)
    "--max-open-rooms",
    "0",
    "--max-rooms-per-hour-per-address",
    "0",
    "--max-room-joins-per-minute",
    "0",
    "--max-room-streams",
    "0",
)
SEATS = 4
ROLLS = 3  # rolls a turn before the score: a game is 13 * 4 * 4 = 208 actions
TURN_SECONDS = 300  # no 托管 during the benchmark: every action is a person's
# Targets (ms). S3: a click answered within 100 ms (p99); O4: its event at the others too.
TARGETS = {"click_p50": 20.0, "click_p99": 100.0, "event_p50": 20.0, "event_p99": 100.0}
QUICK_TARGET_MS = 2000.0  # --quick on a shared test machine: only a stall fails
RECOVER_TRIES = 20  # reads of the room after a failed action (bounded)


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("VmRSS not found")


# -- CPU of each process, from /proc ---------------------------------------------------------


def _process_table() -> dict[int, tuple[int, float]]:
    """Every process: pid -> (parent pid, user + system CPU seconds so far)."""
    tick = os.sysconf("SC_CLK_TCK")
    table: dict[int, tuple[int, float]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        table[int(stat.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    return table


def _tree_cpu(table: dict[int, tuple[int, float]], root: int) -> dict[int, float]:
    """CPU seconds of ``root`` and of every process under it, by pid."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found: dict[int, float] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in table:
            found[pid] = table[pid][1]
        todo += children.get(pid, [])
    return found


class CpuMeter:
    """The CPU the stack's processes use between two samples, per group of processes."""

    def __init__(self, groups: dict[str, list[int]]) -> None:
        self.groups = groups  # name -> root pids (their descendants count too)
        self._last = self._sample()
        self._when = time.monotonic()

    def _sample(self) -> dict[str, dict[int, float]]:
        table = _process_table()
        return {
            name: {pid: cpu for root in roots for pid, cpu in _tree_cpu(table, root).items()}
            for name, roots in self.groups.items()
        }

    def take(self) -> dict[str, float]:
        """Cores used by each group since the last call (CPU seconds per wall second):
        per process, so a process that ended meanwhile (a killed app, its database
        sessions) does not take its earlier CPU out of the group's sum."""
        now, sample = time.monotonic(), self._sample()
        wall = max(1e-6, now - self._when)
        out = {}
        for name, pids in sample.items():
            last = self._last.get(name, {})
            used = sum(max(0.0, cpu - last.get(pid, 0.0)) for pid, cpu in pids.items())
            # (3 decimals: at 50 actions a second, 0.01 of a core is 0.2 ms an action)
            out[name] = round(used / wall, 3)
        self._last, self._when = sample, now
        return out


# -- the rooms -------------------------------------------------------------------------------


class Room:
    """One room of the benchmark: its browsers, their streams and what they saw."""

    def __init__(self, port: int, index: int) -> None:
        self.port = port
        self.index = index
        self.browsers = [RawClient("127.0.0.1", port) for _ in range(SEATS)]
        self.streams: list[EventStream] = []
        self.id = ""
        self.game: dict[str, Any] = {}
        # per stream: ids seen, and version -> arrival time
        self.ids: list[list[int]] = [[] for _ in range(SEATS)]
        self.arrived: list[dict[int, float]] = [{} for _ in range(SEATS)]
        self.acks: list[tuple[int, int, float]] = []  # (seat that acted, version, ack time)
        self.trips: list[tuple[float, float]] = []  # each action served: (asked at, seconds)
        self.failures: list[tuple[float, str]] = []  # each failed action: (asked at, kind)
        self.reconnects: list[float] = []
        self.stale_to_inject = 0

    async def setup(self) -> None:
        host = self.browsers[0]
        seats = [{"kind": "human", "name": "房主"}] + [{"kind": "human"}] * (SEATS - 1)
        body = {"seats": seats, "turn_seconds": TURN_SECONDS}
        room = (await _setup_request(host, "POST", "/api/rooms", body))["room"]
        self.id = room["id"]
        token = room["invite_url"].partition("#t=")[2]
        for n, friend in enumerate(self.browsers[1:], start=1):
            join = {"token": token, "name": f"友{n}"}
            await _setup_request(friend, "POST", f"/api/rooms/{self.id}/join", join)
        started = await _setup_request(host, "POST", f"/api/rooms/{self.id}/start", {})
        self.game = started["room"]["game"]

    async def open_streams(self) -> None:
        path = f"/api/rooms/{self.id}/events"
        for browser in self.browsers:
            stream = EventStream("127.0.0.1", self.port, path, cookie=browser.cookie)
            if await stream.open() != 200:
                raise RuntimeError(f"stream of room {self.id}: {stream.status}")
            self.streams.append(stream)

    async def read(self, seat: int, stop: asyncio.Event) -> None:
        stream = self.streams[seat]
        while not stop.is_set():
            try:
                event_id, data = await stream.next(timeout=3600)
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                if stop.is_set():
                    return
                began = time.monotonic()
                while not stop.is_set():  # as an EventSource: reconnect with the last id
                    try:
                        if await stream.reopen() == 200:
                            break
                    except OSError:
                        pass
                    await asyncio.sleep(0.05)
                self.reconnects.append(time.monotonic() - began)
                continue
            now = time.monotonic()
            self.ids[seat].append(event_id)
            game = data.get("game")
            if game is not None:
                self.arrived[seat].setdefault(game["version"], now)

    def _next_action(self) -> tuple[str, dict[str, Any]]:
        game = self.game
        version = game["version"]
        if self.stale_to_inject:  # a double click: the version of an action already made
            self.stale_to_inject -= 1
            version -= 1
        if game["dice"] is None or game["rolls_left"] > 3 - ROLLS:
            return f"/api/games/{game['id']}/roll", {"version": version}
        box = next(c for c, o in game["preview"].items() if o["allowed"])
        body = {"version": version, "category": box, "confirm_zero": True}
        return f"/api/games/{game['id']}/score", body

    async def act(self) -> None:
        seat = self.game["turn"]
        client = self.browsers[seat]
        path, body = self._next_action()
        began = time.monotonic()
        try:
            answer = await _request(client, "POST", path, body)
        except (HttpError, ConnectionError, asyncio.IncompleteReadError, OSError) as exc:
            self.failures.append((began, _failure_kind(exc)))
            if isinstance(exc, HttpError) and exc.status == 503 and _code(exc) == "busy":
                return  # refused before any work (S4): the game is as it was
            await self._reread()
            return
        acked = time.monotonic()
        self.game = answer
        self.acks.append((seat, answer["version"], acked))
        self.trips.append((began, acked - began))

    async def _reread(self) -> None:
        """After a failure that may have done the action (a process killed mid-request),
        read the room's game again, as the page does."""
        for _ in range(RECOVER_TRIES):
            try:
                got = await _request(self.browsers[0], "GET", f"/api/rooms/{self.id}")
                self.game = got["room"]["game"]
                return
            except (HttpError, ConnectionError, asyncio.IncompleteReadError, OSError):
                await asyncio.sleep(0.1)

    async def play(self, until: float, offset: float, interval: float) -> None:
        """Act every ``interval`` seconds (later when an answer is late) until ``until``."""
        await asyncio.sleep(offset)  # spread the rooms over the interval
        due = time.monotonic()
        while time.monotonic() < until and self.game.get("status") == "in_progress":
            await self.act()
            due += interval
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            due = max(due, time.monotonic() - interval)  # no burst to catch up

    def latencies(self, since: float) -> list[float]:
        out = []
        for seat, version, acked in self.acks:
            if acked < since:
                continue
            for other in range(SEATS):
                if other == seat:
                    continue
                arrived = self.arrived[other].get(version)
                if arrived is not None:
                    out.append(max(0.0, arrived - acked))
        return out

    def check(self) -> tuple[int, int, int]:
        """(lost, duplicated, acks without their event at some stream)."""
        lost = duplicated = missing = 0
        for ids in self.ids:
            duplicated += len(ids) - len(set(ids))
            if ids:
                lost += max(ids) - len(set(ids))  # ids are 1..n: a gap is a lost event
        for seat, version, _ in self.acks:
            for other in range(SEATS):
                if other != seat and version not in self.arrived[other]:
                    missing += 1
        return lost, duplicated, missing

    async def stored_short(self) -> int:
        """1 when the room's stored game is older than its last acknowledged action."""
        if not self.acks:
            return 0
        acked = max(version for _, version, _ in self.acks)
        for _ in range(RECOVER_TRIES):
            try:
                got = await _request(self.browsers[0], "GET", f"/api/rooms/{self.id}")
                return 1 if got["room"]["game"]["version"] < acked else 0
            except (HttpError, ConnectionError, asyncio.IncompleteReadError, OSError):
                await asyncio.sleep(0.1)
        return 1

    async def close(self) -> None:
        for s in self.streams:
            await s.close()
        for b in self.browsers:
            await b.close()


async def _request(client: RawClient, method: str, path: str, body: Any = None) -> Any:
    """One request; on a kept-alive connection that nginx closed while this browser was
    idle (no byte of an answer came), sent again on a new connection, as a browser does."""
    try:
        return await client.request(method, path, body)
    except ConnectionResetError as exc:
        if "closed the connection" not in str(exc):
            raise
        return await client.request(method, path, body)


async def _setup_request(client: RawClient, method: str, path: str, body: Any) -> Any:
    """A request of the rooms' setup (not measured): a 503 busy is sent again."""
    for _ in range(RECOVER_TRIES):
        try:
            return await _request(client, method, path, body)
        except HttpError as exc:
            if exc.status != 503:
                raise
            await asyncio.sleep(0.5)
    return await _request(client, method, path, body)


def _phase(rooms: Sequence[Room], since: float, until: float) -> dict[str, Any]:
    """What the rooms saw of the actions asked in [since, until)."""
    failures: dict[str, int] = {}
    for r in rooms:
        for at, kind in r.failures:
            if since <= at < until:
                failures[kind] = failures.get(kind, 0) + 1
    return {
        "event": [x for r in rooms for x in r.latencies(since)],
        "trips": [d for r in rooms for at, d in r.trips if since <= at < until],
        "failures": failures,
    }


async def _client(port: int, first: int, count: int, stale: int, conn: Any) -> None:
    """One client process: its rooms, through the phases the parent asks for on ``conn``."""
    rooms = [Room(port, first + i) for i in range(count)]
    for chunk in range(0, count, 25):
        await asyncio.gather(*(r.setup() for r in rooms[chunk : chunk + 25]))
    if rooms:
        rooms[0].stale_to_inject = stale
    conn.send("ready")
    conn.recv()  # open the streams
    for chunk in range(0, count, 50):
        await asyncio.gather(*(r.open_streams() for r in rooms[chunk : chunk + 50]))
    stop = asyncio.Event()
    readers = [asyncio.create_task(r.read(s, stop)) for r in rooms for s in range(SEATS)]
    await asyncio.sleep(0.5)
    # A browser's garbage collection stops nothing but its own tab; this process holds a
    # thousand browsers' streams (~100k objects), whose full scans at Python's default
    # thresholds took ~100 ms of a core every ~10 s, stalling this clock (the clicks timed
    # then) and starving the stack of that core: collected as the server collects
    # (yahtzee.web.app.GC_THRESHOLDS), after the set-up's objects are frozen.
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
    conn.send("streaming")
    while True:
        command = conn.recv()
        if command[0] != "play":
            break
        _, rate, seconds = command  # this client's share of the rate, actions a second
        interval = count / rate if rate > 0 else seconds
        since = time.monotonic()
        until = since + seconds
        await asyncio.gather(
            *(r.play(until, interval * i / count, interval) for i, r in enumerate(rooms))
        )
        ended = time.monotonic()
        await asyncio.sleep(1.0)  # the last events arrive
        phase = _phase(rooms, since, ended + 1e-3)
        phase["seconds"] = seconds  # (the rooms' ticks fall in it; the last answer later)
        phase["finished_games"] = sum(r.game.get("status") != "in_progress" for r in rooms)
        conn.send(("played", phase))
    await asyncio.sleep(1.0)
    stop.set()
    for task in readers:
        task.cancel()
    lost = duplicated = missing = 0
    for r in rooms:
        a, b, c = r.check()
        lost, duplicated, missing = lost + a, duplicated + b, missing + c
    short = sum(await asyncio.gather(*(r.stored_short() for r in rooms)))
    result = {
        "lost": lost,
        "duplicated": duplicated,
        "missing": missing,
        "not_stored": short,
        "reconnects": [x for r in rooms for x in r.reconnects],
    }
    for r in rooms:
        await r.close()
    conn.send(("done", result))


def _code(exc: HttpError) -> str | None:
    try:
        code = json.loads(exc.body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None
    return str(code)


def _failure_kind(exc: BaseException) -> str:
    """An action's failure as counted: the status and code (``"<status> html"`` for an
    answer that is not in the error shape), or the exception's type."""
    if isinstance(exc, HttpError):
        return f"{exc.status} {_code(exc) or 'html'}"
    return type(exc).__name__


def _client_main(port: int, first: int, count: int, stale: int, conn: Any) -> None:
    asyncio.run(_client(port, first, count, stale, conn))


def _merged(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for count in counts:
        for key, n in count.items():
            out[key] = out.get(key, 0) + n
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))] * 1000, 1)


def _parse_rates(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--rate", type=float, help="actions asked a second (default: rooms)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--apps", type=int, default=2, help="app processes behind nginx")
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--no-kill", action="store_true", help="skip the kill -9 phase")
    parser.add_argument("--after-kill", type=float, default=10.0)
    parser.add_argument("--capacity", action="store_true", help="step the rate (see above)")
    parser.add_argument(
        "--min-capacity",
        type=float,
        default=0.0,
        help="with --capacity: the target, actions a second (default: any step met)",
    )
    parser.add_argument("--rates", default="100,150,200,250,300,350,400,450,500,600")
    parser.add_argument("--step-seconds", type=float, default=6.0)
    parser.add_argument("--past", type=int, default=0, help="steps run after the first miss")
    parser.add_argument("--app-arg", action="append", default=[], help="one more serve option")
    parser.add_argument("--inject-stale", type=int, default=0, metavar="N")
    for name, value in TARGETS.items():
        flag = "--" + name.replace("_", "-") + "-ms"
        parser.add_argument(flag, type=float, default=None, help=f"target (default {value})")
    parser.add_argument("--quick", action="store_true", help="20 rooms, 4 s: a smoke test")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--profile", metavar="DIR", help="py-spy and statement log (see above)")
    parser.add_argument("--py-spy", help="the py-spy program (default: the venv's, else PATH's)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rooms, args.seconds, args.after_kill, args.clients = 20, 4.0, 4.0, 1
        args.step_seconds = 3.0
        # 20 rooms have at most 20 actions (and their reads) in flight: above the bound,
        # so that a starved test machine gets no 503 busy here (the bound has its test)
        args.app_arg = ["--max-in-flight", "64", *args.app_arg]
    targets = {
        name: (
            getattr(args, name + "_ms")
            if getattr(args, name + "_ms") is not None
            else (QUICK_TARGET_MS if args.quick else value)
        )
        for name, value in TARGETS.items()
    }
    print(f"load average before the run: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="yahtzee-rooms-") as tmp:
        base = Path(tmp)
        base.chmod(0o755)  # PostgreSQL runs as its own user when we are root
        stack = Stack(base, (*NO_LIMIT_ARGS, *APP_ARGS, *args.app_arg))
        stack.app_ports = [free_port() for _ in range(args.apps)]
        stack.env["STACK_APP_PORTS"] = " ".join(map(str, stack.app_ports))
        started = stack.run("start")
        if started.returncode != 0:
            print(started.stdout + started.stderr, file=sys.stderr)
            return 2
        try:
            return _run(stack, args, targets)
        finally:
            stack.run("stop")


def _step_figures(
    rate: float, phases: list[dict[str, Any]], cpu: dict[str, float], targets: dict[str, float]
) -> dict[str, Any]:
    trips = [x for p in phases for x in p["trips"]]
    event = [x for p in phases for x in p["event"]]
    failures = _merged(p["failures"] for p in phases)
    seconds = max(p["seconds"] for p in phases)
    figures: dict[str, Any] = {
        "asked_per_s": round(rate, 1),
        "served_per_s": round(len(trips) / seconds, 1),
        "actions": len(trips),
        "deliveries": len(event),
        "click_p50_ms": _pct(trips, 0.5),
        "click_p99_ms": _pct(trips, 0.99),
        "event_p50_ms": _pct(event, 0.5),
        "event_p99_ms": _pct(event, 0.99),
        "failed": sum(failures.values()),
        "failures": failures,
        "cpu_cores": cpu,
        # CPU per action served, in ms (robust to a shared machine, unlike the rates):
        # the apps' together, and the whole stack's (apps, PostgreSQL, nginx; no clients)
        "app_cpu_ms_per_action": _per_action(cpu, seconds, len(trips), ("app",)),
        "stack_cpu_ms_per_action": _per_action(
            cpu, seconds, len(trips), ("app", "postgresql", "nginx")
        ),
        "load_average": round(os.getloadavg()[0], 2),
        "finished_games": sum(p["finished_games"] for p in phases),
    }
    missed = [
        name
        for name, limit in targets.items()
        if not figures[name + "_ms"] <= limit  # (nan: nothing measured, a miss)
    ]
    if figures["failed"]:
        missed.append("failed")
    figures["missed"] = missed
    return figures


def _per_action(
    cpu: dict[str, float], seconds: float, actions: int, groups: Sequence[str]
) -> float:
    """CPU milliseconds per action of the groups whose names start with one of ``groups``."""
    cores = sum(v for k, v in cpu.items() if k.startswith(tuple(groups)))
    return round(cores * seconds * 1000 / actions, 2) if actions else float("nan")


class Profiler:
    """``--profile``: py-spy on each app process and PostgreSQL's statement log, for one
    phase at a time (see the module docstring)."""

    def __init__(self, out: Path, py_spy: str, stack: Stack, apps: Sequence[int]) -> None:
        self.out = out
        self.py_spy = py_spy
        self.apps = apps
        self.url = (stack.dir / "db-url").read_text().strip()
        self.pg_log = stack.dir / "pg" / "postgres.log"
        self._spies: list[subprocess.Popen[bytes]] = []
        self._log_from = 0
        self.phase = 0
        out.mkdir(parents=True, exist_ok=True)

    def _pg_setting(self, value: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET log_min_duration_statement = {value}")
            conn.execute("SELECT pg_reload_conf()")

    def start(self, seconds: float) -> None:
        """Sample the app processes for ``seconds`` and log PostgreSQL's statements."""
        self.phase += 1
        self._log_from = self.pg_log.stat().st_size if self.pg_log.exists() else 0
        self._pg_setting("0")
        for n, pid in enumerate(self.apps, start=1):
            out = self.out / f"app{n}-{self.phase}.txt"
            cmd = [self.py_spy, "record", "-p", str(pid), "-r", "200", "-d", str(int(seconds))]
            cmd += ["-f", "raw", "-o", str(out), "--threads", "--nonblocking"]
            self._spies.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL))

    def stop(self, actions: int) -> None:
        """End the phase: wait for py-spy, summarise the statements per action."""
        self._pg_setting("-1")
        for spy in self._spies:
            try:
                spy.wait(timeout=60)
            except subprocess.TimeoutExpired:
                spy.kill()
        self._spies = []
        with self.pg_log.open("rb") as f:
            f.seek(self._log_from)
            text = f.read().decode(errors="replace")
        counts: dict[str, list[float]] = {}
        # "LOG:  duration: 0.052 ms  execute <unnamed>: SELECT ..." / "statement: BEGIN"
        pattern = re.compile(r"duration: ([0-9.]+) ms\s+(?:statement|execute [^:]*): (.*)")
        for line in text.splitlines():
            match = pattern.search(line)
            if match is None:
                continue
            key = re.sub(r"\s+", " ", match[2])[:160]
            counts.setdefault(key, []).append(float(match[1]))
        lines = [f"{actions} actions served; statements per action, total ms, text"]
        total = sum(len(v) for v in counts.values())
        lines.append(f"{total / max(1, actions):8.2f} {sum(map(sum, counts.values())):10.1f} ALL")
        for key, durations in sorted(counts.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"{len(durations) / max(1, actions):8.2f} {sum(durations):10.1f} {key}")
        (self.out / f"statements-{self.phase}.txt").write_text("\n".join(lines) + "\n")


def _run(stack: Stack, args: argparse.Namespace, targets: dict[str, float]) -> int:
    apps = [int((stack.dir / f"app-{p}.pid").read_text()) for p in stack.app_ports]
    ctx = multiprocessing.get_context("spawn")
    share = -(-args.rooms // args.clients)
    pipes, procs, counts = [], [], []
    for c in range(args.clients):
        count = min(share, args.rooms - c * share)
        parent, child = ctx.Pipe()
        stale = args.inject_stale if c == 0 else 0
        proc = ctx.Process(target=_client_main, args=(stack.port, c * share, count, stale, child))
        proc.start()
        pipes.append(parent)
        procs.append(proc)
        counts.append(count)
    for p in pipes:
        assert p.recv() == "ready"
    time.sleep(1.0)
    rss_before = [_rss_kb(pid) for pid in apps]
    for p in pipes:
        p.send("open")
    for p in pipes:
        assert p.recv() == "streaming"
    time.sleep(2.0)  # idle streams
    rss_after = [_rss_kb(pid) for pid in apps]
    streams = args.rooms * SEATS
    per_stream_kb = (sum(rss_after) - sum(rss_before)) / streams
    pg = int((stack.dir / "pg" / "data" / "postmaster.pid").read_text().split()[0])
    nginx = int((stack.dir / "nginx.pid").read_text())
    groups = {f"app{i + 1}": [pid] for i, pid in enumerate(apps)}
    groups |= {"postgresql": [pg], "nginx": [nginx], "clients": [p.pid or 0 for p in procs]}
    meter = CpuMeter(groups)
    profiler = None
    if args.profile is not None:
        # the venv's own (the [dev] extras install it beside the interpreter), else PATH's
        beside = Path(sys.executable).with_name("py-spy")
        spy = args.py_spy or (str(beside) if beside.exists() else shutil.which("py-spy"))
        spy = spy or "py-spy"
        profiler = Profiler(Path(args.profile), spy, stack, apps)

    def play(rate: float, seconds: float, *, profile: bool = True) -> dict[str, Any]:
        if profiler is not None and profile:
            profiler.start(seconds)
        meter.take()
        for p, count in zip(pipes, counts, strict=True):
            p.send(("play", rate * count / args.rooms, seconds))
        phases = []
        for p in pipes:
            tag, phase = p.recv()
            assert tag == "played"
            phases.append(phase)
        figures = _step_figures(rate, phases, meter.take(), targets)
        if profiler is not None and profile:
            profiler.stop(figures["actions"])
        return figures

    figures: dict[str, Any] = {
        "rooms": args.rooms,
        "streams": streams,
        "apps": args.apps,
        "targets_ms": targets,
        "memory_per_idle_stream_kb": round(per_stream_kb, 1),
        "rss_before_kb": rss_before,
        "rss_after_kb": rss_after,
    }
    bad: list[str] = []
    if per_stream_kb > 30 and not args.quick:
        bad.append("memory_per_idle_stream_kb")
    if args.capacity:
        steps = []
        misses = 0
        # The capacity is the last step before the first miss: a step met past a missed
        # one (the machine quieter for those seconds) is shown, not counted.
        best = None
        for rate in _parse_rates(args.rates):
            step = play(rate, args.step_seconds)
            steps.append(step)
            if not args.json:
                print(_step_line(step), flush=True)
            if not _within_capacity(step):
                misses += 1
                if misses > args.past:
                    break
            elif misses == 0:
                best = step
        figures["steps"] = steps
        figures["capacity_per_s"] = best["served_per_s"] if best else 0.0
        figures["capacity_cpu_cores"] = best["cpu_cores"] if best else {}
        if best is None or figures["capacity_per_s"] < args.min_capacity:
            bad.append("capacity")
    else:
        rate = args.rate or float(args.rooms)
        load = play(rate, args.seconds)
        figures |= {"seconds": args.seconds, **load}
        bad += load["missed"]
        if not args.no_kill:
            os.kill(apps[0], 9)
            after = play(rate, args.after_kill, profile=False)
            figures["after_kill"] = after
            # The actions in flight on the killed process fail; what it cannot excuse is
            # an answer that is not in the error shape (a gateway's page or timeout).
            unexplained = {
                k: n
                for k, n in after["failures"].items()
                if k.endswith(" html") or not k[:1].isdigit()
            }
            if unexplained:
                bad.append("after_kill_failures")
    for p in pipes:
        p.send(("end",))
    results = []
    for p in pipes:
        tag, result = p.recv()
        assert tag == "done"
        results.append(result)
    for proc in procs:
        proc.join(30)
    for key in ("lost", "duplicated", "missing", "not_stored"):
        figures[key] = sum(r[key] for r in results)
        if figures[key]:
            bad.append(key)
    rc = [x for r in results for x in r["reconnects"]]
    figures["reconnected_streams"] = len(rc)
    figures["slowest_reconnect_ms"] = round(max(rc) * 1000, 1) if rc else None
    figures["missed"] = bad
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        for key, value in figures.items():
            if key != "steps":
                print(f"{key:28} {value}")
    return 1 if bad else 0


def _within_capacity(step: dict[str, Any]) -> bool:
    """Whether a capacity step counts (issue 31): its rate served (95 %), no failed
    action, click p99 and ack → event p99 within their targets. The p50 targets are
    reported with the step, but a p50 over 20 ms with the p99 met is still served."""
    capacity_targets = ("click_p99", "event_p99")
    return (
        step["served_per_s"] >= 0.95 * step["asked_per_s"]
        and "failed" not in step["missed"]
        and not any(name in step["missed"] for name in capacity_targets)
    )


def _step_line(step: dict[str, Any]) -> str:
    cpu = " ".join(f"{k} {v:.2f}" for k, v in step["cpu_cores"].items())
    return (
        f"asked {step['asked_per_s']:6.0f}/s served {step['served_per_s']:6.1f}/s  click p50"
        f" {step['click_p50_ms']:7.1f} p99 {step['click_p99_ms']:7.1f} ms  event p99"
        f" {step['event_p99_ms']:7.1f} ms  failed {step['failed']} {step['failures'] or ''}"
        f"  cores: {cpu}  load {step['load_average']}"
        + (f"  MISSED {','.join(step['missed'])}" if step["missed"] else "")
    )


if __name__ == "__main__":
    sys.exit(main())
