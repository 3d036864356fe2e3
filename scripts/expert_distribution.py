"""Compute the expert's final-score distribution and per-box means (L5's reference data).

Plays ``--games`` optimal games (default 1,000,000) with the solver's batched kernel, the
same way :func:`yahtzee.simulation.simulate_expert` does, and also records what each box
received. Writes ``src/yahtzee/review/expert_scores.json`` (shipped with the package; the
stats page draws the player's totals over it). Reproducible for a given ``--seed``.

    python scripts/expert_distribution.py [--games 1000000] [--seed 1] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from yahtzee.game import ROLLS_PER_TURN, ROUNDS
from yahtzee.rules import (
    CATEGORIES,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    YAHTZEE_POINTS,
    Category,
)
from yahtzee.solver import load_table
from yahtzee.solver.cache import RULES_VERSION
from yahtzee.solver.kernel import category_values, keep_values, reroll, turn_start_e0
from yahtzee.solver.tables import (
    CODE_TO_KEEP,
    COUNT_CODE_WEIGHTS,
    DICE_COUNTS,
    KEEP_COUNTS,
    LEVEL_OFFSETS,
    N_KEEPS,
    SUB_KEEPS,
    UPPER_CAP,
)

OUT = Path(__file__).resolve().parents[1] / "src" / "yahtzee" / "review" / "expert_scores.json"
BATCH = 4096
_Y = Category.YAHTZEE.index
_KEEP_CODE = KEEP_COUNTS @ COUNT_CODE_WEIGHTS
_KEEP_SIZE = KEEP_COUNTS.sum(axis=1)
_CODE_TO_DICE = np.where(LEVEL_OFFSETS[5] <= CODE_TO_KEEP, CODE_TO_KEEP - LEVEL_OFFSETS[5], -1)
I64 = npt.NDArray[np.int64]


def _roll(rng: np.random.Generator, kept_code: I64, kept_size: I64) -> I64:
    fresh = COUNT_CODE_WEIGHTS[rng.integers(0, 6, size=(kept_code.shape[0], 5))]
    fresh[np.arange(5)[None, :] >= (5 - kept_size)[:, None]] = 0
    out: I64 = _CODE_TO_DICE[kept_code + fresh.sum(axis=1)]
    return out


def batch(
    v: npt.NDArray[np.float32], n: int, rng: np.random.Generator
) -> tuple[I64, I64, npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """``n`` expert games: totals, points per box (n, 13), upper bonus, a Yahtzee scored."""
    games = np.arange(n)
    mask = np.zeros(n, dtype=np.intp)
    upper = np.zeros(n, dtype=np.intp)
    flag = np.zeros(n, dtype=np.intp)
    ybonus = np.zeros(n, dtype=np.int64)
    nothing = np.zeros(n, dtype=np.intp)
    boxes = np.zeros((n, len(CATEGORIES)), dtype=np.int64)
    keeps = np.empty((2, N_KEEPS, n), dtype=np.float32)
    for _ in range(ROUNDS):
        up = np.minimum(upper, UPPER_CAP)
        e0, _shift = turn_start_e0(v, mask, up, flag)
        _, e1 = reroll(e0, keeps[0])
        keep_values(e1, keeps[1])
        dice = _roll(rng, nothing, nothing)
        for rolls_left in range(ROLLS_PER_TURN - 1, 0, -1):
            subs = SUB_KEEPS[dice]
            cand = np.take(keeps[rolls_left - 1].reshape(-1), subs * n + games[:, None])
            keep = subs[games, np.argmax(cand, axis=1)]
            dice = _roll(rng, _KEEP_CODE[keep], _KEEP_SIZE[keep])
        values, points = category_values(v, mask, up, flag, dice)
        cat = np.argmax(values, axis=0)
        pts = points[cat, games]
        is_y_roll = DICE_COUNTS[dice].max(axis=1) == 5
        ybonus += YAHTZEE_BONUS * (is_y_roll & ((mask >> _Y) & 1 == 1) & (flag == 1))
        boxes[games, cat] = pts
        upper += np.where(cat < 6, pts, 0)
        flag = np.where(cat == _Y, (pts == YAHTZEE_POINTS).astype(np.intp), flag)
        mask |= 1 << cat
    bonus = upper >= UPPER_BONUS_THRESHOLD
    total = boxes.sum(axis=1) + UPPER_BONUS * bonus + ybonus
    return total, boxes, bonus, boxes[:, _Y] == YAHTZEE_POINTS


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
