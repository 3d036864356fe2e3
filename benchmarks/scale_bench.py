"""Scale-out benchmark (issue 10, S1/S2): one process on SQLite against the full stack.

In one run, side by side:

* **(a)** one ``python -m yahtzee.server`` on SQLite, players connecting to it directly;
* **(b)** ``scripts/stack.sh``: PostgreSQL, two app processes, nginx in front (players
  connect to nginx);

each at ``--players`` 50 and 200 concurrent players playing whole games without pausing
(the load benchmark's players: one connection each, from its own loopback address, playing
as 4 player ids in turn so that each id stays under the 20 actions a second of F5; solo
and vs mixed, rolls, rerolls, hints, scores; they play faster than a person, so the app's
limits are off and nginx exempts their addresses, 127.0.1.x and 127.0.2.x); then
**slowloris** against (b) while 50 players play (pausing a mean 0.1 s before each action,
as the load benchmark's paced phase, from addresses nginx's per-address limits count:
127.0.3.x). The players' p99 must stay under 100 ms and none of their requests may fail.
Last, the memory of every process: peak RSS of the app processes, PSS (shared pages split
between their users) of nginx's and PostgreSQL's.

What the attack models, exactly: ``--slow`` sockets (10,000), held open at once, each
sending a request line and a header, then one more byte of a header that never ends every
second; nginx cuts each after ``client_header_timeout`` (5 s) and it reconnects at once,
so about 2,000 new slow connections a second. A real attack of that size comes from many
machines, so:

* the sockets come from 1,000 addresses (127.1.x.y, 10 sockets each): nginx sees many
  clients, not one (a slow head is never counted by ``limit_conn`` anyway: nginx counts a
  request once its head is complete);
* each socket starts at a random moment of the first ``--ramp`` seconds (6, longer than
  the header timeout), so that the sockets do not all expire and reconnect in the same
  millisecond as they would if one program opened them all at once;
* the attacking process runs at ``--attacker-nice`` 19: on a real deployment it does not
  run on our CPUs, here it shares the two cores with nginx, the app processes, PostgreSQL
  and the players' client, and takes only what they leave. Its own CPU is printed.

``--ramp 2 --attacker-nice 0`` is the harsher, less realistic setting (one program opening
every socket within 2 s and competing with the server for the CPU).

While the players play, the benchmark samples /proc and nginx's ``stub_status`` every
half second and prints how many slow sockets nginx was holding (``Reading``) and the CPU
of each group of processes (nginx workers, app processes, PostgreSQL, the players'
client, the attacker) and of the whole machine (other users included): where the time
goes.

    .venv/bin/python benchmarks/scale_bench.py             # about 2 minutes
    .venv/bin/python benchmarks/scale_bench.py --quick     # smoke test (run by the suite)

Exit status 1 when a player's request failed or the slowloris p99 target is missed (the
latter not in ``--quick`` mode, a smoke test on a shared machine).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Coroutine
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
SLOW_SOCKETS_PER_ADDRESS = 10
# The saturating players' connections come from 127.0.1.1-127.0.2.250 (load_bench._address
# 0-499): they play faster than a person, so nginx exempts them, as the app's limits are
# off for them (NO_LIMIT_ARGS). The players of the slowloris phase, who pause like people,
# come from 127.0.3.1 on, which nginx limits like any client.
SATURATING_PLAYERS_EXEMPT = ("127.0.1.0/24", "127.0.2.0/24")
LIMITED_PLAYERS_FROM = 500
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
    """Start PostgreSQL, the app processes and nginx, the app's per-player limits off and
    the saturating players' addresses exempt from nginx's per-address limits (raises if any
    fails)."""
    stack = Stack(base, NO_LIMIT_ARGS, limit_exempt=SATURATING_PLAYERS_EXEMPT)
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


# -- where the time goes during the attack ---------------------------------------------------


def _cpu_ticks(pid: int) -> int:
    """User + system CPU ticks of ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _machine_ticks() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine so far, every core and process."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return sum(values) - idle, sum(values)


def _nginx_reading(port: int) -> int:
    """Connections nginx is reading a request head from (stub_status ``Reading``)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/nginx-status", timeout=5) as r:
        text: str = r.read().decode()
    return int(text.split("Reading:")[1].split()[0])


class Sampler(threading.Thread):
    """Every half second, during a phase: the CPU used by each group of processes and by
    the whole machine, and how many slow sockets nginx is holding (stub_status).

    ``groups`` maps a name to a function returning its pids now (PostgreSQL starts a
    backend per connection, so the lists are re-read at every sample)."""

    def __init__(self, port: int, groups: dict[str, Callable[[], list[int]]]) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.groups = groups
        self.reading: list[int] = []
        self._halt = threading.Event()
        self._first: tuple[float, dict[str, int], tuple[int, int]] | None = None
        self._last: tuple[float, dict[str, int], tuple[int, int]] | None = None
        self._ticks: dict[str, dict[int, int]] = {name: {} for name in groups}

    def _sample(self) -> tuple[float, dict[str, int], tuple[int, int]]:
        for name, pids in self.groups.items():
            for pid in pids():  # the last count seen of every pid, even of one now gone
                self._ticks[name][pid] = _cpu_ticks(pid) or self._ticks[name].get(pid, 0)
        per_group = {name: sum(t.values()) for name, t in self._ticks.items()}
        return time.monotonic(), per_group, _machine_ticks()

    def run(self) -> None:
        """Sample until :meth:`stop`."""
        self._first = self._sample()
        while not self._halt.wait(0.5):
            self._last = self._sample()
            with contextlib.suppress(OSError, ValueError, IndexError):
                self.reading.append(_nginx_reading(self.port))

    def stop(self) -> None:
        """Stop sampling (and wait for the thread)."""
        self._halt.set()
        self.join()

    def cpu_percent(self) -> dict[str, float]:
        """Each group's CPU over the phase, in % of one core, and the machine's (all its
        processes, ours and the others'; 200 % = both cores busy)."""
        assert self._first is not None
        assert self._last is not None
        (t0, g0, m0), (t1, g1, m1) = self._first, self._last
        tick = os.sysconf("SC_CLK_TCK")
        cores = os.cpu_count() or 1
        result = {name: 100 * (g1[name] - g0.get(name, 0)) / tick / (t1 - t0) for name in g1}
        result["machine"] = 100 * cores * (m1[0] - m0[0]) / max(1, m1[1] - m0[1])
        return result


# -- slowloris --------------------------------------------------------------------------------


def _slow_address(i: int) -> str:
    """The source address of slow socket ``i``: ``SLOW_SOCKETS_PER_ADDRESS`` sockets per
    address, from 127.1.0.1 on (the players use 127.0.x.y)."""
    n = i // SLOW_SOCKETS_PER_ADDRESS
    return f"127.1.{n // 250}.{1 + n % 250}"


def _slowloris(
    port: int, sockets: int, seconds: float, report: Any, *, ramp: float, niceness: int
) -> None:
    """In its own process: keep ``sockets`` connections sending an endless request head.

    Each socket starts at a random moment of the first ``ramp`` seconds, sends a request
    line and a header, then one byte of a header that never ends every second; when nginx
    cuts it, it reconnects at once (so the starts stay spread as they would be over many
    attacking machines, instead of all expiring in the same millisecond)."""
    os.nice(niceness)

    async def one(i: int, stop_at: float, counters: dict[str, int]) -> None:
        rng = random.Random(i)
        await asyncio.sleep(rng.uniform(0, ramp))
        local = (_slow_address(i), 0)
        while time.monotonic() < stop_at:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=local)
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


def _paced_phase(port: int, players: int, seconds: float) -> Coroutine[Any, Any, Stats]:
    """New players playing as people play: a pause before each action (exponential, mean
    0.1 s, a very fast clicker; the load benchmark's paced phase), from addresses that
    nginx's per-address limits count (127.0.3.x: not in STACK_LIMIT_EXEMPT)."""
    return _phase(
        port, _players(players), seconds, seed=7, think=0.1, first_address=LIMITED_PLAYERS_FROM
    )


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
    parser.add_argument(
        "--ramp", type=float, default=6.0, help="slow sockets start over this many seconds"
    )
    parser.add_argument(
        "--attacker-nice", type=int, default=19, help="the slowloris process's niceness"
    )
    parser.add_argument("--quick", action="store_true", help="short, small: the test suite's")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.players, args.slow, args.slow_players = 1.0, [10], 200, 10
        args.ramp = 1.0
    if max(args.players) > LIMITED_PLAYERS_FROM:
        parser.error(f"at most {LIMITED_PLAYERS_FROM} players (their addresses are exempt)")
    one, five, fifteen = os.getloadavg()
    print(f"load average before the run: {one:.2f} {five:.2f} {fifteen:.2f}", flush=True)

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

            # The slowloris phase's players first without the attack: what it adds.
            stats = asyncio.run(_paced_phase(stack.port, args.slow_players, args.seconds))
            failed |= _row("(b) players pausing ~0.1 s", args.slow_players, stats)["errors"] > 0

            report: multiprocessing.Queue[dict[str, int]] = multiprocessing.Queue()
            slow = multiprocessing.Process(
                target=_slowloris,
                args=(stack.port, args.slow, args.ramp + args.seconds + 2, report),
                kwargs={"ramp": args.ramp, "niceness": args.attacker_nice},
            )
            slow.start()
            time.sleep(args.ramp + 0.5)  # every slow socket open before the players start
            assert slow.pid is not None
            sampler = Sampler(
                stack.port,
                {
                    "nginx workers": lambda: _nginx_pids(stack)[1:],
                    "app processes": lambda: _app_pids(stack),
                    "PostgreSQL": lambda: _postgres_pids(stack),
                    "players' client (this process)": lambda: [os.getpid()],
                    f"attacker (nice {args.attacker_nice})": lambda: [slow.pid or 0],
                },
            )
            sampler.start()
            stats = asyncio.run(_paced_phase(stack.port, args.slow_players, args.seconds))
            sampler.stop()
            nginx_during = sum(_pss_kb(p) for p in _nginx_pids(stack))
            counters = report.get(timeout=args.seconds + 60)
            slow.join()
            row = _row(f"(b) same + {args.slow} slowloris sockets", args.slow_players, stats)
            held = sorted(sampler.reading) or [0]
            print(
                f"  slow sockets: {counters['peak']} open at once at the peak, nginx reading "
                f"a request head from {held[0]} to {held[-1]} sockets (median "
                f"{held[len(held) // 2]}) while the players played; {counters['opened']} "
                f"opened, {counters['closed_by_server']} cut by nginx (timeout), "
                f"{counters['refused']} refused"
            )
            cpu = sampler.cpu_percent()
            print(
                "  CPU while the players played (% of one core): "
                + ", ".join(f"{name} {value:.0f} %" for name, value in cpu.items())
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
