"""Quick runs of the benchmark scripts for the test suite.

The suite never asserts a timing (the machines are shared and noisy): it checks that a
benchmark runs in its quick mode and prints sound figures; the figures themselves are
quoted from full runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def run_quick(script: str, *args: str) -> str:
    """Run ``benchmarks/<script> --quick [args]``; its standard output (fails on exit != 0)."""
    status, out, err = run_quick_status(script, *args)
    assert status == 0, out + err
    return out


def run_quick_status(script: str, *args: str) -> tuple[int, str, str]:
    """Run ``benchmarks/<script> --quick [args]``: its exit status, standard output and
    standard error (for the checks that a failure makes a benchmark exit non-zero)."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def quick_figures(script: str) -> dict[str, Any]:
    """The figures ``benchmarks/<script> --quick --json`` prints, as a dict."""
    figures: dict[str, Any] = json.loads(run_quick(script, "--json"))
    return figures
