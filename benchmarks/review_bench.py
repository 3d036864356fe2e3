"""Review benchmark (issue 9): server time of ``GET /api/games/{id}/review``.

Games are played to the end through the API (a seeded player that rolls on with random
holds and scores a random allowed box, so reviews have every kind of decision), then each
game's review is requested:

* **compute**: the review service with an empty cache (what the first request costs);
* **request**: the first request end to end through the ASGI app (TestClient);
* **cached**: a repeated request (served from the in-process cache).

Medians over the games, for solo and for vs games (``--vs-level``). ``--quick`` plays a
few games (the test suite's smoke run); ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from yahtzee.rules import Category
from yahtzee.server.cpu import CpuPool
from yahtzee.server.reviews import ReviewService
from yahtzee.server.settings import Limits
from yahtzee.web import Settings, Wiring, create_app

CATEGORIES = tuple(c.value for c in Category)


def play(client: TestClient, mode: str, difficulty: str | None, rng: random.Random) -> str:
    """One game to the end through the API; returns its id."""
    body: dict[str, Any] = {"mode": mode}
    if difficulty:
        body["difficulty"] = difficulty
    game = client.post("/api/games", json=body).json()
    gid = game["id"]
    while game["status"] == "in_progress":
        game = client.post(
            f"/api/games/{gid}/roll", json={"version": game["version"], "hold": [False] * 5}
        ).json()
        while game["rolls_left"] > 0 and rng.random() < 0.7:
            hold = [rng.random() < 0.5 for _ in range(5)]
            if all(hold):
                hold[0] = False
            game = client.post(
                f"/api/games/{gid}/roll", json={"version": game["version"], "hold": hold}
            ).json()
        boxes = game["players"]["human"]["boxes"]
        allowed = [c for c in CATEGORIES if boxes[c] is None and game["preview"][c]["allowed"]]
        game = client.post(
            f"/api/games/{gid}/score",
            json={
                "version": game["version"],
                "category": rng.choice(allowed),
                "confirm_zero": True,
            },
        ).json()
    return str(gid)


def bench(games: int, mode: str, difficulty: str | None, db: Path) -> dict[str, Any]:
    """Play ``games`` games, then time their reviews three ways (medians in ms)."""
    rng = random.Random(2024)
    # The games are played at machine speed, far beyond a person's clicks: the rate limits
    # (F5) are off for this one client, which measures reviews, not the server's defences.
    off = Limits(0, 0, 0, new_games_per_minute_per_address=0, work_per_second=0)
    with TestClient(create_app(Settings(db=db, limits=off), Wiring(dice_seed=99))) as client:
        ids = [play(client, mode, difficulty, rng) for _ in range(games)]
        reviews: ReviewService = client.app.state.reviews  # type: ignore[attr-defined]
        pool: CpuPool = client.app.state.cpu  # type: ignore[attr-defined]
        # The cookie names a device (docs/api.md), the devices table its player.
        devices = client.app.state.devices  # type: ignore[attr-defined]
        device = devices.signer.verify(client.cookies.get("yahtzee_player") or "")
        player = (devices.cached(device) if device else None) or ""
        compute, request, cached = [], [], []
        for gid in ids:
            if player:
                fresh = ReviewService(reviews.storage)
                start = time.perf_counter()
                client.portal.call(fresh.review, player, gid, pool.jobs_of(player))  # type: ignore[union-attr]
                compute.append(time.perf_counter() - start)
            start = time.perf_counter()
            r = client.get(f"/api/games/{gid}/review")
            request.append(time.perf_counter() - start)
            assert r.status_code == 200, r.text
            start = time.perf_counter()
            client.get(f"/api/games/{gid}/review")
            cached.append(time.perf_counter() - start)
    out = {
        "games": games,
        "request_median_ms": 1000 * statistics.median(request),
        "cached_median_ms": 1000 * statistics.median(cached),
    }
    if compute:
        out["compute_median_ms"] = 1000 * statistics.median(compute)
        out["compute_max_ms"] = 1000 * max(compute)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--vs-level", default="expert")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    games = 3 if args.quick else args.games
    with tempfile.TemporaryDirectory(prefix="yahtzee-review-bench-") as tmp:
        figures = {
            "solo": bench(games, "solo", None, Path(tmp) / "solo.db"),
            "vs": bench(games, "vs_computer", args.vs_level, Path(tmp) / "vs.db"),
        }
    if args.json:
        print(json.dumps(figures))
        return
    for name, f in figures.items():
        print(
            f"{name}: {f['games']} games; review computed (empty cache) median "
            f"{f.get('compute_median_ms', float('nan')):.1f} ms (max "
            f"{f.get('compute_max_ms', float('nan')):.1f}); first request "
            f"{f['request_median_ms']:.1f} ms; cached request {f['cached_median_ms']:.2f} ms"
        )


if __name__ == "__main__":
    main()
