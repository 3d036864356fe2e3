"""Rate limits (F5), held across every server process on one database.

The limits, each a rate with a burst of the same size (``30`` a minute: up to 30 at once,
then one every 2 s), per player and per client address:

* new games per player, new games per client address, new player ids per client address:
  rare requests, each of which makes the database grow. These are counted **in the
  database**, in a small table of buckets shared by every process (``rate_buckets``; one
  number per bucket, see :class:`~yahtzee.storage.base.Charge`). A new game's tokens are
  taken in the very transaction that inserts it, so no interleaving of processes can
  create more games than the limit allows, and a start over a limit writes nothing. On SQLite
  these writes ride in the group commit with the game actions (no fsync of their own); on
  PostgreSQL the table is ``UNLOGGED`` (no WAL flush) and the upsert is one statement, in
  the transaction the new game needs anyway.
* the **work budget** per player (issue 22): the reads that cost CPU (the live meter,
  reviews, stats, advice) each declare a cost in units (one line on the route,
  :func:`yahtzee.server.routers._common.cost`), charged before any work to a bucket of
  ``work_per_second`` units a second (a burst of as many); kept in memory, and shared
  between the processes, exactly as the actions below.
* game actions per player (roll, score, hint): every request of a game, the hot path, and
  a guard against floods rather than against growth (the rules bound a game's log). A
  shared bucket there would cost a write, and on PostgreSQL a round trip, per action and
  per refusal, the very work a flood guard must not cause. So each process keeps its own
  buckets in memory, but with **its share** of the limit: ``rate / n`` tokens a second
  and a burst of ``max(1, rate / n)``, where ``n`` is the number of live server processes
  on the database. Each process registers itself in the database every
  :data:`HEARTBEAT_SECONDS` and counts the processes seen within :data:`PROCESS_TTL`, on
  every machine. However a player spreads their requests over the processes, they get at
  most ``rate`` actions a second in all; a player whose requests all reach one process
  gets ``rate / n`` (10 a second of the default 20 with two processes, still several
  times what a person clicks). A new process knows the count at once; the others learn
  it at their next heartbeat (until then a player could get one more share). A process
  that died is forgotten by the next registration on its machine, a restarted server's
  first one included: its id says where it ran (the host, the PID namespace and its PID,
  :func:`process_id`), and a PID that no longer exists there is a dead process. (Before,
  a server killed and restarted counted twice for up to :data:`PROCESS_TTL`, halving
  every player's share after the restart.) One that died on another machine stays
  counted until its registration expires: the limit is then stricter, never looser.

Over a limit: 429 ``rate_limited`` with ``Retry-After`` (whole seconds).

The times are wall-clock seconds (``time.time``), shared by processes and machines (keep
their clocks in sync, as NTP does; a skew of a few milliseconds moves a limit by as much).
A clock stepped back locks nobody out: an in-memory bucket never loses tokens to time
running backwards, and a shared one far "in the future" holds one token (see
:class:`~yahtzee.storage.base.Charge`).
An in-memory bucket that has refilled completely carries no information and is dropped,
and the table holds at most ``max_keys`` of them (the least recently used go first), so
the memory is bounded whatever the number of clients; full buckets in the database are
deleted by the same periodic task that keeps the process registration alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from yahtzee.errors import RateLimitExceededError
from yahtzee.lru import LruCache
from yahtzee.server.settings import Limits
from yahtzee.storage import Storage, StorageError, StorageUnavailableError
from yahtzee.storage.base import Charge

log = logging.getLogger("yahtzee.server")

#: Seconds between two registrations of a live process (and its count of the others);
#: ``$YAHTZEE_HEARTBEAT_SECONDS`` sets it (:class:`~yahtzee.server.settings.Settings`).
HEARTBEAT_SECONDS = 10.0
#: A process not seen for this many heartbeats is taken for dead (three missed, and a half).
PROCESS_TTL_BEATS = 3.5
PROCESS_TTL = PROCESS_TTL_BEATS * HEARTBEAT_SECONDS
#: Full buckets are deleted from the database every this many heartbeats (a minute).
PRUNE_EVERY = 6


@dataclass(frozen=True, slots=True)
class Rate:
    """A rate limit (K4: every budget of the program is one): ``rate`` tokens per ``per``
    seconds for each key (a player, a client address), with a burst of as many; a rate
    of ``0`` switches it off. ``bucket`` names it: the shared table's bucket
    (:meth:`Guard.charge`), or an in-memory limiter's (:meth:`Guard.local`). A feature
    declares its own, the count from its settings."""

    bucket: str
    rate: int
    per: float


# The platform's own rates' buckets in the database.
NEW_GAMES = "new_games"  # per player
ADDRESS_GAMES = "address_games"  # per client address
NEW_PLAYERS = "new_players"  # per client address


class RateLimiter:
    """Token buckets of ``rate`` tokens per ``per`` seconds, one per key, in memory;
    ``name`` is what a refusal names (:class:`~yahtzee.errors.RateLimitExceededError`).

    :meth:`share` gives this process ``1/n`` of the limit (see the module docstring).
    """

    def __init__(
        self,
        rate: int,
        per: float,
        *,
        name: str = "",
        max_keys: int = 50_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.rate = rate
        self.per = per
        self.name = name
        self.max_keys = max_keys
        self._clock = clock
        self.capacity = float(rate)
        self.refill = rate / per  # tokens per second
        self.processes = 1
        # key -> (tokens, when); the least recently used go first past ``max_keys``.
        self._buckets: LruCache[str, tuple[float, float]] = LruCache(max_keys)

    @property
    def enabled(self) -> bool:
        """``False`` for a rate of 0 (no limit)."""
        return self.rate > 0

    def __len__(self) -> int:
        return len(self._buckets)

    def share(self, processes: int) -> None:
        """Keep ``1/processes`` of the limit from now on: that many processes share it."""
        processes = max(1, processes)
        if processes == self.processes:
            return
        self.processes = processes
        self.capacity = max(1.0, self.rate / processes)
        self.refill = self.rate / self.per / processes
        # (A bucket never holds more than the new burst: take() caps what it reads.)

    def take(self, key: str, cost: float = 1.0) -> None:
        """Spend ``cost`` tokens of ``key``'s bucket (at most a full bucket's worth), or
        raise :class:`~yahtzee.errors.RateLimitExceededError` (429) and spend nothing."""
        if not self.enabled:
            return
        cost = min(float(cost), self.capacity)
        now = self._clock()
        buckets = self._buckets
        entry = buckets.pop(key)
        if entry is None:
            tokens = self.capacity
        else:
            # (max: a wall clock stepped back must not take tokens away)
            tokens = min(self.capacity, entry[0] + max(0.0, now - entry[1]) * self.refill)
        if tokens < cost:
            buckets.put(key, (tokens, now))
            retry_after = max(1, math.ceil((cost - tokens) / self.refill))
            raise RateLimitExceededError(self.name, retry_after)
        buckets.put(key, (tokens - cost, now))
        self._drop_full(now)

    def owe(self, key: str, cost: float) -> None:
        """Charge ``cost`` tokens of ``key``'s bucket for work already done, however much
        the bucket holds: it may go below zero, and the key's next :meth:`take` waits until
        it has refilled that far (a cost by size, charged once the size is known)."""
        if not self.enabled or cost <= 0:
            return
        now = self._clock()
        entry = self._buckets.pop(key)
        tokens = (
            self.capacity
            if entry is None
            else min(self.capacity, entry[0] + max(0.0, now - entry[1]) * self.refill)
        )
        self._buckets.put(key, (tokens - float(cost), now))
        self._drop_full(now)

    def _drop_full(self, now: float) -> None:
        # The least recently used buckets that have refilled completely hold no
        # information: dropped (each at most once per insertion).
        capacity, refill = self.capacity, self.refill
        self._buckets.evict_while(
            lambda _key, entry: entry[0] + (now - entry[1]) * refill >= capacity
        )


class TokenWriter(Protocol):
    """Where shared tokens are taken: the storage."""

    async def take(self, charges: Sequence[Charge]) -> None:
        """See :meth:`Storage.take`."""
        ...


class Guard:
    """The server's limits, one instance per application (see the module docstring), and
    the one vocabulary of every rate limit (K4): :meth:`charge` a :class:`Rate` for a key
    and :meth:`take` the charges in the shared table (or in the transaction that creates
    what they limit), or keep a rate in memory with :meth:`local`. A cap (so many at
    once) is counted where its things are and refused with an
    :class:`~yahtzee.errors.OverCapError` that names its number."""

    def __init__(
        self, limits: Limits, writer: TokenWriter, clock: Callable[[], float] = time.time
    ) -> None:
        self.limits = limits
        self._writer = writer
        self._clock = clock
        self._local: list[RateLimiter] = []
        self.actions = self.local(Rate("actions", limits.actions_per_second, 1.0))
        # The costly reads' budget (issue 22): each route declares its cost in units
        # (routers._common.cost); the budget is per player and kept like the actions'.
        self.work = self.local(Rate("work", limits.work_per_second, 1.0))

    def local(self, rate: Rate) -> RateLimiter:
        """``rate`` kept in this process's memory, this process's share of it (1 / the
        live processes, :meth:`share`): for the limits checked on every request, which a
        write to the shared table would cost as much as the request (actions, costly
        reads, a room's holds)."""
        limiter = RateLimiter(rate.rate, rate.per, name=rate.bucket, clock=self._clock)
        limiter.share(self.actions.processes if self._local else 1)
        self._local.append(limiter)
        return limiter

    def share(self, processes: int) -> None:
        """Keep ``1/processes`` of the in-memory limits: that many processes share them."""
        for limiter in self._local:
            limiter.share(processes)

    def charge(self, rate: Rate, key: str) -> list[Charge]:
        """The one way a rate of the shared table is charged (K4): a token of ``key``'s
        bucket of ``rate``, taken now; nothing when the rate is 0 (that limit is off).
        Pass the list to :meth:`take` (or to the transaction that creates the thing it
        limits, :meth:`~yahtzee.storage.base.Storage.create_game`)."""
        if rate.rate <= 0:
            return []
        return [Charge(rate.bucket, key, rate.rate, rate.per, self._clock())]

    async def take(self, charges: Sequence[Charge]) -> None:
        """Take ``charges`` (all or none) in the shared table, or raise
        :class:`~yahtzee.errors.RateLimitExceededError` (429); nothing to do for none
        (every limit off)."""
        if charges:
            await self._writer.take(charges)

    def new_game_charges(self, player: str, address: str) -> list[Charge]:
        """The tokens a new game takes, in its own transaction: the player's and its
        client address's."""
        limits = self.limits
        return [
            *self.charge(Rate(NEW_GAMES, limits.new_games_per_minute, 60.0), player),
            *self.charge(
                Rate(ADDRESS_GAMES, limits.new_games_per_minute_per_address, 60.0), address
            ),
        ]

    async def new_player(self, address: str) -> None:
        """Take the token of a new player id for ``address``, or raise (429).

        When the database cannot be written (a full disk, F6) the id is issued anyway:
        reads must keep working, and an id is only a cookie until it writes something,
        which then fails the same way.
        """
        charges = self.charge(Rate(NEW_PLAYERS, self.limits.new_players_per_minute, 60.0), address)
        if charges:
            try:
                await self._writer.take(charges)
            except StorageUnavailableError as exc:
                log.debug("new player id not counted (storage unavailable): %s", exc)


def _pid_namespace() -> str:
    """This process's PID namespace (Linux: the inode of ``/proc/self/ns/pid``): PIDs are
    only comparable inside one. Empty where unknown (then no PID is ever judged)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def process_id() -> str:
    """A new server process's registration id, ``host|PID namespace|PID|random``: another
    process on the same machine can tell from it whether this one still lives
    (:func:`is_gone`)."""
    return f"{socket.gethostname()}|{_pid_namespace()}|{os.getpid()}|{secrets.token_hex(8)}"


def is_gone(registered: str) -> bool:
    """Whether the process registered as ``registered`` is known dead: it ran on this
    machine, in this PID namespace, and its PID no longer exists. Anything else (another
    machine, an id of an older server, a PID taken by some other process since) is not
    known dead, so it is counted until it expires: stricter, never looser."""
    host, _, rest = registered.partition("|")
    namespace, _, rest = rest.partition("|")
    pid_text, _, _ = rest.partition("|")
    here = _pid_namespace()
    if host != socket.gethostname() or not here or namespace != here or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)  # (signal 0 only asks whether it exists)
    except ProcessLookupError:
        return True
    except OSError:  # it exists (another user's, say)
        return False
    return False


class ProcessRegistration:
    """This process's entry in the database's list of live server processes, from which
    the action limiter takes its share (1 / live processes; see the module docstring).

    :meth:`beat` registers (the server awaits one before serving); :meth:`run` beats every
    ``every`` seconds and deletes the full buckets now and then, until cancelled;
    :meth:`leave` withdraws the registration at shutdown.
    """

    def __init__(
        self,
        storage: Storage,
        guard: Guard,
        *,
        clock: Callable[[], float] = time.time,
        every: float = HEARTBEAT_SECONDS,
        ttl: float = PROCESS_TTL,
    ) -> None:
        self.storage = storage
        self.guard = guard
        self.process_id = process_id()
        self._clock = clock
        self.every = every
        self.ttl = ttl
        self._beats = 0

    async def beat(self) -> int:
        """Register now and share the action limit; returns the live processes' count.
        A storage fault is logged (the share stays as it was)."""
        try:
            # The dead processes of this machine go now, not when they expire.
            gone = [p for p in await self.storage.process_ids() if is_gone(p)]
            if gone:
                log.info("forgetting %d server process(es) that died: %s", len(gone), gone)
            processes = await self.storage.register_process(
                self.process_id, self._clock(), self.ttl, gone
            )
            self.guard.share(processes)
            if self._beats % PRUNE_EVERY == 0:
                await self.storage.prune_buckets(self._clock())
        except StorageError as exc:
            log.warning("registering the server process failed: %s", exc)
            processes = self.guard.actions.processes
        self._beats += 1
        return processes

    async def run(self) -> None:
        """Beat every ``every`` seconds until cancelled."""
        while True:
            await asyncio.sleep(self.every)
            await self.beat()

    async def leave(self) -> None:
        """Withdraw the registration (a fault is ignored: it expires by itself)."""
        with contextlib.suppress(StorageError):
            await self.storage.unregister_process(self.process_id)
