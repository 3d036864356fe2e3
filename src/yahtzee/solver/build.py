"""Backward induction over every reachable turn-start state.

A turn-start state is (used-box mask, upper subtotal capped at 63, 快艇 box holds 50). Its
value is the expected number of points still to come under optimal play. States are solved
in batches by the number of filled boxes, from 12 down to 0: every successor of a batch
has one more box filled, so it is already known. Inside a batch the states are cut into
chunks that stay in the CPU cache, and two threads share the chunks (numpy releases the
GIL inside its loops; the chunks write disjoint entries of the table).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

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


def solve(
    *, threads: int | None = None, chunk: int = CHUNK, progress: ProgressFn | None = None
) -> F32:
    """The full value table, float32 shaped :data:`TABLE_SHAPE` (unreachable entries 0).

    ``progress(done, total)`` is called after each batch with counts of states solved.
    """
    if threads is None:
        threads = max(1, min(2, os.cpu_count() or 1))
    keep_freed_memory()
    v = np.zeros(int(np.prod(TABLE_SHAPE)), dtype=np.float32)
    reach = reachable_states()
    canon = canonical_upper()
    is_canonical = canon == np.arange(N_UP)[None, :]
    pops = _popcounts()
    todo = reach & is_canonical[:, :, None]
    total = int(todo[pops < NUM_CATS].sum())
    done = 0
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        for filled in range(NUM_CATS - 1, -1, -1):
            m, u, f = np.nonzero(todo & (pops == filled)[:, None, None])
            m, u, f = m.astype(np.intp), u.astype(np.intp), f.astype(np.intp)
            pieces = [
                (m[a : a + chunk], u[a : a + chunk], f[a : a + chunk])
                for a in range(0, len(m), chunk)
            ]
            if pool is None:
                for piece in pieces:
                    solve_states(v, *piece)
            else:
                for job in [pool.submit(solve_states, v, *piece) for piece in pieces]:
                    job.result()
            # Every other reachable state of this batch copies its representative.
            m2, u2, f2 = np.nonzero(
                reach & ~is_canonical[:, :, None] & (pops == filled)[:, None, None]
            )
            v[(m2 * N_UP + u2) * 2 + f2] = v[(m2 * N_UP + canon[m2, u2]) * 2 + f2]
            done += len(m)
            if progress is not None:
                progress(done, total)
    finally:
        if pool is not None:
            pool.shutdown()
    return v.reshape(TABLE_SHAPE)
