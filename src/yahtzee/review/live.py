"""The live meter (L4): the review's numbers for a game still being played.

Solo: the human's expected final score now (points on the card + the solver's value of the
position, dice included). Vs: also the human's chance to win, with the same models as the
review's timeline (:mod:`yahtzee.review.winprob`), from the exact position: mid-turn the
rest of the human's turn is enumerated from the dice on the table.
"""

from __future__ import annotations

from typing import Any

from yahtzee.game import Game, Mode, SeatKind
from yahtzee.review.analysis import _Side
from yahtzee.review.turns import model_for
from yahtzee.review.winprob import compare, side
from yahtzee.solver import ValueTable, load_table


def live_meter(
    state: Game, difficulty: str | None, table: ValueTable | None = None
) -> dict[str, Any]:
    """``{"expected_final": float, "win_probability": float | None}`` for the human."""
    table = table or load_table()
    card = state.card(0)  # the person's seat in a solo or vs game
    human_turn = state.kind is SeatKind.HUMAN and state.dice is not None and not state.is_over
    if card.is_complete:
        expected = float(card.total)
    elif human_turn:
        assert state.dice is not None
        analysis = _Side(0, table)
        expected = analysis.position_value(card, state.dice, state.rolls_left)
    else:
        expected = card.total + table.value(card)
    chance = None
    if state.mode is Mode.VS_COMPUTER and difficulty is not None:
        dice = state.dice if human_turn else None
        rolls_left = state.rolls_left if human_turn else 2
        mine = side(model_for("expert", table), card, table, dice, rolls_left)
        theirs = side(model_for(difficulty, table), state.card(1), table)
        chance = min(1.0, max(0.0, compare(mine, theirs)))
    return {
        "expected_final": round(expected, 2),
        "win_probability": None if chance is None else round(chance, 4),
    }
