"""Whole games played by computer players, written as event logs.

The tests review thousands of these (every level in the human's seat) and the benchmark
and the win-probability reference use them; the logs have the shape of the server's
(``roll`` with ``hold`` and ``faces``, ``score`` with ``category``), so the review cannot
tell them apart. Every turn is :func:`yahtzee.turn.play_turn`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from yahtzee.dice import DiceSource
from yahtzee.game import Game, Mode, Seat
from yahtzee.turn import Player, RollStep, play_turn


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One event: ``kind`` and its JSON ``data``."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


def play_log(
    human: Player, dice: DiceSource, computer: Player | None = None
) -> tuple[list[LogEntry], Game]:
    """Play a whole game (solo, or vs ``computer``) and return its log and final position."""
    mode = Mode.SOLO if computer is None else Mode.VS_COMPUTER
    difficulty = None if computer is None else computer.name
    log = [LogEntry("start", {"mode": mode.value, "difficulty": difficulty})]
    state = Game.new(mode)
    while not state.is_over:
        seat = state.seat
        player = human if seat is Seat.HUMAN else computer
        assert player is not None
        turn = play_turn(state, player, dice, seat=seat)
        for step in turn.steps:
            if isinstance(step, RollStep):
                data = {"seat": seat.value, "hold": list(step.hold), "faces": list(step.fresh)}
                log.append(LogEntry("roll", data))
            else:
                log.append(LogEntry("score", {"seat": seat.value, "category": step.category.value}))
        state = turn.state
    return log, state
