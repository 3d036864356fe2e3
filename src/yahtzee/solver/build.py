"""Backward induction over every reachable turn-start state.

A turn-start state is (used-box mask, upper subtotal capped at 63, 快艇 box holds 50). Its
value is the expected number of points still to come under optimal play. States are solved
in batches by the number of filled boxes, from 12 down to 0: every successor of a batch
has one more box filled, so it is already known. Inside a batch the states are cut into
chunks that stay in the CPU cache.

Two cores share the chunks through a forked worker process writing into the same shared
memory (threads were measured: with a few hundred states per numpy call the GIL-held
Python between calls serialises them, no gain; two processes: ~1.5-1.8x). Forking is only
done in a single-threaded process (the ``yahtzee solve`` command); elsewhere, e.g. a
server building its table on first need, the solve runs in the calling thread.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import threading
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from yahtzee.rules import UPPER_BONUS_THRESHOLD
from yahtzee.solver.kernel import reroll, turn_start_e0
from yahtzee.solver.tables import (
    F32,
    N_UP,
    NUM_CATS,
    PROB5,
    REACHABLE_UPPER,
    YAHTZEE_BIT,
    IntArray,
)

TABLE_SHAPE = (1 << NUM_CATS, N_UP, 2)
"""V[mask, upper, flag]: mask bit i = box i used; flag = the 快艇 box holds 50."""
CHUNK = 320  # (252, S) float32 temporaries must stay in the 1 MB L2: 320 beats 768 by ~2x
_PROB32 = PROB5.astype(np.float32)  # e2 is relative to the per-state shift: float32 is ample

ProgressFn = Callable[[int, int], None]


def reachable_states() -> npt.NDArray[np.bool_]:
    """Boolean (8192, 64, 2): which turn-start states can occur in a real game.

    The upper subtotal must be a sum of ``face * count`` over the used upper boxes, and
    the flag can only be set once the 快艇 box is used.
    """
    masks = np.arange(1 << NUM_CATS)
    flag_ok = (np.arange(2)[None, :] == 0) | ((masks & YAHTZEE_BIT) != 0)[:, None]
    reach: npt.NDArray[np.bool_] = REACHABLE_UPPER[masks & 63][:, :, None] & flag_ok[:, None, :]
    return reach


def canonical_upper() -> IntArray:
    """(8192, 64): the upper subtotal whose value stands for ``(mask, upper)``.

    When even five of every open upper face could not lift the subtotal to 63, the bonus
    is out of reach and the subtotal no longer matters: all such subtotals share one value
    (that of subtotal 0, always reachable). This skips a third of the states.
    """
    masks = np.arange(1 << NUM_CATS)
    open_faces = sum(f * ((masks >> (f - 1)) & 1 == 0) for f in range(1, 7))
    hopeless_below = UPPER_BONUS_THRESHOLD - 5 * open_faces  # (8192,)
    ups = np.arange(N_UP)
    canon: IntArray = np.where(ups[None, :] >= hopeless_below[:, None], ups[None, :], 0)
    return canon


def _popcounts() -> IntArray:
    masks = np.arange(1 << NUM_CATS)
    return np.array([m.bit_count() for m in masks.tolist()], dtype=np.intp)


def solve_states(v: F32, mask: IntArray, up: IntArray, flag: IntArray) -> None:
    """Compute and store the values of one chunk of states (successors must be known)."""
    e0, shift = turn_start_e0(v, mask, up, flag)
    _, e1 = reroll(e0)
    _, e2 = reroll(e1)
    v[(mask * N_UP + up) * 2 + flag] = _PROB32 @ e2 + shift


def keep_freed_memory() -> None:
    """Ask glibc to keep freed memory instead of returning it to the OS at once.

    Each chunk allocates and frees a few MB of temporaries; with glibc's defaults those
    go back to the kernel after every free (mmap/munmap and heap trimming), which showed
    up as ~900k page faults and more system time than the whole computation. Raising the
    mmap and trim thresholds (process-wide, harmless elsewhere: at most a few tens of MB
    stay mapped) halves the solve time. A no-op where glibc is not the C library.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    mallopt(m_trim_threshold, 256 << 20)
    mallopt(m_top_pad, 64 << 20)
    mallopt(m_mmap_threshold, 32 << 20)


class _Batch:
    """One batch (states with the same number of filled boxes): what to solve, what to copy."""

    def __init__(
        self,
        todo: npt.NDArray[np.bool_],
        copies: npt.NDArray[np.bool_],
        canon: IntArray,
        chunk: int,
    ) -> None:
        m, u, f = (x.astype(np.intp) for x in np.nonzero(todo))
        self.size = len(m)
        self.chunks = [
            (m[a : a + chunk], u[a : a + chunk], f[a : a + chunk]) for a in range(0, len(m), chunk)
        ]
        m2, u2, f2 = (x.astype(np.intp) for x in np.nonzero(copies))
        self.copy_to = (m2 * N_UP + u2) * 2 + f2
        self.copy_from = (m2 * N_UP + canon[m2, u2]) * 2 + f2

    def run_share(self, v: F32, rank: int, workers: int) -> None:
        """Solve every ``workers``-th chunk starting at ``rank``."""
        for piece in self.chunks[rank::workers]:
            solve_states(v, *piece)

    def finish(self, v: F32) -> None:
        """Copy representatives' values to the equivalent (hopeless-subtotal) states."""
        v[self.copy_to] = v[self.copy_from]


def _plan(chunk: int) -> list[_Batch]:
    reach = reachable_states()
    canon = canonical_upper()
    is_canonical = (canon == np.arange(N_UP)[None, :])[:, :, None]
    pops = _popcounts()
    batches = []
    for filled in range(NUM_CATS - 1, -1, -1):
        level = reach & (pops == filled)[:, None, None]
        batches.append(_Batch(level & is_canonical, level & ~is_canonical, canon, chunk))
    return batches


def can_fork() -> bool:
    """Forking workers is safe here: POSIX and no other thread in this process."""
    return hasattr(os, "fork") and threading.active_count() == 1


def _worker(v: F32, batches: list[_Batch], rank: int, workers: int, go: int, done: int) -> None:
    """Body of a forked worker: one share of every batch, in step with the parent."""
    for batch in batches:
        if os.read(go, 1) != b"g":
            return  # the parent gave up
        batch.run_share(v, rank, workers)
        os.write(done, b"d")


def solve(
    *, workers: int | None = None, chunk: int = CHUNK, progress: ProgressFn | None = None
) -> F32:
    """The full value table, float32 shaped :data:`TABLE_SHAPE` (unreachable entries 0).

    ``workers`` processes share each batch (default: up to 2 where forking is safe, see
    the module docstring). ``progress(done, total)`` is called after each batch.
    """
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    if not can_fork():
        workers = 1
    keep_freed_memory()
    batches = _plan(chunk)
    total = sum(b.size for b in batches)
    size = int(np.prod(TABLE_SHAPE))
    # Shared anonymous memory: the forked workers write their chunks straight into it.
    shared = mmap.mmap(-1, size * 4) if workers > 1 else None
    v: F32 = (
        np.frombuffer(shared, dtype=np.float32)
        if shared is not None
        else np.zeros(size, dtype=np.float32)
    )
    children: list[tuple[int, int, int]] = []  # (pid, go-pipe write end, done-pipe read end)
    try:
        for rank in range(1, workers):
            go_r, go_w = os.pipe()
            done_r, done_w = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child process
                status = 1
                try:
                    os.close(go_w)
                    os.close(done_r)
                    _worker(v, batches, rank, workers, go_r, done_w)
                    status = 0
                finally:
                    os._exit(status)
            os.close(go_r)
            os.close(done_w)
            children.append((pid, go_w, done_r))
        done = 0
        for batch in batches:
            for _, go_w, _ in children:
                os.write(go_w, b"g")
            batch.run_share(v, 0, workers)
            for pid, _, done_r in children:
                if os.read(done_r, 1) != b"d":
                    raise RuntimeError(f"solver worker {pid} died")
            batch.finish(v)
            done += batch.size
            if progress is not None:
                progress(done, total)
        result = np.array(v, dtype=np.float32) if shared is not None else v
    finally:
        for pid, go_w, done_r in children:
            os.close(go_w)  # a worker still waiting reads EOF and exits
            os.close(done_r)
            os.waitpid(pid, 0)
    del v
    if shared is not None:
        shared.close()
    return result.reshape(TABLE_SHAPE)
