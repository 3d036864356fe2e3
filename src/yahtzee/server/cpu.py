"""The pool that runs the server's CPU work: meters, reviews, stats, advice (issue 22).

Before it, these ran in asyncio's default executor (shared with the group commit's disk
syncs: 24 concurrent reviews held the writes up for seconds) and in AnyIO's 40-thread
pool (64 concurrent meters made 44 threads, and 750 MiB of malloc arenas). Now they run
here, and only here:

* in **worker processes** of their own (``workers``, 1 by default: on a two-core machine
  one core stays for the event loop and the writes), started on first use, at a lower
  CPU priority (nice +:data:`WORKER_NICE`). Not threads: a thread computing a review holds
  the interpreter lock, and on a busy machine the kernel preempts it while it does, so
  the event loop, which needs that lock for every request, stalls behind it (a flood of
  meters pushed a paced player's p99 from 2 ms to 113 ms). A worker process shares no
  lock with the server, and the kernel gives the server's process the CPU first. The jobs
  are the functions of :mod:`yahtzee.review.jobs` (plain data in, JSON out), so a worker
  never imports the web stack. (``processes=False`` runs them in threads instead: tests.)
* **one job per key at a time** (the key is the player, or the client address of a
  request without one): a client's second costly request waits, on the event loop at no
  cost, for its first to finish, so one client flooding the costly reads has at most one
  job queued, and everybody else's jobs pass between its jobs instead of behind them all;
* **fair turns between keys** (issue 28): a job is handed to a worker only when one is free,
  and the next is the waiting job whose key has used the workers least, by start-time
  fair queueing: each key's job is tagged with the later of the pool's virtual time and
  the tag its key's previous job finished at (its start tag plus the seconds it ran), and
  the lowest tag goes first. A client that asks now and then (a player's live meter) is
  tagged with the virtual time itself and goes before every client that keeps the
  workers busy, however many of those there are: 60 cookies asking ``/api/advice`` one
  after another had pushed another player's meter from 10 ms to 140 ms median, each of
  them one job ahead of it (``benchmarks/advice_fairness_bench.py``);
* **the page's reads first**: a job run as *background* (``/api/advice``, the open API for
  tools and scripts, which the page never asks) is handed a worker only when no other job
  waits, so no number of clients asking for advice delays a player's meter, review or
  practice by more than the one advice job a worker may be running; between background
  jobs the fair turns hold as well;
* **a bounded queue**: with more than ``max_waiting`` jobs waiting for a worker, a new one
  is refused at once with 503 ``busy`` (``Retry-After: 1``) instead of piling up, and
  logged as one warning line at most every :data:`LOG_EVERY` seconds that says how many
  were refused (F26: a refusal is no error; each used to be logged with its traceback). A
  worker that died (killed, out of memory) is replaced; its jobs answer ``busy``.

What a client may ask for at all is its cost budget's business (:func:`yahtzee.server.
routers._common.cost`, 429); this pool only decides where and in which order the work
runs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import heapq
import itertools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TypeVar

log = logging.getLogger("yahtzee.server")

T = TypeVar("T")

#: Jobs that may wait for a worker before new ones are refused (503 ``busy``).
MAX_WAITING = 64
#: How much lower the workers' CPU priority is than the server's (``nice``).
WORKER_NICE = 10
#: Finish tags kept before those the virtual time has passed are dropped (a key without one
#: is tagged with the virtual time, as a key whose tag has passed would be).
FINISH_TAGS = 4096
#: Seconds between a worker's checks that its server process still lives.
PARENT_CHECK_SECONDS = 1.0
#: At most one warning line this many seconds apart while jobs are refused (F26).
LOG_EVERY = 10.0


def _start_worker(parent: int) -> None:
    """A worker process's start: a lower CPU priority, and an end with its server. A
    server killed with ``kill -9`` (the crash tests, the OOM killer) cannot stop its
    workers, and each one, idle, kept its ~200 MiB for ever (86 of them were found on the
    test machine after an afternoon of crash tests): a thread of the worker sees its
    parent gone (it is re-parented) and ends the process."""
    os.nice(WORKER_NICE)
    threading.Thread(
        target=_exit_with, args=(parent,), name="yahtzee-cpu-parent", daemon=True
    ).start()


def _exit_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


class BusyError(Exception):
    """The CPU pool's queue is full (or its worker died): nothing was done. The API answers
    503 ``busy`` with ``Retry-After: 1`` (:func:`yahtzee.server.errors.to_api_error`).

    This module imports no web stack: the modules whose functions run in the workers
    import it, and a worker should load only what its jobs need."""

    def __init__(self) -> None:
        super().__init__("the CPU pool is busy")


class CpuPool:
    """A bounded pool of workers for CPU work, fair between keys (see the module
    docstring)."""

    def __init__(
        self, workers: int = 1, max_waiting: int = MAX_WAITING, *, processes: bool = True
    ) -> None:
        if workers < 1:
            raise ValueError(f"a CPU pool needs at least one worker, got {workers}")
        self.workers = workers
        self.max_waiting = max_waiting
        self.processes = processes
        # Made on first use: an app that never computes (and the parent process of
        # ``serve --workers N``, which builds an app only to check it) starts no worker.
        self._executor: concurrent.futures.Executor | None = None
        self._pending = 0  # submitted and not finished: running + waiting for a worker
        # key -> the lock its jobs take turns on, and how many hold or want it
        self._turns: dict[str, tuple[asyncio.Lock, int]] = {}
        # Start-time fair queueing between keys (see the module docstring): jobs handed to
        # a worker and not finished, the jobs waiting for one (tag, arrival, its future),
        # the virtual time (the tag of the last job handed out) and each key's finish tag.
        self._running = 0
        self._queue: list[tuple[bool, float, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()
        self._virtual = 0.0
        self._finish: dict[str, float] = {}
        # Refusals not yet logged, and when the last line was (F26: one line, not one each).
        self._refused = 0
        self._warned = float("-inf")

    def _new_executor(self) -> concurrent.futures.Executor:
        if not self.processes:
            return concurrent.futures.ThreadPoolExecutor(
                max_workers=self.workers, thread_name_prefix="yahtzee-cpu"
            )
        # spawn, not fork: the server has threads (and database connections) by now.
        return concurrent.futures.ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(),),
        )

    @property
    def waiting(self) -> int:
        """Jobs submitted that wait for a thread."""
        return max(0, self._pending - self.workers)

    async def run(
        self, key: str, fn: Callable[..., T], *args: object, background: bool = False
    ) -> T:
        """``fn(*args)`` in a pool thread, after ``key``'s earlier jobs, in its fair turn
        (``background``: after every other job waiting); raises :class:`BusyError` at
        once when the queue is full."""
        lock, users = self._turns.get(key) or (asyncio.Lock(), 0)
        self._turns[key] = (lock, users + 1)
        try:
            async with lock:
                if self.waiting >= self.max_waiting:
                    self._refuse()
                    raise BusyError()
                return await self._submit(key, background, fn, *args)
        finally:
            lock, users = self._turns[key]
            if users == 1:
                del self._turns[key]
            else:
                self._turns[key] = (lock, users - 1)

    def _refuse(self) -> None:
        """Count a refusal; log the count once every :data:`LOG_EVERY` seconds."""
        self._refused += 1
        now = time.monotonic()
        if now - self._warned >= LOG_EVERY:
            log.warning(
                "CPU queue full (%d jobs waiting): %d costly requests refused with 503 busy",
                self.waiting,
                self._refused,
            )
            self._refused = 0
            self._warned = now

    async def _turn(self, background: bool, tag: float) -> None:
        """Wait until a worker is free and no waiting job goes first (a job of the page
        before a background one, then the lower tag, then the earlier arrival)."""
        if self._running < self.workers and not self._queue:
            self._running += 1
            self._virtual = max(self._virtual, tag)
            return
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (background, tag, next(self._arrivals), ticket)
        heapq.heappush(self._queue, entry)
        try:
            await ticket
        except asyncio.CancelledError:
            if ticket.done() and not ticket.cancelled():  # handed a worker as it left
                self._release()
            else:
                self._queue.remove(entry)
                heapq.heapify(self._queue)
            raise

    def _release(self) -> None:
        """A worker is free again: hand it to the waiting job with the lowest tag."""
        self._running -= 1
        while self._queue and self._running < self.workers:
            _, tag, _, ticket = heapq.heappop(self._queue)
            if ticket.done():
                continue
            self._running += 1
            self._virtual = max(self._virtual, tag)
            ticket.set_result(None)
        if not self._running and not self._queue:
            # Idle: every key starts even again (no debt is carried over an idle pool).
            self._finish.clear()

    async def _submit(self, key: str, background: bool, fn: Callable[..., T], *args: object) -> T:
        self._pending += 1
        try:
            tag = max(self._virtual, self._finish.get(key, 0.0))
            await self._turn(background, tag)
        except BaseException:
            self._pending -= 1
            raise
        started = time.monotonic()
        if self._executor is None:
            self._executor = self._new_executor()
        executor = self._executor
        try:
            future = executor.submit(fn, *args)
            # Shielded: a client that goes away does not free its key's turn (nor the
            # queue's place) before the worker is really done with its job.
            return await asyncio.shield(asyncio.wrap_future(future))
        except asyncio.CancelledError:
            await asyncio.wait([asyncio.wrap_future(future)])
            raise
        except BrokenProcessPool:
            if self._executor is executor:  # (once, whoever notices first)
                log.warning("a CPU worker process died: starting a new one")
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._new_executor()
            raise BusyError() from None
        finally:
            self._pending -= 1
            self._finish[key] = tag + (time.monotonic() - started)
            if len(self._finish) > FINISH_TAGS:  # (keys whose tag passed count as new)
                self._finish = {k: t for k, t in self._finish.items() if t > self._virtual}
            self._release()

    async def warm_up(self, fn: Callable[[], object]) -> None:
        """Start the worker processes now and run ``fn`` in one (loading what the jobs
        need), so that the first costly request does not wait for a process to start
        (seconds on a loaded machine). Threads need no warming."""
        if self.processes:
            await self.run("(warm-up)", fn)

    def jobs_of(self, key: str) -> CpuJobs:
        """This pool, running ``key``'s jobs (a request's :data:`~yahtzee.server.routers.
        _common.Cpu`)."""
        return CpuJobs(self, key)

    def shutdown(self) -> None:
        """Stop the workers once their jobs are done (the server's shutdown)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


@dataclass(frozen=True, slots=True)
class CpuJobs:
    """One requester's door to the pool: ``await jobs(fn, *args)`` is
    ``pool.run(key, fn, *args)``."""

    pool: CpuPool
    key: str

    async def __call__(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in the pool, after this key's earlier jobs."""
        return await self.pool.run(self.key, fn, *args)

    async def background(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in the pool when no job of the page waits (the open API's
        advice: see :class:`CpuPool`)."""
        return await self.pool.run(self.key, fn, *args, background=True)
