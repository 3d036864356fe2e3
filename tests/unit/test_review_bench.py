"""Smoke run of benchmarks/review_bench.py (no timing assertions: the machine is shared)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("table")

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "review_bench.py"


def test_review_benchmark_quick_run_prints_its_figures() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    for mode in ("solo", "vs"):
        assert figures[mode]["games"] == 3
        assert figures[mode]["compute_median_ms"] > 0
        assert figures[mode]["cached_median_ms"] > 0
