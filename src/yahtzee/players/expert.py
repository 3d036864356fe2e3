"""高手 (expert): the optimal expected-value player (R8's computer and the hint source)."""

from __future__ import annotations

from yahtzee.solver import ValueTable, best_category, best_keep, load_table
from yahtzee.turn import Decision, Keep, Position, Score


class ExpertPlayer:
    """Maximises the expected final score: argmax of the solver's values.

    Keeps the dice with the best expected value; when the best is to stop (worth the best
    box now, the solver's ``E0``: never "hold all five and roll again") or no rolls are
    left, it scores in the box with the best value.
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

    def decide(self, position: Position) -> Decision:
        """The optimal action in ``position``."""
        table = self.table
        card, dice, rolls_left = position.card, position.dice, position.rolls_left
        if rolls_left > 0:
            keep = best_keep(card, dice, rolls_left, table)
            if len(keep) < len(dice.values):
                return Keep(keep)
        return Score(best_category(card, dice, table))
