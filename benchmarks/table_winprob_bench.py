"""Table review and meter benchmark (T5): a 6-seat review and the live meter.

Seeded 6-seat tables (three people, played by 普通, and a 高手, a 普通 and an 入门 computer)
are played to the end as one log each (:mod:`yahtzee.log` events, as the server stores
them), then:

* **review**: what the server computes on a 6-seat game's first review request
  (:func:`yahtzee.server.reviews.compute_review`: every seat's decisions judged, every
  seat's chance of first place before round 1 and after each round, the review object of
  each person's seat), wall clock and the process's CPU time (``review_cpu``: less at the
  mercy of a shared machine's load);
* **meter**: ``GET /api/games/{id}/meter``'s work (:func:`yahtzee.review.live.live_meter`)
  after every roll of every seat, in playing order.

One process, as a server worker would run them: the caches warm up over the tables (the
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
from yahtzee.game import Mode, SeatKind
from yahtzee.players import get_player
from yahtzee.review.live import live_meter
from yahtzee.server.reviews import compute_review
from yahtzee.solver import load_table
from yahtzee.turn import play_turn

SEATS = (
    ("human", "intermediate"),
    ("computer", "expert"),
    ("human", "intermediate"),
    ("computer", "intermediate"),
    ("human", "intermediate"),
    ("computer", "novice"),
)
"""Who sits where: (kind, the level that plays it). People are modelled as the expert."""


def table_log(seed: int, seats: int) -> list[log.Event]:
    """One seeded table game, start to end, as its event log."""
    layout = SEATS[:seats]
    start = log.Start(
        Mode.TABLE,
        tuple(
            log.Seat(SeatKind.HUMAN, name=f"玩家{i}")
            if kind == "human"
            else log.Seat(SeatKind.COMPUTER, difficulty=level)
            for i, (kind, level) in enumerate(layout)
        ),
    )
    players = [get_player(level, random.Random(seed + i)) for i, (_, level) in enumerate(layout)]
    dice = SeededDice(seed)
    events: list[log.Event] = [start]
    game = start.game()
    while not game.is_over:
        turn = play_turn(game, players[game.turn], dice)
        events.extend(step.event for step in turn.steps)
        game = turn.state
    return events


def bench(tables: int, seats: int) -> dict[str, Any]:
    """Play ``tables`` tables; time their reviews and every meter call (ms)."""
    table = load_table()
    models = [level if kind == "computer" else "expert" for kind, level in SEATS[:seats]]
    review_ms: list[float] = []
    review_cpu: list[float] = []
    meter_ms: list[float] = []
    for t in range(tables + 1):  # table 0 warms up (reads the moments file)
        events = table_log(1000 + 10 * t, seats)
        start, cpu = time.perf_counter(), time.process_time()
        reviewed = compute_review(events, f"bench-{t}")
        if t:
            review_ms.append(1000 * (time.perf_counter() - start))
            review_cpu.append(1000 * (time.process_time() - cpu))
        assert len(reviewed.by_seat) == sum(kind == "human" for kind, _ in SEATS[:seats])
        first = events[0]
        assert isinstance(first, log.Start)
        game = first.game()
        for event in events[1:]:
            game = log.apply(game, event)
            if isinstance(event, log.Roll):
                start = time.perf_counter()
                meter = live_meter(game, None, table, models)
                if t:
                    meter_ms.append(1000 * (time.perf_counter() - start))
                assert abs(sum(meter["win_probabilities"]) - 1.0) <= 0.001
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
