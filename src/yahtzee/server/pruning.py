"""Pruning (F5, F14): what a cookie or an address can create and nobody uses any more is
deleted after an age of its own (each a setting, docs/deployment.md).

* **Games that never had a roll** (``--prune-after-days``, 7): abandoned or still in
  progress (issue 22.6). Such a game holds nothing a player can see again (no roll, no
  score, not in the records): it is what a script flooding ``POST /api/games`` leaves
  behind, each new id's one unfinished game included. Played games, finished, abandoned
  or in progress, are kept: they are the players' history. The storage's schema itself
  refuses any other deletion of games (schema level 4, see :mod:`yahtzee.storage.sql`).
* **Groups** closed, or never joined by anyone but their creator, for
  ``--prune-groups-after-days`` (90): with their members and invite links.
* **The events of rooms over** (finished or expired) for ``--prune-room-events-after-days``
  (30): every hold, reaction and move a stream could replay; the room, its seats and its
  game stay (the players' records and reviews read those).
* **The devices of browsers that never played** for ``--prune-devices-after-days`` (7, F27):
  every cookie-less request makes a player and its device; those of whom no part keeps
  anything, without a recovery code, and not seen since (:meth:`yahtzee.devices.store.
  DeviceStore.prune`).

(练习's servings never answered go as soon as the next one is served, see
:meth:`yahtzee.practice.store.PracticeStore.serve`; the answered ones, each day's
challenge and a browser's name are its history, bounded by their hourly caps.)

Runs once at start-up, then daily, in batches of a few hundred (each batch a short
transaction, in the storage's writer thread so that its fsync does not hold the event
loop; between batches the loop serves requests again). Each feature hands the app
factory a :class:`Pruning`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from yahtzee.storage import Storage, StorageError

log = logging.getLogger("yahtzee.server")

DAY_SECONDS = 24 * 3600.0
BATCH = 500


def _utc_now() -> datetime:
    return datetime.now(UTC)


def iso(seconds: float) -> str:
    """A UNIX time as the ISO text the tables keep their times in (UTC, microseconds)."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True, slots=True)
class Pruning:
    """One kind of thing deleted by age (F14): ``delete(cutoff, batch)`` deletes at most
    ``batch`` of those last used before ``cutoff`` (UNIX seconds) and returns how many."""

    what: str  # for the log and the counts
    days: float
    delete: Callable[[float, int], Awaitable[int]]


def by_iso(delete: Callable[[str, int], Awaitable[int]]) -> Callable[[float, int], Awaitable[int]]:
    """``delete`` of a table that keeps ISO times, called with a UNIX-time cutoff."""

    async def run(cutoff: float, batch: int) -> int:
        return await delete(iso(cutoff), batch)

    return run


async def prune(storage: Storage, days: float, now: Callable[[], datetime] = _utc_now) -> int:
    """Delete every game that never had a roll and has not changed for ``days`` days;
    returns how many were deleted."""
    cutoff = (now() - timedelta(days=days)).timestamp()
    return await _batches(unplayed_games(storage, days), cutoff)


def unplayed_games(storage: Storage, days: float) -> Pruning:
    """The games never rolled (see the module docstring)."""

    return Pruning("unplayed games", days, by_iso(storage.prune_unplayed))


async def _batches(pruning: Pruning, cutoff: float) -> int:
    total = 0
    while True:
        deleted = await pruning.delete(cutoff, BATCH)
        total += deleted
        if deleted < BATCH:
            return total
        await asyncio.sleep(0)  # let waiting requests in between batches


async def prune_features(prunings: Sequence[Pruning], now: float) -> dict[str, int]:
    """Run every pruning as of ``now`` (UNIX seconds); the counts of what was deleted (a
    kind with nothing to delete is left out). A failure of one (a full or read-only disk)
    is logged, and the others still run."""
    counts: dict[str, int] = {}
    for pruning in prunings:
        try:
            deleted = await _batches(pruning, now - pruning.days * DAY_SECONDS)
        except StorageError as exc:
            log.warning("pruning %s failed: %s", pruning.what, exc)
            continue
        if deleted:
            counts[pruning.what] = deleted
            log.info("pruned %d %s", deleted, pruning.what)
    return counts


async def prune_now_and_daily(
    prunings: Sequence[Pruning],
    *,
    first: bool = True,
    period: float = DAY_SECONDS,
    clock: Callable[[], float] = time.time,
) -> None:
    """Prune (at once if ``first``), then every ``period`` seconds, until cancelled."""
    if not first:
        await asyncio.sleep(period)
    while True:
        await prune_features(prunings, clock())
        await asyncio.sleep(period)
