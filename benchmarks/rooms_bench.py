"""好友房间 benchmark (issue 18, O4): live rooms on the production stack.

``scripts/stack.sh`` (PostgreSQL, two app processes, nginx in front), ``--rooms`` rooms of
4 people (default 500: 2,000 browsers), every browser holding its room's event stream
through nginx (nginx spreads the browsers over the two processes by a hash of their
cookie, so about half the streams are on each). Then each room plays one action a second
(the seat on turn rolls or scores, from its own browser, through nginx) for ``--seconds``.

Figures:

* **ack → event**: for each action, from the moment its answer (the acknowledgement)
  reached the acting browser to the moment its event reached each of the room's other
  three streams; p50 and p99 over every (action, stream) pair. An event that arrives
  before the acknowledgement (the event is sent right after the commit, the answer after
  it) counts as 0. Target p50 ≤ 20 ms, p99 ≤ 100 ms.
* **memory per idle stream**: the app processes' resident memory (RSS) with every stream
  open and idle, minus before the streams were opened, divided by the streams. Target
  ≤ 30 KB.
* **lost / duplicated events**: every stream's ids must be 1, 2, 3, ... with no gap and no
  repeat, and each stream sees every action's event. Target 0.
* **kill -9** (``--kill``, on by default): after the load phase, one app process is
  killed; the streams it held reconnect through nginx with ``Last-Event-ID`` to the other
  (as a browser's EventSource does), the rooms play on for ``--after-kill`` seconds, and
  the same checks run over the whole game. Printed: how many streams reconnected, the
  slowest reconnection, lost and duplicated events.

The browsers are split over ``--clients`` processes (default 2), each with its rooms
whole (an action's acknowledgement and its events are timed by one clock), so that the
client's own event loop does not become the bottleneck it measures.

    .venv/bin/python benchmarks/rooms_bench.py                  # 500 rooms, ~2 minutes
    .venv/bin/python benchmarks/rooms_bench.py --rooms 100      # a loaded machine
    .venv/bin/python benchmarks/rooms_bench.py --quick --json   # smoke test (the suite)

Exit status 1 when an event was lost or duplicated, or an action failed (and, outside
``--quick``, when a target is missed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers

from server_process import (
    NO_LIMIT_ARGS,
    EventStream,
    HttpError,
    RawClient,
    Stack,
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
TURN_SECONDS = 300  # no 托管 during the benchmark: every action is a person's


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("VmRSS not found")


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
        self.round_trips: list[float] = []  # each action, from its request to its answer
        self.reconnects: list[float] = []
        self.failures = 0
        self.failure_kinds: dict[str, int] = {}  # "409 stale_version", "ConnectionResetError"...

    async def setup(self) -> None:
        host = self.browsers[0]
        seats = [{"kind": "human", "name": "房主"}] + [{"kind": "human"}] * (SEATS - 1)
        body = {"seats": seats, "turn_seconds": TURN_SECONDS}
        room = (await host.request("POST", "/api/rooms", body))["room"]
        self.id = room["id"]
        token = room["invite_url"].partition("#t=")[2]
        for n, friend in enumerate(self.browsers[1:], start=1):
            join = {"token": token, "name": f"友{n}"}
            await friend.request("POST", f"/api/rooms/{self.id}/join", join)
        started = await host.request("POST", f"/api/rooms/{self.id}/start", {})
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
                while True:  # as an EventSource: reconnect with the last id
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

    async def act(self) -> None:
        game = self.game
        seat = game["turn"]
        client = self.browsers[seat]
        if game["dice"] is None or game["rolls_left"] == 3:
            path, body = f"/api/games/{game['id']}/roll", {"version": game["version"]}
        else:
            box = next(c for c, o in game["preview"].items() if o["allowed"])
            path = f"/api/games/{game['id']}/score"
            body = {"version": game["version"], "category": box, "confirm_zero": True}
        began = time.monotonic()
        try:
            try:
                self.game = await client.request("POST", path, body)
            except ConnectionResetError as exc:
                if "closed the connection" not in str(exc):
                    raise
                # A kept-alive connection that nginx closed while this browser waited for
                # its turn (no byte of an answer came): sent again on a new connection,
                # as a browser does.
                self.game = await client.request("POST", path, body)
        except (HttpError, ConnectionError, asyncio.IncompleteReadError, OSError) as exc:
            # A process that died mid-request (the kill phase): read the room again.
            self.failures += 1
            kind = _failure_kind(exc)
            self.failure_kinds[kind] = self.failure_kinds.get(kind, 0) + 1
            for _ in range(20):
                try:
                    got = await self.browsers[0].request("GET", f"/api/rooms/{self.id}")
                    self.game = got["room"]["game"]
                    return
                except (HttpError, ConnectionError, asyncio.IncompleteReadError, OSError):
                    await asyncio.sleep(0.1)
            raise
        acked = time.monotonic()
        self.acks.append((seat, self.game["version"], acked))
        self.round_trips.append(acked - began)

    async def play(self, until: float, offset: float) -> None:
        await asyncio.sleep(offset)  # spread the rooms over the second
        while time.monotonic() < until and self.game.get("status") == "in_progress":
            started = time.monotonic()
            await self.act()
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))

    def latencies(self, since: float = 0.0) -> list[float]:
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

    async def close(self) -> None:
        for s in self.streams:
            await s.close()
        for b in self.browsers:
            await b.close()


async def _client(
    port: int, first: int, count: int, seconds: float, after_kill: float, conn: Any
) -> None:
    """One client process: its rooms, through the phases the parent signals on ``conn``."""
    rooms = [Room(port, first + i) for i in range(count)]
    for chunk in range(0, count, 25):
        await asyncio.gather(*(r.setup() for r in rooms[chunk : chunk + 25]))
    conn.send("ready")
    conn.recv()  # open the streams
    for chunk in range(0, count, 50):
        await asyncio.gather(*(r.open_streams() for r in rooms[chunk : chunk + 50]))
    stop = asyncio.Event()
    readers = [asyncio.create_task(r.read(s, stop)) for r in rooms for s in range(SEATS)]
    await asyncio.sleep(0.5)
    conn.send("streaming")
    conn.recv()  # play
    began = time.monotonic()
    await asyncio.gather(*(r.play(began + seconds, i / count) for i, r in enumerate(rooms)))
    await asyncio.sleep(1.0)  # the last events arrive
    load_lat = [x for r in rooms for x in r.latencies()]
    trips = [x for r in rooms for x in r.round_trips]
    conn.send(("played", (load_lat, trips)))
    phase = conn.recv()
    kill_lat: list[float] = []
    if phase == "after-kill":
        since = time.monotonic()
        await asyncio.gather(*(r.play(since + after_kill, i / count) for i, r in enumerate(rooms)))
        await asyncio.sleep(2.0)
        kill_lat = [x for r in rooms for x in r.latencies(since)]
    stop.set()
    for task in readers:
        task.cancel()
    lost = duplicated = missing = 0
    for r in rooms:
        a, b, c = r.check()
        lost, duplicated, missing = lost + a, duplicated + b, missing + c
    result = {
        "kill_latencies": kill_lat,
        "lost": lost,
        "duplicated": duplicated,
        "missing": missing,
        "actions": sum(len(r.acks) for r in rooms),
        "failures": sum(r.failures for r in rooms),
        "failure_kinds": _merged(r.failure_kinds for r in rooms),
        "reconnects": [x for r in rooms for x in r.reconnects],
    }
    for r in rooms:
        await r.close()
    conn.send(("done", result))


def _failure_kind(exc: BaseException) -> str:
    """An action's failure as counted: the status and code, or the exception's type."""
    if isinstance(exc, HttpError):
        try:
            code = json.loads(exc.body)["error"]["code"]
        except (ValueError, KeyError, TypeError):
            code = exc.body[:40].decode("utf-8", "replace")
        return f"{exc.status} {code}"
    return type(exc).__name__


def _client_main(
    port: int, first: int, count: int, seconds: float, after: float, conn: Any
) -> None:
    asyncio.run(_client(port, first, count, seconds, after, conn))


def _merged(counts: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for count in counts:
        for key, n in count.items():
            out[key] = out.get(key, 0) + n
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--after-kill", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--no-kill", action="store_true", help="skip the kill -9 phase")
    parser.add_argument("--quick", action="store_true", help="20 rooms, 4 s: a smoke test")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.quick:
        args.rooms, args.seconds, args.after_kill, args.clients = 20, 4.0, 4.0, 1
    print(f"load average before the run: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="yahtzee-rooms-") as tmp:
        base = Path(tmp)
        base.chmod(0o755)  # PostgreSQL runs as its own user when we are root
        stack = Stack(base, (*NO_LIMIT_ARGS, *APP_ARGS))
        started = stack.run("start")
        if started.returncode != 0:
            print(started.stdout + started.stderr, file=sys.stderr)
            return 2
        try:
            return _run(stack, args)
        finally:
            stack.run("stop")


def _run(stack: Stack, args: argparse.Namespace) -> int:
    apps = [int((stack.dir / f"app-{p}.pid").read_text()) for p in stack.app_ports]
    ctx = multiprocessing.get_context("spawn")
    share = -(-args.rooms // args.clients)
    pipes, procs = [], []
    for c in range(args.clients):
        count = min(share, args.rooms - c * share)
        parent, child = ctx.Pipe()
        proc = ctx.Process(
            target=_client_main,
            args=(stack.port, c * share, count, args.seconds, args.after_kill, child),
        )
        proc.start()
        pipes.append(parent)
        procs.append(proc)
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
    for p in pipes:
        p.send("play")
    load: list[float] = []
    trips: list[float] = []
    for p in pipes:
        tag, (lat, trip) = p.recv()
        assert tag == "played"
        load += lat
        trips += trip
    kill = not args.no_kill
    if kill:
        os.kill(apps[0], 9)
    for p in pipes:
        p.send("after-kill" if kill else "end")
    results = []
    for p in pipes:
        tag, result = p.recv()
        assert tag == "done"
        results.append(result)
    for proc in procs:
        proc.join(30)
    figures = {
        "rooms": args.rooms,
        "streams": streams,
        "seconds": args.seconds,
        "actions": sum(r["actions"] for r in results),
        "ack_to_event_p50_ms": round(_pct(load, 0.5), 1),
        "ack_to_event_p99_ms": round(_pct(load, 0.99), 1),
        "deliveries": len(load),
        "action_p50_ms": round(_pct(trips, 0.5), 1),
        "action_p99_ms": round(_pct(trips, 0.99), 1),
        "rss_before_kb": rss_before,
        "rss_after_kb": rss_after,
        "memory_per_idle_stream_kb": round(per_stream_kb, 1),
        "lost": sum(r["lost"] for r in results),
        "duplicated": sum(r["duplicated"] for r in results),
        "missing": sum(r["missing"] for r in results),
        "failed_actions": sum(r["failures"] for r in results),
        "failure_kinds": _merged(r["failure_kinds"] for r in results),
    }
    if kill:
        kl = [x for r in results for x in r["kill_latencies"]]
        rc = [x for r in results for x in r["reconnects"]]
        figures |= {
            "after_kill_p50_ms": round(_pct(kl, 0.5), 1),
            "after_kill_p99_ms": round(_pct(kl, 0.99), 1),
            "reconnected_streams": len(rc),
            "slowest_reconnect_ms": round(max(rc) * 1000, 1) if rc else None,
        }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:28} {value}")
    bad = figures["lost"] or figures["duplicated"] or figures["missing"]
    if not args.quick:
        bad = bad or figures["ack_to_event_p50_ms"] > 20 or figures["ack_to_event_p99_ms"] > 100
        bad = bad or per_stream_kb > 30
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
