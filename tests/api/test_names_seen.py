"""F25 over the API, on SQLite and PostgreSQL: names are compared as people see them.

Issue 35 item 8: 「电脑（高\\uFE00手）」 passed the computer-name rule, and the creator's
name followed by U+FE0F, U+FE00 or U+180B joined the same room or group as a second
person that Chromium draws exactly like the first. Every path a person types a name on
(a table's seats, a room's seats, the daily board's name, a group's name and its
members') removes the default-ignorable code points before the name is checked, compared
or stored (:func:`yahtzee.names.without_ignorables`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from .helpers import error_code
from .test_daily import NOON
from .test_rooms import Clock, _seats, _token

#: What a browser draws as nothing, put after (or inside) a name.
SELECTORS = ["\ufe0f", "\ufe00", "\u180b", "\U000e0100", "\u200d"]
COMPUTER_LOOKALIKE = "电脑（高\ufe00手）"


@pytest.mark.parametrize("raw", [COMPUTER_LOOKALIKE, "电\u200b脑（普通）", "电脑\u180b"])
def test_f25_no_path_takes_a_computers_name_behind_an_invisible_character(
    client: TestClient, raw: str
) -> None:
    # 多人同屏: a table's seat
    seats = [{"kind": "human", "name": raw}, {"kind": "human", "name": "妈妈"}]
    r = client.post("/api/games", json={"mode": "table", "seats": seats})
    assert (r.status_code, error_code(r)) == (422, "invalid_seats"), r.text
    assert "电脑" in r.json()["error"]["message"]
    # 好友房间: the creator's seat
    r = client.post("/api/rooms", json={"seats": [{"kind": "human"}] * 2, "name": raw})
    assert (r.status_code, error_code(r)) == (422, "invalid_name"), r.text
    # 每日挑战: the board's name
    r = client.put("/api/daily/name", json={"name": raw})
    assert (r.status_code, error_code(r)) == (422, "invalid_name"), r.text
    # 小组: the group's name and the creator's name in it
    r = client.post("/api/groups", json={"name": raw, "your_name": "王老师"})
    assert (r.status_code, error_code(r)) == (422, "invalid_name"), r.text
    r = client.post("/api/groups", json={"name": "三年二班", "your_name": raw})
    assert (r.status_code, error_code(r)) == (422, "invalid_name"), r.text


def test_f25_a_room_seat_cannot_take_the_creators_name_with_a_selector(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host = make_client(clock=clock)
    created = host.post("/api/rooms", json={"seats": _seats("open", "open"), "turn_seconds": 60})
    assert created.status_code == 201, created.text
    room = created.json()["room"]
    invite = _token(room["invite_url"], "t")
    for selector in SELECTORS:
        impostor = make_client(clock=clock)
        r = impostor.post(
            f"/api/rooms/{room['id']}/join", json={"token": invite, "name": "房主" + selector}
        )
        assert (r.status_code, error_code(r)) == (409, "name_taken"), (selector, r.text)
        # in the middle of the name too
        r = impostor.post(
            f"/api/rooms/{room['id']}/join", json={"token": invite, "name": "房" + selector + "主"}
        )
        assert (r.status_code, error_code(r)) == (409, "name_taken"), (selector, r.text)
    friend = make_client(clock=clock)
    r = friend.post(f"/api/rooms/{room['id']}/join", json={"token": invite, "name": "小明\ufe0f"})
    assert r.status_code == 200, r.text
    assert [s["name"] for s in r.json()["room"]["seats"]] == ["房主", "小明", None]


def test_f25_a_table_cannot_seat_one_name_twice_behind_a_selector(client: TestClient) -> None:
    seats = [{"kind": "human", "name": "小明"}, {"kind": "human", "name": "小明\ufe0f"}]
    r = client.post("/api/games", json={"mode": "table", "seats": seats})
    assert (r.status_code, error_code(r)) == (422, "invalid_seats"), r.text
    assert "重名" in r.json()["error"]["message"]


def test_f25_a_group_member_cannot_take_the_creators_name_with_a_selector(
    make_client: Callable[..., TestClient],
) -> None:
    teacher = make_client(clock=lambda: NOON)
    created = teacher.post("/api/groups", json={"name": "三年\u200b二班", "your_name": "王老师"})
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["group"]["name"] == "三年二班"  # stored as seen
    token = body["invite_url"].rpartition("#")[2]
    for selector in SELECTORS:
        impostor = make_client(clock=lambda: NOON)
        r = impostor.post("/api/groups/join", json={"token": token, "name": "王老师" + selector})
        assert (r.status_code, error_code(r)) == (409, "name_taken"), (selector, r.text)
        r = impostor.post(
            "/api/groups/join", json={"token": token, "name": "王老" + selector + "师"}
        )
        assert (r.status_code, error_code(r)) == (409, "name_taken"), (selector, r.text)
    pupil = make_client(clock=lambda: NOON)
    r = pupil.post("/api/groups/join", json={"token": token, "name": "小明\ufe0f"})
    assert r.status_code == 200, r.text
    assert r.json()["group"]["your_name"] == "小明"
    # renaming oneself into another member's name is the same refusal; one's own is fine
    r = pupil.post("/api/groups/join", json={"token": token, "name": "王老师\ufe0f"})
    assert (r.status_code, error_code(r)) == (409, "name_taken"), r.text
    r = pupil.post("/api/groups/join", json={"token": token, "name": "小明"})
    assert r.status_code == 200, r.text
    members = teacher.get(f"/api/groups/{body['group']['id']}").json()["members"]
    assert sorted(m["name"] for m in members) == ["小明", "王老师"]


def test_f25_the_daily_board_name_is_stored_as_seen(client: TestClient) -> None:
    r = client.put("/api/daily/name", json={"name": "小\u00ad明\ufe0f"})
    assert r.status_code == 200, r.text
    assert client.get("/api/daily").json()["name"] == "小明"
