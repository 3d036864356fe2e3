"""A3 (issue 36): one way to the database for every feature, through the connections the
app factory opens, on SQLite and PostgreSQL.

Every feature's store (the rooms', the daily challenge's and the groups', 练习's, the
devices', the players' settings) reaches its tables through the games' storage
(``storage.features()``): no feature opens a connection or a pool of its own. On
PostgreSQL a process then holds its one pool (at least ``MIN_CONNECTIONS``, at most
``MAX_CONNECTIONS``) and one ``LISTEN`` connection for every channel (the rooms' events,
revoked devices); it held four pools (the games', the features' in a worker thread and on
the loop, 练习's two) and two ``LISTEN`` connections: at least 14 connections idle."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from fastapi.testclient import TestClient

from yahtzee.storage import is_postgres_url
from yahtzee.storage.postgres import MAX_CONNECTIONS, MIN_CONNECTIONS

from .helpers import Api


def _connections(url: str) -> int:
    """The connections to the test's database but this one's."""
    with psycopg.connect(url, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a3_every_feature_reaches_the_database_through_the_apps_storage(
    make_client: Callable[..., TestClient], db: Path | str
) -> None:
    client = make_client()
    state: Any = client.app.state  # type: ignore[attr-defined]
    storage = state.service.storage
    stores = {
        "rooms": state.rooms.store.db,
        "daily": state.daily.store.db,
        "practice": state.practice.store.db,
        "devices": state.devices.store.db,
        "player settings": state.player_settings.db,
    }
    assert {name: db.storage is storage for name, db in stores.items()} == dict.fromkeys(
        stores, True
    )
    if not is_postgres_url(db):
        return
    assert storage.listening.wait(30)  # (the rooms' channel and the revocations')
    idle = _connections(str(db))
    assert idle <= MIN_CONNECTIONS + 1, idle  # the pool's connections and one LISTEN
    # every feature at work: a room, the day's challenge, a puzzle, the devices, a game
    api = Api(client)
    seats = [{"kind": "human", "name": "房主"}, {"kind": "computer", "difficulty": "novice"}]
    room = client.post("/api/rooms", json={"seats": seats}).json()["room"]
    assert client.post(f"/api/rooms/{room['id']}/start", json={}).is_success
    assert client.post("/api/daily", json={"name": "甲"}).is_success
    assert client.get("/api/puzzles/next").is_success
    assert client.get("/api/devices").is_success
    api.roll(api.new(replace=True))
    assert _connections(str(db)) <= MAX_CONNECTIONS + 1
