"""The crash test and the load benchmark, in their quick modes, as the suite runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _run(script: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--quick"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_kill_9_mid_load_loses_no_acknowledged_action() -> None:
    out = _run("crash_test.py")
    assert "PRAGMA integrity_check: ok" in out
    assert "crash test: PASS" in out


def test_load_benchmark_quick_mode_has_no_errors() -> None:
    out = _run("load_bench.py")
    assert "errors                  : 0 (must be 0)" in out
