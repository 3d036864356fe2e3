"""Advice fairness: 60 cookies asking ``/api/advice`` and another player's live meter.

Issue 28 item 11: 60 cookies, each asking ``/api/advice`` as fast as it is answered (one
request at a time each, within its work budget), raised another player's
``GET /api/games/{id}/meter`` from 10 ms to 140 ms median (775 ms max): every costly read
runs in the server's CPU pool, and the pool served its queue in arrival order, so the
meter waited behind one advice job of each of the 60.

Starts the real server (``python -m yahtzee.server``, a temporary SQLite database, the
default limits except new player ids, so that 60 cookies can be made from one address) and
gives the **player** a vs 高手 game in progress, rolled once. Then two phases of
``--seconds`` each:

* **quiet**: the player asks for the meter every ``--every`` seconds (as the page does after
  each roll and score), alone;
* **flood**: the same while ``--cookies`` clients, in a process of their own, each with its
  own cookie and connection, ask ``/api/advice`` for random positions (a card of a few
  filled boxes, five dice, two rolls left) one after another, never backing off (a 429 or
  503 is just the next request).

Prints the meter's median, p90 and max in both phases and the flood's answers by status.
Target: the flooded median within 2× the quiet one + 10 ms. Exit status 1 when a meter
request failed (``--check``: or the target is missed).

    .venv/bin/python benchmarks/advice_fairness_bench.py            # 60 cookies, 2 × 15 s
    .venv/bin/python benchmarks/advice_fairness_bench.py --quick    # 20 cookies, 2 × 4 s
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test helpers
from server_process import RawClient, ServerProcess

FLOOD_ADDRESS = "127.0.8.1"
BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes", "chance")


def _advice_path(rng: random.Random) -> str:
    filled = rng.sample(BOXES, rng.randint(0, 4))
    scores = ",".join(f"{box}={rng.randint(0, 5) * (BOXES.index(box) + 1)}" for box in filled)
    if "chance" in filled:
        scores = scores.replace("chance=0", "chance=5")
    dice = "".join(str(rng.randint(1, 6)) for _ in range(5))
    return f"/api/advice?scores={scores}&dice={dice}&rolls_left=2"


async def _flooder(port: int, seed: int, stop_at: float, statuses: Counter[int]) -> None:
    rng = random.Random(seed)
    client = RawClient("127.0.0.1", port, local_addr=FLOOD_ADDRESS)
    try:
        await client.request("GET", "/api/records")  # its cookie
        while time.monotonic() < stop_at:
            try:
                status, _ = await client.raw("GET", _advice_path(rng))
            except (OSError, asyncio.IncompleteReadError, ValueError):
                status = 0
            statuses[status] += 1
    finally:
        await client.close()


def _flood_process(port: int, cookies: int, seconds: float, out: Any) -> None:
    """The flooders, in a process of their own (on the player's event loop their answers
    would delay the player's in the client itself)."""

    async def flood() -> Counter[int]:
        statuses: Counter[int] = Counter()
        stop_at = time.monotonic() + seconds
        await asyncio.gather(*(_flooder(port, i, stop_at, statuses) for i in range(cookies)))
        return statuses

    out.put(dict(asyncio.run(flood())))


async def _player_game(client: RawClient) -> str:
    game = await client.request(
        "POST", "/api/games", {"mode": "vs_computer", "difficulty": "expert", "replace": True}
    )
    await client.request("POST", f"/api/games/{game['id']}/roll", {"version": game["version"]})
    game_id: str = game["id"]
    return game_id


async def _meters(client: RawClient, game_id: str, seconds: float, every: float) -> list[float]:
    """The meter's latencies (ms) over ``seconds``; raises on a failed request."""
    out = []
    stop_at = time.monotonic() + seconds
    while time.monotonic() < stop_at:
        start = time.perf_counter()
        await client.request("GET", f"/api/games/{game_id}/meter")
        out.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(max(0.0, every - (time.perf_counter() - start)))
    return out


def _summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "median_ms": round(statistics.median(ordered), 1),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 1),
        "max_ms": round(ordered[-1], 1),
        "requests": len(ordered),
    }


async def _run(port: int, args: argparse.Namespace) -> dict[str, Any]:
    client = RawClient("127.0.0.1", port)
    game_id = await _player_game(client)
    await _meters(client, game_id, 1.0, args.every)  # warm: the worker has loaded its models
    quiet = await _meters(client, game_id, args.seconds, args.every)
    results: Any = multiprocessing.Queue()
    flood = multiprocessing.Process(
        target=_flood_process, args=(port, args.cookies, args.seconds + 2, results), daemon=True
    )
    flood.start()
    await asyncio.sleep(2.0)  # the flood is up
    flooded = await _meters(client, game_id, args.seconds, args.every)
    statuses = results.get(timeout=args.seconds + 60)
    flood.join(timeout=10)
    await client.close()
    return {
        "cookies": args.cookies,
        "quiet": _summary(quiet),
        "flood": _summary(flooded),
        "advice_statuses": {str(k): v for k, v in sorted(statuses.items())},
        "advice_per_second": round(statuses.get(200, 0) / (args.seconds + 2), 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the exit status says whether the meter kept answering."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cookies", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each phase")
    parser.add_argument("--every", type=float, default=0.25, help="seconds between meters")
    parser.add_argument("--quick", action="store_true", help="20 cookies, 4 s phases")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args(argv)
    if args.quick:
        args.cookies, args.seconds = 20, 4.0
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerProcess(
            Path(tmp) / "advice.db",
            # No work budget: what is measured is the CPU pool's fairness itself (the
            # flooders' first requests, from one address, would also spend the budget).
            args=["--max-new-players-per-minute", "0", "--max-work-per-second", "0"],
        ) as server,
    ):
        figures = asyncio.run(_run(server.port, args))
    target = 2 * figures["quiet"]["median_ms"] + 10
    figures["target_median_ms"] = round(target, 1)
    if args.json:
        print(json.dumps(figures))
    else:
        for phase in ("quiet", "flood"):
            f = figures[phase]
            print(
                f"meter, {phase:5}: median {f['median_ms']} ms, p90 {f['p90_ms']} ms, "
                f"max {f['max_ms']} ms ({f['requests']} requests)"
            )
        print(
            f"{figures['cookies']} cookies asking /api/advice: {figures['advice_statuses']} "
            f"({figures['advice_per_second']} answered a second); target: flooded median "
            f"<= {figures['target_median_ms']} ms"
        )
    missed = figures["flood"]["median_ms"] > target
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
