"""Precomputed index arrays over dice multisets and keeps.

Everything the solver, the advisor and the simulator do is expressed on *multisets* of
faces, because scoring ignores the order of the dice:

* level ``n`` (0..5) lists the multisets of ``n`` faces in a fixed order (1, 6, 21, 56,
  126 and 252 of them; 462 in all). Level 5 are the rolls, levels 0..4 the proper keeps.
* ``EXPAND[n]`` maps a keep of ``n`` dice plus one more face to its index on level
  ``n + 1``: the reroll expectation factorises die by die,
  ``E(keep) = mean over the six faces of E(keep + face)``.
* ``SHRINK[n]`` maps a multiset on level ``n`` minus one of its faces to level ``n - 1``:
  "the best keep within a roll" is a max over this sub-multiset lattice.

Scores come from :func:`yahtzee.rules.base_score` (the rules module stays the authority);
the forced Joker (R6) is applied by the solver on the six Yahtzee rows.
"""

from __future__ import annotations

import hashlib
from itertools import combinations_with_replacement
from math import factorial

import numpy as np
import numpy.typing as npt

from yahtzee.rules import (
    CATEGORIES,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    YAHTZEE_POINTS,
    Category,
    Dice,
    base_score,
    joker_points,
)

IntArray = npt.NDArray[np.intp]
F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

NUM_CATS = len(CATEGORIES)
YAHTZEE_BIT = 1 << Category.YAHTZEE.index
UPPER_CAP = UPPER_BONUS_THRESHOLD  # upper subtotals are stored capped at 63
N_UP = UPPER_CAP + 1
FULL_MASK = (1 << NUM_CATS) - 1

LEVELS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(sorted(combinations_with_replacement(range(1, 7), n), key=lambda ms: (len(set(ms)), ms)))
    for n in range(6)
)
"""``LEVELS[n]``: the sorted multisets of ``n`` faces, in index order.

Ordered by the number of distinct faces first, so that the multisets with ``j`` distinct
faces (hence ``j`` sub-multisets one face smaller) form one contiguous block: the lattice
max then gathers exactly what it needs, with no padding (see :data:`SHRINK_GROUPS`)."""

LEVEL_SIZES: tuple[int, ...] = tuple(len(level) for level in LEVELS)
LEVEL_OFFSETS: tuple[int, ...] = tuple(sum(LEVEL_SIZES[:n]) for n in range(6))
"""Flat keep index = ``LEVEL_OFFSETS[n] + index on level n`` (0..461)."""
N_KEEPS = sum(LEVEL_SIZES)
N_DICE = LEVEL_SIZES[5]

_INDEX: tuple[dict[tuple[int, ...], int], ...] = tuple(
    {ms: i for i, ms in enumerate(level)} for level in LEVELS
)


def _counts(ms: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(ms.count(f) for f in range(1, 7))


def dice_index(faces: tuple[int, ...] | list[int]) -> int:
    """Index on level 5 of five faces (any order)."""
    return _INDEX[5][tuple(sorted(faces))]


def keep_index(faces: tuple[int, ...] | list[int]) -> int:
    """Flat keep index (0..461) of the multiset ``faces`` (0..5 faces, any order)."""
    ms = tuple(sorted(faces))
    return LEVEL_OFFSETS[len(ms)] + _INDEX[len(ms)][ms]


KEEP_FACES: tuple[tuple[int, ...], ...] = tuple(ms for level in LEVELS for ms in level)
"""Faces of every flat keep index, ascending."""


def _expand(n: int) -> IntArray:
    out = np.empty((LEVEL_SIZES[n], 6), dtype=np.intp)
    for i, ms in enumerate(LEVELS[n]):
        for f in range(1, 7):
            out[i, f - 1] = _INDEX[n + 1][tuple(sorted((*ms, f)))]
    return out


def _shrink(n: int) -> IntArray:
    # One column per distinct face removable; padded with the first (max is idempotent).
    width = min(n, 5)
    out = np.empty((LEVEL_SIZES[n], width), dtype=np.intp)
    for i, ms in enumerate(LEVELS[n]):
        subs = []
        for f in sorted(set(ms)):
            rest = list(ms)
            rest.remove(f)
            subs.append(_INDEX[n - 1][tuple(rest)])
        subs += [subs[0]] * (width - len(subs))
        out[i] = subs
    return out


EXPAND: tuple[IntArray, ...] = tuple(_expand(n) for n in range(5))
SHRINK: tuple[IntArray, ...] = (
    np.zeros((1, 0), dtype=np.intp),
    *tuple(_shrink(n) for n in range(1, 6)),
)


def _shrink_groups(n: int) -> tuple[tuple[int, int, IntArray], ...]:
    groups = []
    start = 0
    while start < LEVEL_SIZES[n]:
        width = len(set(LEVELS[n][start]))
        stop = start
        while stop < LEVEL_SIZES[n] and len(set(LEVELS[n][stop])) == width:
            stop += 1
        # (width, rows) so a gather yields (width, rows, S) and the max runs over axis 0.
        groups.append((start, stop, np.ascontiguousarray(SHRINK[n][start:stop, :width].T)))
        start = stop
    return tuple(groups)


SHRINK_GROUPS: tuple[tuple[tuple[int, int, IntArray], ...], ...] = (
    (),
    *(_shrink_groups(n) for n in range(1, 6)),
)
"""Per level, blocks ``(start, stop, idx)`` of multisets with the same number of distinct
faces; ``idx`` (distinct faces, rows) indexes the sub-multisets on the level below."""


DICE_COUNTS: IntArray = np.array([_counts(ms) for ms in LEVELS[5]], dtype=np.intp)
"""(252, 6): how many dice show each face."""
DICE_SUM: IntArray = np.array([sum(ms) for ms in LEVELS[5]], dtype=np.intp)


def _prob(ms: tuple[int, ...]) -> float:
    c = _counts(ms)
    ways = factorial(len(ms))
    for k in c:
        ways //= factorial(k)
    return ways / 6.0 ** len(ms)


PROB5: F64 = np.array([_prob(ms) for ms in LEVELS[5]], dtype=np.float64)
"""Probability of each roll of five fresh dice."""

BASE_SCORE: IntArray = np.array(
    [[base_score(c, Dice.of(ms)) for ms in LEVELS[5]] for c in CATEGORIES], dtype=np.intp
)
"""(13, 252): R3 points of each category for each roll (no Joker, no bonuses)."""

YAHTZEE_ROWS: IntArray = np.array([_INDEX[5][(f,) * 5] for f in range(1, 7)], dtype=np.intp)
"""Level-5 index of the Yahtzee of each face 1..6."""

JOKER_POINTS: IntArray = np.array(
    [[joker_points(c, f) for c in CATEGORIES] for f in range(1, 7)], dtype=np.intp
)
"""(6, 13): points of a Yahtzee of face f written in each box under the Joker (R6)."""


def _sub_keeps() -> IntArray:
    # For each roll, every sub-multiset (flat keep index), padded with the roll itself.
    out = np.empty((N_DICE, 32), dtype=np.intp)
    for d, ms in enumerate(LEVELS[5]):
        subs: set[int] = set()
        for bits in range(32):
            subs.add(keep_index([ms[i] for i in range(5) if bits >> i & 1]))
        row = sorted(subs)
        full = LEVEL_OFFSETS[5] + d
        out[d] = row + [full] * (32 - len(row))
    return out


SUB_KEEPS: IntArray = _sub_keeps()
"""(252, 32): flat keep indices of every sub-multiset of each roll (padded with the roll)."""


def _code(counts: tuple[int, ...]) -> int:
    return sum(k * 6**i for i, k in enumerate(counts))


COUNT_CODE_WEIGHTS: IntArray = np.array([6**i for i in range(6)], dtype=np.intp)
"""Base-6 weights: ``counts @ COUNT_CODE_WEIGHTS`` encodes a multiset of up to 5 dice."""
CODE_TO_KEEP: IntArray = np.full(6**6, -1, dtype=np.intp)
"""Base-6 code of face counts -> flat keep index (level 5 entries are the rolls)."""
for _k, _ms in enumerate(KEEP_FACES):
    CODE_TO_KEEP[_code(_counts(_ms))] = _k
KEEP_COUNTS: IntArray = np.array([_counts(ms) for ms in KEEP_FACES], dtype=np.intp)
"""(462, 6): face counts of every flat keep."""


def _reachable_upper() -> npt.NDArray[np.bool_]:
    # reach[used_upper_bits, subtotal]: can the used upper boxes sum to this (capped) value?
    reach = np.zeros((64, N_UP), dtype=np.bool_)
    for bits in range(64):
        sums = {0}
        for f in range(1, 7):
            if bits >> (f - 1) & 1:
                sums = {min(UPPER_CAP, s + f * k) for s in sums for k in range(6)}
        reach[bits, sorted(sums)] = True
    return reach


REACHABLE_UPPER = _reachable_upper()


def rules_fingerprint() -> str:
    """A short hash of every rule constant the table depends on.

    Part of the cache key, so a change to the scoring in :mod:`yahtzee.rules` invalidates
    tables computed under the old rules even if nobody remembers to bump a version.
    """
    h = hashlib.sha256()
    h.update(BASE_SCORE.astype(np.int64).tobytes())
    h.update(JOKER_POINTS.astype(np.int64).tobytes())
    consts = (UPPER_BONUS, UPPER_BONUS_THRESHOLD, YAHTZEE_BONUS, YAHTZEE_POINTS)
    h.update(repr(consts).encode())
    return h.hexdigest()[:10]
