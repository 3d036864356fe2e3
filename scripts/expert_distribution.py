"""Compute the expert's final-score distribution and per-box means (L5's reference data).

Plays ``--games`` optimal games (default 1,000,000) with
:func:`yahtzee.simulation.play_expert`, as ``yahtzee simulate`` does, and also records
what each box received. Writes ``src/yahtzee/review/expert_scores.json`` (shipped with
the package; the stats page draws the player's totals over it). Reproducible for a given ``--seed``.

    python scripts/expert_distribution.py [--games 1000000] [--seed 1] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from yahtzee.rules import CATEGORIES
from yahtzee.simulation import play_expert
from yahtzee.solver import load_table
from yahtzee.solver.cache import RULES_VERSION

OUT = Path(__file__).resolve().parents[1] / "src" / "yahtzee" / "review" / "expert_scores.json"
BATCH = 4096
I64 = npt.NDArray[np.int64]


def batch(
    v: npt.NDArray[np.float32], n: int, rng: np.random.Generator
) -> tuple[I64, I64, npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """``n`` expert games: totals, points per box (n, 13), upper bonus, a Yahtzee scored."""
    play = play_expert(v, n, rng)
    return play.gained(), play.boxes, play.upper_bonus(), play.flag == 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    v = load_table().flat
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    counts: dict[int, int] = {}
    box_sums = np.zeros(len(CATEGORIES), dtype=np.int64)
    bonus_games = yahtzee_games = 0
    total_sum = 0
    done = 0
    while done < args.games:
        n = min(BATCH, args.games - done)
        total, boxes, bonus, yahtzee = batch(v, n, rng)
        for score, k in zip(*np.unique(total, return_counts=True), strict=True):
            counts[int(score)] = counts.get(int(score), 0) + int(k)
        box_sums += boxes.sum(axis=0)
        bonus_games += int(bonus.sum())
        yahtzee_games += int(yahtzee.sum())
        total_sum += int(total.sum())
        done += n
    games = args.games
    data = {
        "about": "final scores of the expert (optimal expected value), simulated; "
        "scripts/expert_distribution.py",
        "rules_version": RULES_VERSION,
        "games": games,
        "seed": args.seed,
        "mean": total_sum / games,
        "upper_bonus_rate": bonus_games / games,
        "yahtzee_rate": yahtzee_games / games,
        "box_means": {c.value: float(box_sums[c.index]) / games for c in CATEGORIES},
        "scores": [[s, counts[s]] for s in sorted(counts)],
    }
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    seconds = time.perf_counter() - start
    print(f"{games} games in {seconds:.1f} s; mean {data['mean']:.3f}; wrote {args.out}")


if __name__ == "__main__":
    main()
