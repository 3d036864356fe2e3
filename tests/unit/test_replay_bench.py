"""Smoke run of benchmarks/replay_bench.py: it runs and prints its figures (no timing
assertions: the machine is shared; the figures are quoted from full runs)."""

from __future__ import annotations

from bench_smoke import quick_figures


def test_f1_replay_benchmark_quick_run_prints_its_figures() -> None:
    figures = quick_figures("replay_bench.py")
    assert figures["events"] == 108  # the longest legal game: all but the abandon
    assert figures["bound"] == 109
    assert figures["load_and_fold_median_s"] > 0
    assert figures["ratio_to_target"] == figures["load_and_fold_median_s"] / 0.005
    assert figures["legacy_fold_median_s"] > 0
