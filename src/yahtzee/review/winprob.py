"""The human's chance to win a vs game from any round (L4): P(win) + P(draw) / 2.

The human is modelled as the expert, the computer as its real level; the two play
independently (neither looks at the other's card), so each side's final total has its
own distribution and the chance to win compares the two. Each side is described as a
mixture of components (weight, mean, variance) of its final total:

* **exact** when at most :data:`EXACT_TURNS` turns are left: every way the remaining
  turns can go is enumerated with the level's exact turn outcomes
  (:mod:`yahtzee.review.turns`), giving the distribution of the final total itself
  (components of variance 0);
* **otherwise** the next turn is still enumerated exactly (the lumps that matter most: a
  Yahtzee now, the bonus now) and after it each successor state gets a normal tail: mean
  = points + the solver's value − the level's mean shortfall, variance from the same
  calibration, both per (level, turns left, 快艇-box and upper-bonus status), measured on
  simulated games by ``scripts/winprob_calibration.py`` and shipped as
  ``winprob_calibration.json``. The expert's shortfall is 0 by definition (the solver's
  value is its exact mean).

P(H > C) + P(H = C)/2 between two mixtures is the weighted sum over pairs of components
of Φ((μ_H − μ_C) / √(σ_H² + σ_C²)); between two exact components it is 1, ½ or 0. The
measured error against simulations is in the README.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from importlib import resources
from threading import Lock

import numpy as np
import numpy.typing as npt

from yahtzee.review.turns import (
    ExpertModel,
    Model,
    State,
    cached_outcomes,
    canonical,
    model_for,
    state_at,
)
from yahtzee.rules import CATEGORIES, UPPER_BONUS_THRESHOLD, Scorecard
from yahtzee.solver import ValueTable, load_table, state_of
from yahtzee.solver.tables import YAHTZEE_BIT

F64 = npt.NDArray[np.float64]
EXACT_TURNS = 2
"""Up to this many turns left, a side's distribution is enumerated exactly."""
MIN_SAMPLES = 200
"""Calibration cells with fewer samples fall back to all cells with the same turns left."""
_FULL_MASK = (1 << len(CATEGORIES)) - 1


def features(state: State) -> str:
    """The calibration's state features: 快艇 box (o open, y 50, z 0) and upper bonus
    (o open, m made, x out of reach)."""
    mask, up, flag = state
    y = "o" if not mask & YAHTZEE_BIT else ("y" if flag else "z")
    open_faces = sum(f for f in range(1, 7) if not mask >> (f - 1) & 1)
    if up >= UPPER_BONUS_THRESHOLD:
        b = "m"
    elif up + 5 * open_faces < UPPER_BONUS_THRESHOLD:
        b = "x"
    else:
        b = "o"
    return y + b


@dataclass(frozen=True, slots=True)
class Calibration:
    """Per level and ``"turns_left:features"``: (samples, mean shortfall, variance)."""

    cells: dict[str, dict[str, tuple[int, float, float]]]

    def tail(self, level: str, turns_left: int, state: State) -> tuple[float, float]:
        """(shortfall, variance) of the points still to come from ``state``."""
        cells = self.cells[level]
        hit = cells.get(f"{turns_left}:{features(state)}")
        if hit is not None and hit[0] >= MIN_SAMPLES:
            return hit[1], hit[2]
        # Pool every cell with these turns left (law of total variance).
        prefix = f"{turns_left}:"
        pooled = [c for k, c in cells.items() if k.startswith(prefix)]
        n = sum(c[0] for c in pooled)
        mean = sum(c[0] * c[1] for c in pooled) / n
        second = sum(c[0] * (c[2] + c[1] * c[1]) for c in pooled) / n
        return mean, second - mean * mean


@cache
def calibration() -> Calibration:
    """The shipped calibration (read once per process)."""
    text = resources.files("yahtzee.review").joinpath("winprob_calibration.json").read_text("utf-8")
    data = json.loads(text)
    return Calibration(
        {
            level: {k: (int(v[0]), float(v[1]), float(v[2])) for k, v in cells.items()}
            for level, cells in data["levels"].items()
        }
    )


@dataclass(frozen=True, slots=True)
class Mixture:
    """A distribution of a final total as weighted components (mean, variance)."""

    weights: F64
    means: F64
    variances: F64


_exact: OrderedDict[tuple[str, State], F64] = OrderedDict()
_exact_lock = Lock()
_EXACT_CACHE = 20_000


def remaining_distribution(model: Model, state: State) -> F64:
    """Exact distribution of the points still to come from turn-start ``state``
    (canonical): ``out[x]`` = P(x more points). Memoised (LRU)."""
    key = (model.name, state)
    with _exact_lock:
        hit = _exact.get(key)
        if hit is not None:
            _exact.move_to_end(key)
            return hit
    if state[0] == _FULL_MASK:
        out = np.ones(1)
    else:
        succ, gain, prob = cached_outcomes(model, state)
        parts = [(g, p, remaining_distribution(model, state_at(s))) for s, g, p in
                 zip(succ.tolist(), gain.tolist(), prob.tolist(), strict=True)]  # fmt: skip
        out = np.zeros(max(g + len(d) for g, _, d in parts))
        for g, p, d in parts:
            out[g : g + len(d)] += p * d
    with _exact_lock:
        _exact[key] = out
        while len(_exact) > _EXACT_CACHE:
            _exact.popitem(last=False)
    return out


def side(model: Model, card: Scorecard, table: ValueTable) -> Mixture:
    """The distribution of this player's final total from the start of its next turn."""
    state = canonical(state_of(card))
    total = float(card.total)
    left = len(CATEGORIES) - card.filled_count
    if left <= EXACT_TURNS:
        dist = remaining_distribution(model, state)
        support = np.nonzero(dist)[0]
        means: F64 = (total + support).astype(np.float64)
        return Mixture(dist[support], means, np.zeros(len(support)))
    succ, gain, prob = cached_outcomes(model, state)
    cal = calibration()
    means = np.empty(len(succ))
    variances = np.empty(len(succ))
    for i, s in enumerate(succ.tolist()):
        shortfall, variance = cal.tail(model.name, left - 1, state_at(s))
        if isinstance(model, ExpertModel):
            shortfall = 0.0  # the solver's value is the expert's exact mean
        means[i] = total + gain[i] + float(table.flat[s]) - shortfall
        variances[i] = variance
    return Mixture(prob, means, variances)


def _phi(z: F64) -> F64:
    """Standard normal CDF (Abramowitz & Stegun 7.1.26 erf, |error| < 1.5e-7)."""
    x = np.abs(z) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    a1, a2, a3, a4, a5 = 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429
    poly = t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))))
    erf = 1.0 - poly * np.exp(-x * x)
    out: F64 = 0.5 * (1.0 + np.sign(z) * erf)
    return out


def compare(h: Mixture, c: Mixture) -> float:
    """P(H > C) + P(H = C) / 2 for independent mixtures."""
    diff = h.means[:, None] - c.means[None, :]
    var = h.variances[:, None] + c.variances[None, :]
    exact = var <= 0
    z = np.where(exact, 0.0, diff / np.sqrt(np.where(exact, 1.0, var)))
    p = np.where(exact, np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5)), _phi(z))
    return float(h.weights @ p @ c.weights)


_win_cache: OrderedDict[tuple[State, int, State, int, str], float] = OrderedDict()
_WIN_CACHE = 4096


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
    with _exact_lock:
        hit = _win_cache.get(key)
    if hit is not None:
        return hit
    p = compare(
        side(model_for("expert", table), human, table),
        side(model_for(level, table), computer, table),
    )
    p = min(1.0, max(0.0, p))
    with _exact_lock:
        _win_cache[key] = p
        while len(_win_cache) > _WIN_CACHE:
            _win_cache.popitem(last=False)
    return p


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
