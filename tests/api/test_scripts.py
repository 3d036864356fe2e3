"""The crash test and the load benchmark, in their quick modes, as the suite runs them."""

from __future__ import annotations

from bench_smoke import quick_figures, run_quick


def test_kill_9_mid_load_loses_no_acknowledged_action() -> None:
    out = run_quick("crash_test.py")
    assert "PRAGMA integrity_check: ok" in out
    assert "crash test: PASS" in out


def test_load_benchmark_quick_mode_has_no_errors() -> None:
    out = run_quick("load_bench.py")
    assert "errors                  : 0 (must be 0)" in out


def test_kill_9_of_server_and_postmaster_on_a_durable_postgresql_loses_nothing() -> None:
    """F6 on PostgreSQL, measured with fsync on (the suite's own cluster runs without)."""
    out = run_quick("crash_test.py", "--db", "postgresql")
    assert "PostgreSQL fsync=on, synchronous_commit=on, full_page_writes=on" in out
    assert out.count("amcheck of the indexes: ok") == 2
    assert "crash test: PASS" in out


def test_new_game_burst_quick_mode_has_no_errors() -> None:
    out = run_quick("new_game_burst.py")
    assert "errors                  : 0 (must be 0)" in out


def test_daily_benchmark_quick_mode_on_both_backends() -> None:
    out = run_quick("daily_bench.py")
    assert out.count("board of 300 players") == 2
    assert out.count("failures 0") == 2


def test_flood_benchmark_quick_mode_has_no_errors() -> None:
    """Issue 22: a client flooding the costly reads; the paced players' requests all pass."""
    out = run_quick("flood_bench.py")
    assert "errors (paced players) : 0 (must be 0)" in out
    assert "peak RSS" in out


def test_devices_benchmark_quick_mode_passes() -> None:
    """I3: the identity hot path (a device cookie, its cached player) stays within target."""
    out = run_quick("devices_bench.py")
    assert "devices bench: PASS" in out


def test_board_bots_benchmark_quick_mode_keeps_bots_off_the_public_top_10() -> None:
    """F13: fresh-cookie bots that play perfectly never reach the public top 10, and the
    people with history, those who finish after the bots included, are all in it."""
    figures = quick_figures("board_bots_bench.py")
    assert figures["bot_entries"] > 0
    assert figures["bot_entries_reaching_top10"] == 0
    assert figures["people_in_top10_at_end"] == figures["people"]
    assert figures["late_people_in_top10_at_end"] == figures["late_people"]
