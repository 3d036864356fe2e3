"""Pruning (F5): games that never had a roll are deleted after some days (7 by default),
whether they were abandoned or are still in progress (issue 22.6).

Such a game holds nothing a player can see again (no roll, no score, not in the records):
it is what a script flooding ``POST /api/games`` leaves behind, each new id's one
unfinished game included. Played games, finished, abandoned or in progress, are kept:
they are the players' history. The storage's schema itself refuses any other deletion
(schema level 4, see :mod:`yahtzee.storage.sql`).

Runs once at start-up, then daily, in batches of a few hundred games (each batch a short
transaction, in the storage's writer thread so that its fsync does not hold the event
loop; between batches the loop serves requests again).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from yahtzee.storage import Storage, StorageError

log = logging.getLogger("yahtzee.server")

DAY_SECONDS = 24 * 3600.0
BATCH = 500


def _utc_now() -> datetime:
    return datetime.now(UTC)


async def prune(storage: Storage, days: float, now: Callable[[], datetime] = _utc_now) -> int:
    """Delete every game that never had a roll and has not changed for ``days`` days;
    returns how many were deleted."""
    before = (now() - timedelta(days=days)).isoformat(timespec="microseconds")
    total = 0
    while True:
        deleted = await storage.prune_unplayed(before, BATCH)
        total += deleted
        if deleted < BATCH:
            return total
        await asyncio.sleep(0)  # let waiting requests in between batches


async def prune_now_and_daily(
    storage: Storage, days: float, *, first: bool = True, period: float = DAY_SECONDS
) -> None:
    """Prune (at once if ``first``), then every ``period`` seconds, until cancelled.

    A failure (a full or read-only disk) is logged and the next run tries again.
    """
    if not first:
        await asyncio.sleep(period)
    while True:
        try:
            deleted = await prune(storage, days)
        except StorageError as exc:
            log.warning("pruning unplayed games failed: %s", exc)
        else:
            if deleted:
                log.info("pruned %d unplayed games", deleted)
        await asyncio.sleep(period)
