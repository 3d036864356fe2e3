"""Smoke run of benchmarks/practice_bench.py (no timing assertions: the machine is shared)."""

from __future__ import annotations

import pytest

from bench_smoke import quick_figures

pytestmark = pytest.mark.usefixtures("table")


def test_practice_benchmark_quick_run_prints_its_figures() -> None:
    figures = quick_figures("practice_bench.py")
    assert figures["puzzles"] == 10
    for name in ("next", "answer", "grading"):
        assert 0 < figures[name]["median_ms"] <= figures[name]["p90_ms"]
