"""What one whole turn does, exactly, for each computer level: the outcome distribution.

For a turn-start state (used boxes, capped upper subtotal, 快艇 flag) and a player model,
:func:`turn_outcomes` gives every way the turn can end — the successor state and the
points it added (box, upper bonus, Yahtzee bonus) — with its exact probability. Each
level's policy is written here vectorised over the 252 rolls and mirrors the player's
``decide`` (tests compare them decision by decision):

* ``expert``: the best keep and box by the solver's values (argmax, first among equals);
* ``intermediate``: the same one-turn planner on its rule-of-thumb values, with its
  random choice among options within ``MARGIN`` as probabilities (∝ exp(value / T));
* ``novice``: its rules (sure points, obvious patterns, the most common face), greedy box.

:mod:`yahtzee.review.winprob` folds these into distributions of the points still to come.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from yahtzee.lru import LruCache
from yahtzee.players.intermediate import MARGIN, PAR_WEIGHT, TEMPERATURE, TYPICAL
from yahtzee.players.novice import GOOD_ENOUGH, _longest_run
from yahtzee.rules import UPPER_BONUS_THRESHOLD, YAHTZEE_POINTS, Category, Dice
from yahtzee.solver import ValueTable, load_table
from yahtzee.solver.advice import _COMPLETE, _UNIQUE_SUBS, TurnArrays, turn_arrays
from yahtzee.solver.build import canonical_upper
from yahtzee.solver.kernel import _write_outcomes
from yahtzee.solver.tables import (
    LEVEL_OFFSETS,
    LEVELS,
    N_DICE,
    N_KEEPS,
    N_UP,
    PROB5,
    keep_index,
)

F64 = npt.NDArray[np.float64]
State = tuple[int, int, int]
"""(used-box mask, upper subtotal capped at 63 (canonical), 快艇 flag)."""
Outcomes = tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], F64]
"""Successor states (flat table index), points added, probabilities: one entry each."""

_Y = Category.YAHTZEE.index
_CHANCE = Category.CHANCE.index
_ROLLS = np.arange(N_DICE, dtype=np.intp)
_FULL = LEVEL_OFFSETS[5]
_WIDTH = max(len(s) for s in _UNIQUE_SUBS)
# Distinct keeps of each roll, padded with -1; the whole roll (stopping) is the last one.
SUBS = np.full((N_DICE, _WIDTH), -1, dtype=np.intp)
for _d, _subs in enumerate(_UNIQUE_SUBS):
    SUBS[_d, : len(_subs)] = _subs
VALID = SUBS >= 0
STOP_SLOT = VALID.sum(axis=1) - 1
_SUBS0 = np.where(VALID, SUBS, 0)
_PROPER = VALID & (np.arange(_WIDTH)[None, :] < STOP_SLOT[:, None])
_CANON = canonical_upper()
_FACE = np.array([i + 1 for i in range(6)], dtype=np.float64)[:, None]


def canonical(state: State) -> State:
    """The representative of ``state`` (hopeless upper subtotals share one)."""
    mask, up, flag = state
    return mask, int(_CANON[mask, up]), flag


def flat_index(state: State) -> int:
    """Index of ``state`` in a flat (8192 * 64 * 2) table."""
    mask, up, flag = state
    return (mask * N_UP + up) * 2 + flag


def state_at(index: int) -> State:
    """Inverse of :func:`flat_index`."""
    rest, flag = divmod(index, 2)
    mask, up = divmod(rest, N_UP)
    return mask, up, flag


def _argmax_slots(values: F64) -> F64:
    """One-hot (252, W) of the first best valid slot of each roll."""
    v = np.where(VALID, values, -np.inf)
    out = np.zeros(v.shape)
    out[_ROLLS, np.argmax(v, axis=1)] = 1.0
    return out


def _near_slots(values: F64) -> F64:
    """The intermediate's choice: options within MARGIN of the best, weight exp(v/T)."""
    v = np.where(VALID, values, -np.inf)
    best = v.max(axis=1, keepdims=True)
    w = np.where(v >= best - MARGIN, np.exp((v - best) / TEMPERATURE), 0.0)
    out: F64 = w / w.sum(axis=1, keepdims=True)
    return out


def _keep_values(arrays: TurnArrays, rolls_left: int) -> F64:
    """(252, W) values of each roll's distinct keeps (stop: the whole roll's entry)."""
    k = arrays.keeps(rolls_left)
    out: F64 = np.where(VALID, k[_SUBS0], -np.inf)
    return out


class _Writes:
    """Everything about writing each roll in each box, for one state: (13, 252) arrays."""

    def __init__(self, state: State) -> None:
        mask, up, flag = state
        n = N_DICE
        legal, gain, pts, new_up = _write_outcomes(
            np.full(n, mask, dtype=np.intp),
            np.full(n, up, dtype=np.intp),
            np.full(n, flag, dtype=np.intp),
            _ROLLS,
        )
        self.legal = legal
        self.gain = gain
        self.points = pts
        bits = (1 << np.arange(13, dtype=np.intp))[:, None]
        new_mask = mask | bits
        new_flag = np.full((13, n), flag, dtype=np.intp)
        new_flag[_Y] = pts[_Y] == YAHTZEE_POINTS
        new_up = _CANON[np.broadcast_to(new_mask, new_up.shape), new_up]
        self.succ = (new_mask * N_UP + new_up) * 2 + new_flag
        self.gains = np.where(legal, gain.astype(np.float64), -np.inf)


def _first_argmax_onehot(values: F64) -> F64:
    out = np.zeros(values.shape)
    out[np.argmax(values, axis=0), _ROLLS] = 1.0
    return out


class ExpertModel:
    """高手: the solver's argmax (as :class:`yahtzee.players.expert.ExpertPlayer`)."""

    name = "expert"

    def __init__(self, table: ValueTable | None = None) -> None:
        self.table = table or load_table()

    def policy(self, state: State, writes: _Writes) -> tuple[F64, dict[int, F64]]:
        """Box probabilities (13, 252) and keep probabilities per rolls left (252, W)."""
        mask, up, flag = state
        values = np.where(writes.legal, writes.gains + self.table.flat[writes.succ], -np.inf)
        arrays = turn_arrays(self.table, mask, up, flag)
        keeps = {r: _argmax_slots(_keep_values(arrays, r)) for r in (1, 2)}
        return _first_argmax_onehot(values), keeps


class IntermediateModel:
    """普通: one-turn planning on rule-of-thumb values, random among near options."""

    name = "intermediate"

    def policy(self, state: State, writes: _Writes) -> tuple[F64, dict[int, F64]]:
        """Box probabilities (13, 252) and keep probabilities per rolls left (252, W)."""
        h = writes.gains - TYPICAL[:, None]
        if state[1] < UPPER_BONUS_THRESHOLD:
            h[:6] += PAR_WEIGHT * (writes.points[:6] - 3 * _FACE)
        arrays = TurnArrays(h.max(axis=0))
        keeps = {r: _near_slots(_keep_values(arrays, r)) for r in (1, 2)}
        best = h.max(axis=0, keepdims=True)
        w = np.where(h >= best - MARGIN, np.exp((h - best) / TEMPERATURE), 0.0)
        return w / w.sum(axis=0, keepdims=True), keeps


def _novice_tables() -> tuple[npt.NDArray[np.intp], ...]:
    """Per roll, the slots of the novice's candidate keeps and its pattern flags."""
    stop, run4, pairs2, high, most_face = (np.zeros(N_DICE, dtype=np.intp) for _ in range(5))
    five_run, four_run, full_house, two_pairs, single, yahtzee = (
        np.zeros(N_DICE, dtype=np.intp) for _ in range(6)
    )
    for d, faces in enumerate(LEVELS[5]):
        slot = {k: j for j, k in enumerate(_UNIQUE_SUBS[d])}
        dice = Dice.of(faces)
        counts = dice.counts
        most = max(counts)
        pair = sorted(counts)[-2:]
        run = _longest_run(dice)
        stop[d] = STOP_SLOT[d]
        yahtzee[d] = most == 5
        full_house[d] = pair == [2, 3]
        five_run[d] = len(run) == 5
        four_run[d] = len(run) == 4 and most < 3
        two_pairs[d] = pair == [2, 2]
        single[d] = most == 1
        run4[d] = slot[keep_index(run)] if len(run) == 4 else stop[d]
        pairs2[d] = slot[keep_index([f for f in faces if counts[f - 1] == 2])]
        high[d] = slot[keep_index([f for f in faces if f >= 5])]
        face = max(range(1, 7), key=lambda f: (counts[f - 1], f))
        most_face[d] = slot[keep_index([face] * counts[face - 1])]
    return (stop, run4, pairs2, high, most_face, five_run, four_run, full_house, two_pairs,
            single, yahtzee)  # fmt: skip


_NOVICE = _novice_tables()


class NoviceModel:
    """入门: sure points, obvious patterns, the most common face; the greediest box."""

    name = "novice"

    def policy(self, state: State, writes: _Writes) -> tuple[F64, dict[int, F64]]:
        """Box probabilities (13, 252) and keep probabilities (the same for 1 or 2 left)."""
        mask = state[0]
        stop, run4, pairs2, high, most_face, five_run, four_run, fh, two_pairs, single, yz = _NOVICE
        not_chance = np.delete(writes.gains, _CHANCE, axis=0)
        now = np.maximum(not_chance.max(axis=0), 0.0)
        fh_open = not mask >> Category.FULL_HOUSE.index & 1
        straights_open = not (
            mask >> Category.LARGE_STRAIGHT.index & 1 and mask >> Category.SMALL_STRAIGHT.index & 1
        )
        slot = np.select(
            [
                now >= GOOD_ENOUGH,
                (yz == 1) | ((fh == 1) & bool(fh_open)),
                (five_run == 1) & straights_open,
                (four_run == 1) & straights_open,
                (two_pairs == 1) & bool(fh_open),
                single == 1,
            ],
            [stop, stop, stop, run4, pairs2, high],
            default=most_face,
        )
        keep = np.zeros(SUBS.shape)
        keep[_ROLLS, slot] = 1.0
        # The box: most points now, first on the card among equals.
        return _first_argmax_onehot(writes.gains), {1: keep, 2: keep}


Model = ExpertModel | IntermediateModel | NoviceModel


def turn_outcomes(
    model: Model, state: State, dice: int | None = None, rolls_left: int = 2
) -> Outcomes:
    """Every end of one turn from ``state`` (canonical) under ``model``, exactly: from its
    start, or (``dice``: a roll index, see ``tables.LEVELS[5]``) from that roll with
    ``rolls_left`` rolls to come (the live meter, mid-turn)."""
    writes = _Writes(state)
    box, keeps = model.policy(state, writes)
    if dice is None:
        p = PROB5.copy()
    else:
        p = np.zeros(N_DICE)
        p[dice] = 1.0
    end = np.zeros(N_DICE)
    for r in range(rolls_left, 0, -1):
        kp = keeps[r] * p[:, None]
        end += kp[_ROLLS, STOP_SLOT]
        w = np.bincount(SUBS[_PROPER], weights=kp[_PROPER], minlength=N_KEEPS)[:_FULL]
        p = w @ _COMPLETE
    end += p
    prob = box * end[None, :]
    nz = prob > 0
    succ, gain, pr = writes.succ[nz], writes.gain[nz], prob[nz]
    key = succ.astype(np.int64) * 1024 + gain
    uniq, inverse = np.unique(key, return_inverse=True)
    total: F64 = np.bincount(inverse, weights=pr).astype(np.float64)
    return (uniq // 1024).astype(np.intp), (uniq % 1024).astype(np.intp), total


CACHE_SIZE = 20_000
_cache: LruCache[tuple[str, State], Outcomes] = LruCache(CACHE_SIZE)


def cached_outcomes(model: Model, state: State) -> Outcomes:
    """:func:`turn_outcomes`, memoised per (level, state) process-wide (LRU)."""
    return _cache.get_or_compute((model.name, state), lambda: turn_outcomes(model, state))


def model_for(level: str, table: ValueTable | None = None) -> Model:
    """The model of a computer level (``expert`` also models the human)."""
    if level == "expert":
        return ExpertModel(table)
    if level == "intermediate":
        return IntermediateModel()
    if level == "novice":
        return NoviceModel()
    raise ValueError(f"unknown level {level!r}")
