"""Load benchmark of the game server (issue 3).

Starts the real server (``python -m yahtzee.server`` on 127.0.0.1, temporary database),
then alternates, for ``--rounds`` rounds:

* a **game phase**: ``--players`` simulated players (asyncio + httpx, one client and one
  cookie each) play whole games back to back, solo and vs_computer mixed: start, roll,
  reroll some dice, sometimes ask a hint, score (confirming zeros) until the game ends;
* a **trivial phase**: the same number of concurrent clients call ``GET /api/health``.

Both phases are closed loops without think time, measured with the same tool, so the
ratio of their throughputs says what a game action costs relative to the cheapest request
the same stack can serve. Prints, per round and as medians over rounds: actions/s,
p50/p99 latency, errors (must be 0), the ratio, and the server's peak RSS.

    .venv/bin/python benchmarks/load_bench.py              # 3 rounds x (8 s + 4 s)
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

from yahtzee.server.testing import HttpError, RawClient, ServerProcess

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

    def fail(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what)


async def _call(client: RawClient, stats: Stats, method: str, path: str, body: Any = None) -> Any:
    start = time.perf_counter()
    try:
        result = await client.request(method, path, body)
    except (HttpError, OSError, ValueError) as exc:
        stats.fail(f"{method} {path}: {exc!r}")
        return None
    stats.latencies.append(time.perf_counter() - start)
    return result


async def _player(port: int, seed: int, stop_at: float, stats: Stats, vs_share: float) -> None:
    """One simulated player (its own connection and cookie): whole games, back to back."""
    rng = random.Random(seed)
    client = RawClient("127.0.0.1", port)
    try:
        while time.perf_counter() < stop_at:
            mode = "vs_computer" if rng.random() < vs_share else "solo"
            body = {"mode": mode, "difficulty": rng.choice(["novice", "intermediate", "expert"])}
            game = await _call(client, stats, "POST", "/api/games", body)
            while game is not None and game["status"] == "in_progress":
                if time.perf_counter() >= stop_at:
                    return
                game = await _turn(client, stats, rng, game)
            if game is not None:
                stats.games_finished += 1
    finally:
        await client.close()


async def _turn(
    client: RawClient, stats: Stats, rng: random.Random, game: dict[str, Any]
) -> dict[str, Any] | None:
    gid = game["id"]
    game = await _call(
        client,
        stats,
        "POST",
        f"/api/games/{gid}/roll",
        {"version": game["version"], "hold": [False] * 5},
    )
    for _ in range(rng.choice((0, 1, 2, 2))):
        if game is None or game["rolls_left"] == 0:
            break
        hold = [rng.random() < 0.4 for _ in range(5)]
        if all(hold):
            hold[rng.randrange(5)] = False
        game = await _call(
            client,
            stats,
            "POST",
            f"/api/games/{gid}/roll",
            {"version": game["version"], "hold": hold},
        )
    if game is None:
        return None
    if game["hints_left"] and rng.random() < 0.1:
        hint = await _call(
            client, stats, "POST", f"/api/games/{gid}/hint", {"version": game["version"]}
        )
        if hint is None:
            return None
        game = hint["game"]
    allowed = [c for c, o in game["preview"].items() if o["allowed"]]
    body = {"version": game["version"], "category": rng.choice(allowed), "confirm_zero": True}
    result: dict[str, Any] | None = await _call(
        client, stats, "POST", f"/api/games/{gid}/score", body
    )
    return result


async def _health_client(port: int, stop_at: float, stats: Stats) -> None:
    client = RawClient("127.0.0.1", port)
    try:
        while time.perf_counter() < stop_at:
            await _call(client, stats, "GET", "/api/health")
    finally:
        await client.close()


async def _phase(
    port: int, players: int, seconds: float, trivial: bool, seed: int, vs_share: float = 0.5
) -> Stats:
    stats = Stats()
    stop_at = time.perf_counter() + seconds
    if trivial:
        jobs = [_health_client(port, stop_at, stats) for _ in range(players)]
    else:
        jobs = [_player(port, seed * 1000 + i, stop_at, stats, vs_share) for i in range(players)]
    started = time.perf_counter()
    await asyncio.gather(*jobs)
    stats.latencies.append(0.0) if not stats.latencies else None
    stats_elapsed = time.perf_counter() - started
    stats.__dict__["elapsed"] = stats_elapsed
    return stats


def _summary(stats: Stats) -> dict[str, float]:
    lat = sorted(stats.latencies)
    elapsed: float = stats.__dict__["elapsed"]
    return {
        "rps": len(lat) / elapsed,
        "p50_ms": 1000 * lat[len(lat) // 2],
        "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
        "requests": float(len(lat)),
        "errors": float(stats.errors),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game-seconds", type=float, default=8.0)
    parser.add_argument("--trivial-seconds", type=float, default=4.0)
    parser.add_argument("--vs-share", type=float, default=0.5, help="share of vs games")
    parser.add_argument("--quick", action="store_true", help="1 short round, for the test suite")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.game_seconds, args.trivial_seconds = 1, 2.0, 1.0

    with tempfile.TemporaryDirectory(prefix="yahtzee-bench-") as tmp:
        server = ServerProcess(Path(tmp) / "bench.db").start()
        try:
            rows = []
            for r in range(args.rounds):
                cpu0 = server.cpu_seconds()
                game_stats = asyncio.run(
                    _phase(server.port, args.players, args.game_seconds, False, r, args.vs_share)
                )
                game = _summary(game_stats)
                cpu_game = server.cpu_seconds() - cpu0
                trivial_stats = asyncio.run(
                    _phase(server.port, args.players, args.trivial_seconds, True, r)
                )
                trivial = _summary(trivial_stats)
                row = {
                    "game_rps": game["rps"],
                    "game_p50_ms": game["p50_ms"],
                    "game_p99_ms": game["p99_ms"],
                    "trivial_rps": trivial["rps"],
                    "trivial_p50_ms": trivial["p50_ms"],
                    "trivial_p99_ms": trivial["p99_ms"],
                    "ratio": game["rps"] / trivial["rps"],
                    "server_cpu_per_action_ms": 1000 * cpu_game / max(1.0, game["requests"]),
                    "errors": game["errors"] + trivial["errors"],
                }
                rows.append(row)
                for sample in game_stats.error_samples + trivial_stats.error_samples:
                    print("  error:", sample)
                print(
                    f"round {r + 1}: game {row['game_rps']:.0f} actions/s "
                    f"p50 {row['game_p50_ms']:.1f} ms p99 {row['game_p99_ms']:.1f} ms | "
                    f"health {row['trivial_rps']:.0f} req/s p50 {row['trivial_p50_ms']:.1f} ms "
                    f"p99 {row['trivial_p99_ms']:.1f} ms | ratio {100 * row['ratio']:.0f} % | "
                    f"server CPU {row['server_cpu_per_action_ms']:.2f} ms/action | "
                    f"errors {row['errors']:.0f}",
                    flush=True,
                )
            rss = server.peak_rss_mb()
        finally:
            server.stop()

    medians = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    medians["errors"] = sum(row["errors"] for row in rows)
    medians["peak_rss_mb"] = rss
    medians["players"] = args.players
    print(
        f"\nmedian of {len(rows)} round(s), {args.players} concurrent players:\n"
        f"  game actions : {medians['game_rps']:.0f} actions/s, p50 "
        f"{medians['game_p50_ms']:.1f} ms, p99 {medians['game_p99_ms']:.1f} ms\n"
        f"  /api/health  : {medians['trivial_rps']:.0f} req/s, p50 "
        f"{medians['trivial_p50_ms']:.1f} ms, p99 {medians['trivial_p99_ms']:.1f} ms\n"
        f"  ratio        : {100 * medians['ratio']:.0f} % (target >= {100 * TARGET_RATIO:.0f} %)\n"
        f"  errors       : {medians['errors']:.0f} (must be 0)\n"
        f"  peak RSS     : {rss:.0f} MiB (target <= {TARGET_RSS_MB:.0f})"
    )
    if args.json:
        print(json.dumps(medians))
    failed = medians["errors"] > 0
    if args.check:
        failed = failed or medians["ratio"] < TARGET_RATIO
        failed = failed or medians["game_p99_ms"] > TARGET_P99_MS or rss > TARGET_RSS_MB
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
