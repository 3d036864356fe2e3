"""Simulated games: the expert vectorised across many games, any player turn by turn.

The expert simulation advances a batch of games turn by turn: at each of the 13 turns it
computes every game's turn arrays as one (252, N) batch with the solver's own kernel,
draws dice with a seeded numpy generator and picks each game's keep and box by argmax.
Any other :class:`~yahtzee.turn.Player` plays whole games through
:func:`~yahtzee.turn.play_turn`, the same driver as the server's computer turn. Batches
are independent (each has its own child seed), so the worker pool
(:mod:`yahtzee.solver.pool`) shares them between processes and the result does not
depend on how many there are.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from yahtzee.dice import SeededDice
from yahtzee.game import ROLLS_PER_TURN, ROUNDS, Game, Mode
from yahtzee.rules import (
    CATEGORIES,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    YAHTZEE_POINTS,
    Category,
    Scorecard,
)
from yahtzee.solver.cache import ValueTable, load_table, state_of
from yahtzee.solver.kernel import category_values, keep_values, reroll, turn_start_e0
from yahtzee.solver.pool import (
    ProgressFn,
    Task,
    keep_freed_memory,
    run_phases,
    shared_zeros,
    worker_count,
)
from yahtzee.solver.tables import (
    CODE_TO_KEEP,
    COUNT_CODE_WEIGHTS,
    DICE_COUNTS,
    KEEP_COUNTS,
    LEVEL_OFFSETS,
    N_KEEPS,
    SUB_KEEPS,
    UPPER_CAP,
    IntArray,
)
from yahtzee.turn import Player, play_turn

BATCH = 2048
PLAYER_BLOCK = 250
_Y = Category.YAHTZEE.index


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """Final totals of simulated games and what they earned."""

    scores: npt.NDArray[np.int64]
    upper_bonus: npt.NDArray[np.bool_]
    yahtzee: npt.NDArray[np.bool_]
    seconds: float

    @property
    def games(self) -> int:
        """How many games were played."""
        return int(self.scores.shape[0])

    def summary(self) -> dict[str, Any]:
        """The ``yahtzee simulate --json`` object."""
        scores = self.scores.astype(np.float64)
        pct = np.percentile(scores, [5, 25, 50, 75, 95])
        return {
            "games": self.games,
            "mean": float(scores.mean()),
            "sd": float(scores.std(ddof=1)) if self.games > 1 else 0.0,
            "percentiles": {
                str(p): float(x) for p, x in zip((5, 25, 50, 75, 95), pct, strict=True)
            },
            "upper_bonus_rate": float(self.upper_bonus.mean()),
            "yahtzee_rate": float(self.yahtzee.mean()),
            "games_per_second": self.games / self.seconds if self.seconds > 0 else float("inf"),
        }


_POW6 = COUNT_CODE_WEIGHTS  # a die showing face f+1 adds 6**f to a multiset's code
_KEEP_CODE = KEEP_COUNTS @ COUNT_CODE_WEIGHTS
_KEEP_SIZE = KEEP_COUNTS.sum(axis=1)
_CODE_TO_DICE = np.where(LEVEL_OFFSETS[5] <= CODE_TO_KEEP, CODE_TO_KEEP - LEVEL_OFFSETS[5], -1)
_POSITIONS = np.arange(5)


def _roll(rng: np.random.Generator, kept_code: IntArray, kept_size: IntArray) -> IntArray:
    """Roll the missing dice onto each game's kept multiset; returns roll indices (n,).

    Multisets are tracked by their base-6 count code, so adding a die is one addition.
    """
    fresh = _POW6[rng.integers(0, 6, size=(kept_code.shape[0], 5))]
    fresh[_POSITIONS[None, :] >= (5 - kept_size)[:, None]] = 0
    dice: IntArray = _CODE_TO_DICE[kept_code + fresh.sum(axis=1)]
    return dice


@dataclass(frozen=True, slots=True)
class ExpertPlay:
    """What ``n`` optimal continuations of one position scored, game by game."""

    boxes: npt.NDArray[np.int64]
    """(n, 13): the points each continuation wrote in each box (0 in boxes filled before)."""
    upper: npt.NDArray[np.intp]
    """The upper subtotal at the end, the starting card's included."""
    yahtzee_bonus: npt.NDArray[np.int64]
    """The 快艇 bonuses earned during the continuation."""
    flag: npt.NDArray[np.intp]
    """1 where the 快艇 box holds 50 at the end."""

    def upper_bonus(self, start_upper: int = 0) -> npt.NDArray[np.bool_]:
        """Where the upper bonus was earned during the continuation (from ``start_upper``)."""
        made: npt.NDArray[np.bool_] = self.upper >= UPPER_BONUS_THRESHOLD
        return made & (start_upper < UPPER_BONUS_THRESHOLD)

    def gained(self, start_upper: int = 0) -> npt.NDArray[np.int64]:
        """The points each continuation added to the card's total, bonuses included."""
        out: npt.NDArray[np.int64] = (
            self.boxes.sum(axis=1)
            + UPPER_BONUS * self.upper_bonus(start_upper)
            + self.yahtzee_bonus
        )
        return out


def play_expert(
    v: npt.NDArray[np.float32],
    n: int,
    rng: np.random.Generator,
    card: Scorecard | None = None,
) -> ExpertPlay:
    """Play ``n`` optimal continuations of ``card`` (a new game without it) to the end,
    all at once: every turn is one (252, n) batch of the solver's kernel, the dice drawn
    from ``rng`` and each game's keep and box picked by argmax."""
    card = card or Scorecard()
    mask0, _, flag0 = state_of(card)
    games = np.arange(n)
    mask = np.full(n, mask0, dtype=np.intp)
    upper = np.full(n, card.upper_subtotal, dtype=np.intp)  # true subtotal (uncapped)
    flag = np.full(n, flag0, dtype=np.intp)
    boxes = np.zeros((n, len(CATEGORIES)), dtype=np.int64)
    ybonus = np.zeros(n, dtype=np.int64)
    nothing = np.zeros(n, dtype=np.intp)
    keeps = np.empty((2, N_KEEPS, n), dtype=np.float32)  # flat keep values, 1 and 2 rolls left
    for _ in range(len(CATEGORIES) - card.filled_count):
        up = np.minimum(upper, UPPER_CAP)
        e0, _shift = turn_start_e0(v, mask, up, flag)
        _, e1 = reroll(e0, keeps[0])
        keep_values(e1, keeps[1])  # the roll values after this (E2) are never needed here
        # Keeping all five with two rolls left means stopping now (E0), not holding all
        # five for one more roll (E1), which the game forbids.
        keeps[1, LEVEL_OFFSETS[5] :] = e0
        dice = _roll(rng, nothing, nothing)
        for rolls_left in range(ROLLS_PER_TURN - 1, 0, -1):
            subs = SUB_KEEPS[dice]  # (n, 32) flat keeps within each roll
            cand = np.take(keeps[rolls_left - 1].reshape(-1), subs * n + games[:, None])
            keep = subs[games, np.argmax(cand, axis=1)]
            dice = _roll(rng, _KEEP_CODE[keep], _KEEP_SIZE[keep])
        values, points = category_values(v, mask, up, flag, dice)
        cat = np.argmax(values, axis=0)
        pts = points[cat, games]
        is_y_roll = DICE_COUNTS[dice].max(axis=1) == 5
        ybonus += YAHTZEE_BONUS * (is_y_roll & ((mask >> _Y) & 1 == 1) & (flag == 1))
        boxes[games, cat] = pts
        upper += np.where(cat < 6, pts, 0)
        flag = np.where(cat == _Y, (pts == YAHTZEE_POINTS).astype(np.intp), flag)
        mask |= 1 << cat
    return ExpertPlay(boxes, upper, ybonus, flag)


def _expert_batch(
    v: npt.NDArray[np.float32], n: int, seed: np.random.SeedSequence
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    play = play_expert(v, n, np.random.default_rng(seed))
    return play.gained(), play.upper_bonus(), play.flag == 1


class _Results:
    """Per-game results, in shared memory when forked workers fill them."""

    def __init__(self, games: int, shared: bool) -> None:
        self.scores = shared_zeros(games, np.int64, shared)
        self.bonus = shared_zeros(games, np.bool_, shared)
        self.yahtzee = shared_zeros(games, np.bool_, shared)

    def result(self, seconds: float) -> SimulationResult:
        """A private copy of the results."""
        return SimulationResult(self.scores.copy(), self.bonus.copy(), self.yahtzee.copy(), seconds)


def simulate_expert(
    games: int,
    seed: int | None = None,
    *,
    table: ValueTable | None = None,
    workers: int | None = None,
    progress: ProgressFn | None = None,
) -> SimulationResult:
    """Play ``games`` optimal games (vectorised); reproducible for a given ``seed``.

    Batches of :data:`BATCH` games each get a child seed; with ``workers`` > 1 (default 2
    where forking is safe, as for the solve) forked processes play some of the batches and
    write into shared memory, so the outcome never depends on ``workers``.
    """
    if table is None:
        table = load_table()
    workers = worker_count(workers)
    v = table.flat
    keep_freed_memory()
    start = time.perf_counter()
    offsets = list(range(0, games, BATCH))
    sizes = [min(BATCH, games - a) for a in offsets]
    seeds = np.random.SeedSequence(seed).spawn(len(sizes))
    out = _Results(games, shared=workers > 1 and len(sizes) > 1)

    def play(i: int) -> None:
        a, n = offsets[i], sizes[i]
        sl = slice(a, a + n)
        out.scores[sl], out.bonus[sl], out.yahtzee[sl] = _expert_batch(v, n, seeds[i])

    _run(play, sizes, workers, progress)
    return out.result(time.perf_counter() - start)


def _run(
    play: Callable[[int], None], sizes: list[int], workers: int, progress: ProgressFn | None
) -> None:
    """Block ``i`` (of ``sizes[i]`` games) is ``play(i)``: one phase of the worker pool."""
    tasks = [Task(partial(play, i), n) for i, n in enumerate(sizes)]
    run_phases([tasks], workers, progress=progress, name="simulation worker")


def play_game(player: Player, rng: random.Random) -> Scorecard:
    """One solo game of ``player`` with dice from ``rng``; returns the final card.

    Each turn is :func:`~yahtzee.turn.play_turn`: every decision is checked by the rules.
    """
    dice = SeededDice(rng=rng)
    state = Game.new(Mode.SOLO)
    for _ in range(ROUNDS):
        state = play_turn(state, player, dice).state
    return state.current_card


def simulate_player(
    make_player: Callable[[random.Random], Player],
    games: int,
    seed: int | None = None,
    *,
    workers: int | None = None,
    progress: ProgressFn | None = None,
) -> SimulationResult:
    """Play ``games`` games of a :class:`~yahtzee.turn.Player`, one decision at a time
    (legality is enforced by :class:`~yahtzee.game.Game`).

    Games come in blocks of :data:`PLAYER_BLOCK`; each block gets a fresh player from
    ``make_player(rng)`` and its own dice, both seeded from ``seed`` and the block number,
    so forked workers (``workers``, as for the expert) do not change the outcome.
    """
    workers = worker_count(workers)
    start = time.perf_counter()
    offsets = list(range(0, games, PLAYER_BLOCK))
    sizes = [min(PLAYER_BLOCK, games - a) for a in offsets]
    out = _Results(games, shared=workers > 1 and len(sizes) > 1)
    base = random.Random(seed).getrandbits(64)

    def play(i: int) -> None:
        player = make_player(random.Random(f"{base}:player:{i}"))
        dice = random.Random(f"{base}:dice:{i}")
        for g in range(offsets[i], offsets[i] + sizes[i]):
            card = play_game(player, dice)
            out.scores[g] = card.total
            out.bonus[g] = card.upper_bonus > 0
            out.yahtzee[g] = card.yahtzee_bonus_eligible

    _run(play, sizes, workers, progress)
    return out.result(time.perf_counter() - start)
