"""Slow half-sent requests (slowloris) against the bare server, and its health probe.

Issue 28 item 11: 1,050 connections that each send part of a request head and then a byte
now and then, against ``yahtzee serve`` alone (no nginx), made 7 of 12 health probes over
35 s answer 503: the connection cap (``--max-connections``, 1,000) was full of them.

Starts the real server (``python -m yahtzee.server``, a temporary SQLite database, its
default socket settings) and, for ``--seconds``:

* ``--connections`` attackers, each on a connection of its own from one loopback address
  (127.0.7.1): a request head sent in part (``POST /api/games HTTP/1.1`` and a few
  headers), then one more header line every ``--drip`` seconds, never the blank line that
  ends the head. When the server closes the connection (its request deadline, or a 503)
  the attacker connects again at once: the attack never lets up;
* a **probe** every ``seconds / probes`` seconds from another address (127.0.0.1), as a
  load balancer's or systemd's: a new connection, ``GET /api/health``, a 5 s timeout.

Prints the probes' statuses and latencies and how many connections the attackers made and
had refused (503) or cut. Target: every probe answers 200 within 1 s. Exit status 1 when a
probe fails (``--check``: or is slower than the target).

    .venv/bin/python benchmarks/slow_requests_bench.py            # 1,050 attackers, 35 s
    .venv/bin/python benchmarks/slow_requests_bench.py --quick    # 200 attackers, cap 150, 8 s
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers
from server_process import ServerProcess

ATTACK_ADDRESS = "127.0.7.1"
TARGET_PROBE_MS = 1000.0
PROBE_TIMEOUT = 5.0


async def _attacker(port: int, stop_at: float, drip: float, counts: Counter[str]) -> None:
    """One slow client: a request head that never ends, again as soon as it is closed."""
    while time.monotonic() < stop_at:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACK_ADDRESS, 0)), 5
            )
        except (OSError, TimeoutError):
            counts["connect_failed"] += 1
            await asyncio.sleep(0.05)
            continue
        counts["connections"] += 1
        try:
            writer.write(
                f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Content-Type: application/json\r\nContent-Length: 64\r\n".encode()
            )
            n = 0
            while time.monotonic() < stop_at:
                try:
                    first = await asyncio.wait_for(reader.read(64), drip)
                except TimeoutError:
                    writer.write(f"X-Slow-{n}: 1\r\n".encode())  # one more line, never the end
                    await writer.drain()
                    n += 1
                    continue
                counts["busy" if first.startswith(b"HTTP/1.1 503") else "closed"] += 1
                break
        except (OSError, ConnectionError):
            counts["closed"] += 1
        finally:
            writer.close()
            with contextlib.suppress(OSError, ConnectionError):
                await writer.wait_closed()


async def _probe(port: int) -> tuple[str, float]:
    """``GET /api/health`` on a new connection: its status (or what went wrong) and ms."""
    start = time.perf_counter()
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port), PROBE_TIMEOUT
        )
        writer.write(b"GET /api/health HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n")
        line = await asyncio.wait_for(reader.readline(), PROBE_TIMEOUT)
        writer.close()
        status = line.split()[1].decode() if line else "closed"
    except TimeoutError:
        status = "timeout"
    except (OSError, ConnectionError) as exc:
        status = type(exc).__name__
    return status, (time.perf_counter() - start) * 1000


async def _attack(port: int, connections: int, seconds: float, drip: float) -> Counter[str]:
    counts: Counter[str] = Counter()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(_attacker(port, stop_at, drip, counts) for _ in range(connections)))
    return counts


def _attack_process(port: int, connections: int, seconds: float, drip: float, out: Any) -> None:
    """The attackers, in a process of their own (as an attacker's would be): on the
    probe's event loop, their 1,050 sockets would delay the probe in the client itself."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    out.put(dict(asyncio.run(_attack(port, connections, seconds, drip))))


async def _run(port: int, args: argparse.Namespace) -> dict[str, object]:
    results: Any = multiprocessing.Queue()
    attack = multiprocessing.Process(
        target=_attack_process,
        args=(port, args.connections, args.seconds, args.drip, results),
        daemon=True,
    )
    attack.start()
    stop_at = time.monotonic() + args.seconds
    await asyncio.sleep(min(2.0, args.seconds / 4))  # the attack is up
    probes: list[tuple[str, float]] = []
    interval = (stop_at - time.monotonic()) / args.probes
    for _ in range(args.probes):
        started = time.monotonic()
        probes.append(await _probe(port))
        await asyncio.sleep(max(0.0, interval - (time.monotonic() - started)))
    counts = results.get(timeout=args.seconds + 60)
    attack.join(timeout=10)
    latencies = [ms for status, ms in probes if status == "200"]
    return {
        "connections": args.connections,
        "seconds": args.seconds,
        "probes": [status for status, _ in probes],
        "probes_ok": sum(1 for status, _ in probes if status == "200"),
        "probe_ms_median": round(statistics.median(latencies), 1) if latencies else None,
        "probe_ms_max": round(max(latencies), 1) if latencies else None,
        "attack": counts,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the exit status says whether every probe passed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1050, help="slow attackers")
    parser.add_argument("--seconds", type=float, default=35.0)
    parser.add_argument("--probes", type=int, default=12)
    parser.add_argument("--drip", type=float, default=1.0, help="seconds between header lines")
    parser.add_argument("--quick", action="store_true", help="200 attackers for 8 s (the suite)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when a probe is too slow")
    parser.add_argument("--server-arg", action="append", default=[], help="passed to serve")
    args = parser.parse_args(argv)
    if args.quick:  # (a smaller cap, so that 200 attackers fill it as 1,050 fill 1,000)
        args.connections, args.seconds, args.probes = 200, 8.0, 4
        args.server_arg = ["--max-connections", "150", *args.server_arg]
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerProcess(Path(tmp) / "slow.db", args=args.server_arg) as server,
    ):
        figures = asyncio.run(_run(server.port, args))
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{figures['connections']} slow attackers for {figures['seconds']:.0f} s: "
            f"probes {figures['probes_ok']}/{len(figures['probes'])} answered 200 "  # type: ignore[arg-type]
            f"(median {figures['probe_ms_median']} ms, max {figures['probe_ms_max']} ms)"
        )
        print(f"  probes: {' '.join(figures['probes'])}")  # type: ignore[arg-type]
        print(f"  attack: {figures['attack']}")
    failed = figures["probes_ok"] != len(figures["probes"])  # type: ignore[arg-type]
    slow = (figures["probe_ms_max"] or 0) > TARGET_PROBE_MS  # type: ignore[operator]
    return 1 if failed or (args.check and slow) else 0


if __name__ == "__main__":
    sys.exit(main())
