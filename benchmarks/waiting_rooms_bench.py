"""Waiting rooms' deadlines (W1, issue 38): many due turns played on time beside a live room.

Starts ``--processes`` real servers (``tests/clocked_server.py``: ``python -m
yahtzee.server``'s app on a clock this script moves) on one database, opens ``--rooms``
rooms of an hour's pace (a host and a friend each, the host's turn on: made in a burst,
their deadlines are then moved in the database to fall evenly across ``--span`` simulated
seconds, an hour), then runs that hour ``--speed`` times as fast while a live room is
played click after click. Each waiting room's turn must be played by
托管 within ``--max-late`` real seconds of its deadline. Prints each turn's lateness (real
seconds: simulated ones divided by the speed, so a faster hour is a harder test) and the
live room's click latency before and during the due hour, side by side.

Exits 1 when a turn was not played, or played later than ``--max-late``, or (not with
``--quick``, whose machine is the suite's) the live click's p99 during the hour is over
``--max-click-p99-ms``.

    .venv/bin/python benchmarks/waiting_rooms_bench.py                    # 10,000 rooms
    .venv/bin/python benchmarks/waiting_rooms_bench.py --db postgresql://… --processes 2
    .venv/bin/python benchmarks/waiting_rooms_bench.py --quick            # smoke (suite)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from server_process import (
    NO_LIMIT_ARGS,
    RawClient,
    ServerProcess,
    start_together,
)
from yahtzee.storage import is_postgres_url

CLOCKED = Path(__file__).resolve().parents[1] / "tests" / "clocked_server.py"
PACE = 3600.0  # "1h"
FLAGS = (
    *NO_LIMIT_ARGS,
    "--max-rooms-per-hour-per-address",
    "0",
    "--max-room-joins-per-minute",
    "0",
    "--max-waiting-rooms",
    "0",
    "--max-open-rooms",
    "0",
)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Clock:
    """The servers' clock file: the simulated time is the wall clock plus its number."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0.0
        self.write(0.0)

    def write(self, offset: float) -> None:
        self.offset = offset
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(repr(offset))
        tmp.replace(self.path)  # (atomic: a server never reads half a number)


async def _open_rooms(servers: list[ServerProcess], rooms: int, workers: int) -> dict[str, float]:
    """``rooms`` started rooms of an hour's pace (their turns due an hour after each
    start). Returns each room's deadline."""
    deadlines: dict[str, float] = {}
    pairs = []
    for i in range(workers):
        port = servers[i % len(servers)].port
        pairs.append((RawClient("127.0.0.1", port), RawClient("127.0.0.1", port)))

    async def one(host: RawClient, friend: RawClient) -> None:
        seats = [{"kind": "human", "name": "房主"}, {"kind": "human"}]
        room = (await host.request("POST", "/api/rooms", {"seats": seats, "pace": "1h"}))["room"]
        token = room["invite_url"].partition("#t=")[2]
        await friend.request(
            "POST", f"/api/rooms/{room['id']}/join", {"token": token, "name": "朋友"}
        )
        started = (await host.request("POST", f"/api/rooms/{room['id']}/start", {}))["room"]
        deadlines[started["id"]] = float(started["deadline"])

    queue = list(range(rooms))

    async def worker(host: RawClient, friend: RawClient) -> None:
        while queue:
            queue.pop()
            await one(host, friend)

    await asyncio.gather(*(worker(h, f) for h, f in pairs))
    return deadlines


def _spread(db: Path | str, deadlines: dict[str, float], span: float) -> dict[str, float]:
    """The rooms' deadlines (and reminder points, 80 % of the hour) moved so that they fall
    evenly across ``span`` simulated seconds from the last one made, in a random order of
    the rooms — as turns taken at any moment of an hour would (the rooms were opened in a
    burst). Returns the new deadlines."""
    rooms = list(deadlines)
    random.Random(1).shuffle(rooms)
    first = max(deadlines.values()) + 5.0
    moved = {r: first + (i + 0.5) * span / len(rooms) for i, r in enumerate(rooms)}
    rows = [(d, d - 0.2 * PACE, r) for r, d in moved.items()]
    sql = "UPDATE rooms SET deadline = ?, remind_at = ? WHERE id = ?"
    if is_postgres_url(db):
        import psycopg

        with psycopg.connect(str(db)) as conn:
            conn.cursor().executemany(sql.replace("?", "%s"), rows)
    else:
        with sqlite3.connect(str(db)) as conn:
            conn.executemany(sql, rows)
    return moved


async def _clicks(server: ServerProcess, stop: asyncio.Event, out: list[float]) -> None:
    """Play live rooms click after click (a roll or a box, the seat on turn's browser),
    each click's latency (ms) in ``out``, until ``stop``."""
    host, friend = RawClient("127.0.0.1", server.port), RawClient("127.0.0.1", server.port)
    while not stop.is_set():
        seats = [{"kind": "human", "name": "甲"}, {"kind": "human"}]
        body = {"seats": seats, "turn_seconds": 300}
        room = (await host.request("POST", "/api/rooms", body))["room"]
        token = room["invite_url"].partition("#t=")[2]
        await friend.request(
            "POST", f"/api/rooms/{room['id']}/join", {"token": token, "name": "乙"}
        )
        game = (await host.request("POST", f"/api/rooms/{room['id']}/start", {}))["room"]["game"]
        clients = (host, friend)
        while game["status"] == "in_progress" and not stop.is_set():
            client = clients[game["turn"]]
            if game["dice"] is None or game["rolls_left"] == 3:
                path, body = f"/api/games/{game['id']}/roll", {"version": game["version"]}
            else:
                box = next(c for c, o in game["preview"].items() if o["allowed"])
                path = f"/api/games/{game['id']}/score"
                body = {"version": game["version"], "category": box, "confirm_zero": True}
            started = time.perf_counter()
            game = await client.request("POST", path, body)
            out.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.02)  # (a person's pace, fast: a click every 20 ms)


def _played(db: Path | str) -> dict[str, float]:
    """Each room's first turn 托管 played: the simulated time of its event."""
    sql = (
        "SELECT room_id, MIN(at) FROM room_events WHERE kind IN ('roll', 'score') "
        "AND data LIKE '%\"proxy\":true%' GROUP BY room_id"
    )
    if is_postgres_url(db):
        import psycopg

        with psycopg.connect(str(db)) as conn:
            rows = conn.execute(sql.replace("%", "%%")).fetchall()
    else:
        with sqlite3.connect(str(db)) as conn:
            rows = conn.execute(sql).fetchall()
    return {str(r): float(at) for r, at in rows}


def _profile(
    args: argparse.Namespace, servers: list[ServerProcess], seconds: float
) -> list[subprocess.Popen[bytes]]:
    """``--profile DIR``: py-spy samples every thread of each server through the due hour
    (``DIR/server1.txt``...: collapsed stacks, one line a stack and its samples)."""
    if args.profile is None:
        return []
    out = Path(args.profile)
    out.mkdir(parents=True, exist_ok=True)
    beside = Path(sys.executable).with_name("py-spy")  # (the [dev] extras install it)
    spy = str(beside) if beside.exists() else shutil.which("py-spy") or "py-spy"
    return [
        subprocess.Popen(
            [
                spy,
                "record",
                "-p",
                str(server.pid),
                "-r",
                "100",
                "-d",
                str(int(seconds)),
                "--threads",
                "--nonblocking",
                "-f",
                "raw",
                "-o",
                str(out / f"server{i + 1}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i, server in enumerate(servers)
    ]


async def _run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    db: Path | str = args.db or work / "rooms.sqlite"
    clock = Clock(work / "clock")
    program = (sys.executable, str(CLOCKED), "--clock-file", str(clock.path))
    flags = ["--secret-file", str(work / "cookie.secret"), *FLAGS]
    servers = start_together(
        [
            ServerProcess(db, log=work / f"server{i}.log", program=program, args=flags)
            for i in range(args.processes)
        ]
    )
    try:
        setup = time.perf_counter()
        made = await _open_rooms(servers, args.rooms, args.workers)
        deadlines = _spread(db, made, args.span)
        setup_s = time.perf_counter() - setup
        # the live room, alone first (the baseline), then through the due hour
        baseline: list[float] = []
        stop = asyncio.Event()
        clicker = asyncio.create_task(_clicks(servers[0], stop, baseline))
        await asyncio.sleep(args.baseline)
        stop.set()
        await clicker
        during: list[float] = []
        stop = asyncio.Event()
        first, last = min(deadlines.values()), max(deadlines.values())
        start_wall = time.time()
        start_offset = first - 2.0 - start_wall  # the hour begins 2 s before the first one
        clock.write(start_offset)
        clicker = asyncio.create_task(_clicks(servers[0], stop, during))
        began = time.perf_counter()
        limit = (last - first) / args.speed + args.max_late + 30
        spies = _profile(args, servers, (last - first) / args.speed)
        while True:
            elapsed = time.time() - start_wall
            clock.write(start_offset + elapsed * (args.speed - 1))
            sim_now = time.time() + clock.offset
            if sim_now > last + args.max_late * args.speed:
                played = _played(db)
                if len(played) >= len(deadlines) or time.perf_counter() - began > limit:
                    break
            await asyncio.sleep(0.05)
        stop.set()
        await clicker
        hour_s = time.perf_counter() - began
        for spy in spies:
            spy.wait()
    finally:
        for server in servers:
            server.stop()
    played = _played(db)
    late = [
        (played[r] - d) / args.speed for r, d in deadlines.items() if r in played
    ]  # real seconds
    missing = len(deadlines) - len(late)
    return {
        "rooms": len(deadlines),
        "processes": args.processes,
        "backend": "postgresql" if is_postgres_url(db) else "sqlite",
        "speed": args.speed,
        "span_sim_s": args.span,
        "setup_s": round(setup_s, 1),
        "hour_real_s": round(hour_s, 1),
        "not_played": missing,
        "late_p50_s": round(_pct(late, 0.5), 3),
        "late_p99_s": round(_pct(late, 0.99), 3),
        "late_max_s": round(max(late, default=float("nan")), 3),
        "early": sum(1 for x in late if x < -0.01 * args.speed),
        "click_ms_before": {
            "n": len(baseline),
            "p50": round(_pct(baseline, 0.5), 1),
            "p99": round(_pct(baseline, 0.99), 1),
        },
        "click_ms_during": {
            "n": len(during),
            "p50": round(_pct(during, 0.5), 1),
            "p99": round(_pct(during, 0.99), 1),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=10_000)
    parser.add_argument("--span", type=float, default=3600.0, help="simulated seconds")
    parser.add_argument("--speed", type=float, default=10.0, help="simulated s per real s")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--workers", type=int, default=16, help="clients opening rooms")
    parser.add_argument("--db", help="a PostgreSQL URL (default: an SQLite file)")
    parser.add_argument("--baseline", type=float, default=10.0, help="real s of clicks alone")
    parser.add_argument("--max-late", type=float, default=5.0, help="real seconds")
    parser.add_argument("--max-click-p99-ms", type=float, default=100.0)
    parser.add_argument("--profile", metavar="DIR", help="py-spy on each server in the hour")
    parser.add_argument("--quick", action="store_true", help="a few rooms, for the suite")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.quick:
        args.rooms, args.span, args.speed, args.baseline = 40, 120.0, 10.0, 2.0
        args.workers = 4
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(_run(args, Path(tmp)))
    failures = []
    if figures["not_played"]:
        failures.append(f"{figures['not_played']} due turns were not played")
    if figures["early"]:
        failures.append(f"{figures['early']} turns were played before their deadline")
    if not figures["late_max_s"] <= args.max_late:
        failures.append(f"a turn was played {figures['late_max_s']} s late (> {args.max_late})")
    p99 = figures["click_ms_during"]["p99"]
    if not args.quick and not p99 <= args.max_click_p99_ms:
        failures.append(f"the live click's p99 was {p99} ms (> {args.max_click_p99_ms})")
    figures["failures"] = failures
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        for key, value in figures.items():
            print(f"{key:>18}: {value}")
    for failure in failures:
        print(f"MISS: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
