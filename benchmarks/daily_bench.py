"""Daily challenge benchmark (D4, D2): a day's board of 10,000 players, and starting the game.

For each backend (SQLite file, and a PostgreSQL cluster of its own) this fills a fresh
database with ``--players`` finished daily plays of one day (names, scores, skill losses,
accuracies; the ranking fields drawn at random), starts the real server on it and measures:

* **board**: ``GET /api/daily/{date}/leaderboard?limit=20`` by a browser whose own entry is
  somewhere in the middle (so the answer includes the count of the entries before it), over
  ``--requests`` requests: median and p90, from request to full answer over loopback;
* **start**: ``POST /api/daily {"name"}`` by ``--starts`` new browsers, one after another
  (each creates a game on the day's stream: the claim, the game's insert with its fsync,
  the response): median and p90; alternately with an ordinary ``POST /api/games`` by as
  many new browsers, the yardstick (its median is printed beside).

Targets: board ≤ 30 ms median, start ≤ 20 ms median.

    .venv/bin/python benchmarks/daily_bench.py            # 10,000 players, both backends
    .venv/bin/python benchmarks/daily_bench.py --quick    # smoke run (the test suite)

Prints one line per figure (``--json``: one JSON object). Exit status 1 when a request
failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers
from server_process import NO_LIMIT_ARGS, RawClient, ServerProcess
from yahtzee.daily.dice import today
from yahtzee.daily.store import MIGRATIONS
from yahtzee.server.identity import PlayerSigner, load_secret, new_player_id
from yahtzee.storage import invites, migrate
from yahtzee.storage.feature_db import open_feature_db
from yahtzee.storage.pgcluster import TempCluster


def fill(db: Path | str, players: int, day: str, rng: random.Random) -> list[str]:
    """``players`` finished plays of ``day`` with names; returns the player ids."""
    feature_db = open_feature_db(db)
    asyncio.run(migrate(db, [invites.MIGRATIONS, MIGRATIONS]))
    ids = [new_player_id() for _ in range(players)]
    now = datetime.now(UTC).isoformat()
    names = [(pid, f"玩家{i}", now) for i, pid in enumerate(ids)]
    plays = []
    for pid in ids:
        loss = round(rng.expovariate(1 / 25), 4)
        accuracy = round(max(0.0, 100 - loss * 0.8), 2)
        score = int(250 - loss + rng.gauss(0, 40))
        finished = f"{day}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00+00:00"
        plays.append(
            (
                day,
                pid,
                secrets.token_hex(16),
                finished,
                finished,
                score,
                loss,
                accuracy,
                0.0,
                "b" * 13,
            )
        )

    async def work(tx: Any) -> None:
        await tx.many(
            "INSERT INTO daily_names (player_id, name, updated_at) VALUES (:p, :n, :t)",
            [dict(zip(("p", "n", "t"), row, strict=True)) for row in names],
        )
        columns = (
            "day, player_id, game_id, started_at, finished_at, score, skill_loss, accuracy, "
            "luck, marks"
        )
        keys = columns.split(", ")
        await tx.many(
            f"INSERT INTO daily_plays ({columns}) VALUES ({', '.join(':' + k for k in keys)})",
            [dict(zip(keys, row, strict=True)) for row in plays],
        )
        if tx.dialect == "postgresql":
            await tx.all("ANALYZE daily_plays")
            await tx.all("ANALYZE daily_names")

    async def seed() -> None:
        await feature_db.run(work)
        await feature_db.close()

    asyncio.run(seed())
    return ids


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(port: int, cookie: str, day: str, requests: int, starts: int) -> dict[str, Any]:
    """The board's and the start's latencies (ms) against the server on ``port``."""
    client = RawClient("127.0.0.1", port)
    client.cookie = f"yahtzee_player={cookie}"
    path = f"/api/daily/{day}/leaderboard?limit=20"
    board = await client.request("GET", path)  # warm: connection, caches, plans
    assert board["you"] is not None, "the measuring browser must have an entry"
    assert len(board["entries"]) == 20
    board_ms = []
    for _ in range(requests):
        t0 = time.perf_counter()
        await client.request("GET", path)
        board_ms.append((time.perf_counter() - t0) * 1000)
    await client.close()
    start_ms: list[float] = []
    ordinary_ms: list[float] = []
    failures = 0
    # Alternately, on the same server: the day's game, and an ordinary solo game (the
    # yardstick: the machine's noise moves both alike).
    for i in range(starts + 1):
        for path, body, times in (
            ("/api/daily", {"name": f"新人{i}"}, start_ms),
            ("/api/games", {"mode": "solo"}, ordinary_ms),
        ):
            fresh = RawClient("127.0.0.1", port)
            await fresh.request("GET", "/api/health")  # the connection, not the handshake
            t0 = time.perf_counter()
            status, _ = await fresh.raw("POST", path, body)
            elapsed = (time.perf_counter() - t0) * 1000
            if status != 201:
                failures += 1
            if i:  # (the first of each warms the path)
                times.append(elapsed)
            await fresh.close()
    return {
        "players": board["players"],
        "rank": board["you"]["rank"],
        "board_p50_ms": round(statistics.median(board_ms), 2),
        "board_p90_ms": round(_pct(board_ms, 0.9), 2),
        "start_p50_ms": round(statistics.median(start_ms), 2),
        "start_p90_ms": round(_pct(start_ms, 0.9), 2),
        "ordinary_p50_ms": round(statistics.median(ordinary_ms), 2),
        "failures": failures,
    }


def run_backend(
    backend: str, players: int, requests: int, starts: int, workdir: Path
) -> dict[str, Any]:
    """Fill, serve and measure one backend."""
    rng = random.Random(1)
    day = today().isoformat()
    secret_file = workdir / f"{backend}.secret"
    secret = load_secret(secret_file)
    cluster: TempCluster | None = None
    db: Path | str
    if backend == "postgresql":
        cluster = TempCluster().__enter__()  # (its own temporary directory; durable)
        db = cluster.create_database("daily_bench")
    else:
        db = workdir / "daily.db"
    try:
        # The tables are the server's: let it create them all once, then fill them.
        server = ServerProcess(
            db, log=workdir / f"{backend}.log", args=["--secret-file", str(secret_file)]
        ).start()
        server.stop()
        ids = fill(db, players, day, rng)
        me = ids[len(ids) // 2]
        server = ServerProcess(
            db,
            log=workdir / f"{backend}.log",
            args=["--secret-file", str(secret_file), *NO_LIMIT_ARGS],
        ).start()
        try:
            cookie = PlayerSigner(secret).sign(me)
            figures = asyncio.run(measure(server.port, cookie, day, requests, starts))
        finally:
            server.stop()
    finally:
        if cluster is not None:
            cluster.__exit__(None, None, None)
    return {"backend": backend, **figures}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--starts", type=int, default=100)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--quick", action="store_true", help="a smoke run (the test suite)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.requests, args.starts = 300, 10, 5
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for backend in backends:
            results.append(
                run_backend(backend, args.players, args.requests, args.starts, Path(tmp))
            )
    if args.json:
        print(json.dumps({"results": results}))
    else:
        for r in results:
            print(
                f"{r['backend']:<10} board of {r['players']:,} players (you at rank "
                f"{r['rank']:,}): p50 {r['board_p50_ms']} ms, p90 {r['board_p90_ms']} ms "
                f"(target p50 <= 30 ms)"
            )
            print(
                f"{r['backend']:<10} start the day's game: p50 {r['start_p50_ms']} ms, "
                f"p90 {r['start_p90_ms']} ms (target p50 <= 20 ms; an ordinary new game "
                f"p50 {r['ordinary_p50_ms']} ms); failures {r['failures']}"
            )
    return 1 if any(r["failures"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
