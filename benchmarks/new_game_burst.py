"""New-game burst benchmark: what a burst of ``POST /api/games`` does to the other players.

Starts the real server (SQLite, ``synchronous=FULL``, default rate limits) and lets
``--players`` paced connections play as in ``load_bench.py``'s paced phase (a very fast
clicker: mean pause ``--think`` s). Every ``--every`` seconds ``--burst`` new visitors
(each its own connection, client address and new player id) start a game at the same
instant. Prints, over ``--bursts`` bursts, the paced players' latency (p50/p99) for the
requests that overlapped a burst (from its first request to its last answer) and for the
others, and how long a burst took.

Before the new games rode in the group commit, each was a commit of its own on the event
loop (one fsync each, the whole loop waiting): the players' p99 during a burst shows it.

    .venv/bin/python benchmarks/new_game_burst.py            # 5 bursts of 200, about 20 s
    .venv/bin/python benchmarks/new_game_burst.py --quick    # smoke test (run by the suite)

Exit status 1 when a request failed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers
sys.path.insert(0, str(Path(__file__).resolve().parent))
import load_bench
from server_process import RawClient, ServerProcess


@dataclass
class Timed(load_bench.Session):
    """A paced session that remembers when each request started."""

    started: list[tuple[float, float]] = field(default_factory=list)  # (start, latency)

    def record(self, start: float, latency: float) -> None:
        """Keep when the request started, to tell the requests made during a burst from
        the others."""
        self.started.append((start, latency))


async def _burst(port: int, n: int, first: int) -> tuple[float, float, int]:
    """``n`` new visitors start a game at once; returns (start, end, failures)."""
    clients = [
        RawClient(
            "127.0.0.1", port, local_addr=f"127.0.{10 + (first + i) // 250}.{1 + (first + i) % 250}"
        )
        for i in range(n)
    ]
    # Connect first, so that the burst is the requests, not the TCP handshakes.
    await asyncio.gather(*(c.request("GET", "/api/health") for c in clients))
    start = time.perf_counter()
    results = await asyncio.gather(
        *(c.raw("POST", "/api/games", {"mode": "solo"}) for c in clients), return_exceptions=True
    )
    end = time.perf_counter()
    await asyncio.gather(*(c.close() for c in clients))
    failed = sum(1 for r in results if isinstance(r, BaseException) or r[0] != 201)
    return start, end, failed


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return 1000 * values[min(len(values) - 1, int(len(values) * q))]


async def _run(port: int, args: argparse.Namespace) -> int:
    stop_at = time.perf_counter() + args.every * (args.bursts + 1)
    stats = load_bench.Stats()
    sessions = [
        Timed(
            RawClient("127.0.0.1", port, local_addr=f"127.0.9.{1 + i}"),
            [load_bench.Identity() for _ in range(4)],
            random.Random(i),
            stats,
            args.think,
        )
        for i in range(args.players)
    ]
    players = [asyncio.create_task(load_bench._player(s, stop_at, 0.5)) for s in sessions]
    windows: list[tuple[float, float]] = []
    failures = 0
    for b in range(args.bursts):
        await asyncio.sleep(args.every)
        start, end, failed = await _burst(port, args.burst, b * args.burst)
        windows.append((start, end))
        failures += failed
    await asyncio.gather(*players)
    during: list[float] = []
    quiet: list[float] = []
    for session in sessions:
        for start, latency in session.started:
            hit = any(start <= b and start + latency >= a for a, b in windows)
            (during if hit else quiet).append(latency)
    took = [1000 * (b - a) for a, b in windows]
    print(
        f"{args.bursts} bursts of {args.burst} new games while {args.players} paced "
        f"connections play (think {args.think} s)"
    )
    print(f"  a burst took            : median {statistics.median(took):.0f} ms")
    print(
        f"  players during a burst  : {len(during)} requests, "
        f"p50 {_pct(during, 0.5):.1f} ms, p99 {_pct(during, 0.99):.1f} ms"
    )
    print(
        f"  players otherwise       : {len(quiet)} requests, "
        f"p50 {_pct(quiet, 0.5):.1f} ms, p99 {_pct(quiet, 0.99):.1f} ms"
    )
    print(f"  errors                  : {stats.errors + failures} (must be 0)")
    for sample in stats.error_samples:
        print("   ", sample)
    return stats.errors + failures


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50, help="paced connections (4 ids each)")
    parser.add_argument("--think", type=float, default=0.1, help="mean pause of the players")
    parser.add_argument("--burst", type=int, default=200, help="new games per burst")
    parser.add_argument("--bursts", type=int, default=5)
    parser.add_argument("--every", type=float, default=3.0, help="seconds between bursts")
    parser.add_argument("--quick", action="store_true", help="2 bursts of 50, for the suite")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.burst, args.bursts, args.every = 10, 50, 2, 1.0
    with (
        tempfile.TemporaryDirectory(prefix="yahtzee-burst-") as tmp,
        ServerProcess(Path(tmp) / "burst.db") as server,
    ):
        errors = asyncio.run(_run(server.port, args))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
