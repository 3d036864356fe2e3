"""Solver benchmark (issue 2 §2): prints the figures the README quotes.

* full solve, process start to table saved: ``python -m yahtzee solve --force`` run as a
  subprocess into a temporary cache directory, several runs, median and min, with the
  child's peak RSS;
* table size on disk and in memory;
* decision latency: ``advise`` (every option ranked) on random positions, p50/p99, and
  the expert player's ``decide`` on the same positions;
* expert simulation speed (games/s, median of runs).

``--quick`` runs each part once on a small scale (the test suite's smoke run);
``--json`` prints one JSON object instead of text.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from yahtzee.players.expert import ExpertPlayer
from yahtzee.rules import CATEGORIES, Dice, Scorecard, possible_points
from yahtzee.simulation import simulate_expert
from yahtzee.solver import ValueTable, advise, load_table
from yahtzee.turn import Position


def bench_solve(runs: int) -> dict[str, Any]:
    """Time ``yahtzee solve --force`` in fresh processes; peak RSS from wait4."""
    times: list[float] = []
    rss: list[float] = []
    size = 0
    with tempfile.TemporaryDirectory(prefix="yahtzee-bench-") as tmp:
        env = {**os.environ, "YAHTZEE_CACHE_DIR": tmp}
        for _ in range(runs):
            start = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, "-m", "yahtzee", "solve", "--force"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            _, status, usage = os.wait4(proc.pid, 0)
            elapsed = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode != 0:
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise RuntimeError(f"solve failed ({proc.returncode}): {err}")
            if proc.stderr:
                proc.stderr.close()
            times.append(elapsed)
            rss.append(usage.ru_maxrss / 1024)  # KiB -> MiB on Linux
        size = sum(p.stat().st_size for p in Path(tmp).glob("*.npy"))
    return {
        "runs": runs,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "peak_rss_mb": max(rss),
        "table_file_mb": size / 2**20,
    }


def _random_position(rng: random.Random) -> tuple[Scorecard, Dice, int]:
    while True:
        boxes: list[int | None] = [None] * 13
        for category in CATEGORIES:
            if rng.random() < rng.random():
                boxes[category.index] = rng.choice(sorted(possible_points(category)))
        if any(b is None for b in boxes):
            break
    dice = Dice.of(rng.randint(1, 6) for _ in range(5))
    return Scorecard(tuple(boxes)), dice, rng.randint(0, 2)


def _percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def bench_decisions(table: ValueTable, n: int, seed: int = 7) -> dict[str, Any]:
    """Latency of one decision on random positions (mostly cold per-state caches)."""
    rng = random.Random(seed)
    positions = [_random_position(rng) for _ in range(n)]
    expert = ExpertPlayer(table)
    advise_t: list[float] = []
    decide_t: list[float] = []
    clock = time.perf_counter
    for card, dice, rolls_left in positions:
        start = clock()
        advise(card, dice, rolls_left, table)
        advise_t.append(clock() - start)
    for position in [Position(*p) for p in reversed(positions)]:
        start = clock()
        expert.decide(position)
        decide_t.append(clock() - start)
    advise_t.sort()
    decide_t.sort()
    return {
        "decisions": n,
        "advise_p50_us": 1e6 * _percentile(advise_t, 0.50),
        "advise_p99_us": 1e6 * _percentile(advise_t, 0.99),
        "decide_p50_us": 1e6 * _percentile(decide_t, 0.50),
        "decide_p99_us": 1e6 * _percentile(decide_t, 0.99),
    }


def bench_simulation(table: ValueTable, games: int, runs: int) -> dict[str, Any]:
    """Expert games per second (median of ``runs``)."""
    rates = []
    mean = 0.0
    for run in range(runs):
        result = simulate_expert(games, seed=run, table=table)
        rates.append(result.games / result.seconds)
        mean = float(result.scores.mean())
    return {
        "games": games,
        "runs": runs,
        "median_games_per_s": statistics.median(rates),
        "mean_score": mean,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small run of each part")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    solve_runs, decisions, games, sim_runs = (
        (1, 1000, 2048, 1) if args.quick else (5, 20000, 40960, 3)
    )

    figures: dict[str, Any] = {"solve": bench_solve(solve_runs)}
    table = load_table()
    figures["table"] = {"start_value": table.start_value, "memory_mb": table.values.nbytes / 2**20}
    figures["decision"] = bench_decisions(table, decisions)
    figures["simulation"] = bench_simulation(table, games, sim_runs)

    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    s, t, d, m = figures["solve"], figures["table"], figures["decision"], figures["simulation"]
    print(
        f"solve (process start -> table saved), {s['runs']} runs: "
        f"median {s['median_s']:.2f} s, min {s['min_s']:.2f} s, peak RSS {s['peak_rss_mb']:.0f} MB"
    )
    print(
        f"table: {s['table_file_mb']:.1f} MB on disk, {t['memory_mb']:.1f} MB in memory, "
        f"start value {t['start_value']:.5f}"
    )
    print(
        f"decision ({d['decisions']} random positions): advise p50 {d['advise_p50_us']:.0f} us, "
        f"p99 {d['advise_p99_us']:.0f} us; expert.decide p50 {d['decide_p50_us']:.0f} us, "
        f"p99 {d['decide_p99_us']:.0f} us"
    )
    print(
        f"expert simulation ({m['games']} games x {m['runs']}): "
        f"{m['median_games_per_s']:.0f} games/s, mean {m['mean_score']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
