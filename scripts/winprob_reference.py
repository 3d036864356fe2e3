"""Check the review's win probabilities against simulation (L4).

Takes positions from seeded vs games (the human's and the computer's cards after a given
round) and compares :func:`yahtzee.review.winprob.win_probability` with a simulation: the
human's remaining turns played ``--human-games`` times by the expert (vectorised, with the
solver's batched kernel) and the computer's ``--computer-games`` times by its level
(:func:`yahtzee.turn.play_turn`), every pair of outcomes compared (P(win) + P(draw)/2).
Prints estimate, reference, difference and the reference's standard error.

    python scripts/winprob_reference.py [--human-games 200000] [--computer-games 20000]
        [--games 2] [--rounds 1,...,12] [--levels expert,intermediate,novice]

``--exact`` replaces the simulation by exact enumeration of both sides (from round 6 on).
The positions are not chosen: ``--games`` seeded vs games per level (the human played by
普通, the computer by the level), after each of ``--rounds``.

``--table LEVELS`` (repeatable; e.g. ``expert,expert,intermediate,novice``: one model per
seat, ``expert`` for a person) checks instead each seat's chance of first place at a table
(T5, :func:`yahtzee.review.winprob.table_chances`): ``--games`` seeded tables, each seat
playing its own turns (people by 普通, computers by their level; no seat looks at another's
card, so a table's seats are independent games), and per seat ``--human-games`` simulated
continuations for ``expert`` seats, ``--computer-games`` for the other levels; the
reference's P(first) is exact over all tuples of simulated totals (the same tie-splitting
sum over their empirical distributions), its standard error from a bootstrap.

    python scripts/winprob_reference.py --table expert,expert,expert,intermediate,novice,expert
        --human-games 100000 --computer-games 10000 --rounds 1,3,5,6 --samples DIR
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from yahtzee.dice import SeededDice
from yahtzee.game import Game, Mode
from yahtzee.players import get_player
from yahtzee.review import review_events
from yahtzee.review.selfplay import play_log
from yahtzee.review.turns import canonical, model_for
from yahtzee.review.winprob import (
    Side,
    first_place,
    remaining_distribution,
    table_chances,
    win_probability,
)
from yahtzee.review.winprob import compare as exact_compare
from yahtzee.rules import Scorecard
from yahtzee.simulation import play_expert
from yahtzee.solver import load_table, state_of
from yahtzee.turn import play_turn

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


def expert_finals(card: Scorecard, n: int, rng: np.random.Generator) -> I64:
    """Final totals of ``n`` optimal continuations of ``card`` (in vectorised batches)."""
    v = load_table().flat
    parts = [
        card.total + play_expert(v, min(4096, n - a), rng, card).gained(card.upper_subtotal)
        for a in range(0, n, 4096)
    ]
    return np.concatenate(parts)


def level_finals(card: Scorecard, level: str, n: int, seed: int) -> I64:
    """Final totals of ``n`` continuations of ``card`` by ``level`` (one by one)."""
    player = get_player(level, random.Random(seed))
    dice = SeededDice(seed)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        state = replace(Game.new(Mode.SOLO), cards=(card,))
        while not state.is_over:
            state = play_turn(state, player, dice).state
        out[i] = state.current_card.total
    return out


def compare(h: I64, c: I64) -> tuple[float, float]:
    """P(H > C) + P(H = C)/2 over all pairs, and its standard error."""
    hs, cs = np.sort(h), np.sort(c)
    below = np.searchsorted(cs, h, side="left") + 0.5 * (
        np.searchsorted(cs, h, side="right") - np.searchsorted(cs, h, side="left")
    )
    per_h = below / len(c)
    above = len(h) - np.searchsorted(hs, c, side="right")
    ties = np.searchsorted(hs, c, side="right") - np.searchsorted(hs, c, side="left")
    per_c = (above + 0.5 * ties) / len(h)
    p = float(per_h.mean())
    se = float(np.sqrt(per_h.var() / len(h) + per_c.var() / len(c)))
    return p, se


def _samples(
    args: argparse.Namespace, level: str, g: int, r: int, human: Scorecard, computer: Scorecard
) -> tuple[I64, I64]:
    """The simulated final totals of both sides (read back from ``--samples`` if kept)."""
    name = f"{level}-{g}-{r}-{args.human_games}-{args.computer_games}.npz"
    path = args.samples / name if args.samples is not None else None
    if path is not None and path.exists():
        with np.load(path) as data:
            return data["h"], data["c"]
    h = expert_finals(human, args.human_games, np.random.default_rng(r * 1000 + g))
    c = level_finals(computer, level, args.computer_games, r * 7 + g)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, h=h, c=c)
    return h, c


def _exact(human: Scorecard, computer: Scorecard, level: str) -> float:
    """The exact answer: every way both sides' remaining turns can go, enumerated."""
    table = load_table()
    sides = []
    for name, card in (("expert", human), (level, computer)):
        dist = remaining_distribution(model_for(name, table), canonical(state_of(card)))
        support = np.nonzero(dist)[0]
        sides.append(Side.exact(dist[support], card.total + support))
    return exact_compare(*sides)


def finals(card: Scorecard, level: str, args: argparse.Namespace, seed: int) -> I64:
    """Simulated final totals of one seat: the vectorised expert for ``expert`` seats,
    the level's own player otherwise."""
    if level == "expert":
        return expert_finals(card, args.human_games, np.random.default_rng(seed))
    return level_finals(card, level, args.computer_games, seed)


def _empirical(totals: I64) -> Side:
    values, counts = np.unique(totals, return_counts=True)
    return Side.exact(counts / counts.sum(), values)


def table_reference(samples: list[I64], boots: int, rng: np.random.Generator) -> tuple[F64, F64]:
    """Each seat's P(first) over all tuples of the seats' simulated totals, and its
    bootstrap standard error (each seat's totals resampled ``boots`` times)."""
    sides = [_empirical(s) for s in samples]
    ref = np.array(first_place(sides))
    again = []
    for _ in range(boots):
        resampled = [
            Side(s.start, rng.multinomial(len(t), s.pmf / s.pmf.sum()) / len(t), s.mean)
            for s, t in zip(sides, samples, strict=True)
        ]
        again.append(first_place(resampled))
    return ref, np.std(np.array(again), axis=0)


def _table_cards(levels: list[str], g: int) -> list[tuple[Scorecard, ...]]:
    """Each seat's card after 0..13 rounds of the seeded table ``g``."""
    table = load_table()
    out = []
    for i, level in enumerate(levels):
        player = "intermediate" if level == "expert" else level
        log, _ = play_log(
            get_player(player, random.Random(100 * g + i)), SeededDice(5000 + 100 * g + i)
        )
        out.append(review_events(log, table).human.turn_cards)
    return out


def table_main(args: argparse.Namespace) -> None:
    """The ``--table`` check: estimate against reference per seat and position."""
    table = load_table()
    rounds = [int(r) for r in args.rounds.split(",")]
    rng = np.random.default_rng(7)
    print("table              game round seat level         estimate  reference  diff     se")
    worst = 0.0
    for spec in args.table:
        levels = spec.split(",")
        for g in range(args.games):
            seat_cards = _table_cards(levels, g)
            for r in rounds:
                cards = [c[r] for c in seat_cards]
                start = time.perf_counter()
                estimate = table_chances(cards, levels, table)
                ms = 1000 * (time.perf_counter() - start)
                if args.exact:
                    sides = []
                    for level, card in zip(levels, cards, strict=True):
                        model = model_for(level, table)
                        dist = remaining_distribution(model, canonical(state_of(card)))
                        support = np.nonzero(dist)[0]
                        sides.append(Side.exact(dist[support], card.total + support))
                    ref, se = np.array(first_place(sides)), np.zeros(len(levels))
                else:
                    samples = [
                        _table_samples(args, spec, g, r, i, card, level)
                        for i, (level, card) in enumerate(zip(levels, cards, strict=True))
                    ]
                    ref, se = table_reference(samples, 30, rng)
                for i, level in enumerate(levels):
                    diff = estimate[i] - ref[i]
                    worst = max(worst, abs(diff))
                    print(
                        f"{len(levels)} seats            {g:4} {r:5} {i:4} {level:12}  "
                        f"{estimate[i]:8.4f}  {ref[i]:9.4f}  {diff:+.4f}  {se[i]:.4f}",
                        flush=True,
                    )
                print(f"  sum {sum(estimate):.6f}  ({ms:.0f} ms)", flush=True)
    print(f"largest |estimate - reference|: {worst:.4f}")


def _table_samples(
    args: argparse.Namespace, spec: str, g: int, r: int, i: int, card: Scorecard, level: str
) -> I64:
    count = args.human_games if level == "expert" else args.computer_games
    name = f"table-{spec.replace(',', '_')}-{g}-{r}-{i}-{count}.npz"
    path = args.samples / name if args.samples is not None else None
    if path is not None and path.exists():
        with np.load(path) as data:
            return np.asarray(data["t"])
    totals = finals(card, level, args, 1_000_000 * g + 1000 * r + i)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, t=totals)
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--human-games", type=int, default=200_000)
    parser.add_argument("--computer-games", type=int, default=20_000)
    parser.add_argument("--rounds", default="1,2,3,4,5,6,7,8,9,10,11,12")
    parser.add_argument("--games", type=int, default=2, help="vs games per level")
    parser.add_argument("--levels", default="expert,intermediate,novice")
    parser.add_argument(
        "--exact",
        action="store_true",
        help="instead of simulating, enumerate both sides' remaining turns exactly (no "
        "noise; affordable from round 6 on: seconds per position)",
    )
    parser.add_argument(
        "--samples",
        type=Path,
        default=None,
        help="a folder keeping each position's simulated totals (seeded, so a rerun that "
        "only changes the estimate reads them back instead of simulating again)",
    )
    parser.add_argument(
        "--table",
        action="append",
        default=None,
        help="check a table's chances of first place instead: one model per seat, "
        "comma-separated (expert for a person); repeatable",
    )
    args = parser.parse_args()
    if args.table:
        table_main(args)
        return
    table = load_table()
    rounds = [int(r) for r in args.rounds.split(",")]
    print("level        game round  estimate  reference  diff     se")
    worst: dict[tuple[str, str], tuple[float, float]] = {}
    for level in args.levels.split(","):
        for g in range(args.games):
            log, _ = play_log(
                get_player("intermediate", random.Random(g)),
                SeededDice(1000 + g),
                get_player(level, random.Random(g)),
            )
            review = review_events(log, table)
            assert review.computer is not None
            for r in rounds:
                human, computer = review.human.turn_cards[r], review.computer.turn_cards[r]
                start = time.perf_counter()
                estimate = win_probability(human, computer, level, table)
                ms = 1000 * (time.perf_counter() - start)
                if args.exact:
                    ref, se = _exact(human, computer, level), 0.0
                else:
                    h, c = _samples(args, level, g, r, human, computer)
                    ref, se = compare(h, c)
                band = "1-4" if r <= 4 else "5-8" if r <= 8 else "9-12"
                old = worst.get((level, band), (0.0, 0.0))
                if abs(estimate - ref) >= abs(old[0]):
                    worst[(level, band)] = (estimate - ref, se)
                print(
                    f"{level:12} {g:4} {r:5}  {estimate:8.4f}  {ref:9.4f}  {estimate - ref:+.4f}"
                    f"  {se:.4f}   ({ms:.0f} ms)",
                    flush=True,
                )
    print("worst difference per level and round band (with that position's se):")
    for (level, band), (diff, se) in worst.items():
        print(f"  {level:12} rounds {band:5} {diff:+.4f}  (se {se:.4f})")
    print(f"largest |estimate - reference|: {max(abs(d) for d, _ in worst.values()):.4f}")


if __name__ == "__main__":
    main()
