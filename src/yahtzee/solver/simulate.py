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
import select
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
        is_upper = cat < 6
        upper += np.where(is_upper, pts, 0)
        lower += np.where(is_upper, 0, pts)
        flag = np.where(cat == _Y, (pts == YAHTZEE_POINTS).astype(np.intp), flag)
        mask |= 1 << cat
    bonus = upper >= UPPER_BONUS_THRESHOLD
    total = upper + UPPER_BONUS * bonus + lower + ybonus
    return total.astype(np.int64), bonus, flag == 1


class _SharedResults:
    """Per-game results, in shared memory when forked workers fill them."""

    def __init__(self, games: int, shared: bool) -> None:
        if shared:
            buf = mmap.mmap(-1, max(1, games) * 10)  # anonymous MAP_SHARED: survives fork
            self.scores = np.frombuffer(buf, dtype=np.int64, count=games)
            flags = np.frombuffer(buf, dtype=np.bool_, count=2 * games, offset=8 * games)
        else:
            self.scores = np.zeros(games, dtype=np.int64)
            flags = np.zeros(2 * games, dtype=np.bool_)
        self.bonus = flags[:games]
        self.yahtzee = flags[games:]

    def result(self, seconds: float) -> SimulationResult:
        """A private copy of the results."""
        return SimulationResult(self.scores.copy(), self.bonus.copy(), self.yahtzee.copy(), seconds)


def _run_tasks(
    sizes: list[int],
    run: Callable[[int], None],
    workers: int,
    progress: ProgressFn | None,
) -> None:
    """Run ``run(i)`` for every task i (of ``sizes[i]`` games): task i on worker
    ``i % workers``, worker 0 being this process and the others forked children. Children
    report each finished task over a pipe, which also drives the progress callback."""
    total = sum(sizes)
    workers = max(1, min(workers, len(sizes)))
    expected = [len(range(r, len(sizes), workers)) for r in range(workers)]
    finished = [0] * workers
    children: list[tuple[int, int]] = []  # (pid, read end of its "task done" pipe)

    def report() -> None:
        if progress is not None:
            done = sum(sizes[r + workers * j] for r in range(workers) for j in range(finished[r]))
            progress(done, total)

    def collect(block: bool) -> None:
        for rank, (pid, read_end) in enumerate(children, start=1):
            while finished[rank] < expected[rank]:
                if not block and not select.select([read_end], [], [], 0)[0]:
                    break
                got = os.read(read_end, expected[rank] - finished[rank])
                if not got:
                    raise RuntimeError(f"simulation worker {pid} died")
                finished[rank] += len(got)

    try:
        for rank in range(1, workers):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child process
                status = 1
                try:
                    os.close(read_end)
                    for i in range(rank, len(sizes), workers):
                        run(i)
                        os.write(write_end, b"t")
                    status = 0
                finally:
                    os._exit(status)
            os.close(write_end)
            children.append((pid, read_end))
        for i in range(0, len(sizes), workers):
            run(i)
            finished[0] += 1
            collect(block=False)
            report()
        collect(block=True)
        report()
    finally:
        for pid, read_end in children:
            os.close(read_end)
            os.waitpid(pid, 0)


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
    workers = _workers(workers)
    v = table.flat
    keep_freed_memory()
    start = time.perf_counter()
    offsets = list(range(0, games, BATCH))
    sizes = [min(BATCH, games - a) for a in offsets]
    seeds = np.random.SeedSequence(seed).spawn(len(sizes))
    out = _SharedResults(games, shared=workers > 1 and len(sizes) > 1)

    def play(i: int) -> None:
        a, n = offsets[i], sizes[i]
        sl = slice(a, a + n)
        out.scores[sl], out.bonus[sl], out.yahtzee[sl] = _expert_batch(v, n, seeds[i])

    _run_tasks(sizes, play, workers, progress)
    return out.result(time.perf_counter() - start)


def _workers(workers: int | None) -> int:
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    return workers if can_fork() else 1


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
    make_player: Callable[[random.Random], Player],
    games: int,
    seed: int | None = None,
    *,
    workers: int | None = None,
    progress: ProgressFn | None = None,
) -> SimulationResult:
    """Play ``games`` games of a :class:`Player`, one decision at a time (legality is
    enforced by :meth:`Scorecard.score`).

    Games come in blocks of :data:`PLAYER_BLOCK`; each block gets a fresh player from
    ``make_player(rng)`` and its own dice, both seeded from ``seed`` and the block number,
    so forked workers (``workers``, as for the expert) do not change the outcome.
    """
    workers = _workers(workers)
    start = time.perf_counter()
    offsets = list(range(0, games, PLAYER_BLOCK))
    sizes = [min(PLAYER_BLOCK, games - a) for a in offsets]
    out = _SharedResults(games, shared=workers > 1 and len(sizes) > 1)
    base = random.Random(seed).getrandbits(64)

    def play(i: int) -> None:
        player = make_player(random.Random(f"{base}:player:{i}"))
        dice = random.Random(f"{base}:dice:{i}")
        for g in range(offsets[i], offsets[i] + sizes[i]):
            card = play_game(player, dice)
            out.scores[g] = card.total
            out.bonus[g] = card.upper_bonus > 0
            out.yahtzee[g] = card.yahtzee_bonus_eligible

    _run_tasks(sizes, play, workers, progress)
    return out.result(time.perf_counter() - start)
