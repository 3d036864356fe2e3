"""The turn kernel: one turn's values for a batch of turn-start states at once.

States sit on the last (contiguous) axis so every numpy call works on whole rows; the
same kernel serves the backward induction (a few hundred states per call) and the
simulator (one state per game). The advisor, which needs one state at a time, has its
own short-vector twin :func:`single_state_e0`; :func:`category_values` scores given
(state, roll) pairs. Tests check all three against :func:`yahtzee.rules.score_options`.

Notation for one state: ``E0[d]`` is the value of stopping with roll ``d`` (best legal box
plus everything after), ``K_r[k]`` the value of keeping multiset ``k`` with ``r`` rolls
left, and ``E_r[d] = max over k within d of K_r[k]`` the value of holding roll ``d`` with
``r`` rolls left. ``K_r`` on level 5 is ``E_{r-1}`` here: for the roll values ``E_r`` this
is the same as the game's ``E0`` (stop and score; there is no "hold all five and roll
again"), since ``E_1 = max(proper K_1, E0)`` and every proper ``K_2`` is at least its
``K_1``. Decisions that rank level-5 keeps themselves (the advisor, the simulator) use
``E0`` for them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from yahtzee.rules import (
    CATEGORIES,
    JOKER_FIXED_POINTS,
    LOWER,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    YAHTZEE_POINTS,
    Category,
)
from yahtzee.solver.tables import (
    BASE_SCORE,
    DICE_COUNTS,
    DICE_SUM,
    EXPAND,
    F32,
    JOKER_POINTS,
    LEVEL_OFFSETS,
    LEVEL_SIZES,
    N_DICE,
    N_UP,
    SHRINK_GROUPS,
    UPPER_CAP,
    YAHTZEE_BIT,
    YAHTZEE_ROWS,
    IntArray,
)

_NEG = np.float32(-np.inf)
_Y = Category.YAHTZEE.index
_LOWER_NOT_Y = tuple(c.index for c in LOWER if c is not Category.YAHTZEE)
# The pattern columns below: which of 三条 四条 葫芦 小顺 大顺 a roll qualifies for.
_FIXED = JOKER_FIXED_POINTS  # 葫芦 小顺 大顺: their points, which the Joker also pays
_PATTERN_BOXES = (
    Category.THREE_OF_A_KIND,
    Category.FOUR_OF_A_KIND,
    Category.FULL_HOUSE,
    Category.SMALL_STRAIGHT,
    Category.LARGE_STRAIGHT,
)
_SIXTH = np.float32(1.0 / 6.0)
_CNT = np.arange(6, dtype=np.intp)


def _patterns() -> tuple[list[tuple[int, int, int, int, int]], IntArray]:
    keys: list[tuple[int, int, int, int, int]] = []
    of = np.empty(N_DICE, dtype=np.intp)
    for d in range(N_DICE):
        qualifies = [int(BASE_SCORE[c.index, d] > 0) for c in _PATTERN_BOXES]
        key = (qualifies[0], qualifies[1], qualifies[2], qualifies[3], qualifies[4])
        if key not in keys:
            keys.append(key)
        of[d] = keys.index(key)
    return keys, of


_PATTERNS, _PATTERN_OF = _patterns()
_SUM32 = DICE_SUM.astype(np.float32)
_COMBOS = [(a, b, c) for a in range(6) for b in range(6 - a) for c in range(6 - a - b)]
_COMBO_COLS = tuple(np.array([t[i] for t in _COMBOS], dtype=np.intp) for i in range(3))
_COMBO_LOW = np.array([_COMBOS.index(tuple(DICE_COUNTS[d, :3])) for d in range(N_DICE)])
_COMBO_HIGH = np.array([_COMBOS.index(tuple(DICE_COUNTS[d, 3:])) for d in range(N_DICE)])


# Slot layout of the per-state vector z (44 entries): 0-5 the lower boxes other than 快艇
# (successor value), 6 快艇 written with 0, 7 快艇 written with 50 (+50 included), 8 + 6*i + n
# upper box i+1 with n dice showing its face (points, upper bonus and successor value).
_SLOT_BITS = np.array(
    [1 << c for c in _LOWER_NOT_Y] + [1 << _Y] * 2 + [1 << i for i in range(6) for _ in range(6)],
    dtype=np.intp,
)
_SLOT_UPPER = np.arange(44) >= 8
_SLOT_PTS = np.array([0] * 8 + [(i + 1) * n for i in range(6) for n in range(6)], dtype=np.intp)
_SLOT_FIXED_FLAG = np.array([-1] * 6 + [0, 1] + [-1] * 36, dtype=np.intp)
_SLOT_EXTRA = np.array([0] * 7 + [YAHTZEE_POINTS] + [0] * 36, dtype=np.float64)


_SLOT_BITS_COL = _SLOT_BITS[:, None]
_SLOT_UPPER_COL = _SLOT_UPPER[:, None]
_SLOT_PTS_COL = _SLOT_PTS[:, None]
_SLOT_FIXED_FLAG_COL = _SLOT_FIXED_FLAG[:, None]
_SLOT_GAIN_COL = (_SLOT_PTS + _SLOT_EXTRA).astype(np.float32)[:, None]
_SLOT_Y0, _SLOT_Y50 = 6, 7
_SLOT_UPPER_ZERO = np.array([8 + 6 * i for i in range(6)], dtype=np.intp)
_SLOT_FIVE_OF = _SLOT_UPPER_ZERO + 5
_ZERO_SLOTS = np.array([*range(6), _SLOT_Y0, *_SLOT_UPPER_ZERO.tolist()], dtype=np.intp)
"""Slots of writing something for 0 points (no bonus): the best is the baseline."""


def _lower_pattern_slots() -> tuple[IntArray, IntArray, F32]:
    # Slots 0-5 are 三条 四条 葫芦 小顺 大顺 机会. A: boxes scoring the dice sum (padded by
    # repeating 机会); B: fixed-point outcomes (qualifying 葫芦/小顺/大顺 at their rules
    # points, else 0) and 快艇 for 0.
    a_slots, b_slots, b_points = [], [], []
    for has3, has4, fh, ss, ls in _PATTERNS:
        a = [5] + ([0] if has3 else []) + ([1] if has4 else [])
        a_slots.append(a + [5] * (3 - len(a)))
        b = [_SLOT_Y0, 2, 3, 4] + ([] if has3 else [0]) + ([] if has4 else [1])
        pts = [
            0,
            _FIXED[Category.FULL_HOUSE] * fh,
            _FIXED[Category.SMALL_STRAIGHT] * ss,
            _FIXED[Category.LARGE_STRAIGHT] * ls,
        ] + [0] * (len(b) - 4)
        b_slots.append(b + [_SLOT_Y0] * (6 - len(b)))
        b_points.append(pts + [0] * (6 - len(pts)))
    return (
        np.array(a_slots, dtype=np.intp),
        np.array(b_slots, dtype=np.intp),
        np.array(b_points, dtype=np.float32)[:, :, None],
    )


_A_SLOTS, _B_SLOTS, _B_POINTS = _lower_pattern_slots()
_COMBO_SLOTS_LOW = np.stack([8 + 6 * i + _COMBO_COLS[i] for i in range(3)], axis=1)
_COMBO_SLOTS_HIGH = np.stack([8 + 6 * (i + 3) + _COMBO_COLS[i] for i in range(3)], axis=1)
_JOKER_LOWER_POINTS = JOKER_POINTS[:, list(_LOWER_NOT_Y)].astype(np.float32)[:, :, None]


def _flat(mask: IntArray, up: IntArray, flag: IntArray) -> IntArray:
    """Flat index into a value table shaped (8192, 64, 2)."""
    return (mask * N_UP + up) * 2 + flag


def turn_start_e0(
    v: F32, mask: IntArray, up: IntArray, flag: IntArray
) -> tuple[F32, npt.NDArray[np.float64]]:
    """``E0`` (252, S): value of writing each roll in the best legal open box.

    ``v`` is the flat value table (only successor states are read), ``mask``/``up``/
    ``flag`` the S states (used-box bits, capped upper subtotal, 快艇 box holds 50).
    Applies R3-R6: upper bonus when this write crosses 63, +100 Yahtzee bonus and the
    forced Joker on the six Yahtzee rows.

    Returns ``(e0, shift)``: the true values are ``e0 + shift[None, :]``. Working relative
    to a per-state baseline (the best successor value) keeps the float32 magnitudes near
    zero instead of near 250, which cuts the rounding error of the whole solve ~5x; max
    and mean commute with the shift, so it is added back once at the end.

    Every box's outcome is first gathered into the slot array ``z`` (44, S) (see the slot
    layout below) with a handful of whole-array calls: with S ~ 1000 states per call, the
    number of numpy calls, not their size, is what costs here.
    """
    below = up < UPPER_BONUS_THRESHOLD
    raw_up = up[None, :] + _SLOT_PTS_COL
    new_up = np.where(_SLOT_UPPER_COL, np.minimum(raw_up, UPPER_CAP), up[None, :])
    flags = np.where(_SLOT_FIXED_FLAG_COL >= 0, _SLOT_FIXED_FLAG_COL, flag[None, :])
    z = v[((mask[None, :] | _SLOT_BITS_COL) * N_UP + new_up) * 2 + flags]
    z += _SLOT_GAIN_COL
    z[_SLOT_UPPER_COL & below[None, :] & (raw_up >= UPPER_BONUS_THRESHOLD)] += UPPER_BONUS
    z[(mask[None, :] & _SLOT_BITS_COL) != 0] = _NEG
    # Baseline: the best successor value (finite: every non-terminal state has an open box).
    shift32 = z[_ZERO_SLOTS].max(axis=0)
    z -= shift32[None, :]

    # Lower boxes, grouped by which lower conditions the roll meets (6 patterns): per
    # pattern, the best "sum of dice" box (机会, and 三条/四条 when they qualify) and the
    # best fixed-points box (qualifying 葫芦/小顺/大顺, or any lower box written with 0).
    a_tab = np.take(z, _A_SLOTS, axis=0).max(axis=1)
    b_tab = np.take(z, _B_SLOTS, axis=0)
    b_tab += _B_POINTS
    b_tab = b_tab.max(axis=1)
    # Upper boxes: the best of 一点..三点 and of 四点..六点 for every count combination.
    t_low = np.take(z, _COMBO_SLOTS_LOW, axis=0).max(axis=1)
    t_high = np.take(z, _COMBO_SLOTS_HIGH, axis=0).max(axis=1)

    e0 = np.take(a_tab, _PATTERN_OF, axis=0)
    e0 += _SUM32[:, None]
    tmp = np.take(b_tab, _PATTERN_OF, axis=0)
    np.maximum(e0, tmp, out=e0)
    np.take(t_low, _COMBO_LOW, axis=0, out=tmp)
    np.maximum(e0, tmp, out=e0)
    np.take(t_high, _COMBO_HIGH, axis=0, out=tmp)
    np.maximum(e0, tmp, out=e0)

    # The six Yahtzee rows. Box open: scoring 50 there is one more option.
    rows = e0[YAHTZEE_ROWS]
    np.maximum(rows, z[_SLOT_Y50][None, :], out=rows)
    y_used = (mask & YAHTZEE_BIT) != 0
    if y_used.any():
        # Box filled: the forced Joker (R6) replaces the ordinary options entirely:
        # the matching upper box if open, else the best open lower box at Joker points,
        # else any open upper box for 0.
        matching = z[_SLOT_FIVE_OF]  # (6, S)
        lower = z[None, :6, :] + _JOKER_LOWER_POINTS  # (6 faces, 6 boxes, S)
        lower_best = lower.max(axis=1)
        upper_zero = z[_SLOT_UPPER_ZERO].max(axis=0)
        joker = np.where(
            matching > _NEG,
            matching,
            np.where(lower_best > _NEG, lower_best, upper_zero[None, :]),
        )
        joker += (flag * YAHTZEE_BONUS).astype(np.float32)[None, :]
        rows = np.where(y_used[None, :], joker, rows)
    e0[YAHTZEE_ROWS] = rows
    return e0, shift32.astype(np.float64)


def keep_values(level5: F32, flat: F32 | None = None) -> list[F32]:
    """``K`` per level 0..5 from the level-5 values (a fresh die is a mean over 6 faces).

    With ``flat`` (a (462, S) buffer) the levels are written into it in flat keep order
    (level 5 copied in too) and the returned arrays are views of it.
    """
    k: list[F32] = [level5] * 6
    if flat is not None:
        flat[LEVEL_OFFSETS[5] :] = level5
        k = [flat[LEVEL_OFFSETS[n] : LEVEL_OFFSETS[n] + LEVEL_SIZES[n]] for n in range(6)]
    for n in range(4, -1, -1):
        gathered = np.take(k[n + 1], EXPAND[n], axis=0)
        if flat is None:
            k[n] = gathered.sum(axis=1, dtype=np.float32)
        else:
            gathered.sum(axis=1, dtype=np.float32, out=k[n])
        k[n] *= _SIXTH
    return k


def best_within(k: list[F32]) -> F32:
    """``E[d]`` = max of ``K`` over every sub-multiset of ``d`` (the keep lattice).

    Overwrites nothing in ``k``; returns the level-5 array of maxima.
    """
    m = k[0]
    for n in range(1, 6):
        out = np.empty_like(k[n])
        for start, stop, idx in SHRINK_GROUPS[n]:
            if idx.shape[0] == 1:
                np.take(m, idx[0], axis=0, out=out[start:stop])
            else:
                np.take(m, idx, axis=0).max(axis=0, out=out[start:stop])
        np.maximum(out, k[n], out=out)
        m = out
    return m


def reroll(e: F32, flat: F32 | None = None) -> tuple[list[F32], F32]:
    """One more roll: the keep values ``K`` (per level) and the new ``E`` (252, S)."""
    k = keep_values(e, flat)
    return k, best_within(k)


_BITS = (1 << np.arange(len(CATEGORIES), dtype=np.intp))[:, None]  # (13, 1)
_FIRST_LOWER = LOWER[0].index
_IS_UPPER = (np.arange(len(CATEGORIES)) < _FIRST_LOWER)[:, None]
_IS_YAHTZEE_ROLL = DICE_COUNTS.max(axis=1) == 5
_YAHTZEE_FACE = DICE_COUNTS.argmax(axis=1)  # 0..5; meaningful on Yahtzee rows only
# 葫芦 小顺 大顺 score in full under the Joker.
_JOKER_FIXED_ROWS = np.array([c.index for c in JOKER_FIXED_POINTS], dtype=np.intp)
_JOKER_FIXED_PTS = np.array(list(JOKER_FIXED_POINTS.values()), dtype=np.intp)[:, None]


def category_values(
    v: F32, mask: IntArray, up: IntArray, flag: IntArray, dice: IntArray
) -> tuple[npt.NDArray[np.float64], IntArray]:
    """Value and points of writing roll ``dice[i]`` in each box, for N (state, roll) pairs.

    Returns ``(values, points)`` shaped (13, N): ``values`` = points + upper bonus (if this
    write crosses 63) + Yahtzee bonus + value of the successor state, ``-inf`` for used
    boxes and boxes the forced Joker forbids (R6). This is the per-position twin of
    :func:`turn_start_e0`, vectorised over positions instead of rolls.
    """
    legal, gain, pts, new_up = _write_outcomes(mask, up, flag, dice)
    new_flag = np.broadcast_to(flag, pts.shape).copy()
    new_flag[_Y] = pts[_Y] == YAHTZEE_POINTS
    succ = v[_flat(mask[None, :] | _BITS, new_up, new_flag)]
    values = np.where(legal, gain + succ.astype(np.float64), -np.inf)
    return values, pts


def category_gains(
    mask: IntArray, up: IntArray, flag: IntArray, dice: IntArray
) -> tuple[npt.NDArray[np.float64], IntArray]:
    """Like :func:`category_values` without the future: what each write adds right now
    (points and bonuses, ``-inf`` where not allowed) and its points, shaped (13, N)."""
    legal, gain, pts, _ = _write_outcomes(mask, up, flag, dice)
    return np.where(legal, gain.astype(np.float64), -np.inf), pts


def _write_outcomes(
    mask: IntArray, up: IntArray, flag: IntArray, dice: IntArray
) -> tuple[npt.NDArray[np.bool_], IntArray, IntArray, IntArray]:
    """Per (box, pair): allowed (R6), total gain, points in the box, new upper subtotal."""
    pts = BASE_SCORE[:, dice].copy()
    is_open = (mask[None, :] & _BITS) == 0
    y_used = ~is_open[_Y]
    joker = _IS_YAHTZEE_ROLL[dice] & y_used
    legal = is_open.copy()
    if joker.any():
        cols = np.nonzero(joker)[0]
        pts[np.ix_(_JOKER_FIXED_ROWS, cols)] = _JOKER_FIXED_PTS
        face = _YAHTZEE_FACE[dice[cols]]
        op = is_open[:, cols]
        matching = op[face, np.arange(len(cols))]
        lower_any = op[_FIRST_LOWER:].any(axis=0)
        allowed = np.where(
            matching[None, :],
            np.arange(len(CATEGORIES))[:, None] == face[None, :],
            np.where(lower_any[None, :], ~_IS_UPPER, True),
        )
        legal[:, cols] &= allowed
    raw = up[None, :] + np.where(_IS_UPPER, pts, 0)
    new_up = np.minimum(raw, UPPER_CAP)
    gain = pts + np.where(
        _IS_UPPER & (up < UPPER_BONUS_THRESHOLD)[None, :] & (raw >= UPPER_BONUS_THRESHOLD),
        UPPER_BONUS,
        0,
    )
    gain += (joker & (flag == 1)) * YAHTZEE_BONUS
    return legal, gain, pts, new_up


def _row_slots() -> IntArray:
    rows = np.empty((13, N_DICE), dtype=np.intp)
    for i in range(6):
        rows[i] = 8 + 6 * i + DICE_COUNTS[:, i]
    for j, c in enumerate(_LOWER_NOT_Y):
        rows[c] = j
    rows[_Y] = np.where(DICE_COUNTS.max(axis=1) == 5, 7, 6)
    return rows


_ROW_SLOTS = _row_slots()
_ROW_POINTS = BASE_SCORE.astype(np.float64)
_ROW_POINTS[:6] = 0.0  # upper points live in the slot values (they depend on the count)
_ROW_POINTS[_Y] = 0.0  # 快艇's 50 lives in slot 7


def single_state_e0(v: F32, mask: int, up: int, flag: int) -> npt.NDArray[np.float64]:
    """``E0`` (252,) of one state in float64: the same numbers as :func:`turn_start_e0`."""
    new_up = np.where(_SLOT_UPPER, np.minimum(up + _SLOT_PTS, UPPER_CAP), up)
    flags = np.where(_SLOT_FIXED_FLAG >= 0, _SLOT_FIXED_FLAG, flag)
    z = v[((mask | _SLOT_BITS) * N_UP + new_up) * 2 + flags].astype(np.float64)
    z += _SLOT_PTS
    z += _SLOT_EXTRA
    if up < UPPER_BONUS_THRESHOLD:
        z[_SLOT_UPPER & (up + _SLOT_PTS >= UPPER_BONUS_THRESHOLD)] += UPPER_BONUS
    z[(mask & _SLOT_BITS) != 0] = -np.inf
    e0: npt.NDArray[np.float64] = (_ROW_POINTS + z[_ROW_SLOTS]).max(axis=0)
    if mask & YAHTZEE_BIT:
        # Forced Joker (R6) on the six Yahtzee rows: plain Python on a handful of scalars.
        zl = z.tolist()
        bonus = YAHTZEE_BONUS * flag
        lower_open = [j for j in range(6) if zl[j] != -np.inf]
        upper_zero = max(zl[8 + 6 * i] for i in range(6))
        for i in range(6):
            matching = zl[8 + 6 * i + 5]
            if matching != -np.inf:
                best = matching
            elif lower_open:
                best = max(int(JOKER_POINTS[i, _LOWER_NOT_Y[j]]) + zl[j] for j in lower_open)
            else:
                best = upper_zero
            e0[YAHTZEE_ROWS[i]] = best + bonus
    return e0
