"""Simulated games: the expert vectorised across many games, other players one by one.

The expert simulation advances a batch of games turn by turn: at each of the 13 turns it
computes every game's turn arrays as one (252, N) batch with the solver's own kernel,
draws dice with a seeded numpy generator and picks each game's keep and box by argmax.
Batches are independent (each has its own child seed), so two processes share them and
the result does not depend on how many there are.
"""

from __future__ import annotations

import mmap
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from yahtzee.game import ROLLS_PER_TURN, ROUNDS
from yahtzee.rules import (
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    YAHTZEE_POINTS,
    Category,
    Dice,
    Scorecard,
)
from yahtzee.solver.build import can_fork, keep_freed_memory
from yahtzee.solver.cache import ValueTable, load_table
from yahtzee.solver.kernel import category_values, keep_values, reroll, turn_start_e0
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

if TYPE_CHECKING:
    from yahtzee.players.base import Player

ProgressFn = Callable[[int, int], None]
BATCH = 2048
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


def _expert_batch(
    v: npt.NDArray[np.float32], n: int, seed: np.random.SeedSequence
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    rng = np.random.default_rng(seed)
    games = np.arange(n)
    mask = np.zeros(n, dtype=np.intp)
    upper = np.zeros(n, dtype=np.intp)  # true upper subtotal (uncapped)
    flag = np.zeros(n, dtype=np.intp)
    lower = np.zeros(n, dtype=np.int64)
    ybonus = np.zeros(n, dtype=np.int64)
    nothing = np.zeros(n, dtype=np.intp)
    keeps = np.empty((2, N_KEEPS, n), dtype=np.float32)  # flat keep values, 1 and 2 rolls left
    for _ in range(ROUNDS):
        up = np.minimum(upper, UPPER_CAP)
        e0, _shift = turn_start_e0(v, mask, up, flag)
        _, e1 = reroll(e0, keeps[0])
        keep_values(e1, keeps[1])  # the roll values after this (E2) are never needed here
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
        is_upper = cat < 6
        upper += np.where(is_upper, pts, 0)
        lower += np.where(is_upper, 0, pts)
        flag = np.where(cat == _Y, (pts == YAHTZEE_POINTS).astype(np.intp), flag)
        mask |= 1 << cat
    bonus = upper >= UPPER_BONUS_THRESHOLD
    total = upper + UPPER_BONUS * bonus + lower + ybonus
    return total.astype(np.int64), bonus, flag == 1


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
    where forking is safe, as for the solve) a forked process plays every other batch and
    writes its results into shared memory, so the outcome never depends on ``workers``.
    """
    if table is None:
        table = load_table()
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    if not can_fork():
        workers = 1
    v = table.flat
    keep_freed_memory()
    start = time.perf_counter()
    offsets = list(range(0, games, BATCH))
    sizes = [min(BATCH, games - a) for a in offsets]
    seeds = np.random.SeedSequence(seed).spawn(len(sizes))
    workers = max(1, min(workers, len(sizes)))
    # Results live in shared memory (one int64 score and two flags per game).
    shared = mmap.mmap(-1, max(1, games) * 10) if workers > 1 else None
    if shared is not None:
        scores = np.frombuffer(shared, dtype=np.int64, count=games)
        flags = np.frombuffer(shared, dtype=np.bool_, count=2 * games, offset=8 * games)
    else:
        scores = np.zeros(games, dtype=np.int64)
        flags = np.zeros(2 * games, dtype=np.bool_)
    bonus, yz = flags[:games], flags[games:]

    def play(i: int) -> None:
        a, n = offsets[i], sizes[i]
        scores[a : a + n], bonus[a : a + n], yz[a : a + n] = _expert_batch(v, n, seeds[i])

    children: list[tuple[int, int]] = []  # (pid, read end of its "batch done" pipe)
    done = 0
    try:
        for rank in range(1, workers):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child process
                status = 1
                try:
                    os.close(read_end)
                    for i in range(rank, len(sizes), workers):
                        play(i)
                        os.write(write_end, b"b")
                    status = 0
                finally:
                    os._exit(status)
            os.close(write_end)
            children.append((pid, read_end))
        for i in range(0, len(sizes), workers):
            play(i)
            done += sizes[i]
            if progress is not None:
                progress(min(done * workers, games - 1), games)
        for pid, read_end in children:
            expected = len(range(children.index((pid, read_end)) + 1, len(sizes), workers))
            got = 0
            while got < expected:
                chunk = os.read(read_end, expected - got)
                if not chunk:
                    raise RuntimeError(f"simulation worker {pid} died")
                got += len(chunk)
        if progress is not None:
            progress(games, games)
        result = SimulationResult(
            scores.copy(), bonus.copy(), yz.copy(), time.perf_counter() - start
        )
    finally:
        for pid, read_end in children:
            os.close(read_end)
            os.waitpid(pid, 0)
    return result  # the shared mapping is unmapped once the views above are released


def play_game(player: Player, rng: random.Random) -> Scorecard:
    """One solo game of ``player`` with dice from ``rng``; returns the final card."""
    from yahtzee.players.base import RollDecision  # runtime import: players import us

    card = Scorecard()
    for _ in range(ROUNDS):
        faces = [rng.randint(1, 6) for _ in range(5)]
        rolls_left = ROLLS_PER_TURN - 1
        while True:
            dice = Dice.of(faces)
            decision = player.decide(card, dice, rolls_left)
            if isinstance(decision, RollDecision) and rolls_left > 0:
                if all(decision.hold):
                    raise ValueError(f"{player.name} held all five dice instead of scoring")
                faces = [
                    f if h else rng.randint(1, 6) for f, h in zip(faces, decision.hold, strict=True)
                ]
                rolls_left -= 1
                continue
            if isinstance(decision, RollDecision):
                raise ValueError(f"{player.name} tried to roll with no rolls left")
            card = card.score(decision.category, dice)
            break
    return card


def simulate_player(
    player: Player, games: int, seed: int | None = None, *, progress: ProgressFn | None = None
) -> SimulationResult:
    """Play ``games`` games of any :class:`Player`, one decision at a time (legality is
    enforced by :meth:`Scorecard.score`)."""
    rng = random.Random(seed)
    start = time.perf_counter()
    scores = np.zeros(games, dtype=np.int64)
    bonus = np.zeros(games, dtype=np.bool_)
    yz = np.zeros(games, dtype=np.bool_)
    step = max(1, games // 100)
    for i in range(games):
        card = play_game(player, rng)
        scores[i] = card.total
        bonus[i] = card.upper_bonus > 0
        yz[i] = card.yahtzee_bonus_eligible
        if progress is not None and ((i + 1) % step == 0 or i + 1 == games):
            progress(i + 1, games)
    return SimulationResult(scores, bonus, yz, time.perf_counter() - start)
