"""Shared test setup: one solver table for the whole test run.

The cache directory is set at import time (before any test module imports the solver),
so every test — and every server subprocess the API/e2e tests start, which inherits the
environment — reads the same table, built at most once per checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# No timed assertions in the tests (the CI and dev machines are shared and noisy): property
# tests judge results, never how long an example took.
settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("YAHTZEE_CACHE_DIR", str(REPO / ".cache" / "yahtzee-test"))

from yahtzee.solver import ValueTable, load_table  # noqa: E402  (after the env var is set)


@pytest.fixture(scope="session")
def table() -> ValueTable:
    """The solver's value table (built on first use, then loaded from the cache)."""
    return load_table()
