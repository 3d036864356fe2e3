"""Forked workers over shared memory: the one pool behind the solve and the simulations.

Both are CPU-bound numpy work cut into independent tasks whose results go into arrays.
Threads were measured and do not help (the GIL-held Python between numpy calls
serialises them); forked processes writing into anonymous shared memory (``MAP_SHARED``,
which survives ``fork``) give ~1.5-1.8x on two cores, with no pickling at all.

Work is a list of *phases*, each a list of *tasks*. Task ``j`` of every phase runs on
worker ``j % workers`` — worker 0 is this process, the others are forked children — so
the split never depends on timing and results do not depend on the worker count. A phase
starts only when the previous one is finished everywhere (the solve's batches read the
values of the batch before). Forking is only done where it is safe: POSIX and no other
thread in this process (the ``yahtzee`` command); elsewhere, e.g. in a server, everything
runs in the calling thread.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import select
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

ProgressFn = Callable[[int, int], None]
"""``progress(done, total)``: called as work is finished (units of the tasks' weights)."""


@dataclass(frozen=True, slots=True)
class Task:
    """One piece of work and how much of the total it is (for the progress callback)."""

    run: Callable[[], None]
    weight: int = 1


def can_fork() -> bool:
    """Forking workers is safe here: POSIX and no other thread in this process."""
    return hasattr(os, "fork") and threading.active_count() == 1


def worker_count(workers: int | None) -> int:
    """``workers`` (default: up to 2, one per core) where forking is safe, else 1."""
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    return max(1, workers) if can_fork() else 1


def shared_zeros(count: int, dtype: npt.DTypeLike, shared: bool) -> npt.NDArray[Any]:
    """A zeroed 1-D array, in anonymous shared memory (visible to forked workers) if
    ``shared``, else ordinary memory."""
    if not shared:
        return np.zeros(count, dtype=dtype)
    size = np.dtype(dtype).itemsize * count
    buf = mmap.mmap(-1, max(1, size))  # anonymous MAP_SHARED, zero-filled
    return np.frombuffer(buf, dtype=dtype, count=count)


def keep_freed_memory() -> None:
    """Ask glibc to keep freed memory instead of returning it to the OS at once.

    Each task allocates and frees a few MB of temporaries; with glibc's defaults those go
    back to the kernel after every free (mmap/munmap and heap trimming), which showed up
    as ~900k page faults and more system time than the whole solve. Raising the mmap and
    trim thresholds (process-wide, harmless elsewhere: at most a few tens of MB stay
    mapped) halves the solve time. A no-op where glibc is not the C library.
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


def run_phases(
    phases: Sequence[Sequence[Task]],
    workers: int,
    *,
    after_phase: Callable[[int], None] | None = None,
    progress: ProgressFn | None = None,
    name: str = "worker",
) -> None:
    """Run every task of every phase, phase by phase, on ``workers`` processes.

    ``after_phase(i)`` runs in this process once phase ``i`` is complete everywhere (before
    the next starts); ``progress`` is called after each of this process's tasks and once
    per phase. A child that dies raises :class:`RuntimeError` naming it. Tasks write their
    results into shared memory (:func:`shared_zeros`): nothing else comes back.
    """
    workers = max(1, min(workers, max((len(p) for p in phases), default=1)))
    total = sum(t.weight for p in phases for t in p)
    children: list[tuple[int, int, int]] = []  # (pid, "go" write end, "task done" read end)
    done_weight = 0

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
                    for phase in phases:
                        if os.read(go_r, 1) != b"g":
                            break  # the parent gave up
                        for task in phase[rank::workers]:
                            task.run()
                            os.write(done_w, b"t")
                    status = 0
                finally:
                    os._exit(status)
            os.close(go_r)
            os.close(done_w)
            children.append((pid, go_w, done_r))

        for index, phase in enumerate(phases):
            for _, go_w, _ in children:
                os.write(go_w, b"g")
            tally = _Tally(phase, workers, children, name)
            for task in phase[0::workers]:
                task.run()
                tally.weight += task.weight
                tally.collect(block=False)
                if progress is not None:
                    progress(done_weight + tally.weight, total)
            tally.collect(block=True)
            done_weight += tally.weight
            if after_phase is not None:
                after_phase(index)
            if progress is not None:
                progress(done_weight, total)
    finally:
        for pid, go_w, done_r in children:
            os.close(go_w)  # a child still waiting for "go" reads EOF and exits
            os.close(done_r)
            os.waitpid(pid, 0)


class _Tally:
    """The finished tasks of one phase, as the children report them (one byte a task)."""

    def __init__(
        self, phase: Sequence[Task], workers: int, children: list[tuple[int, int, int]], name: str
    ) -> None:
        self.phase = phase
        self.workers = workers
        self.children = children
        self.name = name
        self.owed = [len(phase[rank::workers]) for rank in range(workers)]
        self.finished = [0] * workers
        self.weight = 0  # finished work of this phase, all workers

    def collect(self, block: bool) -> None:
        """Count the children's reports; wait for all of them if ``block``."""
        for rank, (pid, _, done_r) in enumerate(self.children, start=1):
            while self.finished[rank] < self.owed[rank]:
                if not block and not select.select([done_r], [], [], 0)[0]:
                    break
                got = os.read(done_r, self.owed[rank] - self.finished[rank])
                if not got:
                    raise RuntimeError(f"{self.name} {pid} died")
                for j in range(self.finished[rank], self.finished[rank] + len(got)):
                    self.weight += self.phase[rank + self.workers * j].weight
                self.finished[rank] += len(got)
