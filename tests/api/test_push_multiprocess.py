"""W4 across two real server processes on one PostgreSQL database, with a ``kill -9``.

Two browsers turn reminders on, one through each process (one VAPID key: both processes
make it from the one secret, and the local push service checks each message's signature
against the key the browser subscribed with). Reminders are then decided straight into
the database, as a third process that answered ``queued`` and died would leave them: no
process is woken, each finds them in the outbox. Every reminder reaches its device exactly
once although both processes send from the one outbox; after a ``kill -9`` of one of them,
the other sends every reminder decided since.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from push_service import LocalPushService
from server_process import NO_LIMIT_ARGS, RawClient, ServerProcess, start_together
from yahtzee.push.delivery import topic_of
from yahtzee.push.store import PushStore
from yahtzee.server.reminders import Outcome, ReminderPayload
from yahtzee.storage.feature_db import open_feature_db

pytestmark = pytest.mark.parametrize("db", ["postgresql"], indirect=True)


@pytest.fixture
def service() -> Iterator[LocalPushService]:
    with LocalPushService() as running:
        yield running
    assert running.refused == [], running.refused


@pytest.fixture
def servers(
    db: Path | str, tmp_path: Path, table: object, service: LocalPushService
) -> Iterator[list[ServerProcess]]:
    """Two server processes on one fresh PostgreSQL database, sending to the local push
    service."""
    del table
    args = [
        "--secret-file",
        str(tmp_path / "cookie.secret"),
        "--push-endpoints",
        service.prefix,
        *NO_LIMIT_ARGS,
    ]
    started = start_together(
        [ServerProcess(db, log=tmp_path / f"server{i}.log", args=args) for i in range(2)]
    )
    yield started
    for server in started:
        server.stop()


async def _subscribe(port: int, service: LocalPushService) -> str:
    """A browser turns reminders on through the process at ``port``: its endpoint."""
    client = RawClient("127.0.0.1", port)
    try:
        state = await client.request("GET", "/api/push")
        browser = service.subscribe(state["public_key"])
        await client.request("PUT", "/api/push/quiet", {"quiet": None})
        body = {"subscription": browser.to_json(), "time_zone": "Asia/Taipei"}
        answer = await client.request("POST", "/api/push/subscriptions", body)
        assert answer["subscribed"] is True
        return browser.endpoint
    finally:
        await client.close()


def _players(url: str) -> dict[str, str]:
    """endpoint -> player id, as the processes stored them."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT endpoint, player_id FROM push_subscriptions").fetchall()
    return {str(endpoint): str(player) for endpoint, player in rows}


def _outbox(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT COUNT(*) FROM push_outbox").fetchone()
    assert row is not None
    return int(row[0])


async def _decide(url: str, players: list[str], first: int, count: int) -> None:
    """What a process's ``Platform.reminders.send`` writes: each reminder about a room of
    its own, decided and queued in one transaction."""
    db = open_feature_db(url)
    store = PushStore(db)
    try:
        for k in range(first, first + count):
            link = f"/rooms/mp-{k}"
            body = ReminderPayload(seats=("奶奶", ""), round=1 + k % 13, link=link).encode("turn")
            for player in players:
                sent = await store.decide(player, link, topic_of(link), body, time.time())
                assert sent.outcome is Outcome.QUEUED
    finally:
        await db.close()


def _received(service: LocalPushService, count: int) -> Counter[tuple[str, Any]]:
    """Each (endpoint, link) the service accepted, once there are ``count`` messages and
    the outbox is empty (a condition; a duplicate would show as a count of 2)."""
    got = service.wait_for(count, timeout=60)
    return Counter((m.endpoint, m.payload["link"]) for m in got)


def test_w4_two_processes_send_each_reminder_once_and_one_survives_a_kill(
    db: Path | str, servers: list[ServerProcess], service: LocalPushService
) -> None:
    url = str(db)
    endpoints = [asyncio.run(_subscribe(server.port, service)) for server in servers]
    by_endpoint = _players(url)
    players = [by_endpoint[e] for e in endpoints]
    assert len(set(players)) == 2

    asyncio.run(_decide(url, players, 0, 30))
    got = _received(service, 60)
    deadline = time.monotonic() + 30
    while _outbox(url):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert sorted(got.values()) == [1] * 60, got.most_common(3)
    assert {e for e, _ in got} == set(endpoints)
    assert len(service.messages) == 60

    servers[0].kill()  # kill -9, idle: nothing of it was under way
    asyncio.run(_decide(url, players, 30, 10))
    got = _received(service, 80)
    assert sorted(got.values()) == [1] * 80, got.most_common(3)
    assert {link for _, link in got} == {f"/rooms/mp-{k}" for k in range(40)}
