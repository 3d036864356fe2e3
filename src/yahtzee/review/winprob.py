"""The human's chance to win a vs game from any round (L4): P(win) + P(draw) / 2.

The human is modelled as the expert, the computer as its real level; the two play
independently (neither looks at the other's card), so each side's final total has its
own distribution (a :class:`Side`: probabilities over whole points) and the chance to win
compares the two with one cumulative sum.

* **exact** from the start of a turn with at most ``EXACT_TURNS + 1`` turns left (or
  mid-turn with at most that many, the current one included): the next turn is enumerated
  with the level's exact turn outcomes (:mod:`yahtzee.review.turns`) and after it every way
  the last :data:`EXACT_TURNS` turns can go;
* **otherwise** the next turn is enumerated exactly (a Yahtzee now, the bonus now) and
  after it each successor state's points still to come are a mixture over the **event
  combinations** the state still allows — 40 in the large straight or not, the upper
  bonus made or not, 50 in the 快艇 box or not, a 100-point 快艇 bonus or not — with each
  combination's exact probability and the exact mean and standard deviation given it (a
  backward pass over every state with the level's own policy,
  :mod:`yahtzee.review.moments`); given the combination, a normal curve. The big lumps
  (40, 35, 50, 100 points or nothing) are thus where they belong instead of being smeared
  out, and each state's own spread and, for the computer levels, its own shortfall
  against the solver are exact.

Measured (``scripts/winprob_reference.py``, README): within ±0.01 of a 200,000-game
simulation at every tested position of rounds 1–12; exact from round 7 on; against exact
enumeration at round 6, 0.008 RMS, with 4 positions of 36 off by 0.01–0.04 (the small
straight's and full house's lumps are not modelled).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from yahtzee.lru import LruCache
from yahtzee.review.moments import moments
from yahtzee.review.turns import (
    ExpertModel,
    Model,
    State,
    cached_outcomes,
    canonical,
    model_for,
    state_at,
    turn_outcomes,
)
from yahtzee.rules import CATEGORIES, Dice, Scorecard
from yahtzee.solver import ValueTable, load_table, state_of
from yahtzee.solver.tables import dice_index

F64 = npt.NDArray[np.float64]
EXACT_TURNS = 5
"""Up to this many turns left, a side's distribution is enumerated exactly (and with one
more, after the next turn's exact outcomes). 5 makes round 7 exact for a median 36 ms
more a vs review; 6 would cost about 150 ms more (README)."""
_FULL_MASK = (1 << len(CATEGORIES)) - 1


def _normal_cdf(x: F64) -> F64:
    """Φ(x) by Abramowitz & Stegun 7.1.26 (|error| < 1e-7, far below what matters here)."""
    z = np.abs(x) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = 1.0 - poly * np.exp(-z * z)
    out: F64 = 0.5 * (1.0 + np.sign(x) * erf)
    return out


@dataclass(frozen=True, slots=True)
class Side:
    """One player's final total as a distribution over whole points:
    ``pmf[k]`` = P(total = ``start`` + k); ``mean`` is its exact mean."""

    start: int
    pmf: F64
    mean: float

    @classmethod
    def exact(cls, weights: F64, totals: npt.NDArray[np.intp]) -> Side:
        """Point masses ``weights`` at the whole-point ``totals``."""
        start = int(totals.min())
        pmf = np.bincount(totals - start, weights=weights).astype(np.float64)
        return cls(start, pmf, float(weights @ totals))


_exact: LruCache[tuple[str, State], F64] = LruCache(20_000)


def remaining_distribution(model: Model, state: State) -> F64:
    """Exact distribution of the points still to come from turn-start ``state``
    (canonical): ``out[x]`` = P(x more points). Memoised (LRU)."""
    return _exact.get_or_compute((model.name, state), lambda: _remaining(model, state))


def _remaining(model: Model, state: State) -> F64:
    if state[0] == _FULL_MASK:
        return np.ones(1)
    succ, gain, prob = cached_outcomes(model, state)
    parts = [(g, p, remaining_distribution(model, state_at(s))) for s, g, p in
             zip(succ.tolist(), gain.tolist(), prob.tolist(), strict=True)]  # fmt: skip
    out = np.zeros(max(g + len(d) for g, _, d in parts))
    for g, p, d in parts:
        out[g : g + len(d)] += p * d
    return out


def side(
    model: Model,
    card: Scorecard,
    table: ValueTable,
    dice: Dice | None = None,
    rolls_left: int = 2,
) -> Side:
    """The distribution of this player's final total from the start of its next turn, or
    (``dice``) from this roll of the current turn with ``rolls_left`` rolls to come."""
    state = canonical(state_of(card))
    total = card.total
    left = len(CATEGORIES) - card.filled_count
    if dice is None and left <= EXACT_TURNS:
        dist = remaining_distribution(model, state)
        support = np.nonzero(dist)[0]
        return Side.exact(dist[support], total + support)
    if dice is None:
        succ, gain, prob = cached_outcomes(model, state)
    else:
        succ, gain, prob = turn_outcomes(model, state, dice_index(dice.values), rolls_left)
    if left - 1 > EXACT_TURNS:
        return _tails(model, total, succ, gain, prob, table)
    weights, totals = [], []
    for s, g, p in zip(succ.tolist(), gain.tolist(), prob.tolist(), strict=True):
        dist = remaining_distribution(model, state_at(s))
        support = np.nonzero(dist)[0]
        weights.append(p * dist[support])
        totals.append(total + g + support)
    return Side.exact(np.concatenate(weights), np.concatenate(totals))


def _tails(
    model: Model,
    total: int,
    succ: npt.NDArray[np.intp],
    gain: npt.NDArray[np.intp],
    prob: F64,
    table: ValueTable,
) -> Side:
    """After one enumerated turn: for each successor and each event combination it still
    allows (:mod:`yahtzee.review.moments`), a normal curve with the exact conditional mean
    and sd of the points still to come, weighted by the combination's exact probability."""
    mom = moments(model.name)
    owner, entry = mom.entries(succ)
    weight = prob[owner] * mom.p[entry]
    s = succ[owner]
    centre = total + gain[owner] + table.flat[s].astype(np.float64) - mom.shortfall[entry]
    if isinstance(model, ExpertModel):
        # The expert's mean is exactly the solver's value: take out the rounding of the
        # stored shortfalls (quarter points) so the mean is that value to the float.
        off = np.bincount(owner, weights=mom.p[entry] * mom.shortfall[entry], minlength=len(succ))
        centre += off[owner]
    # A floor on the scale: some combinations leave (almost) nothing to chance.
    scale = np.maximum(mom.sd[entry], 0.3)
    lo = int(np.floor(float(np.min(centre - 7 * scale))))
    hi = int(np.ceil(float(np.max(centre + 7 * scale))))
    # P(total = t) = P(t − ½ ≤ normal < t + ½), from the CDF at the half points.
    edges = np.arange(lo, hi + 2, dtype=np.float64) - 0.5
    cdf = _normal_cdf((edges[None, :] - centre[:, None]) / scale[:, None])
    pmf = weight @ np.diff(cdf, axis=1)
    return Side(lo, pmf / pmf.sum(), float(weight @ centre))


def compare(h: Side, c: Side) -> float:
    """P(H > C) + P(H = C) / 2 for independent sides."""
    lo = min(h.start, c.start)
    size = max(h.start + len(h.pmf), c.start + len(c.pmf)) - lo
    ph, pc = np.zeros(size), np.zeros(size)
    ph[h.start - lo : h.start - lo + len(h.pmf)] = h.pmf
    pc[c.start - lo : c.start - lo + len(c.pmf)] = c.pmf
    below = np.cumsum(pc) - pc  # P(C < t)
    return float(ph @ (below + 0.5 * pc) / (ph.sum() * pc.sum()))


_win_cache: LruCache[tuple[State, int, State, int, str], float] = LruCache(4096)


def win_probability(
    human: Scorecard, computer: Scorecard, level: str, table: ValueTable | None = None
) -> float:
    """The human's P(win) + P(draw)/2, both at the start of their next turns (or done)."""
    table = table or load_table()
    key = (
        canonical(state_of(human)),
        human.total,
        canonical(state_of(computer)),
        computer.total,
        level,
    )
    return _win_cache.get_or_compute(key, lambda: _win(human, computer, level, table))


def _win(human: Scorecard, computer: Scorecard, level: str, table: ValueTable) -> float:
    p = compare(
        side(model_for("expert", table), human, table),
        side(model_for(level, table), computer, table),
    )
    return min(1.0, max(0.0, p))


def timeline(
    human_cards: tuple[Scorecard, ...],
    computer_cards: tuple[Scorecard, ...],
    level: str,
    table: ValueTable | None = None,
) -> list[float]:
    """Win probabilities before round 1 and after each round (the review's timeline)."""
    return [
        win_probability(h, c, level, table)
        for h, c in zip(human_cards, computer_cards, strict=True)
    ]
