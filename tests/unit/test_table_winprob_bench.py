"""Smoke run of benchmarks/table_winprob_bench.py (no timing assertions: the machine is
shared)."""

from __future__ import annotations

import pytest

from bench_smoke import quick_figures

pytestmark = pytest.mark.usefixtures("table")


def test_table_winprob_benchmark_quick_run_prints_its_figures() -> None:
    figures = quick_figures("table_winprob_bench.py")
    assert figures["seats"] == 6
    assert figures["review"]["count"] == 2
    assert figures["review"]["median_ms"] > 0
    assert figures["review_cpu"]["median_ms"] > 0
    # Every roll of every seat: at least one a turn, 13 turns, 6 seats, 2 tables.
    assert figures["meter"]["count"] >= 2 * 6 * 13
    assert figures["meter"]["median_ms"] > 0
