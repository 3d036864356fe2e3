"""Smoke run of benchmarks/review_bench.py (no timing assertions: the machine is shared)."""

from __future__ import annotations

import pytest

from bench_smoke import quick_figures

pytestmark = pytest.mark.usefixtures("table")


def test_review_benchmark_quick_run_prints_its_figures() -> None:
    figures = quick_figures("review_bench.py")
    for mode in ("solo", "vs"):
        assert figures[mode]["games"] == 3
        assert figures[mode]["compute_median_ms"] > 0
        assert figures[mode]["cached_median_ms"] > 0
