"""Smoke run of benchmarks/first_page.py in its quick mode (the server's start from a fresh
solver cache, no clone or install): it runs and prints its figures. The figure itself —
clone → ``make run`` → first page — is quoted from full runs in docs/benchmarks.md."""

from __future__ import annotations

from bench_smoke import quick_figures


def test_first_page_benchmark_quick_run_prints_its_figures() -> None:
    figures = quick_figures("first_page.py")
    assert figures["quick"] is True
    assert figures["runs"] == 1
    assert figures["first_page"] > 0
    assert figures["first_page_all"] == [figures["first_page"]]
    assert figures["cpu_seconds"] > 0  # the server's start, solver table built afresh
    assert figures["target_seconds"] == 15.0
