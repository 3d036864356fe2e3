"""Replay benchmark (issue 7, F1): rebuilding the longest legal game from its event log.

A game's log is bounded by the rules (:func:`yahtzee.log.max_events`): the
longest legal game is a finished vs game in which both players roll three times every turn
and the human spends all three hints (108 events; the bound 109 also counts an ``abandon``).
That is what a cache miss (a restart, an eviction, another process's move) replays on the
event loop, so it must stay far below what a person or ``/api/health`` would notice.

Printed, each as the median of ``--runs`` timings:

* ``fold``: :func:`~yahtzee.log.replay` of the in-memory log;
* ``load_and_fold``: reading the log from SQLite and folding it as the server does on a
  cache miss (:func:`~yahtzee.server.game_view.from_log`: the position, the computer's last
  turn and the turn log);
* ``legacy``: for comparison, a log of ``--legacy-events`` ``restart_turn`` events, which the
  removed ``/resume`` endpoint could grow without bound; and the longest stall of the event
  loop (a 1 ms ticker) while such a log is loaded, folded inline as before and through
  :meth:`~yahtzee.server.service.GameService.load`, which folds it in a worker thread.

The target is a median under 5 ms for ``load_and_fold``; the ratio to it is printed.
``--quick`` runs a few repetitions (the test suite's smoke run); ``--json`` prints one
JSON object instead of text.
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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from yahtzee.dice import ScriptedDice
from yahtzee.game import HINTS_PER_GAME, NO_HOLD, Game, Mode, SeatKind
from yahtzee.log import Event, Hint, RestartTurn, Roll, Score, Start, apply, max_events, replay
from yahtzee.players import Difficulty
from yahtzee.server.game_view import from_log
from yahtzee.server.service import GameService
from yahtzee.storage import SQLiteStorage

TARGET_S = 0.005


def longest_game(seed: int = 7) -> list[Event]:
    """A legal finished vs game with the most events the rules allow (no abandon)."""
    rng = random.Random(seed)
    start = Start.of(Mode.VS_COMPUTER, Difficulty.EXPERT.value)
    events: list[Event] = [start]
    game = start.game()

    def add(e: Event) -> Game:
        events.append(e)
        return apply(game, e)  # raises if the rules refuse it

    hints = HINTS_PER_GAME
    while not game.is_over:
        seat = game.turn
        while game.rolls_left:
            hold = NO_HOLD if game.dice is None else (True, False, True, False, False)
            faces = tuple(rng.randint(1, 6) for held in hold if not held)
            game = add(Roll(seat, hold, faces))
            if game.kind is SeatKind.HUMAN and hints:
                game = add(Hint(seat))
                hints -= 1
        options = game.preview()
        best = max((o for o in options.values() if o.legal), key=lambda o: o.gain)
        game = add(Score(seat, best.category))
    return events


def _median(fn: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


async def _loop_stall(load: Callable[[], Awaitable[object]]) -> float:
    """The longest gap between the ticks of a 1 ms ticker on the event loop while ``load``
    runs: how long any other request (``/api/health``) would have waited."""
    worst, done = 0.0, False

    async def ticker() -> None:
        nonlocal worst
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst, last = max(worst, now - last), now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    await load()
    done = True
    await task
    return worst


def _stalls(store: SQLiteStorage, game_id: str) -> tuple[float, float]:
    """Event-loop stall while a legacy log loads: folded inline (as before), and through
    :meth:`GameService.load` (a worker thread for a log longer than any legal game)."""
    stored = asyncio.run(store.get_game(game_id))
    assert stored is not None

    async def inline() -> object:
        assert stored is not None
        return from_log(stored, await store.events(game_id))

    def no_player(name: str) -> Any:
        raise AssertionError(name)

    async def service() -> object:
        assert stored is not None
        svc = GameService(store, ScriptedDice([]), no_player)
        return await svc.load(stored.player_id, game_id)

    return asyncio.run(_loop_stall(inline)), asyncio.run(_loop_stall(service))


def run(runs: int, legacy_events: int) -> dict[str, Any]:
    """Time the replays; returns the figures (seconds)."""
    events = longest_game()
    bound = max_events((SeatKind.HUMAN, SeatKind.COMPUTER), Mode.VS_COMPUTER)
    assert len(events) == bound - 1  # all but the abandon
    assert replay(events).is_over
    legacy = [events[0], *(RestartTurn() for _ in range(legacy_events))]
    with tempfile.TemporaryDirectory(prefix="yahtzee-replay-") as tmp:
        store = SQLiteStorage(Path(tmp) / "r.db")
        # (SQLite's coroutines run inline: asyncio.run costs a few µs, not in the timings.)
        asyncio.run(
            store.create_game(
                game_id="longest",
                player_id="p" * 32,
                mode=Mode.VS_COMPUTER,
                difficulty=Difficulty.EXPERT,
                events=events,
            )
        )
        stored = asyncio.run(store.get_game("longest"))
        assert stored is not None
        fold = _median(lambda: replay(events), runs)
        loop = asyncio.new_event_loop()
        load_and_fold = _median(
            lambda: from_log(stored, loop.run_until_complete(store.events("longest"))), runs
        )
        loop.close()
        legacy_fold = _median(lambda: replay(legacy), max(1, runs // 20))
        asyncio.run(
            store.create_game(
                game_id="legacy",
                player_id="q" * 32,
                mode=Mode.VS_COMPUTER,
                difficulty=Difficulty.EXPERT,
                events=legacy,
            )
        )
        stall_inline, stall_service = _stalls(store, "legacy")
        asyncio.run(store.close())
    return {
        "events": len(events),
        "bound": bound,
        "fold_median_s": fold,
        "load_and_fold_median_s": load_and_fold,
        "target_s": TARGET_S,
        "ratio_to_target": load_and_fold / TARGET_S,
        "legacy_events": legacy_events,
        "legacy_fold_median_s": legacy_fold,
        "legacy_loop_stall_inline_s": stall_inline,
        "legacy_loop_stall_service_s": stall_service,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=200, help="timings per figure")
    parser.add_argument("--legacy-events", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="a few runs (smoke test)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    runs, legacy = (5, 1000) if args.quick else (args.runs, args.legacy_events)
    figures = run(runs, legacy)
    if args.json:
        print(json.dumps(figures))
        return 0
    ms = 1000
    print(f"longest legal game: {figures['events']} events (log bound {figures['bound']})")
    print(f"replay in memory:         median {figures['fold_median_s'] * ms:.3f} ms")
    print(
        f"read from SQLite + replay: median {figures['load_and_fold_median_s'] * ms:.3f} ms"
        f" = {figures['ratio_to_target']:.3f} x the {TARGET_S * ms:.0f} ms target"
    )
    print(
        f"legacy log of {legacy:,} restart_turn events: replay median "
        f"{figures['legacy_fold_median_s'] * ms:.1f} ms; longest event-loop stall while it "
        f"loads: {figures['legacy_loop_stall_inline_s'] * ms:.1f} ms folded inline (before), "
        f"{figures['legacy_loop_stall_service_s'] * ms:.1f} ms through the service (thread)"
    )
    return 0 if figures["load_and_fold_median_s"] < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
