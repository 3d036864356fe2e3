"""The injected dice sources that tests use: a script is dealt in order."""

from __future__ import annotations

import pytest

from yahtzee.dice import ScriptedDice


def test_a_script_is_dealt_in_order_and_then_runs_out() -> None:
    dice = ScriptedDice([1, 2, 3, 4, 5, 6, 6])
    assert dice.roll(5) == [1, 2, 3, 4, 5]
    with pytest.raises(IndexError, match="wanted 5, 2 left"):
        dice.roll(5)
    assert dice.roll(2) == [6, 6]


def test_a_repeating_script_starts_over_however_often_it_is_asked() -> None:
    dice = ScriptedDice([3, 3, 3, 3, 3, 6], repeat=True)
    assert [dice.roll(5) for _ in range(3)] == [[3, 3, 3, 3, 3], [6, 3, 3, 3, 3], [3, 6, 3, 3, 3]]
    with pytest.raises(ValueError, match="at least one face"):
        ScriptedDice([], repeat=True)
