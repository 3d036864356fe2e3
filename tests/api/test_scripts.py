"""The crash test and the load benchmark, in their quick modes, as the suite runs them."""

from __future__ import annotations

from bench_smoke import run_quick


def test_kill_9_mid_load_loses_no_acknowledged_action() -> None:
    out = run_quick("crash_test.py")
    assert "PRAGMA integrity_check: ok" in out
    assert "crash test: PASS" in out


def test_load_benchmark_quick_mode_has_no_errors() -> None:
    out = run_quick("load_bench.py")
    assert "errors                  : 0 (must be 0)" in out
