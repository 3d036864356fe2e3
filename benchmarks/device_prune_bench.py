"""The pruning of devices that never played (F27, issue 35 item 10): what it costs.

Every request without a cookie makes a player and its ``devices`` row; a script looping
cookie-less reads made ~86,000 a day from one address (the new-player limit, 60 a
minute). The daily pruning deletes those of players no part keeps anything of, in
transactions of :data:`~yahtzee.devices.store.PRUNE_EACH` players. This fills an SQLite
file (or, with ``--db``, a PostgreSQL database) with ``--devices`` never-played devices
seen long ago and ``--kept`` players with a game each, prunes as the server does
(:func:`yahtzee.server.pruning.prune_features`), and prints the time per player and the
longest transaction (on SQLite the writer is held that long: every other write waits).

Exits 1 when a kept player lost its device, a never-played one is left, or the median
transaction took more than :data:`TARGET_TX_MS` (on SQLite).

    .venv/bin/python benchmarks/device_prune_bench.py                 # 20,000 devices
    .venv/bin/python benchmarks/device_prune_bench.py --db postgresql://…
    .venv/bin/python benchmarks/device_prune_bench.py --quick         # smoke test (suite)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from yahtzee.daily.store import DailyData
from yahtzee.devices.store import DeviceStore
from yahtzee.practice.store import PracticeData
from yahtzee.rooms.store import RoomsData
from yahtzee.server.pruning import Pruning, prune_features
from yahtzee.storage import is_postgres_url, migrate, open_storage
from yahtzee.storage.feature_db import FeatureDb, Tx
from yahtzee.storage.player_data import GamesData, PlayerData
from yahtzee.web.app import SCHEMA

#: The median pruning transaction allowed on SQLite (the writer is held that long; the
#: median, as the longest on a shared machine measures its other processes' turns).
TARGET_TX_MS = 25.0
DAY = 86_400.0
NOW = 1_800_000_000.0


class _Timed:
    """A :class:`FeatureDb` whose transactions are timed (wall clock, the writer's hold)."""

    def __init__(self, db: FeatureDb) -> None:
        self._db = db
        self.dialect = db.dialect
        self.times: list[float] = []

    async def run(self, work: Any, *, write: bool = True, single: bool = False) -> Any:
        started = time.perf_counter()
        try:
            return await self._db.run(work, write=write, single=single)
        finally:
            self.times.append(time.perf_counter() - started)


async def _fill(tx: Tx, devices: int, kept: int) -> None:
    old = NOW - 30 * DAY
    await tx.many(
        "INSERT INTO devices (id, player_id, name, created_at, seen_at) "
        "VALUES (:id, :player, '电脑 · 浏览器', :at, :at)",
        [{"id": f"d{i:09d}", "player": f"p{i:09d}", "at": old} for i in range(devices + kept)],
    )
    await tx.many(
        "INSERT INTO games (id, player_id, mode, status, version, created_at, updated_at, kind) "
        "VALUES (:id, :player, 'solo', 'finished', 1, 'x', 'x', 'solo')",
        [{"id": f"g{i:09d}", "player": f"p{i:09d}"} for i in range(devices, devices + kept)],
    )


async def run(url: str, devices: int, kept: int) -> dict[str, Any]:
    await migrate(url, SCHEMA)
    storage = open_storage(url)
    await storage.open()
    # (SQLite's writes with synchronous=NORMAL, as measured before: the statements' cost,
    # not the disk's flush)
    db = storage.features().relaxed()
    await db.run(lambda tx: _fill(tx, devices, kept))
    timed = _Timed(db)
    store = DeviceStore(timed, b"bench")  # type: ignore[arg-type]
    parts: list[PlayerData] = [GamesData(), DailyData(), PracticeData(), RoomsData()]

    async def prune(before: float, batch: int) -> int:
        return await store.prune(before, batch, parts)

    started = time.perf_counter()
    counts = await prune_features([Pruning("devices", 7.0, prune)], NOW)
    seconds = time.perf_counter() - started
    left = await db.run(
        lambda tx: tx.all("SELECT player_id FROM devices WHERE removed_at IS NULL"), write=False
    )
    await storage.close()
    remaining = {str(r[0]) for r in left}
    kept_ids = {f"p{i:09d}" for i in range(devices, devices + kept)}
    return {
        "pruned": counts.get("devices", 0),
        "seconds": seconds,
        "us_per_player": seconds / max(1, devices) * 1e6,
        "transactions": len(timed.times),
        "tx_ms_median": statistics.median(timed.times) * 1e3,
        "tx_ms_max": max(timed.times) * 1e3,
        "kept_ok": remaining == kept_ids,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=20_000)
    parser.add_argument("--kept", type=int, default=1_000)
    parser.add_argument("--db", help="a PostgreSQL URL (default: an SQLite file)")
    parser.add_argument("--quick", action="store_true", help="a few devices, for the suite")
    args = parser.parse_args()
    if args.quick:
        args.devices, args.kept = 500, 50
    with tempfile.TemporaryDirectory(prefix="yahtzee-prune-bench-") as tmp:
        url = args.db or str(Path(tmp) / "bench.db")
        result = asyncio.run(run(url, args.devices, args.kept))
    sqlite = not (args.db and is_postgres_url(args.db))
    print(f"devices never played: {args.devices}, players with a game: {args.kept}")
    print(f"  pruned                      : {result['pruned']}")
    print(f"  time                        : {result['seconds']:.2f} s")
    print(f"  per player                  : {result['us_per_player']:.0f} us")
    print(f"  transactions                : {result['transactions']}")
    median, longest = result["tx_ms_median"], result["tx_ms_max"]
    print(f"  transaction, median / max   : {median:.1f} / {longest:.1f} ms")
    ok = result["kept_ok"] and result["pruned"] == args.devices
    if sqlite:
        ok = ok and result["tx_ms_median"] <= TARGET_TX_MS
        print(f"  (target: median transaction <= {TARGET_TX_MS:g} ms on SQLite)")
    print("device prune bench: " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
