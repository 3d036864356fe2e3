"""Quick runs of the attack benchmarks of issues 28 and 35 (no timing asserted: each exits
request that must be answered is not)."""

from __future__ import annotations

import pytest

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


@pytest.mark.xdist_group("server-heavy")  # (a whole stack: PostgreSQL, two apps, nginx)
def test_issue_35s_attacks_on_the_stack_leave_the_victim_answered() -> None:
    """Streams fill their share of both processes (the rest refused 503, not a reset) and
    cookies loop the meter; the victim's actions, reads and probes are all answered."""
    figures = quick_figures("attack_bench.py")
    streams, meters = figures["streams"], figures["meters"]
    assert streams["attack"]["held"] >= 100  # (--max-connections 200: 100 a process, or more)
    assert streams["attack"]["statuses"].get("503", 0) > 0  # past the share: refused
    assert meters["attack"]["statuses"].get("200", 0) > 0
    for phase in (streams, meters):
        assert phase["actions"] > 0
        assert phase["refused"] == {}
        assert set(phase["health"]) == {"200"}
    assert figures["missed"] == {}


def test_the_export_benchmark_runs_and_the_other_player_keeps_playing() -> None:
    """F22 (issue 35 item 5): one player exports within its budget while another plays."""
    figures = quick_figures("export_bench.py")
    assert figures["exports"] > 0
    assert figures["alone"]["actions"] > 0
    assert figures["exporting"]["actions"] > 0  # (every action answered: none raised)
