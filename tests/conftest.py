"""Shared test setup: one solver table for the whole test run.

The cache directory is set at import time (before any test module imports the solver),
so every test — and every server subprocess the API/e2e tests start, which inherits the
environment — reads the same table, built at most once per checkout.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
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
from yahtzee.storage.pgcluster import TempCluster  # noqa: E402


@pytest.fixture(scope="session")
def table() -> ValueTable:
    """The solver's value table (built on first use, then loaded from the cache)."""
    return load_table()


# -- PostgreSQL (S1) -------------------------------------------------------------------------

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[TempCluster]:
    """A throw-away PostgreSQL cluster for the whole session (started on first use).

    Debian's ``postgresql`` package is installed by ``scripts/install-services.sh`` (the
    Makefile's test target); the cluster lives in a temporary directory, listens on a free
    loopback port and is stopped and deleted at the end.
    """
    with TempCluster(durable=False) as cluster:
        yield cluster


_databases = itertools.count()


@pytest.fixture
def pg_url(pg_cluster: TempCluster) -> str:
    """The URL of a new, empty database of :func:`pg_cluster` (one per test)."""
    return pg_cluster.create_database(f"t{os.getpid()}_{next(_databases)}")


@pytest.fixture(scope="session")
def pg_migrated(pg_cluster: TempCluster) -> str:
    """The name of a database of :func:`pg_cluster` that the app's own migrations brought
    up to date (the games' tables and every feature's: what an app's first start makes of
    an empty database), the template of the API tests' databases. Migrating an empty
    PostgreSQL database is ~0.6-0.9 s of an app's start (~0.15 s once migrated), paid
    here once a session instead of by every API test; the migrations themselves are
    tested from an empty database by tests/api/test_schema.py and test_storage.py."""
    from yahtzee.storage import migrate, run_coroutine
    from yahtzee.web.app import SCHEMA

    name = f"migrated_{os.getpid()}"
    run_coroutine(migrate(pg_cluster.create_database(name), SCHEMA))
    return name


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A fresh database for each backend: an SQLite file, or a PostgreSQL URL.

    On PostgreSQL a test that builds apps (``make_client``, which migrate the database
    the moment they start) gets a copy of :func:`pg_migrated`; any other test, and one
    marked ``empty_db`` (it puts an old schema there first), an empty database."""
    if request.param == "sqlite":
        return tmp_path / "games.db"
    if "make_client" not in request.fixturenames or request.node.get_closest_marker("empty_db"):
        url: str = request.getfixturevalue("pg_url")
        return url
    import psycopg

    cluster: TempCluster = request.getfixturevalue("pg_cluster")
    template = request.getfixturevalue("pg_migrated")
    name = f"t{os.getpid()}_{next(_databases)}"
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return cluster.url_for(name)


# -- running in parallel (make test JOBS=auto) ---------------------------------------------

# The tests that start whole stacks or kill servers mid-load (several processes, their own
# PostgreSQL or nginx, timing-sensitive recovery) run one after another on one pytest-xdist
# worker (``--dist loadgroup``), never against each other; everything else spreads out.
SERVER_HEAVY = (
    "tests/api/test_scripts.py",
    "tests/api/test_stack.py",
    "tests/api/test_multiprocess.py",
    "tests/api/test_shared_limits.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put :data:`SERVER_HEAVY` tests in one xdist group (no effect without xdist)."""
    for item in items:
        if item.path.relative_to(REPO).as_posix() in SERVER_HEAVY:
            item.add_marker(pytest.mark.xdist_group("server-heavy"))
