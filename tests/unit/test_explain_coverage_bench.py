"""Smoke run of benchmarks/explain_coverage.py (L12, L14): every sampled wrong answer that
lost at least half a point gets a reason, and every such keep its chance sentence."""

from __future__ import annotations

import pytest

from bench_smoke import quick_figures

pytestmark = pytest.mark.usefixtures("table")


def test_l14_explain_coverage_quick_run_meets_its_goal() -> None:
    figures = quick_figures("explain_coverage.py")
    assert figures["ok"] is True
    for sample in ("practice", "review"):
        counts = figures[sample]
        assert counts["total"] > 0
        assert counts["big_reason"] == counts["big"]
        assert counts["big_keep_chance"] == counts["big_keeps"]
