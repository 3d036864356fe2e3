"""Why a hint is good, in expected points: what the hint button teaches (U4, "期望值").

A hint names one action. Next to it the player is shown what the expert's table says that
action is worth — the points still to come, on average, if they follow it and play well
afterwards — and what the best *other* choice is worth. The difference is the lesson: the
advice is not a hunch, it wins that many points on average.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from yahtzee import log
from yahtzee.rules import Category, Dice, Scorecard
from yahtzee.solver import CategoryOption, KeepOption, Option, StopOption, advise, hold_for


@dataclass(frozen=True, slots=True)
class Choice:
    """One action and its value (expected points still to be added to the total)."""

    hold: tuple[bool, ...] | None
    category: Category | None
    value: float

    def to_json(self) -> dict[str, object]:
        """``{"hold": [...] | null, "category": id | null, "value": float}``."""
        return {
            "hold": list(self.hold) if self.hold is not None else None,
            "category": self.category.value if self.category is not None else None,
            "value": round(self.value, 2),
        }


@dataclass(frozen=True, slots=True)
class Explanation:
    """The advised action's value and the best alternative (``None`` when there is none)."""

    advised: Choice
    alternative: Choice | None


def explain(
    card: Scorecard,
    dice: Dice,
    rolls_left: int,
    hold: tuple[bool, ...] | None,
    category: Category | None,
) -> Explanation | None:
    """Value the hint (``hold`` to roll on, or ``category`` to score) against the rest.

    With rolls left the choices are the keeps of fewer than five dice and stopping to write
    the best box (worth that box's value); with none left they are the legal boxes. Returns
    ``None`` when the hint is not among the ranked options (it always is for the expert).
    """
    ranked = advise(card, dice, rolls_left).options
    choices = [_choice(option, dice) for option in ranked]
    if hold is not None:
        match = [c for c in choices if c.hold is not None and _same_faces(dice, c.hold, hold)]
    else:
        match = [c for c in choices if c.category is category]
    if not match:
        return None
    others = [c for c in choices if c is not match[0]]
    # Report the hint's own positions (several positions can hold the same faces).
    advised = Choice(hold, category, match[0].value)
    return Explanation(advised, max(others, key=lambda c: c.value, default=None))


def _choice(option: Option, dice: Dice) -> Choice:
    if isinstance(option, CategoryOption | StopOption):
        return Choice(None, option.category, option.value)
    assert isinstance(option, KeepOption)
    return Choice(hold_for(dice, option.keep), None, option.value)


def _same_faces(dice: Dice, a: tuple[bool, ...], b: tuple[bool, ...]) -> bool:
    """Whether two holds keep the same faces (possibly at different positions)."""
    kept_a = Counter(v for v, h in zip(dice.values, a, strict=True) if h)
    kept_b = Counter(v for v, h in zip(dice.values, b, strict=True) if h)
    return kept_a == kept_b


@dataclass(frozen=True, slots=True)
class Advice:
    """A spent hint (U4) as the page is shown it: the logged event, whose ``hold`` (roll
    on, keeping these) or ``category`` (write here) is the expert's advice, and its
    :class:`Explanation` (``None`` only if the advice is not among the solver's ranked
    options)."""

    event: log.Hint
    explanation: Explanation | None
