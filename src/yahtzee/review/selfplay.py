"""Whole games played by computer players, written as event logs.

The tests review thousands of these (every level in the human's seat) and the benchmark
reviews them; the logs have the shape of the server's (``roll`` with ``hold`` and
``faces``, ``score`` with ``category``), so the review cannot tell them apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from yahtzee.dice import DiceSource
from yahtzee.game import NO_HOLD, GameState, Mode, Seat
from yahtzee.players.base import Player, RollDecision, ScoreDecision


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One event: ``kind`` and its JSON ``data``."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


def _turn(state: GameState, player: Player, dice: DiceSource, log: list[LogEntry]) -> GameState:
    seat = state.seat
    while state.seat is seat and not state.is_over:
        if state.dice is None:
            faces = dice.roll(5)
            log.append(
                LogEntry("roll", {"seat": seat.value, "hold": list(NO_HOLD), "faces": faces})
            )
            state = state.apply_roll(NO_HOLD, faces, by=seat)
            continue
        decision = player.decide(state.current_card, state.dice, state.rolls_left)
        if isinstance(decision, RollDecision) and (all(decision.hold) or not state.rolls_left):
            # Holding all five means "stop here" (as the server plays it).
            decision = player.decide(state.current_card, state.dice, 0)
        if isinstance(decision, RollDecision):
            hold = list(decision.hold)
            faces = dice.roll(hold.count(False))
            log.append(LogEntry("roll", {"seat": seat.value, "hold": hold, "faces": faces}))
            state = state.apply_roll(hold, faces, by=seat)
        else:
            assert isinstance(decision, ScoreDecision)
            log.append(LogEntry("score", {"seat": seat.value, "category": decision.category.value}))
            state = state.score(decision.category, by=seat)
    return state


def play_log(
    human: Player, dice: DiceSource, computer: Player | None = None
) -> tuple[list[LogEntry], GameState]:
    """Play a whole game (solo, or vs ``computer``) and return its log and final position."""
    mode = Mode.SOLO if computer is None else Mode.VS_COMPUTER
    difficulty = None if computer is None else computer.name
    log = [LogEntry("start", {"mode": mode.value, "difficulty": difficulty})]
    state = GameState.new(mode)
    while not state.is_over:
        player = human if state.seat is Seat.HUMAN else computer
        assert player is not None
        state = _turn(state, player, dice, log)
    return log, state
