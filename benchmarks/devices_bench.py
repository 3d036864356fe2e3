"""The identity hot path of 我的设备 (I3): what resolving a request's cookie costs.

Every request that needs a player (each game action's fast path among them) resolves its
cookie. Before issue 30 that was one HMAC of the signed player id; now the cookie names a
device and the devices table its player, cached per process for ``device_cache_seconds``.
This measures, on an SQLite database in a temporary directory, in one process:

* **old**: verifying a cookie of the earlier form (the signed player id), as before;
* **hit**: a device cookie whose player this process read within the cache's life (the
  path of nearly every action: a device that plays reads the table once every 2 s);
* **miss**: a device not in the cache (its first request on this process, or the first
  after 2 s idle): the HMAC plus one read of the devices table in a worker thread.

Prints the process's CPU microseconds per resolve (``time.process_time``, every thread's:
on a shared machine the wall clock mostly measures the other processes; median of
``--rounds`` runs) and exits 1 when the hit
path costs more than :data:`TARGET_HIT_US` or a miss more than :data:`TARGET_MISS_US`.

    .venv/bin/python benchmarks/devices_bench.py            # about 10 s
    .venv/bin/python benchmarks/devices_bench.py --quick    # smoke test (run by the suite)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from yahtzee.devices.service import DeviceService
from yahtzee.devices.settings import DeviceSettings
from yahtzee.devices.store import MIGRATIONS, DeviceStore
from yahtzee.server.feature import Players
from yahtzee.server.identity import DeviceSigner, PlayerIds, PlayerSigner, new_player_id
from yahtzee.server.limits import Guard
from yahtzee.server.settings import Limits
from yahtzee.storage import migrate
from yahtzee.storage.feature_db import open_feature_db

TARGET_HIT_US = 25.0
TARGET_MISS_US = 2_000.0
SECRET = b"devices-bench-secret-0123456789abcdef"


class _NoTokens:
    async def take(self, charges: object) -> None:
        """No rate limits here."""


async def run(devices: int, rounds: int, directory: Path) -> dict[str, float]:
    await migrate(directory / "bench.db", [MIGRATIONS])
    db = open_feature_db(directory / "bench.db")
    store = DeviceStore(db, SECRET)
    # A stopped clock: a hit stays a hit however slow the machine (the miss is forced by
    # forgetting the devices, as a removal or 2 s of idleness would).
    now = time.time()
    service = DeviceService(
        store,
        Guard(Limits(), _NoTokens(), lambda: now),
        DeviceSettings(),
        DeviceSigner(SECRET),
        Players(),
        clock=lambda: now,
    )
    ids = PlayerIds(PlayerSigner(SECRET), service, DeviceSigner(SECRET))
    cookies = []
    for _ in range(devices):
        resolved = await ids.resolve(None, "127.0.0.1")
        assert resolved.cookie is not None
        cookies.append(resolved.cookie)
    legacy = [PlayerSigner(SECRET).sign(new_player_id()) for _ in range(devices)]
    figures: dict[str, list[float]] = {"old": [], "hit": [], "miss": []}
    for _ in range(rounds):
        started = time.process_time()
        for cookie in legacy:
            ids.signer.verify(cookie)
        figures["old"].append((time.process_time() - started) / devices * 1e6)
        started = time.process_time()
        for cookie in cookies:
            await ids.resolve(cookie, "127.0.0.1")
        figures["hit"].append((time.process_time() - started) / devices * 1e6)
        service.forget([DeviceSigner(SECRET).verify(c) or "" for c in cookies])
        started = time.process_time()
        for cookie in cookies:
            await ids.resolve(cookie, "127.0.0.1")
        figures["miss"].append((time.process_time() - started) / devices * 1e6)
    await db.close()
    return {k: statistics.median(v) for k, v in figures.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a few devices, for the suite")
    args = parser.parse_args()
    if args.quick:
        args.devices, args.rounds = 200, 1
    with tempfile.TemporaryDirectory(prefix="yahtzee-devices-bench-") as tmp:
        result = asyncio.run(run(args.devices, args.rounds, Path(tmp)))
    print(f"devices: {args.devices}, rounds: {args.rounds} (median per resolve)")
    print(f"  old cookie (signed player id), verify : {result['old']:8.1f} us")
    hit, miss = result["hit"], result["miss"]
    print(f"  device cookie, cached player (hit)    : {hit:8.1f} us (target <= {TARGET_HIT_US:g})")
    print(
        f"  device cookie, table read (miss)      : {miss:8.1f} us (target <= {TARGET_MISS_US:g})"
    )
    ok = result["hit"] <= TARGET_HIT_US and result["miss"] <= TARGET_MISS_US
    print("devices bench: " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
