"""W4 end to end, on SQLite and PostgreSQL: a waiting room's turn that comes to a player
reaches that player's subscribed device through the platform's reminders and Web Push
(the local push service checks the VAPID signature and decrypts the message as a browser
would, tests/push_service.py) — exactly once, naming the room; not while the player has
the room open, nor in the device's quiet hours (the push feature decides those)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from push_service import LocalPushService
from yahtzee.rooms.service import RoomService

from .helpers import on_app_loop
from .test_devices import browser, player_of
from .test_push import settled, subscribe, waiting
from .test_rooms import Clock, _rooms
from .test_rooms_pace import _room, _turn

SHANGHAI = ZoneInfo("Asia/Shanghai")
#: Monday 2 March 2026 in Shanghai: noon (reminders go), and 23:00 (quiet: 22:00-08:00).
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=SHANGHAI).timestamp()
NIGHT = datetime(2026, 3, 2, 23, 0, tzinfo=SHANGHAI).timestamp()


@pytest.fixture
def service() -> Iterator[LocalPushService]:
    with LocalPushService() as running:
        yield running
    assert running.refused == [], running.refused


def _apps(
    make_client: Callable[..., TestClient], service: LocalPushService, now: float
) -> tuple[Clock, TestClient, TestClient]:
    """One app (a room's requests all reach one process) sending to the local push
    service, its clock at ``now``; the host and the friend, whose phone is subscribed."""
    clock = Clock()
    clock.now = now
    host = make_client(push_endpoints=service.prefix, clock=clock)
    friend = browser(host)
    subscribe(friend, service)
    return clock, host, friend


def test_w4_a_waiting_rooms_turn_reaches_the_players_phone_once(
    make_client: Callable[..., TestClient], service: LocalPushService
) -> None:
    _, host, friend = _apps(make_client, service, NOON)
    room = _room(host, [friend], "12h")
    rid = room["id"]
    assert service.messages == []  # the first turn is the host's, who takes none
    _turn(host, room["game"])
    [got] = service.wait_for(1)
    assert got.payload == {
        "topic": "turn",
        "seats": ["房主", "朋友1"],
        "round": 1,
        "link": f"/rooms/{rid}",
    }
    settled(host, "delivered")
    assert waiting(host) == 0  # nothing else queued: exactly one
    assert len(service.messages) == 1
    # the friend plays; the host's turn is the host's (no subscription): still one
    _turn(friend, _room_game(friend, rid))
    assert waiting(host) == 0
    assert len(service.messages) == 1


def _room_game(client: TestClient, rid: str) -> dict[str, object]:
    r = client.get(f"/api/rooms/{rid}")
    assert r.status_code == 200, r.text
    game: dict[str, object] = r.json()["room"]["game"]
    return game


def test_w4_no_reminder_while_the_player_has_the_room_open(
    make_client: Callable[..., TestClient], service: LocalPushService
) -> None:
    _, host, friend = _apps(make_client, service, NOON)
    friend_id = player_of(friend)
    room = _room(host, [friend], "12h")
    rid = room["id"]
    svc: RoomService = _rooms(host)

    async def open_stream() -> object:
        return await svc.open_stream(rid, friend_id, "127.0.0.1", None)

    stream = on_app_loop(host, open_stream)  # the room on the friend's screen
    try:
        game = _turn(host, room["game"])
        assert waiting(host) == 0
        assert service.messages == []
    finally:
        svc.hub.release(stream)  # type: ignore[arg-type]
    # closed again: the friend's next turn reaches the phone
    _turn(friend, game)
    _turn(host, _room_game(host, rid))
    [got] = service.wait_for(1)
    assert (got.payload["round"], got.payload["link"]) == (2, f"/rooms/{rid}")


def test_w4_no_reminder_in_the_devices_quiet_hours(
    make_client: Callable[..., TestClient], service: LocalPushService
) -> None:
    clock, host, friend = _apps(make_client, service, NIGHT)
    room = _room(host, [friend], "12h")
    game = _turn(host, room["game"])  # 23:00 in Shanghai: the friend's turn, quiet
    assert waiting(host) == 0
    assert service.messages == []
    # the next turn at noon does reach the phone (quiet hours, not a broken link)
    clock.now = NOON + 86400
    game = _turn(friend, game)
    _turn(host, game)
    [got] = service.wait_for(1)
    assert got.payload["round"] == 2
