"""Scale-out benchmark (issue 10, S1/S2): one process on SQLite against the full stack.

In one run, side by side:

* **(a)** one ``python -m yahtzee.server`` on SQLite, players connecting to it directly;
* **(b)** ``scripts/stack.sh``: PostgreSQL, two app processes, nginx in front (players
  connect to nginx);

each at ``--players`` 50 and 200 concurrent players playing whole games without pausing
(the load benchmark's players: one connection each, from its own loopback address, playing
as 4 player ids in turn so that each id stays under the 20 actions a second of F5; solo
and vs mixed, rolls, rerolls, hints, scores); then
**slowloris** against (b): ``--slow`` sockets (10,000) that send a request head a byte at
a time and never finish it, reopened as nginx closes them, while 50 players play (pausing
a mean 0.1 s before each action, as the load benchmark's paced phase). The
players' p99 must stay under 100 ms and none of their requests may fail. Last, the memory
of every process: peak RSS of the app processes, PSS (shared pages split between their
users) of nginx's and PostgreSQL's.

    .venv/bin/python benchmarks/scale_bench.py             # about 2 minutes
    .venv/bin/python benchmarks/scale_bench.py --quick     # smoke test (run by the suite)

Exit status 1 when a player's request failed or the slowloris p99 target is missed (the
latter not in ``--quick`` mode, a smoke test on a shared machine).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from load_bench import Identity, Stats, _phase  # the load benchmark's players (same dir)
from server_process import (  # (load_bench put tests/ on the path)
    NO_LIMIT_ARGS,
    ServerProcess,
    Stack,
    child_pids,
)

ROOT = Path(__file__).resolve().parents[1]
SLOWLORIS_P99_MS = 100.0
IDS_PER_CONNECTION = 4
# The benchmark's players act at machine speed, faster than the per-player limits of F5
# allow a person: both setups run with the limits off (the same for both).


# -- processes and their memory ---------------------------------------------------------------


def _status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _start_stack(base: Path) -> Stack:
    """Start PostgreSQL, the app processes and nginx, without rate limits (raises if any fails)."""
    stack = Stack(base, NO_LIMIT_ARGS)
    started = stack.run("start")
    if started.returncode != 0:
        raise RuntimeError(f"scripts/stack.sh start failed:\n{started.stdout}{started.stderr}")
    return stack


def _app_pids(stack: Stack) -> list[int]:
    """The app processes."""
    return [int((stack.dir / f"app-{p}.pid").read_text()) for p in stack.app_ports]


def _nginx_pids(stack: Stack) -> list[int]:
    """nginx's master and workers."""
    master = int((stack.dir / "nginx.pid").read_text())
    return [master, *child_pids(master)]


def _postgres_pids(stack: Stack) -> list[int]:
    """The postmaster and its backends."""
    master = int((stack.dir / "pg" / "data" / "postmaster.pid").read_text().split()[0])
    return [master, *child_pids(master)]


# -- slowloris --------------------------------------------------------------------------------


def _slowloris(port: int, sockets: int, seconds: float, report: Any) -> None:
    """In its own process: keep ``sockets`` connections sending an endless request head."""

    async def one(i: int, stop_at: float, counters: dict[str, int]) -> None:
        await asyncio.sleep((i % 1000) / 1000 * 2)  # ramp up over two seconds
        while time.monotonic() < stop_at:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                counters["refused"] += 1
                await asyncio.sleep(0.5)
                continue
            counters["opened"] += 1
            counters["open"] += 1
            counters["peak"] = max(counters["peak"], counters["open"])
            try:
                writer.write(b"GET / HTTP/1.1\r\nHost: slow\r\n")
                while time.monotonic() < stop_at:
                    await asyncio.sleep(1.0)
                    writer.write(b"X")  # one byte of a header that never ends
                    await writer.drain()
            except OSError:
                counters["closed_by_server"] += 1
            finally:
                counters["open"] -= 1
                writer.close()

    async def main() -> None:
        counters = {"opened": 0, "open": 0, "peak": 0, "refused": 0, "closed_by_server": 0}
        stop_at = time.monotonic() + seconds
        await asyncio.gather(*(one(i, stop_at, counters) for i in range(sockets)))
        report.put(counters)

    asyncio.run(main())


# -- runs -------------------------------------------------------------------------------------


def _players(connections: int) -> list[list[Identity]]:
    """``connections`` players' connections, each from its own loopback address and
    playing as 4 player ids in turn, as in the load benchmark (so that every player id
    stays under the server's 20 actions a second, F5)."""
    return [[Identity() for _ in range(IDS_PER_CONNECTION)] for _ in range(connections)]


def _row(label: str, players: int, stats: Stats) -> dict[str, Any]:
    s = stats.summary()
    row = {"setup": label, "players": players, **s}
    print(
        f"{label:34} {players:4} connections: {s['rps']:6.0f} actions/s  "
        f"p50 {s['p50_ms']:6.1f} ms  "
        f"p99 {s['p99_ms']:6.1f} ms  errors {s['errors']:.0f}",
        flush=True,
    )
    for sample in stats.error_samples:
        print("  error:", sample)
    return row


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per measurement")
    parser.add_argument("--players", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--slow", type=int, default=10_000, help="slowloris sockets")
    parser.add_argument("--slow-players", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="short, small: the test suite's")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.players, args.slow, args.slow_players = 1.0, [10], 200, 10

    failed = False
    rss: list[str] = []
    with tempfile.TemporaryDirectory(prefix="yahtzee-scale-") as tmp:
        base = Path(tmp)
        base.chmod(0o755)  # PostgreSQL runs as its own user when we are root
        server = ServerProcess(base / "a.db", args=NO_LIMIT_ARGS).start()
        try:
            for n in args.players:
                stats = asyncio.run(_phase(server.port, _players(n), args.seconds, seed=n))
                failed |= _row("(a) 1 process, SQLite", n, stats).get("errors", 0) > 0
            rss.append(f"(a) app process (SQLite): peak RSS {server.peak_rss_mb():.0f} MiB")
        finally:
            server.stop()

        stack = _start_stack(base)
        try:
            for n in args.players:
                stats = asyncio.run(_phase(stack.port, _players(n), args.seconds, seed=n))
                failed |= _row("(b) nginx + 2 processes, PostgreSQL", n, stats)["errors"] > 0

            report: multiprocessing.Queue[dict[str, int]] = multiprocessing.Queue()
            slow = multiprocessing.Process(
                target=_slowloris, args=(stack.port, args.slow, args.seconds + 4, report)
            )
            slow.start()
            time.sleep(3)  # every slow socket open before the players start
            players = _players(args.slow_players)
            # Players as people play: a pause before each action (exponential, mean 0.1 s,
            # a very fast clicker; the load benchmark's paced phase).
            stats = asyncio.run(_phase(stack.port, players, args.seconds, seed=7, think=0.1))
            nginx_during = sum(_pss_kb(p) for p in _nginx_pids(stack))
            counters = report.get(timeout=args.seconds + 60)
            slow.join()
            row = _row(f"(b) + {args.slow} slowloris sockets", args.slow_players, stats)
            print(
                f"  slow sockets: peak {counters['peak']} open at once, {counters['opened']} "
                f"opened, {counters['closed_by_server']} closed by nginx (timeout), "
                f"{counters['refused']} refused"
            )
            if row["errors"] > 0 or counters["refused"] > 0:
                print("  FAIL: a player's request or a slow socket was refused")
                failed = True
            if row["p99_ms"] > SLOWLORIS_P99_MS and not args.quick:  # quick: a smoke test
                print(f"  FAIL: players' p99 must be <= {SLOWLORIS_P99_MS:.0f} ms")
                failed = True
            for port, pid in zip(stack.app_ports, _app_pids(stack), strict=True):
                rss.append(
                    f"(b) app process :{port} (PostgreSQL): peak RSS "
                    f"{_status_kb(pid, 'VmHWM') / 1024:.0f} MiB"
                )
            nginx = _nginx_pids(stack)
            rss.append(
                f"(b) nginx, {len(nginx)} processes: PSS {nginx_during / 1024:.1f} MiB in all "
                f"during slowloris, {sum(_pss_kb(p) for p in nginx) / 1024:.1f} MiB after"
            )
            pg = _postgres_pids(stack)
            rss.append(
                f"(b) PostgreSQL, {len(pg)} processes: PSS "
                f"{sum(_pss_kb(p) for p in pg) / 1024:.0f} MiB in all"
            )
        finally:
            stack.run("stop")
    print("memory:")
    for line in rss:
        print("  " + line)
    print("scale benchmark:", "FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
