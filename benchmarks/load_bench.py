"""Load benchmark of the game server (issue 3).

Starts the real server (``python -m yahtzee.server`` on 127.0.0.1, temporary database),
then runs, for ``--rounds`` rounds, three phases with ``--players`` concurrent simulated
players (asyncio, one keep-alive connection and one cookie each):

* **game (saturation)**: every player plays whole games back to back without pausing:
  solo and vs_computer mixed (the computer's turn is played inside the score request),
  start, roll, reroll some dice, sometimes a hint, score (confirming zeros);
* **trivial (saturation)**: the same number of clients call ``GET /api/health`` without
  pausing. Same tool, same connections, same run: the ratio of the two throughputs says
  what a game action costs next to the cheapest request the stack can serve;
* **game (paced)**: the same players, pausing a random ``--think`` seconds (exponential,
  mean 0.1 s: a very fast clicker) before each action: the latency a player feels while
  the server is busy but not saturated.

Prints each round and the medians over rounds: actions/s, p50/p99 latency, errors (must
be 0), the throughput ratio, the server's CPU time per request, and its peak RSS.

The server runs with its default rate limits (F5): at most 20 actions a second per player,
30 new games a minute per player, 60 new player ids a minute per client address. A
saturating connection makes ~25-45 actions a second, more than any one person clicks, so
each connection plays as ``--ids`` players (default 4), a turn of each in turn, the way a
connection of a busy proxy would carry several players: each player then stays near 10
actions a second. Each connection has its own loopback address (127.0.1.x; all of
127.0.0.0/8 is the local machine on Linux), as distinct clients would, so the 200 players
are 4 new ids per address. The same players keep playing through all phases and rounds,
continuing their unfinished games (never abandoning one).

The client is ``RawClient`` (tests/server_process.py), a minimal HTTP/1.1 client:
httpx costs about 1 ms of CPU per request here, more than the server, so with it the
benchmark would mostly measure its own client (both share the machine's two cores).

    .venv/bin/python benchmarks/load_bench.py              # 3 rounds, about 45 s
    .venv/bin/python benchmarks/load_bench.py --quick      # smoke test (run by the suite)

Exit status 1 when any request failed (or, with ``--check``, when a target is missed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers
from server_process import HttpError, RawClient, ServerProcess

TARGET_RATIO = 0.40
TARGET_P99_MS = 50.0
TARGET_RSS_MB = 300.0


@dataclass
class Stats:
    """Latencies (seconds) and failures of one phase."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    games_finished: int = 0
    elapsed: float = 0.0

    def fail(self, what: str) -> None:
        """Count a failed request (and keep a few for the report)."""
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what)

    def summary(self) -> dict[str, float]:
        """Throughput and latency percentiles."""
        lat = sorted(self.latencies) or [0.0]
        return {
            "rps": len(self.latencies) / self.elapsed,
            "p50_ms": 1000 * lat[len(lat) // 2],
            "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
            "requests": float(len(self.latencies)),
            "errors": float(self.errors),
        }


@dataclass
class Identity:
    """One simulated player: its cookie and its unfinished game (kept across phases)."""

    cookie: str | None = None
    game: dict[str, Any] | None = None


@dataclass
class Session:
    """One connection: its players, a random source, a think time, the phase's stats."""

    client: RawClient
    identities: list[Identity]
    rng: random.Random
    stats: Stats = field(default_factory=Stats)
    think: float = 0.0

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        """One timed request; ``None`` (and an error counted) on failure."""
        if self.think:
            await asyncio.sleep(self.rng.expovariate(1 / self.think))
        start = time.perf_counter()
        try:
            result = await self.client.request(method, path, body)
        except (HttpError, OSError, ValueError) as exc:
            self.stats.fail(f"{method} {path}: {exc!r}")
            return None
        self.record(start, time.perf_counter() - start)
        return result

    def record(self, start: float, latency: float) -> None:  # noqa: ARG002 (for subclasses)
        """Keep one answered request's latency (subclasses keep its start too)."""
        self.stats.latencies.append(latency)


async def _player(session: Session, stop_at: float, vs_share: float) -> None:
    """Whole games, back to back, until ``stop_at``: one turn of each player in turn."""
    client = session.client
    try:
        while time.perf_counter() < stop_at:
            for me in session.identities:
                if time.perf_counter() >= stop_at:
                    return
                client.cookie = me.cookie
                try:
                    me.game = await _step(session, me.game, vs_share)
                finally:
                    me.cookie = client.cookie
    finally:
        await client.close()


async def _step(
    session: Session, game: dict[str, Any] | None, vs_share: float
) -> dict[str, Any] | None:
    """The next thing a player does: start a game when it has none, else play a turn."""
    rng = session.rng
    if game is None or game["status"] != "in_progress":
        if game is not None:
            session.stats.games_finished += 1
        mode = "vs_computer" if rng.random() < vs_share else "solo"
        body: dict[str, Any] = {
            "mode": mode,
            "difficulty": rng.choice(["novice", "intermediate", "expert"]),
        }
        body["replace"] = True  # (a failed request may have left the last game unfinished)
        started: dict[str, Any] | None = await session.call("POST", "/api/games", body)
        return started
    return await _turn(session, game)


async def _turn(session: Session, game: dict[str, Any]) -> dict[str, Any] | None:
    """One human turn: roll, maybe reroll up to twice, maybe a hint, score."""
    rng = session.rng
    url = f"/api/games/{game['id']}"
    game = await session.call(
        "POST", f"{url}/roll", {"version": game["version"], "hold": [False] * 5}
    )
    for _ in range(rng.choice((0, 1, 2, 2))):
        if game is None or game["rolls_left"] == 0:
            break
        hold = [rng.random() < 0.4 for _ in range(5)]
        if all(hold):
            hold[rng.randrange(5)] = False
        game = await session.call("POST", f"{url}/roll", {"version": game["version"], "hold": hold})
    if game is None:
        return None
    if game["hints_left"] and rng.random() < 0.1:
        hint = await session.call("POST", f"{url}/hint", {"version": game["version"]})
        if hint is None:
            return None
        game = hint["game"]
    allowed = [c for c, o in game["preview"].items() if o["allowed"]]
    body = {"version": game["version"], "category": rng.choice(allowed), "confirm_zero": True}
    result: dict[str, Any] | None = await session.call("POST", f"{url}/score", body)
    return result


async def _health_client(session: Session, stop_at: float) -> None:
    try:
        while time.perf_counter() < stop_at:
            await session.call("GET", "/api/health")
    finally:
        await session.client.close()


def _address(i: int) -> str:
    """The loopback address of connection ``i`` (127.0.1.1, 127.0.1.2, …)."""
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


async def _phase(
    port: int,
    players: list[list[Identity]],
    seconds: float,
    *,
    trivial: bool = False,
    seed: int = 0,
    vs_share: float = 0.5,
    think: float = 0.0,
    first_address: int = 0,
) -> Stats:
    """Run one phase with one connection per entry of ``players``; see the module
    docstring. Connection ``i`` comes from ``_address(first_address + i)``."""
    stats = Stats()
    stop_at = time.perf_counter() + seconds
    sessions = [
        Session(
            RawClient("127.0.0.1", port, local_addr=_address(first_address + i)),
            identities,
            random.Random(seed * 1000 + i),
            stats,
            think,
        )
        for i, identities in enumerate(players)
    ]
    if trivial:
        jobs = [_health_client(s, stop_at) for s in sessions]
    else:
        jobs = [_player(s, stop_at, vs_share) for s in sessions]
    started = time.perf_counter()
    await asyncio.gather(*jobs)
    stats.elapsed = time.perf_counter() - started
    return stats


def _measure(server: ServerProcess, **phase: Any) -> tuple[Stats, float]:
    """A phase and the server CPU seconds it used."""
    cpu = server.cpu_seconds()
    stats = asyncio.run(_phase(server.port, **phase))
    return stats, server.cpu_seconds() - cpu


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50, help="concurrent connections")
    parser.add_argument("--ids", type=int, default=4, help="players per connection")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game-seconds", type=float, default=6.0)
    parser.add_argument("--trivial-seconds", type=float, default=4.0)
    parser.add_argument("--paced-seconds", type=float, default=5.0)
    parser.add_argument("--think", type=float, default=0.1, help="mean pause (paced phase)")
    parser.add_argument("--vs-share", type=float, default=0.5, help="share of vs games")
    parser.add_argument("--quick", action="store_true", help="1 short round, for the test suite")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.game_seconds, args.trivial_seconds, args.paced_seconds = 1, 2, 1, 1

    rows: list[dict[str, float]] = []
    players = [[Identity() for _ in range(args.ids)] for _ in range(args.players)]
    with tempfile.TemporaryDirectory(prefix="yahtzee-bench-") as tmp:
        server = ServerProcess(Path(tmp) / "bench.db").start()
        try:
            for r in range(args.rounds):
                game, game_cpu = _measure(
                    server,
                    players=players,
                    seconds=args.game_seconds,
                    seed=r,
                    vs_share=args.vs_share,
                )
                trivial, trivial_cpu = _measure(
                    server, players=players, seconds=args.trivial_seconds, trivial=True
                )
                paced, _ = _measure(
                    server,
                    players=players,
                    seconds=args.paced_seconds,
                    seed=100 + r,
                    vs_share=args.vs_share,
                    think=args.think,
                )
                g, t, p = game.summary(), trivial.summary(), paced.summary()
                row = {
                    "game_rps": g["rps"],
                    "game_p50_ms": g["p50_ms"],
                    "game_p99_ms": g["p99_ms"],
                    "trivial_rps": t["rps"],
                    "trivial_p50_ms": t["p50_ms"],
                    "trivial_p99_ms": t["p99_ms"],
                    "ratio": g["rps"] / t["rps"],
                    "paced_rps": p["rps"],
                    "paced_p50_ms": p["p50_ms"],
                    "paced_p99_ms": p["p99_ms"],
                    "game_cpu_ms": 1000 * game_cpu / max(1.0, g["requests"]),
                    "trivial_cpu_ms": 1000 * trivial_cpu / max(1.0, t["requests"]),
                    "errors": g["errors"] + t["errors"] + p["errors"],
                }
                rows.append(row)
                print(
                    f"round {r + 1}: game {row['game_rps']:.0f}/s p50 {row['game_p50_ms']:.1f} "
                    f"p99 {row['game_p99_ms']:.1f} ms | health {row['trivial_rps']:.0f}/s "
                    f"p50 {row['trivial_p50_ms']:.1f} p99 {row['trivial_p99_ms']:.1f} ms | "
                    f"ratio {100 * row['ratio']:.0f} % | paced {row['paced_rps']:.0f}/s "
                    f"p50 {row['paced_p50_ms']:.1f} p99 {row['paced_p99_ms']:.1f} ms | "
                    f"server CPU {row['game_cpu_ms']:.2f} / {row['trivial_cpu_ms']:.2f} ms | "
                    f"errors {row['errors']:.0f}",
                    flush=True,
                )
                for sample in game.error_samples + trivial.error_samples + paced.error_samples:
                    print("  error:", sample)
            rss = server.peak_rss_mb()
        finally:
            server.stop()

    med = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    med["errors"] = sum(row["errors"] for row in rows)
    med["peak_rss_mb"] = rss
    med["players"] = args.players
    print(
        f"\nmedian of {len(rows)} round(s), {args.players} concurrent connections "
        f"({args.players * args.ids} players, default rate limits):\n"
        f"  game actions, saturated : {med['game_rps']:.0f} actions/s, "
        f"p50 {med['game_p50_ms']:.1f} ms, p99 {med['game_p99_ms']:.1f} ms\n"
        f"  /api/health, saturated  : {med['trivial_rps']:.0f} req/s, "
        f"p50 {med['trivial_p50_ms']:.1f} ms, p99 {med['trivial_p99_ms']:.1f} ms\n"
        f"  ratio                   : {100 * med['ratio']:.0f} % "
        f"(target >= {100 * TARGET_RATIO:.0f} %)\n"
        f"  server CPU per request  : game {med['game_cpu_ms']:.2f} ms, "
        f"health {med['trivial_cpu_ms']:.2f} ms "
        f"(CPU ratio {100 * med['trivial_cpu_ms'] / med['game_cpu_ms']:.0f} %)\n"
        f"  game actions, paced     : {med['paced_rps']:.0f} actions/s "
        f"(think {args.think} s), p50 {med['paced_p50_ms']:.1f} ms, "
        f"p99 {med['paced_p99_ms']:.1f} ms (target <= {TARGET_P99_MS:.0f})\n"
        f"  errors                  : {med['errors']:.0f} (must be 0)\n"
        f"  peak RSS                : {rss:.0f} MiB (target <= {TARGET_RSS_MB:.0f})"
    )
    if args.json:
        print(json.dumps(med))
    failed = med["errors"] > 0
    if args.check:
        failed = failed or med["ratio"] < TARGET_RATIO
        failed = failed or med["paced_p99_ms"] > TARGET_P99_MS or rss > TARGET_RSS_MB
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
