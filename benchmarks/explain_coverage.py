"""How many wrong answers get a reason (L12, L14): 练习 answers and 复盘 decisions.

Samples ``--answers`` wrong 练习 answers (bank puzzles, seeded: half the answer the level
gave when the puzzle was made, half another option among the eight best, so 欠佳 answers
are in) and ``--decisions`` 复盘 decisions that were not best (solo games of 入门 and 普通
played with seeded dice and reviewed as the server does, ``review_json``). For each it
prints how many got a reason (a sentence beyond the loss) and, for keeps, how many got a
chance sentence (「…的机会是 N%」), over all of them and over those that lost at least
``--min-loss`` points (the goal: all of those). Exits 1 when one of those lacks a reason
or a keep lacks its chance sentence. ``--quick`` samples 40 of each (the test suite's
smoke run); ``--json`` prints one JSON object.

    .venv/bin/python benchmarks/explain_coverage.py
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from yahtzee.dice import SeededDice
from yahtzee.i18n import Lang, Msg
from yahtzee.players import Difficulty, get_player
from yahtzee.review import review_events, review_json
from yahtzee.review.selfplay import play_log
from yahtzee.solver import load_table
from yahtzee.training.bank import load_bank
from yahtzee.training.explain import explain
from yahtzee.training.puzzle import Answer, grade

#: The sentences that give a keep's chance (the catalog's keys: any language says it).
CHANCE = ("server.why.chance.both", "server.why.chance.one")


@dataclass
class Tally:
    """Counts over one sample: all, and those that lost at least the threshold."""

    total: int = 0
    reason: int = 0
    keeps: int = 0
    keep_chance: int = 0
    big: int = 0
    big_reason: int = 0
    big_keeps: int = 0
    big_keep_chance: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, loss: float, keep: bool, why: list[Msg], min_loss: float, where: str) -> None:
        """Count one wrong answer whose reasons are ``why``."""
        has_reason = bool(why)
        has_chance = any(m.key in CHANCE for m in why)
        self.total += 1
        self.reason += has_reason
        self.keeps += keep
        self.keep_chance += keep and has_chance
        if loss >= min_loss:
            self.big += 1
            self.big_reason += has_reason
            self.big_keeps += keep
            self.big_keep_chance += keep and has_chance
            if not has_reason or (keep and not has_chance):
                said = [m.render(Lang.ZH_HANS) for m in why]
                self.misses.append(f"{where} loss {loss:.2f}: {said}")

    def to_json(self) -> dict[str, Any]:
        """The counts (and up to five misses)."""
        out: dict[str, Any] = {k: v for k, v in vars(self).items() if k != "misses"}
        out["misses"] = self.misses[:5]
        return out

    def lines(self, name: str, min_loss: float) -> Iterable[str]:
        """The report of this sample."""
        yield (
            f"{name}: {self.total} wrong, {self.reason} with a reason; "
            f"{self.keeps} keeps, {self.keep_chance} with a chance sentence"
        )
        yield (
            f"  lost >= {min_loss}: {self.big}, {self.big_reason} with a reason; "
            f"{self.big_keeps} keeps, {self.big_keep_chance} with a chance sentence"
        )
        for miss in self.misses[:5]:
            yield f"  MISSING {miss}"


def practice_sample(n: int, seed: int, min_loss: float) -> Tally:
    """``n`` wrong answers to bank puzzles, explained as 练习 explains them."""
    rng = random.Random(f"{seed}:answers")
    table = load_table()
    bank = load_bank()
    tally = Tally()
    for i in range(n):
        puzzle = rng.choice(bank)
        if i % 2 == 0:
            g = grade(puzzle.position, puzzle.chosen, table)
        else:
            wrong = grade(puzzle.position, puzzle.chosen, table).options[1:8]
            g = grade(puzzle.position, Answer.of(rng.choice(wrong)), table)
        if g.mark == "best":  # an exact tie with the best: not a wrong answer
            continue
        why = explain(g, table)[1:]
        tally.add(g.loss, g.position.kind == "keep", why, min_loss, str(puzzle.position))
    return tally


def review_sample(n: int, seed: int, min_loss: float) -> Tally:
    """``n`` 复盘 decisions that were not best, from seeded games of 入门 and 普通."""
    rng = random.Random(f"{seed}:decisions")
    table = load_table()
    pool: list[dict[str, Any]] = []
    game = 0
    while len(pool) < 4 * n and game < 400:
        level = (Difficulty.NOVICE, Difficulty.INTERMEDIATE)[game % 2]
        player = get_player(level, rng=random.Random(f"{seed}:{game}:choices"))
        events, _ = play_log(player, SeededDice(f"{seed}:{game}:dice"))
        review = review_json(review_events(events, table), f"g{game}")
        pool.extend(d for d in review["decisions"] if d["mark"] != "best")
        game += 1
    tally = Tally()
    for d in rng.sample(pool, min(n, len(pool))):
        tally.add(d["loss"], d["kind"] == "keep", d.get("why", []), min_loss, str(d["dice"]))
    return tally


def main(argv: list[str] | None = None) -> int:
    """Print the counts; exit 1 when a wrong answer that lost enough has no reason."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--decisions", type=int, default=500)
    parser.add_argument("--min-loss", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--quick", action="store_true", help="40 of each (smoke run)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.answers = args.decisions = 40
    practice = practice_sample(args.answers, args.seed, args.min_loss)
    review = review_sample(args.decisions, args.seed, args.min_loss)
    ok = all(t.big_reason == t.big and t.big_keep_chance == t.big_keeps for t in (practice, review))
    if args.json:
        print(json.dumps({"practice": practice.to_json(), "review": review.to_json(), "ok": ok}))
    else:
        for line in (
            *practice.lines("练习 answers", args.min_loss),
            *review.lines("复盘 decisions", args.min_loss),
        ):
            print(line)
        print("goal met" if ok else "GOAL MISSED: a wrong answer that lost enough has no reason")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
