"""Smoke run of benchmarks/replay_bench.py: it runs and prints its figures (no timing
assertions: the machine is shared; the figures are quoted from full runs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "replay_bench.py"


def test_f1_replay_benchmark_quick_run_prints_its_figures() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["events"] == 108  # the longest legal game: all but the abandon
    assert figures["bound"] == 109
    assert figures["load_and_fold_median_s"] > 0
    assert figures["ratio_to_target"] == figures["load_and_fold_median_s"] / 0.005
    assert figures["legacy_fold_median_s"] > 0
