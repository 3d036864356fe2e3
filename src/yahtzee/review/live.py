"""The live meter (L4): the review's numbers for a game still being played.

Solo: the human's expected final score now (points on the card + the solver's value of the
position, dice included). Vs: also the human's chance to win, with the same models as the
review's timeline (:mod:`yahtzee.review.winprob`), from the exact position: mid-turn the
rest of the human's turn is enumerated from the dice on the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from yahtzee.game import Game, Mode, SeatKind
from yahtzee.review.analysis import _Side
from yahtzee.review.turns import model_for
from yahtzee.review.winprob import compare, live_table_chances, side
from yahtzee.solver import ValueTable, load_table


def live_meter(
    state: Game,
    difficulty: str | None,
    table: ValueTable | None = None,
    models: Sequence[str] | None = None,
) -> dict[str, Any]:
    """``{"expected_final": float, "win_probability": float | None}`` for the human; a
    table game (``models``: each seat's, ``expert`` for a person) also gives every seat's
    chance of first place (T5) and reckons for the seat on turn (the first person's while
    a computer plays)."""
    table = table or load_table()
    if state.mode is Mode.TABLE:
        assert models is not None
        return _table_meter(state, models, table)
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


def _table_meter(state: Game, models: Sequence[str], table: ValueTable) -> dict[str, Any]:
    seat = state.turn
    if state.is_over or state.kind is not SeatKind.HUMAN:
        seat = state.seats.index(SeatKind.HUMAN)
    card = state.card(seat)
    mid_turn = seat == state.turn and state.dice is not None and not state.is_over
    if card.is_complete:
        expected = float(card.total)
    elif mid_turn:
        assert state.dice is not None
        expected = _Side(seat, table).position_value(card, state.dice, state.rolls_left)
    else:
        expected = card.total + table.value(card)
    dice = state.dice if not state.is_over else None
    chances = live_table_chances(state.cards, models, state.turn, dice, state.rolls_left, table)
    return {
        "seat": seat,
        "expected_final": round(expected, 2),
        "win_probability": round(chances[seat], 4),
        "win_probabilities": [round(c, 4) for c in chances],
    }
