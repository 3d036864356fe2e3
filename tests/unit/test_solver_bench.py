"""Smoke run of benchmarks/solver_bench.py: it runs and prints its figures (no timing
assertions: the machine is shared)."""

from __future__ import annotations

import pytest

from bench_smoke import quick_figures

pytestmark = pytest.mark.usefixtures("table")  # the solver table is built once


def test_benchmark_quick_run_prints_its_figures() -> None:
    figures = quick_figures("solver_bench.py")
    assert set(figures) == {"solve", "table", "decision", "simulation"}
    assert figures["solve"]["median_s"] > 0
    assert figures["solve"]["peak_rss_mb"] > 0
    assert abs(figures["table"]["start_value"] - 254.58773) < 0.001
    assert figures["decision"]["advise_p50_us"] > 0
    assert figures["simulation"]["median_games_per_s"] > 0
