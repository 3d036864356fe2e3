"""The interface every computer player (and the hint button) implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from yahtzee.game import Hold
from yahtzee.rules import Category, Dice, Scorecard


@dataclass(frozen=True, slots=True)
class RollDecision:
    """Keep the dice marked in ``hold`` (by position) and reroll the others."""

    hold: Hold


@dataclass(frozen=True, slots=True)
class ScoreDecision:
    """Stop rolling and write the dice in ``category``."""

    category: Category


Decision = RollDecision | ScoreDecision


class Player(Protocol):
    """A computer player: given a position after a roll, what to do next.

    ``rolls_left`` is 0, 1 or 2 (there has been at least one roll this turn). With 0 the
    answer is always a :class:`ScoreDecision` for a legal box.
    """

    @property
    def name(self) -> str:
        """Stable id: ``"expert"``, ``"intermediate"`` or ``"novice"``."""
        ...

    def decide(self, card: Scorecard, dice: Dice, rolls_left: int) -> Decision:
        """The action this player takes with ``dice`` on ``card``."""
        ...
