"""Whole games played by computer players, written as event logs.

The tests review thousands of these (every level in the human's seat) and the benchmark
and the win-probability reference use them; the logs are :mod:`yahtzee.log` events, the
same the server stores, so the review cannot tell them apart. Every turn is
:func:`yahtzee.turn.play_turn`.
"""

from __future__ import annotations

from yahtzee import log
from yahtzee.dice import DiceSource
from yahtzee.game import Game, Mode
from yahtzee.turn import Player, play_turn


def play_log(
    human: Player, dice: DiceSource, computer: Player | None = None
) -> tuple[list[log.Event], Game]:
    """Play a whole game (solo, or vs ``computer``) and return its log and final position."""
    mode = Mode.SOLO if computer is None else Mode.VS_COMPUTER
    start = log.Start.of(mode, None if computer is None else computer.name)
    events: list[log.Event] = [start]
    players = (human,) if computer is None else (human, computer)
    state = start.game()
    while not state.is_over:
        turn = play_turn(state, players[state.turn], dice)
        events.extend(step.event for step in turn.steps)
        state = turn.state
    return events, state
