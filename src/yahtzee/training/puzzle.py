"""A puzzle (L6): one decision of a real position, and its exact grading by the solver.

A :class:`PuzzlePosition` is what the player sees: the whole card (13 boxes and the Yahtzee
bonus so far), the dice, the rolls left and, for a keep, the faces held into the last
roll. An :class:`Answer` is what they do, as in the game: a keep (the faces to hold and
roll again, or ``"stop"`` to score now) or a box. :func:`grade` values every option with
the review's own function (:func:`yahtzee.review.analysis.position_choices`), so a
puzzle's numbers are the review's numbers: the loss, the mark (same thresholds) and every
option ranked by expected final score.

Each stored or sent form has a parse/print pair: :meth:`PuzzlePosition.parse` /
``str(position)`` (the bank's and the database's text), :meth:`PuzzlePosition.to_json`, and
:meth:`Answer.from_json` / :meth:`Answer.to_json`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from yahtzee.errors import IllegalMoveError, InvalidPuzzleError
from yahtzee.review.analysis import (
    STOP,
    Choice,
    Graded,
    position_choices,
)
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, score_options
from yahtzee.solver import ValueTable, load_table


@dataclass(frozen=True, slots=True)
class PuzzlePosition:
    """One decision: ``rolls_left`` 1 or 2 is a keep, 0 a box choice.

    ``held`` is the faces (ascending) held into the roll that gave ``dice``: empty after a
    turn's first roll. Its text form is ``"<card>|<dice>|<rolls_left>|<held>"``, e.g.
    ``"ones=3,sixes=24|13356|1|33"``.
    """

    card: Scorecard
    dice: Dice
    rolls_left: int
    held: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.card.is_complete:
            raise InvalidPuzzleError(f"the card {self.card} is full: nothing to decide")
        if self.rolls_left not in (0, 1, 2):
            raise InvalidPuzzleError(f"rolls left must be 0, 1 or 2, got {self.rolls_left!r}")
        if self.rolls_left == 2 and self.held:
            raise InvalidPuzzleError(f"nothing is held before the first roll, got {self.held}")
        if list(self.held) != sorted(self.held) or Counter(self.held) - Counter(self.dice):
            raise InvalidPuzzleError(f"held {self.held} is not among the dice {self.dice}")

    @property
    def kind(self) -> Literal["keep", "score"]:
        """``keep`` with rolls left, else ``score``."""
        return "keep" if self.rolls_left > 0 else "score"

    @property
    def round(self) -> int:
        """The round of this decision (1..13)."""
        return self.card.filled_count + 1

    def __str__(self) -> str:
        held = "".join(str(f) for f in self.held)
        return f"{self.card}|{self.dice}|{self.rolls_left}|{held}"

    @classmethod
    def parse(cls, text: str) -> PuzzlePosition:
        """The inverse of ``str()``; :class:`InvalidPuzzleError` naming the bad part."""
        parts = text.split("|")
        if len(parts) != 4:
            raise InvalidPuzzleError(f"a position is card|dice|rolls_left|held, got {text!r}")
        card, dice, rolls, held = parts
        if rolls not in ("0", "1", "2") or not all(ch in "123456" for ch in held):
            raise InvalidPuzzleError(f"bad rolls left or held faces in {text!r}")
        return cls(Scorecard.parse(card), Dice.parse(dice), int(rolls), tuple(map(int, held)))

    def to_json(self) -> dict[str, Any]:
        """The API's position: ``scores`` (filled boxes), the card's sums
        (``upper_subtotal``, ``upper_bonus``, ``yahtzee_bonus``), ``dice``,
        ``rolls_left``, ``held``, ``round``, ``kind``, ``total`` and ``preview``: what the
        dice would score in each open box now (the rules engine's, so the page does no
        rules maths), ``{"points", "allowed"}`` (``allowed`` false where the Joker rule
        forbids the box)."""
        scores = {c.value: p for c, p in zip(CATEGORIES, self.card.boxes, strict=True)}
        return {
            "scores": {k: v for k, v in scores.items() if v is not None},
            "upper_subtotal": self.card.upper_subtotal,
            "upper_bonus": self.card.upper_bonus,
            "yahtzee_bonus": self.card.yahtzee_bonus,
            "dice": list(self.dice.values),
            "rolls_left": self.rolls_left,
            "held": list(self.held),
            "round": self.round,
            "kind": self.kind,
            "total": self.card.total,
            "preview": {
                c.value: {"points": o.points, "allowed": o.legal}
                for c, o in score_options(self.card, self.dice).items()
            },
        }


@dataclass(frozen=True, slots=True)
class Answer:
    """A keep (faces ascending, or ``"stop"``) or a box: exactly one of the two."""

    keep: tuple[int, ...] | Literal["stop"] | None = None
    category: Category | None = None

    def __post_init__(self) -> None:
        if (self.keep is None) == (self.category is None):
            raise InvalidPuzzleError("an answer is a keep or a box, not both nor neither")

    @classmethod
    def from_json(cls, data: object) -> Answer:
        """``{"keep": [faces]}``, ``{"keep": "stop"}`` or ``{"category": id}``."""
        if not isinstance(data, dict) or len(data) != 1:
            raise InvalidPuzzleError(f"an answer is one of keep or category, got {data!r}"[:120])
        if "category" in data:
            value = data["category"]
            if not isinstance(value, str) or value not in {c.value for c in CATEGORIES}:
                raise InvalidPuzzleError(f"unknown box {value!r}"[:80])
            return cls(category=Category(value))
        keep = data.get("keep")
        if keep == STOP:
            return cls(keep=STOP)
        if (
            not isinstance(keep, list)
            or len(keep) > 4
            or not all(type(f) is int and 1 <= f <= 6 for f in keep)
        ):
            raise InvalidPuzzleError(
                f'keep must be "stop" or up to four faces 1-6, got {keep!r}'[:120]
            )
        return cls(keep=tuple(sorted(keep)))

    def to_json(self) -> dict[str, Any]:
        """The inverse of :meth:`from_json`."""
        if self.category is not None:
            return {"category": self.category.value}
        return {"keep": self.keep if self.keep == STOP else list(self.keep or ())}

    @classmethod
    def of(cls, choice: Choice) -> Answer:
        """The answer that picks ``choice``."""
        if choice.category is not None:
            return cls(category=choice.category)
        return cls(keep=choice.keep)

    def matches(self, choice: Choice) -> bool:
        """Whether this answer picks ``choice``."""
        if self.category is not None:
            return choice.category is self.category
        return choice.keep == self.keep


@dataclass(frozen=True, slots=True)
class Grade(Graded):
    """An answer judged by the solver: its option, every option best first, the loss."""

    position: PuzzlePosition
    chosen: Choice
    options: tuple[Choice, ...]


def options_of(position: PuzzlePosition, table: ValueTable | None = None) -> tuple[Choice, ...]:
    """Every option of the position, best first, as expected final scores (the review's
    function, so the same numbers)."""
    return position_choices(
        position.card, position.dice, position.rolls_left, table or load_table()
    )


def grade(position: PuzzlePosition, answer: Answer, table: ValueTable | None = None) -> Grade:
    """Grade ``answer`` exactly. :class:`IllegalMoveError` (naming it) when it is not an
    option of the position: a box with dice left to roll is "stop" here (as in the game,
    stopping writes a box: the box choice is a puzzle of its own), a used or forbidden
    box, faces that are not on the table."""
    if position.rolls_left > 0 and answer.category is not None:
        raise IllegalMoveError(
            f"with {position.rolls_left} rolls left the answer is a keep or stop, "
            f"not the box {answer.category.value}"
        )
    if position.rolls_left == 0 and answer.keep is not None:
        raise IllegalMoveError("with no rolls left the answer is a box, not a keep")
    options = options_of(position, table)
    chosen = next((o for o in options if answer.matches(o)), None)
    if chosen is None:
        if answer.category is not None:
            option = score_options(position.card, position.dice).get(answer.category)
            why = "is already used" if option is None else "is not allowed here (Joker rule)"
            raise IllegalMoveError(f"the box {answer.category.value} {why}")
        raise IllegalMoveError(f"the dice {position.dice} cannot keep {answer.keep}")
    return Grade(position, chosen, options)
