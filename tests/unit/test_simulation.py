"""The vectorised expert (:func:`yahtzee.simulation.play_expert`) from a card in progress."""

from __future__ import annotations

import numpy as np

from yahtzee.rules import UPPER_BONUS_THRESHOLD, Category, Dice, Scorecard
from yahtzee.simulation import play_expert
from yahtzee.solver import ValueTable


def test_play_expert_continues_a_card_to_its_expected_value(table: ValueTable) -> None:
    """From a card with 快艇 50 and a full upper box, the continuations fill only the open
    boxes, and their mean final total is the solver's exact value of the card (to four
    standard errors)."""
    card = (
        Scorecard()
        .score(Category.SIXES, Dice.of([6, 6, 6, 6, 1]))
        .score(Category.YAHTZEE, Dice.of([2, 2, 2, 2, 2]))
    )
    n = 20_000
    play = play_expert(table.flat, n, np.random.default_rng(11), card)
    assert np.all(play.boxes[:, Category.SIXES.index] == 0)
    assert np.all(play.boxes[:, Category.YAHTZEE.index] == 0)
    assert np.all(play.flag == 1)  # the 50 stays in the box
    assert np.all(play.upper >= card.upper_subtotal)
    finals = card.total + play.gained(card.upper_subtotal)
    expected = card.total + table.value(card)
    se = float(finals.std()) / np.sqrt(n)
    assert abs(float(finals.mean()) - expected) < 4 * se
    # a bonus made before the continuation is not earned again
    made = play.upper >= UPPER_BONUS_THRESHOLD
    assert np.array_equal(play.upper_bonus(UPPER_BONUS_THRESHOLD), np.zeros(n, dtype=bool))
    assert np.array_equal(play.upper_bonus(card.upper_subtotal), made)
