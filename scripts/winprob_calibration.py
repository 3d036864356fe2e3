"""Calibrate the normal tails of the win probability (see yahtzee.review.winprob).

Plays ``--games`` solo games per computer level (every turn through
:func:`yahtzee.turn.play_turn`, seeded) and records, at the start of each turn, the
turns left, the state's features (快艇 box open / 50 / 0; upper bonus open / made /
out of reach), the solver's value of the state and the points the level actually went on
to score. Per (level, turns left, features) it writes the number of samples, the mean
shortfall against the solver's value, its variance and its distribution (a histogram of
value − points to come in 2-point bins) to ``src/yahtzee/review/winprob_calibration.json``.
``--levels`` and ``--merge`` let the levels run in parallel processes:

    python scripts/winprob_calibration.py [--games 15000] [--seed 7] [--levels novice --out F]
    python scripts/winprob_calibration.py --merge F1 F2 F3
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from yahtzee.dice import SeededDice
from yahtzee.game import ROUNDS, Game, Mode
from yahtzee.players import get_player
from yahtzee.review.winprob import features
from yahtzee.solver import load_table, state_of
from yahtzee.solver.cache import RULES_VERSION
from yahtzee.turn import play_turn

OUT = (
    Path(__file__).resolve().parents[1] / "src" / "yahtzee" / "review" / "winprob_calibration.json"
)
LEVELS = ("expert", "intermediate", "novice")
BIN = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--merge", type=Path, nargs="*", default=None)
    args = parser.parse_args()
    if args.merge:
        parts = [json.loads(p.read_text("utf-8")) for p in args.merge]
        merged = {**parts[0], "levels": {}}
        for part in parts:
            merged["levels"].update(part["levels"])
        args.out.write_text(json.dumps(merged, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
        return
    table = load_table()
    out: dict[str, dict[str, list[Any]]] = {}
    start = time.perf_counter()
    for level in args.levels.split(","):
        rng = random.Random(f"{args.seed}:{level}")
        player = get_player(level, random.Random(rng.getrandbits(64)))
        dice = SeededDice(rng.getrandbits(64))
        # Per cell: count, sum and sum of squares of (solver value - points to come), and
        # its histogram in BIN-point bins.
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        hists: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        for _ in range(args.games):
            state = Game.new(Mode.SOLO)
            marks: list[tuple[str, float, int]] = []
            for turn in range(ROUNDS):
                card = state.current_card
                key = f"{ROUNDS - turn}:{features(state_of(card))}"
                marks.append((key, table.value(card), card.total))
                state = play_turn(state, player, dice).state
            final = state.current_card.total
            for key, value, before in marks:
                x = value - (final - before)
                cell = sums[key]
                cell[0] += 1
                cell[1] += x
                cell[2] += x * x
                hists[key][round(x / BIN)] += 1
        out[level] = {}
        for key, (n, sx, sxx) in sorted(sums.items()):
            mean = sx / n
            var = round(max(0.0, sxx / n - mean * mean), 4)
            hist = [[b, k] for b, k in sorted(hists[key].items())]
            out[level][key] = [int(n), round(mean, 4), var, hist]
        print(f"{level}: {args.games} games, {time.perf_counter() - start:.0f} s", flush=True)
    data = {
        "about": "per level, 'turns_left:features' -> [samples, mean shortfall against the "
        "solver's value, variance, histogram [[bin, count]] of value - points to come in "
        "bins of `bin` points]; scripts/winprob_calibration.py",
        "bin": BIN,
        "rules_version": RULES_VERSION,
        "games": args.games,
        "seed": args.seed,
        "levels": out,
    }
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
