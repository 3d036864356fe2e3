"""Chances to win from any round (L4, T5): a vs game's P(win) + P(draw) / 2, and each
seat's chance of first place at a table of 2–6 seats (ties split evenly).

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

A table of ``n`` seats (:func:`first_place`) needs nothing more per seat: the seats'
final totals are independent, so seat ``i`` is first with a ``k``-way tie at total ``t``
with probability ``P_i(t)`` times the chance that, of the others, exactly ``k - 1`` score
``t`` and the rest less; ties split evenly make that ``∫₀¹ ∏_{j≠i} (F_j(t−1) + P_j(t)·x) dx``
(the coefficient of ``x^(k−1)`` integrates to ``1/k``), a polynomial of degree ``n − 1``
that a Gauss–Legendre rule of ``⌈n/2⌉`` nodes integrates exactly. Over the seats the
figures telescope to ``Σ_t [∏ F_j(t) − ∏ F_j(t−1)] = 1``; two seats give :func:`compare`.
Every person is modelled as the expert, each computer at its level. Three or more seats
enumerate one turn less (:data:`TABLE_EXACT_TURNS`) to keep a six-seat review within its
budget; two seats reckon exactly as a vs game.

Measured (``scripts/winprob_reference.py``, README): within ±0.01 of a 200,000-game
simulation at every tested position of rounds 1–12; exact from round 7 on; against exact
enumeration at round 6, 0.008 RMS, with 4 positions of 36 off by 0.01–0.04 (the small
straight's and full house's lumps are not modelled).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from yahtzee.lru import LruCache
from yahtzee.review.moments import MIN_TURNS_LEFT, moments
from yahtzee.review.turns import (
    ExpertModel,
    Model,
    State,
    cached_outcomes,
    canonical,
    flat_index,
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
    exact_turns: int = EXACT_TURNS,
) -> Side:
    """The distribution of this player's final total from the start of its next turn, or
    (``dice``) from this roll of the current turn with ``rolls_left`` rolls to come;
    enumerated exactly with at most ``exact_turns`` turns left after the next one."""
    state = canonical(state_of(card))
    total = card.total
    left = len(CATEGORIES) - card.filled_count
    if dice is None and left <= exact_turns:
        dist = remaining_distribution(model, state)
        support = np.nonzero(dist)[0]
        return Side.exact(dist[support], total + support)
    if dice is None:
        succ, gain, prob = cached_outcomes(model, state)
    else:
        succ, gain, prob = turn_outcomes(model, state, dice_index(dice.values), rolls_left)
    if left - 1 > exact_turns:
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
    first = np.floor(centre - 7 * scale).astype(np.intp)
    last = np.ceil(centre + 7 * scale).astype(np.intp)
    lo = int(first.min())
    pmf = np.zeros(int(last.max()) - lo + 1)
    # P(total = t) = P(t − ½ ≤ normal < t + ½), from the CDF at the half points, within
    # ±7 sd of each curve (beyond, a curve adds under 1e-11): the curves in order of their
    # centres, a chunk at a time over the chunk's own span (about half the whole span).
    order = np.argsort(centre, kind="stable")
    for chunk in np.array_split(order, max(1, len(order) // _CHUNK)):
        a, b = int(first[chunk].min()), int(last[chunk].max())
        edges = np.arange(a, b + 2, dtype=np.float64) - 0.5
        cdf = _normal_cdf((edges[None, :] - centre[chunk, None]) / scale[chunk, None])
        pmf[a - lo : b - lo + 1] += weight[chunk] @ np.diff(cdf, axis=1)
    return Side(lo, pmf / pmf.sum(), float(weight @ centre))


_CHUNK = 24
"""Curves per chunk in :func:`_tails`: fewer, more Python overhead; more, wider spans."""


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


# -- a table of 2–6 seats (T5) ------------------------------------------------------------

TABLE_EXACT_TURNS = 4
"""A table of three or more seats enumerates each seat exactly with at most this many
turns left (two seats: :data:`EXACT_TURNS`, as a vs game). Six seats cost three vs games:
with 5 the late game alone took 1.5–3 s of CPU a review; with 4 it is about 110 ms for six
seats. With 6 or more turns left a seat's side is the next turn enumerated and the
moments after it (as in a vs game before round 7); with 5, its state's own moments."""


def exact_turns_for(seats: int) -> int:
    """How many turns left a table of ``seats`` enumerates exactly."""
    return EXACT_TURNS if seats <= 2 else TABLE_EXACT_TURNS


_side_cache: LruCache[tuple[str, State, int, int], Side] = LruCache(4096)


def turn_start_side(
    level: str, card: Scorecard, table: ValueTable | None = None, exact_turns: int = EXACT_TURNS
) -> Side:
    """A seat's side at the start of its next turn (or done) under the model of ``level``
    (``expert`` for a person), exact with at most ``exact_turns`` turns left, memoised per
    (level, state, points so far, ``exact_turns``): the seats that are not on turn keep
    their side while another seat plays."""
    table = table or load_table()
    key = (level, canonical(state_of(card)), card.total, exact_turns)
    return _side_cache.get_or_compute(key, lambda: _table_side(level, card, table, exact_turns))


def _table_side(level: str, card: Scorecard, table: ValueTable, exact_turns: int) -> Side:
    model = model_for(level, table)
    left = len(CATEGORIES) - card.filled_count
    if left <= exact_turns or left - 1 >= MIN_TURNS_LEFT:
        return side(model, card, table, exact_turns=exact_turns)
    # One turn more than is enumerated, and no moments after the next turn (enumerating
    # it into the exact rest costs what a turn more of enumeration does): the mixture of
    # the state's own event combinations.
    here = np.array([flat_index(canonical(state_of(card)))], dtype=np.intp)
    return _tails(model, card.total, here, np.zeros(1, dtype=np.intp), np.ones(1), table)


def first_place(sides: Sequence[Side]) -> list[float]:
    """Each side's chance of the highest final total, a ``k``-way tie counting ``1/k`` to
    each of the ``k`` (independent sides; module docstring). The figures sum to 1."""
    n = len(sides)
    if n == 0:
        return []
    if n == 1:
        return [1.0]
    lo = min(s.start for s in sides)
    size = max(s.start + len(s.pmf) for s in sides) - lo
    pmf = np.zeros((n, size))
    for i, s in enumerate(sides):
        pmf[i, s.start - lo : s.start - lo + len(s.pmf)] = s.pmf / s.pmf.sum()
    below = np.cumsum(pmf, axis=1) - pmf  # F_j(t − 1) = P(seat j < t)
    nodes, weights = _gauss_legendre((n + 1) // 2)
    # terms[j, t, k] = F_j(t − 1) + P_j(t) · x_k; the others' product by prefix × suffix.
    terms = below[:, :, None] + pmf[:, :, None] * nodes[None, None, :]
    ones = np.ones((1, size, len(nodes)))
    prefix = np.cumprod(np.concatenate([ones, terms[:-1]]), axis=0)
    suffix = np.cumprod(np.concatenate([ones, terms[:0:-1]]), axis=0)[::-1]
    others = prefix * suffix
    share = others @ weights  # (n, size): ∫₀¹ ∏_{j≠i} (...) dx at each total
    out = np.einsum("it,it->i", pmf, share)
    return [min(1.0, max(0.0, float(p))) for p in out]


@cache
def _gauss_legendre(m: int) -> tuple[F64, F64]:
    """Nodes and weights of the ``m``-point Gauss–Legendre rule on [0, 1] (exact for
    polynomials of degree ≤ 2m − 1)."""
    x, w = np.polynomial.legendre.leggauss(m)
    return (x + 1.0) / 2.0, w / 2.0


_table_cache: LruCache[tuple[tuple[State, int, str], ...], tuple[float, ...]] = LruCache(4096)


def table_chances(
    cards: Sequence[Scorecard], levels: Sequence[str], table: ValueTable | None = None
) -> tuple[float, ...]:
    """Each seat's chance of first place, every seat at the start of its next turn (or
    done); ``levels[i]`` is the model of seat ``i`` (``expert`` for a person)."""
    if len(cards) != len(levels):
        raise ValueError(f"{len(cards)} cards for {len(levels)} levels")
    table = table or load_table()
    exact = exact_turns_for(len(cards))
    key = tuple(
        (canonical(state_of(c)), c.total, level) for c, level in zip(cards, levels, strict=True)
    )
    return _table_cache.get_or_compute(
        key,
        lambda: tuple(
            first_place(
                [turn_start_side(lv, c, table, exact) for c, lv in zip(cards, levels, strict=True)]
            )
        ),
    )


def live_table_chances(
    cards: Sequence[Scorecard],
    levels: Sequence[str],
    current: int,
    dice: Dice | None,
    rolls_left: int,
    table: ValueTable | None = None,
) -> tuple[float, ...]:
    """:func:`table_chances` with seat ``current`` mid-turn: its side from ``dice`` with
    ``rolls_left`` rolls to come (the meter); ``dice`` ``None`` is its turn's start."""
    table = table or load_table()
    if dice is None:
        return table_chances(cards, levels, table)
    exact = exact_turns_for(len(cards))
    sides = [
        side(model_for(lv, table), c, table, dice, rolls_left, exact)
        if i == current
        else turn_start_side(lv, c, table, exact)
        for i, (c, lv) in enumerate(zip(cards, levels, strict=True))
    ]
    return tuple(first_place(sides))


def table_timeline(
    seat_cards: Sequence[Sequence[Scorecard]],
    levels: Sequence[str],
    table: ValueTable | None = None,
) -> list[tuple[float, ...]]:
    """Every seat's chance of first place before round 1 and after each round (the
    review's timeline of a table game): ``seat_cards[i][r]`` is seat ``i``'s card after
    ``r`` rounds."""
    rounds = {len(cards) for cards in seat_cards}
    if len(rounds) != 1:
        raise ValueError(f"seats with different numbers of rounds: {sorted(rounds)}")
    return [
        table_chances([cards[r] for cards in seat_cards], levels, table)
        for r in range(rounds.pop())
    ]
