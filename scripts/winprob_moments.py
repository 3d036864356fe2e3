"""Exact moments of the points still to come, per state, level and lump event combination
(see yahtzee.review.moments).

For every reachable canonical turn-start state and each level's exact turn policy
(:mod:`yahtzee.review.turns`), a backward pass over the states (most boxes filled first)
computes, for each combination c of the events "the large straight will get 40", "the
upper bonus will be made", "the 快艇 box will get 50" and "a 100-point 快艇 bonus will
come", P(c), E[S·1c] and E[S²·1c] for
the points S still to come: with one turn's outcomes (successor s', points g, the events
e the turn itself made, probability p), the sums over c' of s' with c' | e = c of
p·P, p·(g·P + E[S'·1]) and p·(g²·P + 2g·E[S'·1] + E[S'²·1]). It writes
``src/yahtzee/review/winprob_moments.npz.xz``. ``--levels`` and ``--merge`` let the levels run
in parallel processes (about 5 to 15 minutes each on one core):

    python scripts/winprob_moments.py                          # all levels, then pack
    python scripts/winprob_moments.py --levels novice --raw F  # one level's raw sums
    python scripts/winprob_moments.py --merge F1 F2 F3          # pack raw parts
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from yahtzee.review.moments import (
    BONUS,
    LARGE_STRAIGHT,
    N_COMBOS,
    YAHTZEE,
    YAHTZEE_BONUS,
    pack,
    reachable_canonical,
)
from yahtzee.review.turns import model_for, state_at, turn_outcomes
from yahtzee.rules import UPPER_BONUS, UPPER_BONUS_THRESHOLD, Category
from yahtzee.rules import YAHTZEE_BONUS as BONUS_POINTS
from yahtzee.solver import load_table
from yahtzee.solver.tables import N_UP

OUT = Path(__file__).resolve().parents[1] / "src" / "yahtzee" / "review" / "winprob_moments.npz.xz"
LEVELS = ("expert", "intermediate", "novice")
LS_BIT = 1 << Category.LARGE_STRAIGHT.index
F64 = npt.NDArray[np.float64]


def raw_sums(level: str) -> tuple[F64, F64, F64]:
    """(16, n) P(c), E[S·1c], E[S²·1c] over the reachable canonical states (flat order)."""
    table = load_table()
    model = model_for(level, table)
    flat = np.flatnonzero(reachable_canonical())
    at = np.full(len(table.flat), -1, dtype=np.intp)
    at[flat] = np.arange(len(flat))
    filled = np.array([state_at(int(i))[0].bit_count() for i in flat])
    p, m1, m2 = (np.zeros((N_COMBOS, len(flat))) for _ in range(3))
    p[0, filled == 13] = 1.0
    start = time.perf_counter()
    for count in range(12, -1, -1):
        for j in np.flatnonzero(filled == count).tolist():
            mask, up, flag = state_at(int(flat[j]))
            succ, gain, prob = turn_outcomes(model, (mask, up, flag))
            g = gain.astype(np.float64)
            k = at[succ]
            up2, flag2, mask2 = (succ // 2) % N_UP, succ % 2, succ // (2 * N_UP)
            bonus = (up < UPPER_BONUS_THRESHOLD) & (up2 >= UPPER_BONUS_THRESHOLD)
            # The turn's own events: 40 in the large straight (its points are 40 or 0, plus
            # 100 with a 快艇 bonus), the bonus crossed, the 50 written, a 100 bonus earned
            # (only a 快艇 bonus lifts a turn's points, bonus aside, to 100).
            straight = (mask & LS_BIT == 0) & (mask2 & LS_BIT != 0) & (gain % 100 == 40)
            made = (
                LARGE_STRAIGHT * straight
                + BONUS * bonus
                + YAHTZEE * ((flag == 0) & (flag2 == 1))
                + YAHTZEE_BONUS * ((flag == 1) & (g - UPPER_BONUS * bonus >= BONUS_POINTS))
            )
            pc, a1, a2 = p[:, k], m1[:, k], m2[:, k]
            to = (np.arange(N_COMBOS)[:, None] | made[None, :]).ravel()
            p[:, j] = np.bincount(to, (prob * pc).ravel(), N_COMBOS)
            m1[:, j] = np.bincount(to, (prob * (g * pc + a1)).ravel(), N_COMBOS)
            m2[:, j] = np.bincount(to, (prob * (g * g * pc + 2 * g * a1 + a2)).ravel(), N_COMBOS)
        print(f"{level}: {count} filled, {time.perf_counter() - start:.0f} s", flush=True)
    return p, m1, m2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--raw", type=Path, default=None)
    parser.add_argument("--merge", type=Path, nargs="*", default=None)
    args = parser.parse_args()
    raw: dict[str, tuple[F64, F64, F64]] = {}
    if args.merge:
        for part in args.merge:
            with np.load(part) as data:
                names = {k.rsplit("_", 1)[0] for k in data.files}
                raw.update({n: (data[f"{n}_P"], data[f"{n}_M1"], data[f"{n}_M2"]) for n in names})
    else:
        raw = {level: raw_sums(level) for level in args.levels.split(",")}
    if args.raw is not None:
        flat = {
            f"{n}_{k}": a for n, t in raw.items() for k, a in zip(("P", "M1", "M2"), t, strict=True)
        }
        np.savez(args.raw, **flat)  # type: ignore[arg-type]
        print(f"wrote {args.raw}")
        return
    OUT.write_bytes(pack(raw))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
