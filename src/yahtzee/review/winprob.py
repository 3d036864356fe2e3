"""The human's chance to win a vs game from any round (L4): P(win) + P(draw) / 2.

The human is modelled as the expert, the computer as its real level; the two play
independently (neither looks at the other's card), so each side's final total has its
own distribution and the chance to win compares the two. Each side is a list of
components ``(weight, base, tail)``: the final total is ``base - x`` with ``x`` drawn from
the tail's distribution (none: exactly ``base``).

* **exact** when at most :data:`EXACT_TURNS` turns are left: every way the remaining
  turns can go is enumerated with the level's exact turn outcomes
  (:mod:`yahtzee.review.turns`); the components are the possible final totals;
* **otherwise** the next turn is enumerated exactly (a Yahtzee now, the bonus now) and
  after it each successor state gets an empirical tail: ``base`` = points + the solver's
  value of the successor, ``x`` = (solver value − points the level really went on to
  score), whose distribution was measured on simulated games per (level, turns left,
  快艇-box and upper-bonus status) by ``scripts/winprob_calibration.py`` and ships as
  ``winprob_calibration.json`` (2-point bins). The tails keep the lumps a normal curve
  would smooth away (a last-turn Yahtzee is 50 points or nothing). For the expert the
  tail is centred: the solver's value is its exact mean.

For two components P(H > C) + P(H = C)/2 = P(x_H − x_C < base_H − base_C): the
distribution of x_H − x_C is the convolution of the two tails (cached per pair). The
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
    turn_outcomes,
)
from yahtzee.rules import CATEGORIES, UPPER_BONUS_THRESHOLD, Dice, Scorecard
from yahtzee.solver import ValueTable, load_table, state_of
from yahtzee.solver.tables import YAHTZEE_BIT, dice_index

F64 = npt.NDArray[np.float64]
EXACT_TURNS = 4
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


Tail = tuple[float, npt.NDArray[np.float64], int]
"""A tail: (mean of x, probabilities of x on the grid, x of the first grid point / BIN)."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """Per level and ``"turns_left:features"``: the distribution of x (see the module)."""

    bin: int
    cells: dict[str, dict[str, tuple[int, Tail]]]

    def tail(self, level: str, turns_left: int, state: State) -> tuple[str, Tail]:
        """The tail's key and distribution for ``state`` with ``turns_left`` turns left."""
        cells = self.cells[level]
        key = f"{turns_left}:{features(state)}"
        hit = cells.get(key)
        if hit is not None and hit[0] >= MIN_SAMPLES:
            return key, hit[1]
        return f"{turns_left}:*", self.pooled(level, turns_left)

    def pooled(self, level: str, turns_left: int) -> Tail:
        """Every cell with these turns left together (for rare states)."""
        return _pooled(self, level, turns_left)


_POOLED: dict[tuple[str, int], Tail] = {}


def _pooled(cal: Calibration, level: str, turns_left: int) -> Tail:
    hit = _POOLED.get((level, turns_left))
    if hit is not None:
        return hit
    prefix = f"{turns_left}:"
    parts = [c for k, c in cal.cells[level].items() if k.startswith(prefix)]
    lo = min(t[2] for _, t in parts)
    hi = max(t[2] + len(t[1]) for _, t in parts)
    probs = np.zeros(hi - lo)
    n = sum(count for count, _ in parts)
    mean = 0.0
    for count, (m, p, start) in parts:
        probs[start - lo : start - lo + len(p)] += count / n * p
        mean += count / n * m
    _POOLED[(level, turns_left)] = (mean, probs, lo)
    return mean, probs, lo


def _tail(raw: list[list[int]]) -> Tail:
    bins = np.array([b for b, _ in raw], dtype=np.intp)
    counts = np.array([k for _, k in raw], dtype=np.float64)
    probs = np.zeros(int(bins.max() - bins.min()) + 1)
    probs[bins - bins.min()] = counts / counts.sum()
    return 0.0, probs, int(bins.min())


@cache
def calibration() -> Calibration:
    """The shipped calibration (read once per process)."""
    text = resources.files("yahtzee.review").joinpath("winprob_calibration.json").read_text("utf-8")
    data = json.loads(text)
    width = int(data["bin"])
    cells: dict[str, dict[str, tuple[int, Tail]]] = {}
    for level, raw in data["levels"].items():
        cells[level] = {}
        for key, (n, mean, _var, hist) in raw.items():
            _, probs, start = _tail(hist)
            cells[level][key] = (int(n), (float(mean), probs, start))
    return Calibration(width, cells)


@dataclass(frozen=True, slots=True)
class Side:
    """One player's final total: components ``base - x`` (``x`` from the named tail, or 0
    where the tail is ``None``), with their weights."""

    weights: F64
    bases: F64
    tails: tuple[str | None, ...]
    tail_of: dict[str, Tail]


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
    total = float(card.total)
    left = len(CATEGORIES) - card.filled_count
    if dice is not None:
        succ, gain, prob = turn_outcomes(model, state, dice_index(dice.values), rolls_left)
        if left - 1 <= EXACT_TURNS:
            weights, bases_list = [], []
            for s, g, p in zip(succ.tolist(), gain.tolist(), prob.tolist(), strict=True):
                dist = remaining_distribution(model, state_at(s))
                support = np.nonzero(dist)[0]
                weights.append(p * dist[support])
                bases_list.append(total + g + support)
            w = np.concatenate(weights)
            b: F64 = np.concatenate(bases_list).astype(np.float64)
            return Side(w, b, (None,) * len(w), {})
        return _tails(model, total, left, succ, gain, prob, table)
    if left <= EXACT_TURNS:
        dist = remaining_distribution(model, state)
        support = np.nonzero(dist)[0]
        bases: F64 = (total + support).astype(np.float64)
        return Side(dist[support], bases, (None,) * len(support), {})
    succ, gain, prob = cached_outcomes(model, state)
    return _tails(model, total, left, succ, gain, prob, table)


def _tails(
    model: Model,
    total: float,
    left: int,
    succ: npt.NDArray[np.intp],
    gain: npt.NDArray[np.intp],
    prob: F64,
    table: ValueTable,
) -> Side:
    """Components after one enumerated turn, each with its empirical tail."""
    cal = calibration()
    bases = np.empty(len(succ))
    tails: list[str | None] = []
    tail_of: dict[str, Tail] = {}
    for i, s in enumerate(succ.tolist()):
        key, tail = cal.tail(model.name, left - 1, state_at(s))
        key = f"{model.name}|{key}"
        tail_of[key] = tail
        tails.append(key)
        # The expert's tail is centred: the solver's value is its exact mean.
        centre = tail[0] if isinstance(model, ExpertModel) else 0.0
        bases[i] = total + gain[i] + float(table.flat[s]) + centre
    return Side(prob, bases, tuple(tails), tail_of)


_CDF: dict[tuple[str | None, str | None], tuple[F64, F64]] = {}


def _difference_cdf(h: Side, kh: str | None, c: Side, kc: str | None) -> tuple[F64, F64]:
    """Points (xp, fp) of the CDF of x_H − x_C for np.interp (2-point grid, each grid mass
    spread over its bin)."""
    key = (kh, kc)
    hit = _CDF.get(key)
    if hit is not None:
        return hit
    width = calibration().bin
    ph, sh = (h.tail_of[kh][1], h.tail_of[kh][2]) if kh is not None else (np.ones(1), 0)
    pc, sc = (c.tail_of[kc][1], c.tail_of[kc][2]) if kc is not None else (np.ones(1), 0)
    probs = np.convolve(ph, pc[::-1])
    first = sh - (sc + len(pc) - 1)
    values = width * (first + np.arange(len(probs), dtype=np.float64))
    xp = np.concatenate(([values[0] - width / 2], values + width / 2))
    fp = np.concatenate(([0.0], np.cumsum(probs)))
    _CDF[key] = (xp, fp)
    return xp, fp


def compare(h: Side, c: Side) -> float:
    """P(H > C) + P(H = C) / 2 for independent sides."""
    total = 0.0
    h_tails, c_tails = np.array(h.tails, dtype=object), np.array(c.tails, dtype=object)
    for kh in dict.fromkeys(h.tails):
        ih = h_tails == kh
        for kc in dict.fromkeys(c.tails):
            ic = c_tails == kc
            diff = h.bases[ih][:, None] - c.bases[ic][None, :]
            if kh is None and kc is None:
                p = np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5))
            else:
                xp, fp = _difference_cdf(h, kh, c, kc)
                p = np.interp(diff, xp, fp)
            total += float(h.weights[ih] @ p @ c.weights[ic])
    return total


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
