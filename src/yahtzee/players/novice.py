"""入门 (novice): plays the way a first-time player does.

* Takes the sure thing: as soon as the roll already scores at least
  :data:`GOOD_ENOUGH` points in some open box other than 机会, it stops rolling.
* Otherwise chases an obvious pattern: a ready Yahtzee, full house or straight is kept
  whole; four in a row is kept for a straight; two pairs are kept for a full house; with
  no pair at all it keeps its high dice (5s and 6s); else the face it has most of.
* Writes the roll wherever it scores the most points right now (first on the card among
  equals), so it never plans for the upper bonus or saves a box for later.

No randomness: its weakness is short-sightedness, not noise.
"""

from __future__ import annotations

from yahtzee.rules import Category, Dice, Scorecard, legal_options
from yahtzee.turn import Decision, Keep, Position, Score

GOOD_ENOUGH = 12
"""Points in a box other than 机会 that make the novice stop rolling."""

_RUNS = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))


def _longest_run(dice: Dice) -> tuple[int, ...]:
    present = set(dice.values)
    for run in _RUNS:
        if present.issuperset(run):
            return run
    return ()


class NovicePlayer:
    """Greedy and short-sighted in the ways beginners are (see the module docstring)."""

    name = "novice"

    def decide(self, position: Position) -> Decision:
        """Keep an obvious pattern or the most common face; score the most points now."""
        card, dice = position.card, position.dice
        if position.rolls_left > 0:
            keep = self._keep(card, dice)
            if len(keep) < len(dice.values):
                return Keep(keep)
        return Score(self._box(card, dice))

    @staticmethod
    def _keep(card: Scorecard, dice: Dice) -> tuple[int, ...]:
        options = legal_options(card, dice)
        now = max((o.gain for o in options if o.category is not Category.CHANCE), default=0)
        if now >= GOOD_ENOUGH:
            return dice.sorted()
        counts = dice.counts
        most = max(counts)
        pairs = sorted(counts)[-2:]
        full_house_open = card.is_open(Category.FULL_HOUSE)
        if most == 5 or (pairs == [2, 3] and full_house_open):
            return dice.sorted()
        run = _longest_run(dice)
        straights_open = card.is_open(Category.LARGE_STRAIGHT) or card.is_open(
            Category.SMALL_STRAIGHT
        )
        if len(run) == 5 and straights_open:
            return dice.sorted()
        if len(run) == 4 and straights_open and most < 3:
            return run
        if pairs == [2, 2] and full_house_open:
            return tuple(f for f in dice.sorted() if counts[f - 1] == 2)
        if most == 1:
            return tuple(f for f in dice.sorted() if f >= 5)
        # The face it has most of; among equals the higher face ("bigger is better").
        face = max(range(1, 7), key=lambda f: (counts[f - 1], f))
        return (face,) * counts[face - 1]

    @staticmethod
    def _box(card: Scorecard, dice: Dice) -> Category:
        options = legal_options(card, dice)
        return max(options, key=lambda o: o.gain).category  # first in card order among equals
