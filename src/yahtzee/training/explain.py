"""The sentences after a 练习 answer (L9): the review's explanation of a graded choice.

The sentences themselves live in :mod:`yahtzee.review.explain`, one source for 练习 and
复盘 (L12): 复盘 sits below 练习 in the layers, so the machinery lives there and this
module hands it a puzzle.
"""

from __future__ import annotations

from yahtzee.i18n import Msg
from yahtzee.review.explain import SMALL, Spot, Target, chance, explain_graded, of_a_kind
from yahtzee.solver import ValueTable
from yahtzee.training.puzzle import Grade, PuzzlePosition


def spot_of(position: PuzzlePosition) -> Spot:
    """A puzzle's position as the explanations read it."""
    return Spot(position.card, position.dice, position.rolls_left)


def explain(grade: Grade, table: ValueTable | None = None) -> list[Msg]:
    """The explanation of a graded answer: short sentences, how good it was first, then
    the chances (a keep) or the boxes (a box); catalog messages, said in the reader's
    language where the answer is written."""
    return explain_graded(spot_of(grade.position), grade, table)


__all__ = ["SMALL", "Target", "chance", "explain", "of_a_kind", "spot_of"]
