"""高手 (expert): the optimal expected-value player (R8's computer and the hint source)."""

from __future__ import annotations

from yahtzee.players.base import Decision, RollDecision, ScoreDecision
from yahtzee.rules import Dice, Scorecard
from yahtzee.solver import ValueTable, best_category, best_keep, hold_for, load_table


class ExpertPlayer:
    """Maximises the expected final score: argmax of the solver's values.

    Keeps the dice with the best expected value; when stopping now (its value: the best
    box, the solver's ``E0``) beats every real keep, or no rolls are left, it scores in the
    box with the best value instead.
    """

    name = "expert"

    def __init__(self, table: ValueTable | None = None) -> None:
        self._table = table

    @property
    def table(self) -> ValueTable:
        """The solver table (loaded on first use, shared by the whole process)."""
        if self._table is None:
            self._table = load_table()
        return self._table

    def decide(self, card: Scorecard, dice: Dice, rolls_left: int) -> Decision:
        """The optimal action with ``dice`` on ``card`` and ``rolls_left`` rolls to come."""
        table = self.table
        if rolls_left > 0:
            keep = best_keep(card, dice, rolls_left, table)
            if len(keep) < 5:
                return RollDecision(hold_for(dice, keep))
        return ScoreDecision(best_category(card, dice, table))
