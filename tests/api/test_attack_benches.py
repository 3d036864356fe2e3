"""Quick runs of the issue-28 benchmarks (no timing asserted: each exits non-zero when a
request that must be answered is not)."""

from __future__ import annotations

from bench_smoke import quick_figures


def test_slow_half_sent_requests_leave_the_health_probe_answering() -> None:
    """200 slow attackers against a cap of 150: every probe is answered 200 (before: 503)."""
    figures = quick_figures("slow_requests_bench.py")
    assert figures["probes"] == ["200"] * 4
    assert figures["attack"]["connections"] > 200  # (the attackers were closed and came back)


def test_the_advice_fairness_benchmark_runs_and_the_meter_keeps_answering() -> None:
    figures = quick_figures("advice_fairness_bench.py")
    assert figures["cookies"] == 20
    assert figures["flood"]["requests"] > 0  # (every meter request answered: none raised)
    assert figures["advice_statuses"].get("200", 0) > 0
