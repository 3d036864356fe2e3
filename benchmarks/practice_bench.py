"""Practice benchmark (issue 19): ``GET /api/puzzles/next`` and the grading of an answer.

One browser practises ``--puzzles`` bank puzzles end to end through the ASGI app
(TestClient, SQLite file, durable commits): each round asks for the next puzzle, then
answers it (the best answer half of the time, the worst the other half, so the ratings
move both ways). Printed: the median and 90th percentile of each request, and of the
grading alone (:func:`yahtzee.training.puzzle.grade` plus the explanation, no database)
on the same positions, and of ``GET /api/health`` in between (the cost of any request
through the app on the machine at that moment). ``--db postgresql://…`` runs on
PostgreSQL instead. A first request that loads the bank is warm-up and not counted.
``--quick`` does 10 (the test suite's smoke run); ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from yahtzee.server.settings import Limits
from yahtzee.training.explain import explain
from yahtzee.training.puzzle import Answer, PuzzlePosition, grade, options_of
from yahtzee.web import Settings, Wiring, create_app


def position_of(puzzle: dict[str, Any]) -> PuzzlePosition:
    """The position a served puzzle shows."""
    scores = ",".join(f"{k}={v}" for k, v in puzzle["scores"].items())
    if puzzle["yahtzee_bonus"]:
        scores += f",yahtzee_bonus={puzzle['yahtzee_bonus']}"
    dice = "".join(map(str, puzzle["dice"]))
    held = "".join(map(str, puzzle["held"]))
    return PuzzlePosition.parse(f"{scores}|{dice}|{puzzle['rolls_left']}|{held}")


def _ms(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {
        "median_ms": 1000 * statistics.median(xs),
        "p90_ms": 1000 * xs[int(0.9 * (len(xs) - 1))],
    }


def bench(puzzles: int, db: Path | str) -> dict[str, Any]:
    """Serve and answer ``puzzles`` puzzles; the timings."""
    # Machine speed, far beyond a child's clicks: the rate limits (F5) and the work budget
    # (issue 22) are off here.
    off = Limits(0, 0, 0, new_games_per_minute_per_address=0, work_per_second=0)
    settings: dict[str, Any] = {"db": db, "limits": off}
    if isinstance(db, str):
        settings["secret"] = "bench-secret-" + "0123456789abcdef" * 2
    nexts, answers, grading, health = [], [], [], []
    with TestClient(create_app(Settings(**settings), Wiring(dice_seed=5))) as client:
        client.get("/api/puzzles/next")  # warm-up: the bank and the solver table load
        for i in range(puzzles):
            start = time.perf_counter()
            client.get("/api/health")  # the yardstick: a request that does nothing
            health.append(time.perf_counter() - start)
            start = time.perf_counter()
            r = client.get("/api/puzzles/next")
            nexts.append(time.perf_counter() - start)
            assert r.status_code == 200, r.text
            puzzle = r.json()["puzzle"]
            position = position_of(puzzle)
            options = options_of(position)
            body = Answer.of(options[0] if i % 2 else options[-1]).to_json()
            start = time.perf_counter()
            r = client.post(f"/api/puzzles/{puzzle['id']}/answer", json=body)
            answers.append(time.perf_counter() - start)
            assert r.status_code == 200, r.text
            start = time.perf_counter()
            explain(grade(position, Answer.from_json(body)))
            grading.append(time.perf_counter() - start)
        rating = client.get("/api/puzzles/progress").json()["rating"]
    return {
        "puzzles": puzzles,
        "next": _ms(nexts),
        "answer": _ms(answers),
        "grading": _ms(grading),
        "health": _ms(health),
        "final_rating": rating,
    }


def main() -> None:
    """Parse the arguments, run, print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--puzzles", type=int, default=300)
    parser.add_argument("--db", default=None, help="a postgresql:// URL (default: SQLite)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    n = 10 if args.quick else args.puzzles
    with tempfile.TemporaryDirectory(prefix="yahtzee-practice-bench-") as tmp:
        figures = bench(n, args.db or Path(tmp) / "practice.db")
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{n} puzzles served and answered ({'PostgreSQL' if args.db else 'SQLite'})")
    for name in ("next", "answer", "grading", "health"):
        f = figures[name]
        print(f"{name:8s} median {f['median_ms']:6.2f} ms   p90 {f['p90_ms']:6.2f} ms")


if __name__ == "__main__":
    main()
