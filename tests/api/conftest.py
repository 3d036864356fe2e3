"""Fixtures of the API tests: a fresh app and database per test, seeded dice.

Every test that uses :func:`make_client` (or ``client``/``api``) runs twice: on SQLite
and on PostgreSQL (the ``db`` fixture of ``tests/conftest.py``).

The tests play at machine speed (hundreds of actions a second from one player), which the
rate limits (F5) exist to refuse; so the fixture's apps run with the limits off, said
here rather than hidden. ``tests/api/test_limits.py`` builds its apps with the default
limits and checks them.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    # Starlette nags about httpx vs httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from yahtzee.storage import is_postgres_url
from yahtzee.web import Settings, Wiring, create_app

from .helpers import NO_LIMITS, TEST_SECRET, Api, DocumentedResponses


@pytest.fixture
def make_client(db: Path | str) -> Iterator[Callable[..., TestClient]]:
    """Build clients on fresh apps: ``make_client(dice=..., limits=...)`` takes both the
    :class:`Settings` fields and the test parts of :class:`Wiring`."""
    clients: list[TestClient] = []
    parts = {f.name for f in dataclasses.fields(Wiring)}

    def make(**overrides: Any) -> TestClient:
        # The CPU jobs in threads (no worker process to start for each app); the tests of
        # the pool's processes ask for them (test_costs.py), as do the real servers'.
        defaults: dict[str, Any] = {
            "db": db,
            "dice_seed": 1234,
            "sections": NO_LIMITS,
            "cpu_processes": False,
        }
        if is_postgres_url(db):
            defaults["secret"] = TEST_SECRET  # PostgreSQL: the secret comes from configuration
        given = {**defaults, **overrides}
        wiring = Wiring(**{k: v for k, v in given.items() if k in parts})
        settings = Settings(**{k: v for k, v in given.items() if k not in parts})
        app = create_app(settings, wiring)
        client = TestClient(app)
        client.event_hooks["response"].append(DocumentedResponses(app))
        client.__enter__()  # runs the lifespan: players and solver table load once
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    """A client on a fresh app with a temporary database and seeded dice."""
    return make_client()


@pytest.fixture
def api(client: TestClient) -> Api:
    """Helpers bound to :func:`client`."""
    return Api(client)
