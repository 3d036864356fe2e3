"""普通 (intermediate): a sensible player who thinks one turn ahead.

It plans its rolls properly for *this* turn — the expected value of every keep with the
rolls it has left — but judges the outcome with a rule of thumb instead of looking
further ahead: points now, minus what a box is usually worth (so it prefers not to waste
a good box), plus a nudge for staying on course for the upper bonus. Like a person it is
not perfectly consistent: among options within a couple of points of its favourite it
sometimes picks another, weighted by value, from a seeded random generator.
"""

from __future__ import annotations

import math
import random

import numpy as np

from yahtzee.lru import LruCache
from yahtzee.rules import FACES, UPPER, UPPER_BONUS_THRESHOLD, Scorecard, legal_options
from yahtzee.solver import TurnArrays, roll_gains, state_of
from yahtzee.turn import Decision, Keep, Position, Score

# What a box is typically worth to a decent player; writing a roll there "costs" this.
TYPICAL = np.array(
    [2.0, 5.0, 8.5, 12.0, 15.0, 18.0, 20.0, 10.0, 20.0, 26.0, 28.0, 12.0, 22.0],
    dtype=np.float64,
)
PAR_WEIGHT = 0.8  # points of "feeling" per point above/below three-of-a-face in the upper box
MARGIN = 2.0  # options this close to the favourite are tempting...
TEMPERATURE = 1.0  # ...with probability ~ exp(value / TEMPERATURE)
_PAR = 3 * np.array(FACES, dtype=np.float64)[:, None]  # three of each face, per upper box


def _heuristic_e0(card: Scorecard) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
    """This turn's value of writing each roll in its best box, by the rule of thumb."""
    gains, points = roll_gains(card)
    h = gains - TYPICAL[:, None]
    if card.upper_subtotal < UPPER_BONUS_THRESHOLD:
        h[: len(UPPER)] += PAR_WEIGHT * (points[: len(UPPER)] - _PAR)
    e0: np.ndarray[tuple[int], np.dtype[np.float64]] = h.max(axis=0)
    return e0


# ~12 kB each; early-game states recur in every game
_cache: LruCache[tuple[int, int, int], TurnArrays] = LruCache(1024)


def _arrays(card: Scorecard) -> TurnArrays:
    """This state's rule-of-thumb turn arrays (deterministic, so shared process-wide)."""
    return _cache.get_or_compute(state_of(card), lambda: TurnArrays(_heuristic_e0(card)))


class IntermediatePlayer:
    """One-turn planner with a rule-of-thumb future (see the module docstring)."""

    name = "intermediate"

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng if rng is not None else random.Random()

    def _pick(self, values: list[float]) -> int:
        best = max(values)
        near = [i for i, v in enumerate(values) if v >= best - MARGIN]
        weights = [math.exp((values[i] - best) / TEMPERATURE) for i in near]
        return self._rng.choices(near, weights)[0]

    def decide(self, position: Position) -> Decision:
        """Best keep for this turn by expected rule-of-thumb value, sometimes a near one."""
        card, dice = position.card, position.dice
        if position.rolls_left > 0:
            keeps, values = _arrays(card).choices(dice, position.rolls_left)
            keep = keeps[self._pick(values)]
            if len(keep) < len(dice.values):
                return Keep(keep)
        options = legal_options(card, dice)
        up = card.upper_subtotal
        values = []
        for o in options:
            value = o.gain - float(TYPICAL[o.category.index])
            face = o.category.face
            if face is not None and up < UPPER_BONUS_THRESHOLD:
                value += PAR_WEIGHT * (o.points - 3 * face)
            values.append(value)
        return Score(options[self._pick(values)].category)
