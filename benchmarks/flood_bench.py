"""Flood benchmark (issue 22 item 3): one client floods the costly reads while others play.

Starts the real server (``python -m yahtzee.server``, temporary SQLite database) and first,
with the rate limits off, gives one player, the **flooder**, what makes the costly reads
costly: ``--solo-games`` finished solo games (``/api/stats`` sums them all up),
``--vs-games`` finished vs 高手 games (each one's ``/review`` computes win probabilities)
and one vs 高手 game in progress, rolled once (``/meter`` enumerates the rest of the turn).
Then the server restarts on the same database with its **default** limits, as in
production, and for ``--rounds`` rounds:

* **quiet**: ``--paced`` players play whole games (solo and vs mixed, the load
  benchmark's players) pausing a random ``--think`` seconds (exponential, mean 0.1 s)
  before each action, for ``--seconds``: their latency alone;
* **flood**: the same, while the flooder, one cookie on ``--flood-connections``
  keep-alive connections from one address, sends ``GET …/meter``, ``GET …/review`` (its
  finished vs games in turn) and ``GET /api/stats`` in turn, each connection as fast as
  the server answers, never backing off (a 429 is just the next request). The flooder
  is a client process of its own, as an attacker's would be (before, it shared the
  players' client's event loop, so the answers to its connections delayed the players'
  answers in the client itself, and the figure measured the client as much as the
  server).

Prints each round and the medians over rounds: the paced players' p50/p99 in both phases
(target: flood p99 <= 50 ms), the flooder's requests a second by status, the server's CPU
and the peak RSS of the server and of its CPU worker process (target <= 300 MiB each).
Both clients share the machine's two cores with the server, as the load benchmark's does.

    .venv/bin/python benchmarks/flood_bench.py            # 3 rounds, about 2 minutes
    .venv/bin/python benchmarks/flood_bench.py --quick    # smoke test (run by the suite)

Exit status 1 when a paced player's request failed (or, with ``--check``, when a target
is missed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers
from load_bench import Identity, Session, Stats, _step
from server_process import NO_LIMIT_ARGS, RawClient, ServerProcess, child_pids

TARGET_P99_MS = 50.0
TARGET_RSS_MB = 300.0
FLOOD_ADDRESS = "127.0.6.1"


@dataclass
class Flooder:
    """The flooding client's cookie, its games, and what it got back."""

    cookie: str | None = None
    live_game: str = ""
    vs_games: list[str] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    requests: int = 0

    def paths(self) -> list[str]:
        """The costly reads, in the order each connection sends them."""
        out = []
        for game in self.vs_games:
            out += [f"/api/games/{self.live_game}/meter", f"/api/games/{game}/review"]
            out.append("/api/stats")
        return out


async def _finish(client: RawClient, mode: str, rng: random.Random) -> dict[str, Any]:
    """Play one whole game at machine speed (limits off): a roll and a box a turn."""
    game: dict[str, Any] = await client.request(
        "POST", "/api/games", {"mode": mode, "difficulty": "expert", "replace": True}
    )
    while game["status"] == "in_progress":
        game = await client.request(
            "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
        )
        allowed = [c for c, o in game["preview"].items() if o["allowed"]]
        body = {"version": game["version"], "category": rng.choice(allowed), "confirm_zero": True}
        game = await client.request("POST", f"/api/games/{game['id']}/score", body)
    return game


async def _prepare(port: int, solo_games: int, vs_games: int) -> Flooder:
    """The flooder's finished games and its game in progress (see the module docstring)."""
    rng = random.Random(7)
    client = RawClient("127.0.0.1", port, local_addr=FLOOD_ADDRESS)
    flooder = Flooder()
    try:
        for _ in range(solo_games):
            await _finish(client, "solo", rng)
        for _ in range(vs_games):
            flooder.vs_games.append((await _finish(client, "vs_computer", rng))["id"])
        live = await client.request(
            "POST", "/api/games", {"mode": "vs_computer", "difficulty": "expert", "replace": True}
        )
        await client.request("POST", f"/api/games/{live['id']}/roll", {"version": live["version"]})
        flooder.live_game = live["id"]
        flooder.cookie = client.cookie
    finally:
        await client.close()
    return flooder


async def _flood(flooder: Flooder, port: int, offset: int, stop_at: float) -> None:
    client = RawClient("127.0.0.1", port, local_addr=FLOOD_ADDRESS)
    client.cookie = flooder.cookie
    paths = flooder.paths()
    i = offset
    try:
        while time.monotonic() < stop_at:
            try:
                status, _ = await client.raw("GET", paths[i % len(paths)])
            except (OSError, asyncio.IncompleteReadError, ValueError):
                status = 0  # refused or cut: the attacker just tries again
            flooder.statuses[status] += 1
            flooder.requests += 1
            i += 1
    finally:
        await client.close()


def _flood_process(
    flooder: Flooder, port: int, connections: int, ready: Any, start: Any, out: Any
) -> None:
    """The flooder's client, in a process of its own (as an attacker's would be: on the
    players' client's event loop, its 16 connections' answers would delay the players'
    answers in the client itself). Floods from the ``stop_at`` it is sent until then and
    sends back what it got."""
    ready.set()
    stop_at = start.get()

    async def flood() -> None:
        tasks = [
            asyncio.create_task(_flood(flooder, port, 3 * i, stop_at)) for i in range(connections)
        ]
        # The phase ends at stop_at: requests still waiting for an answer (a cold review
        # queued behind the flooder's others can take seconds) are given up.
        await asyncio.wait(tasks, timeout=max(0.0, stop_at - time.monotonic()))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(flood())
    out.put((flooder.statuses, flooder.requests))


async def _paced_players(port: int, players: list[Identity], seconds: float, seed: int) -> Stats:
    """The load benchmark's paced players, one connection each, for ``seconds``."""
    stats = Stats()
    stop_at = time.monotonic() + seconds
    sessions = [
        Session(
            RawClient("127.0.0.1", port, local_addr=f"127.0.5.{1 + i}"),
            [me],
            random.Random(seed * 1000 + i),
            stats,
            0.1,
        )
        for i, me in enumerate(players)
    ]

    async def play(session: Session) -> None:
        me = session.identities[0]
        try:
            while time.monotonic() < stop_at:
                session.client.cookie = me.cookie
                try:
                    me.game = await _step(session, me.game, 0.5)
                finally:
                    me.cookie = session.client.cookie
        finally:
            await session.client.close()

    started = time.perf_counter()
    await asyncio.gather(*(play(s) for s in sessions))
    stats.elapsed = time.perf_counter() - started
    return stats


def _round(
    port: int,
    players: list[Identity],
    flooder: Flooder | None,
    seconds: float,
    connections: int,
    seed: int,
) -> Stats:
    """One phase: the paced players for ``seconds``, with the flooder's process flooding
    meanwhile unless ``flooder`` is ``None`` (its statuses and count added to it)."""
    if flooder is None:
        return asyncio.run(_paced_players(port, players, seconds, seed))
    spawn = multiprocessing.get_context("spawn")
    ready, start, out = spawn.Event(), spawn.Queue(), spawn.Queue()
    process = spawn.Process(
        target=_flood_process, args=(flooder, port, connections, ready, start, out)
    )
    process.start()
    try:
        ready.wait(60)
        start.put(time.monotonic() + seconds)  # (CLOCK_MONOTONIC: one clock for both)
        stats = asyncio.run(_paced_players(port, players, seconds, seed))
        statuses, requests = out.get(timeout=seconds + 60)
    finally:
        process.join(10)
    flooder.statuses.update(statuses)
    flooder.requests += requests
    return stats


def _peak_rss_mb(pid: int) -> float:
    """A process's peak resident set size (VmHWM), in MiB (0 when it is gone)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0
    for line in lines:
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paced", type=int, default=8, help="paced players")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--flood-connections", type=int, default=16)
    parser.add_argument("--solo-games", type=int, default=200, help="the flooder's, for stats")
    parser.add_argument("--vs-games", type=int, default=12, help="the flooder's, for reviews")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1 short round, for the test suite")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.seconds, args.solo_games, args.vs_games = 1, 2.0, 3, 2
        args.paced, args.flood_connections = 3, 4

    rows: list[dict[str, float]] = []
    players = [Identity() for _ in range(args.paced)]
    with tempfile.TemporaryDirectory(prefix="yahtzee-flood-") as tmp:
        db = Path(tmp) / "flood.db"
        setup = ServerProcess(db, args=NO_LIMIT_ARGS).start()
        try:
            started = time.perf_counter()
            flooder = asyncio.run(_prepare(setup.port, args.solo_games, args.vs_games))
            prepared = time.perf_counter() - started
        finally:
            setup.stop()
        print(
            f"flooder: {args.solo_games} solo + {args.vs_games} vs games finished, one in "
            f"progress ({prepared:.0f} s); server restarted with the default limits",
            flush=True,
        )
        server = ServerProcess(db).start()
        try:
            for r in range(args.rounds):
                quiet = _round(server.port, players, None, args.seconds, 0, seed=2 * r).summary()
                flooder.statuses.clear()
                flooder.requests = 0
                cpu = server.cpu_seconds()
                flood_stats = _round(
                    server.port, players, flooder, args.seconds, args.flood_connections, 2 * r + 1
                )
                flood_cpu = server.cpu_seconds() - cpu
                flood = flood_stats.summary()
                elapsed = flood_stats.elapsed
                row = {
                    "quiet_p50_ms": quiet["p50_ms"],
                    "quiet_p99_ms": quiet["p99_ms"],
                    "flood_p50_ms": flood["p50_ms"],
                    "flood_p99_ms": flood["p99_ms"],
                    "paced_rps": flood["rps"],
                    "flood_rps": flooder.requests / elapsed,
                    "flood_ok_rps": flooder.statuses[200] / elapsed,
                    "flood_429_rps": flooder.statuses[429] / elapsed,
                    "flood_other": float(
                        sum(n for s, n in flooder.statuses.items() if s not in (200, 429))
                    ),
                    "server_cpu_share": flood_cpu / elapsed,
                    "errors": quiet["errors"] + flood["errors"],
                }
                rows.append(row)
                print(
                    f"round {r + 1}: paced players quiet p50 {row['quiet_p50_ms']:.1f} "
                    f"p99 {row['quiet_p99_ms']:.1f} ms | flooded p50 {row['flood_p50_ms']:.1f} "
                    f"p99 {row['flood_p99_ms']:.1f} ms ({row['paced_rps']:.0f} actions/s) | "
                    f"flood {row['flood_rps']:.0f} req/s: {row['flood_ok_rps']:.0f} answered, "
                    f"{row['flood_429_rps']:.0f} 429, {row['flood_other']:.0f} other | "
                    f"server CPU {100 * row['server_cpu_share']:.0f} % of a core | "
                    f"errors {row['errors']:.0f}",
                    flush=True,
                )
                for sample in flood_stats.error_samples:
                    print("  error:", sample)
            rss = server.peak_rss_mb()
            worker_rss = max((_peak_rss_mb(pid) for pid in child_pids(server.pid)), default=0.0)
        finally:
            server.stop()

    med = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    med["errors"] = sum(row["errors"] for row in rows)
    med["peak_rss_mb"] = rss
    med["worker_peak_rss_mb"] = worker_rss
    print(
        f"\nmedian of {len(rows)} round(s), {args.paced} paced players (think 0.1 s), "
        f"flooder on {args.flood_connections} connections:\n"
        f"  paced players, quiet   : p50 {med['quiet_p50_ms']:.1f} ms, "
        f"p99 {med['quiet_p99_ms']:.1f} ms\n"
        f"  paced players, flooded : p50 {med['flood_p50_ms']:.1f} ms, "
        f"p99 {med['flood_p99_ms']:.1f} ms (target <= {TARGET_P99_MS:.0f})\n"
        f"  flood                  : {med['flood_rps']:.0f} req/s, "
        f"{med['flood_ok_rps']:.0f} answered 200, {med['flood_429_rps']:.0f} answered 429\n"
        f"  server CPU, flooded    : {100 * med['server_cpu_share']:.0f} % of a core\n"
        f"  errors (paced players) : {med['errors']:.0f} (must be 0)\n"
        f"  peak RSS               : {rss:.0f} MiB, its CPU worker process {worker_rss:.0f} "
        f"MiB (target <= {TARGET_RSS_MB:.0f} each)"
    )
    if args.json:
        print(json.dumps(med))
    failed = med["errors"] > 0
    if args.check:
        failed = failed or med["flood_p99_ms"] > TARGET_P99_MS
        failed = failed or max(rss, worker_rss) > TARGET_RSS_MB
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
