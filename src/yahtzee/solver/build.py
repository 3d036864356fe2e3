"""Backward induction over every reachable turn-start state.

A turn-start state is (used-box mask, upper subtotal capped at 63, 快艇 box holds 50). Its
value is the expected number of points still to come under optimal play. States are solved
in batches by the number of filled boxes, from 12 down to 0: every successor of a batch
has one more box filled, so it is already known. Inside a batch the states are cut into
chunks that stay in the CPU cache.

Two cores share the chunks through :mod:`yahtzee.solver.pool` (a forked worker writing into
the same shared memory; one phase per batch). Forking is only done in a single-threaded
process (the ``yahtzee solve`` command); elsewhere, e.g. a server building its table on
first need, the solve runs in the calling thread.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import numpy.typing as npt

from yahtzee.rules import UPPER_BONUS_THRESHOLD
from yahtzee.solver.kernel import reroll, turn_start_e0
from yahtzee.solver.pool import (
    ProgressFn,
    Task,
    keep_freed_memory,
    run_phases,
    shared_zeros,
    worker_count,
)
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

    def tasks(self, v: F32) -> list[Task]:
        """One task per chunk (weighted by its number of states)."""
        return [Task(partial(solve_states, v, *piece), len(piece[0])) for piece in self.chunks]

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


def solve(
    *, workers: int | None = None, chunk: int = CHUNK, progress: ProgressFn | None = None
) -> F32:
    """The full value table, float32 shaped :data:`TABLE_SHAPE` (unreachable entries 0).

    ``workers`` processes share each batch (default: up to 2 where forking is safe, see
    the module docstring). ``progress(done, total)`` is called after each batch.
    """
    workers = worker_count(workers)
    keep_freed_memory()
    batches = _plan(chunk)
    size = int(np.prod(TABLE_SHAPE))
    # Shared memory when forked workers write their chunks straight into it.
    v: F32 = shared_zeros(size, np.float32, shared=workers > 1)
    run_phases(
        [batch.tasks(v) for batch in batches],
        workers,
        after_phase=lambda i: batches[i].finish(v),
        progress=progress,
        name="solver worker",
    )
    # A private copy: the shared mapping is released with ``v``.
    result = np.array(v, dtype=np.float32) if workers > 1 else v
    return result.reshape(TABLE_SHAPE)
