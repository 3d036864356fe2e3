"""Table win-probability benchmark (T5): a 6-seat review's timeline and the live meter.

Seeded 6-seat tables (three people, played by 普通, and a 高手, a 普通 and an 入门 computer;
no seat looks at another's card, so each seat is its own seeded game) are played out, then:

* **review** (wall clock, and ``review_cpu``: the process's CPU time, less at the mercy
  of a shared machine's load): what a 6-seat review computes — one person's decisions judged
  (:func:`yahtzee.review.review_events`) and every seat's chance of first place before
  round 1 and after each round (:func:`yahtzee.review.winprob.table_timeline`);
* **meter**: the live meter at every roll of every seat, in the table's playing order
  (:func:`yahtzee.review.winprob.live_table_chances`: the seat on turn from its dice, the
  others at their turn's start).

One process, as a server worker would run them: the caches warm up over the games (the
first review in a process also reads the moments file, a second or so, left out of the
medians by a warm-up table). Medians (and p90, max) in ms. ``--quick`` plays two tables (the
test suite's smoke run); ``--json`` prints one JSON object.

    python benchmarks/table_winprob_bench.py [--tables 12] [--seats 6]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from yahtzee import log
from yahtzee.dice import SeededDice
from yahtzee.players import get_player
from yahtzee.review import review_events
from yahtzee.review.selfplay import play_log
from yahtzee.review.winprob import live_table_chances, table_timeline
from yahtzee.rules import Dice
from yahtzee.solver import load_table

SEATS = (
    ("person", "intermediate"),
    ("computer", "expert"),
    ("person", "intermediate"),
    ("computer", "intermediate"),
    ("person", "intermediate"),
    ("computer", "novice"),
)
"""Who sits where: (kind, the level that plays it). People are modelled as the expert."""


def _table(seed: int, seats: int) -> tuple[list[list[log.Event]], list[str]]:
    """Each seat's log of one seeded table, and each seat's model."""
    logs, models = [], []
    for i, (kind, level) in enumerate(SEATS[:seats]):
        log, _ = play_log(get_player(level, random.Random(seed + i)), SeededDice(seed * 10 + i))
        logs.append(log)
        models.append("expert" if kind == "person" else level)
    return logs, models


def _rolls(events: list[log.Event]) -> list[list[tuple[Dice, int]]]:
    """Per turn, the dice after each roll and the rolls left then."""
    turns: list[list[tuple[Dice, int]]] = [[]]
    faces: list[int] = []
    for e in events:
        if isinstance(e, log.Roll):
            fresh = iter(e.faces)
            faces = [f if h else next(fresh) for f, h in zip(faces or [0] * 5, e.hold, strict=True)]
            turns[-1].append((Dice.of(tuple(faces)), 2 - len(turns[-1])))
        elif isinstance(e, log.Score):
            turns.append([])
            faces = []
    return turns[:-1]


def bench(tables: int, seats: int) -> dict[str, Any]:
    """Play ``tables`` tables; time their reviews and every meter call (ms)."""
    table = load_table()
    review_ms: list[float] = []
    meter_ms: list[float] = []
    review_cpu: list[float] = []
    for t in range(tables + 1):  # table 0 warms up (reads the moments file)
        logs, models = _table(1000 + 10 * t, seats)
        # The other seats' cards round by round (a review folds the log once for them;
        # only the reviewed person's decisions are judged, and that is timed).
        cards = [review_events(log, table).human.turn_cards for log in logs[1:]]
        start, cpu = time.perf_counter(), time.process_time()
        person = review_events(logs[0], table)
        cards.insert(0, person.human.turn_cards)
        timeline = table_timeline(cards, models, table)
        if t:
            review_ms.append(1000 * (time.perf_counter() - start))
            review_cpu.append(1000 * (time.process_time() - cpu))
        assert len(timeline) == 14
        rolls = [_rolls(log) for log in logs]
        for rnd in range(13):
            for seat in range(seats):
                for dice, rolls_left in rolls[seat][rnd]:
                    now = [cards[i][rnd + 1 if i < seat else rnd] for i in range(seats)]
                    start = time.perf_counter()
                    chances = live_table_chances(now, models, seat, dice, rolls_left, table)
                    if t:
                        meter_ms.append(1000 * (time.perf_counter() - start))
                    assert abs(sum(chances) - 1.0) < 1e-6
    return {
        "tables": tables,
        "seats": seats,
        "review": _figures(review_ms),
        "review_cpu": _figures(review_cpu),
        "meter": _figures(meter_ms),
    }


def _figures(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "count": len(ms),
        "median_ms": statistics.median(ms),
        "p90_ms": ordered[int(0.9 * (len(ordered) - 1))],
        "max_ms": ordered[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--seats", type=int, default=6, choices=range(2, 7))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = bench(2 if args.quick else args.tables, args.seats)
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{figures['seats']} seats, {figures['tables']} tables (after one warm-up table)")
    for name in ("review", "review_cpu", "meter"):
        f = figures[name]
        print(
            f"{name}: {f['count']} timed; median {f['median_ms']:.1f} ms, p90 "
            f"{f['p90_ms']:.1f} ms, max {f['max_ms']:.1f} ms"
        )


if __name__ == "__main__":
    main()
