"""In-turn decisions for one position: the value of every keep and of every box.

With the table loaded, a decision needs only this turn's arrays for one state (vectors of
252 rolls / 462 keeps). They are computed with a handful of numpy calls and kept in a
small LRU cache, so the second and third decision of a turn cost a lookup.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from threading import Lock
from typing import Any

import numpy as np
import numpy.typing as npt

from yahtzee.errors import GameOverError, IllegalMoveError
from yahtzee.lru import LruCache
from yahtzee.rules import (
    CATEGORIES,
    JOKER_FIXED_POINTS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    YAHTZEE_POINTS,
    Category,
    Dice,
    Scorecard,
    score_options,
)
from yahtzee.solver.cache import ValueTable, load_table, state_of
from yahtzee.solver.kernel import category_gains, single_state_e0
from yahtzee.solver.tables import (
    BASE_SCORE,
    DICE_COUNTS,
    EXPAND,
    KEEP_FACES,
    LEVEL_OFFSETS,
    N_DICE,
    N_KEEPS,
    N_UP,
    SUB_KEEPS,
    UPPER_CAP,
    dice_index,
)

F64 = npt.NDArray[np.float64]


def _completion_matrix() -> F64:
    """(210, 252): probability that a proper keep (< 5 dice) is completed to each roll."""
    rows = [np.eye(N_DICE)]
    for n in range(4, -1, -1):
        step = np.zeros((EXPAND[n].shape[0], rows[0].shape[0]))  # exact 1/6 in float64
        for i, targets in enumerate(EXPAND[n]):
            for j in targets:
                step[i, j] += 1.0 / 6.0
        rows.insert(0, step @ rows[0])
    return np.ascontiguousarray(np.vstack(rows[:-1]))


_COMPLETE = _completion_matrix()
_UNIQUE_SUBS: tuple[tuple[int, ...], ...] = tuple(
    tuple(dict.fromkeys(row.tolist())) for row in SUB_KEEPS
)
_UNIQUE_SUB_ARRAYS = tuple(np.array(s, dtype=np.intp) for s in _UNIQUE_SUBS)
# The lattice max "best keep within each roll" as one 1-D maximum.reduceat over the
# concatenated distinct sub-keeps of every roll (much cheaper than a padded 2-D gather).
_SUB_FLAT = np.concatenate(_UNIQUE_SUB_ARRAYS)
_SUB_STARTS = np.cumsum([0] + [len(s) for s in _UNIQUE_SUBS[:-1]]).astype(np.intp)
_FULL = LEVEL_OFFSETS[5]
_Y = Category.YAHTZEE.index
_JOKER_FIXED = {c.index: points for c, points in JOKER_FIXED_POINTS.items()}
assert _COMPLETE.shape == (_FULL, N_DICE)
assert N_KEEPS == _FULL + N_DICE


def reroll_single(e: F64, stop: F64) -> tuple[F64, F64]:
    """One more roll for one state: flat keep values (462,) and the new roll values (252,).

    Keeps of fewer than five dice average over their completions of ``e`` (a dense 210x252
    product); level-5 keeps are ``stop`` (``E0``: stop rolling and score the best box — the
    game has no "hold all five and roll again"); the best keep within each roll is a 1-D
    ``maximum.reduceat`` over its distinct sub-keeps.
    """
    k = np.concatenate((_COMPLETE @ e, stop))
    return k, np.maximum.reduceat(k[_SUB_FLAT], _SUB_STARTS)


_extend_lock = Lock()


class TurnArrays:
    """One state's turn: ``e_r`` per roll and ``k_r`` per flat keep, for r rolls left.

    ``k_r[k]`` is the value of keeping multiset ``k`` with ``r`` rolls left; on level 5
    (all five dice) it is ``e0``, stopping and scoring now, whatever ``r`` is (holding all
    five and rolling again is not a move). ``e_r[d]`` is the value of holding roll ``d``
    with ``r`` rolls left. ``e0`` is the optimal one for the expert; heuristic players
    pass their own.

    Arrays are computed on first use and only as far as needed: a decision with ``r``
    rolls left needs ``e_{r-1}`` in full but ``k_r`` only at the keeps within its roll.
    """

    __slots__ = ("_e", "_k")

    def __init__(self, e0: F64) -> None:
        self._e: list[F64] = [e0]
        self._k: list[F64] = []

    @classmethod
    def optimal(cls, table: ValueTable, mask: int, up: int, flag: int) -> TurnArrays:
        """The expert's arrays of state (mask, capped upper subtotal, flag)."""
        return cls(single_state_e0(table.flat, mask, up, flag))

    def keeps(self, rolls_left: int) -> F64:
        """Flat keep values (462,) with ``rolls_left`` (1 or 2) rolls to come."""
        if len(self._k) < rolls_left:
            # Cached arrays are shared between server threads: extend them under a lock so
            # two threads never append the same level twice.
            with _extend_lock:
                while len(self._k) < rolls_left:
                    k, e = reroll_single(self._e[len(self._k)], self._e[0])
                    self._k.append(k)
                    if len(self._e) == len(self._k):
                        self._e.append(e)
        return self._k[rolls_left - 1]

    def rolls(self, rolls_left: int) -> F64:
        """Roll values (252,) when holding a roll with ``rolls_left`` rolls to come."""
        if len(self._e) <= rolls_left:
            self.keeps(rolls_left)
        return self._e[rolls_left]

    def candidates(self, dice: Dice, rolls_left: int) -> tuple[tuple[int, ...], list[float]]:
        """The distinct keeps of ``dice`` (flat indices, see ``KEEP_FACES``, ascending, so
        the whole roll comes last) and their values with ``rolls_left`` rolls to come.

        The whole roll stands for stopping: its value is ``e0``, the best box now, with one
        roll left and with two alike (never "keep all five and roll once more")."""
        d = dice_index(dice.values)
        subs = _UNIQUE_SUBS[d]
        # Always the same small product (never the cached full one), so an answer does not
        # depend on what the cache held: same position, same values, to the last bit.
        before = self.rolls(rolls_left - 1)
        values = (_COMPLETE[_UNIQUE_SUB_ARRAYS[d][:-1]] @ before).tolist()
        values.append(float(self._e[0][d]))  # stop now and score the best box
        return subs, values

    def choices(
        self, dice: Dice, rolls_left: int
    ) -> tuple[tuple[tuple[int, ...], ...], list[float]]:
        """The distinct keeps of ``dice`` as faces (the whole roll, i.e. stopping, last)
        and their values with ``rolls_left`` rolls to come."""
        subs, values = self.candidates(dice, rolls_left)
        return tuple(KEEP_FACES[k] for k in subs), values

    def best_keep(self, dice: Dice, rolls_left: int) -> tuple[int, ...]:
        """The faces to keep (all five = stop) that maximise ``k_rolls_left``."""
        subs, values = self.candidates(dice, rolls_left)
        return KEEP_FACES[subs[values.index(max(values))]]


_cache: LruCache[tuple[int, int, int, int], TurnArrays] = LruCache(64)


def turn_arrays(table: ValueTable, mask: int, up: int, flag: int) -> TurnArrays:
    """The (LRU-cached) optimal turn arrays of one state."""
    return _cache.get_or_compute(
        (id(table), mask, up, flag), lambda: TurnArrays.optimal(table, mask, up, flag)
    )


@dataclass(frozen=True, slots=True)
class KeepOption:
    """Keep these faces (ascending, fewer than five) and reroll the rest."""

    keep: tuple[int, ...]
    value: float

    def to_json(self) -> dict[str, Any]:
        """``{"keep": [...], "value": float}``."""
        return {"keep": list(self.keep), "value": self.value}


@dataclass(frozen=True, slots=True)
class CategoryOption:
    """Write the dice in ``category`` for ``points`` (bonuses are in ``value``)."""

    category: Category
    points: int
    value: float

    def to_json(self) -> dict[str, Any]:
        """``{"category": id, "points": int, "value": float}``."""
        return {"category": self.category.value, "points": self.points, "value": self.value}


@dataclass(frozen=True, slots=True)
class StopOption:
    """With rolls left: stop rolling and write the dice in ``category``, their best legal
    box, for ``points``. ``value`` is that box's value, the same number as the best
    :class:`CategoryOption` with no rolls left (forced Joker and bonuses included)."""

    category: Category
    points: int
    value: float

    def to_json(self) -> dict[str, Any]:
        """``{"stop": true, "category": id, "points": int, "value": float}``."""
        return {
            "stop": True,
            "category": self.category.value,
            "points": self.points,
            "value": self.value,
        }


Option = KeepOption | StopOption | CategoryOption


@dataclass(frozen=True, slots=True)
class Advice:
    """Every option of a position ranked by value (expected points still to come).

    With rolls left the options are the proper keeps and one :class:`StopOption`; with none
    left, the legal boxes. ``state_value`` is the value of the position under optimal play:
    the best option's value, or without dice the value of the next turn's start.
    ``options`` is sorted by value, best first (empty without dice).
    """

    state_value: float
    options: list[Option]

    @property
    def best(self) -> Option | None:
        """The optimal option (``None`` without dice)."""
        return self.options[0] if self.options else None

    def to_json(self) -> dict[str, Any]:
        """The CLI's ``--json`` object: ``state_value``, ``options``, ``best``."""
        best = self.best
        return {
            "state_value": self.state_value,
            "options": [o.to_json() for o in self.options],
            "best": best.to_json() if best is not None else None,
        }


def _check(card: Scorecard, rolls_left: int) -> None:
    if card.is_complete:
        raise GameOverError("the scorecard is full: there is nothing left to decide")
    if rolls_left not in (0, 1, 2):
        raise IllegalMoveError(f"rolls left must be 0, 1 or 2, got {rolls_left}")


def category_options(card: Scorecard, dice: Dice, table: ValueTable) -> list[CategoryOption]:
    """Every legal box for ``dice``, ranked: points and bonuses from the rules engine plus
    the value of the resulting state."""
    mask, up, flag = state_of(card)
    v = table.values
    out = []
    for category, option in score_options(card, dice).items():
        if not option.legal:
            continue
        bit = 1 << category.index
        new_up = min(UPPER_CAP, up + option.points) if category.is_upper else up
        new_flag = int(option.points == 50) if category is Category.YAHTZEE else flag
        value = option.gain + float(v[mask | bit, new_up, new_flag])
        out.append(CategoryOption(category, option.points, value))
    out.sort(key=lambda o: -o.value)
    return out


_ALL_ROLLS = np.arange(N_DICE, dtype=np.intp)


def roll_gains(card: Scorecard) -> tuple[F64, npt.NDArray[np.intp]]:
    """For every roll (252, see ``tables.LEVELS[5]``): what writing it in each box adds to
    the total right now, ``-inf`` where not allowed, and the points in the box; both
    shaped (13, 252). The raw material of players that judge the future by a rule of
    thumb instead of the table."""
    mask, up, flag = state_of(card)
    n = N_DICE
    return category_gains(
        np.full(n, mask, dtype=np.intp),
        np.full(n, up, dtype=np.intp),
        np.full(n, flag, dtype=np.intp),
        _ALL_ROLLS,
    )


def keep_options(card: Scorecard, dice: Dice, rolls_left: int, table: ValueTable) -> list[Option]:
    """With ``rolls_left`` 1 or 2: every proper keep of ``dice`` and stopping now, ranked
    (on equal values keeps first, as the expert breaks ties)."""
    mask, up, flag = state_of(card)
    subs, values = turn_arrays(table, mask, up, flag).candidates(dice, rolls_left)
    category, points, _ = _best_box(mask, up, flag, dice, table)
    # The whole roll (last) is stopping, valued E0 by candidates(); the stable sort keeps
    # the keeps ahead of stopping on equal values, as the expert's best_keep does.
    options: list[Option] = [
        KeepOption(KEEP_FACES[s], v) for s, v in zip(subs, values, strict=True)
    ]
    options[-1] = StopOption(category, points, values[-1])
    options.sort(key=lambda o: -o.value)
    return options


def advise(
    card: Scorecard, dice: Dice | None, rolls_left: int, table: ValueTable | None = None
) -> Advice:
    """Rank every option of the position (see :class:`Advice`).

    With ``rolls_left`` 1 or 2 the options are the keeps of fewer than five dice plus one
    :class:`StopOption` (stop rolling, worth the best box now); with 0 they are the legal
    boxes. Without dice, the value of the state at the start of the next turn.
    """
    if table is None:
        table = load_table()
    _check(card, rolls_left)
    if dice is None:
        return Advice(table.value(card), [])
    options: list[Option]
    if rolls_left == 0:
        options = list(category_options(card, dice, table))
    else:
        options = keep_options(card, dice, rolls_left, table)
    return Advice(options[0].value, options)


def best_keep(card: Scorecard, dice: Dice, rolls_left: int, table: ValueTable) -> tuple[int, ...]:
    """The faces the expert keeps (all five = stop rolling and score); ``rolls_left`` is 1
    or 2."""
    mask, up, flag = state_of(card)
    return turn_arrays(table, mask, up, flag).best_keep(dice, rolls_left)


_POINTS_BY_ROLL: list[list[int]] = BASE_SCORE.T.tolist()  # [roll][box] R3 points
_YAHTZEE_FACE: list[int] = [
    row.index(5) + 1 if max(row) == 5 else 0 for row in DICE_COUNTS.tolist()
]  # face of each Yahtzee roll, 0 for other rolls
_LOWER_BOXES = range(6, 13)


def best_category(card: Scorecard, dice: Dice, table: ValueTable) -> Category:
    """The box the expert writes ``dice`` in (always legal under R6).

    Plain Python over at most 13 boxes (a few numpy calls would cost more than the whole
    loop); tests check it against :func:`category_options`, which uses the rules engine.
    """
    mask, up, flag = state_of(card)
    return _best_box(mask, up, flag, dice, table)[0]


def _best_box(
    mask: int, up: int, flag: int, dice: Dice, table: ValueTable
) -> tuple[Category, int, float]:
    """The best legal box of ``dice`` in state (mask, up, flag): box, points, value."""
    d = dice_index(dice.values)
    points = _POINTS_BY_ROLL[d]
    face = _YAHTZEE_FACE[d]
    joker = face > 0 and mask >> _Y & 1 == 1
    if joker:
        if not mask >> (face - 1) & 1:
            boxes: Iterable[int] = (face - 1,)
        elif any(not mask >> c & 1 for c in _LOWER_BOXES):
            boxes = _LOWER_BOXES
        else:
            boxes = range(6)
    else:
        boxes = range(13)
    v = table.flat
    bonus = YAHTZEE_BONUS if joker and flag else 0
    best, best_points, best_value = -1, 0, -math.inf
    for c in boxes:
        if mask >> c & 1:
            continue
        p = _JOKER_FIXED.get(c, points[c]) if joker else points[c]
        gain = p + bonus
        new_up, new_flag = up, flag
        if c < 6:
            new_up = min(UPPER_CAP, up + p)
            if up < UPPER_BONUS_THRESHOLD <= up + p:
                gain += UPPER_BONUS
        elif c == _Y:
            new_flag = int(p == YAHTZEE_POINTS)
        value = gain + v.item(((mask | 1 << c) * N_UP + new_up) * 2 + new_flag)
        if value > best_value:
            best, best_points, best_value = c, p, value
    return CATEGORIES[best], best_points, best_value
