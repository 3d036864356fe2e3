"""F27 (issue 35 item 10), on SQLite and PostgreSQL: a merge keeps the per-player caps.

Two browsers at 5 open rooms each, merged by a link code, made one player with 10 (the
cap is 5). Now a merge keeps every per-player cap of the features and says what it did:
the rooms still waiting past ``--max-open-rooms`` expire (the linked browser's newest
first), a room both browsers sat in keeps one seat of them (O2), the groups past
``--max-open-groups`` go to their oldest other member (or close when nobody else is in
them); and what cannot be given up (games in play over the cap, two seats of one game) is
409 ``merge_over_limit`` naming it, with nothing changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from .helpers import error_code, on_app_loop
from .test_daily import NOON
from .test_devices import browser, code_of, link, player_of
from .test_rooms import Clock, _log, _token

WAITING = [{"kind": "human", "name": "我"}, {"kind": "human"}]
WITH_COMPUTER = [{"kind": "human", "name": "我"}, {"kind": "computer", "difficulty": "novice"}]


def _open_rooms(client: TestClient, player: str) -> list[tuple[str, str]]:
    """(room, status) of the rooms ``player`` created that are not over."""
    db = client.app.state.rooms.store.db  # type: ignore[attr-defined]

    async def read() -> list[tuple[str, str]]:
        rows = await db.run(
            lambda tx: tx.all(
                "SELECT id, status FROM rooms WHERE creator_id = :p "
                "AND status IN ('waiting', 'starting', 'playing')",
                {"p": player},
            ),
            write=False,
        )
        return [(str(r[0]), str(r[1])) for r in rows]

    return on_app_loop(client, read)


def _room(client: TestClient, clock: Clock, seats: list[dict[str, Any]]) -> dict[str, Any]:
    clock.now += 1  # (created one after another: newest last)
    r = client.post("/api/rooms", json={"seats": seats, "turn_seconds": 300})
    assert r.status_code == 201, r.text
    room: dict[str, Any] = r.json()["room"]
    return room


def _playing(client: TestClient, clock: Clock) -> str:
    room = _room(client, clock, WITH_COMPUTER)
    assert client.post(f"/api/rooms/{room['id']}/start", json={}).status_code == 200
    return str(room["id"])


def test_f27_a_merge_keeps_five_open_rooms_closing_the_newest_waiting_ones(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    client = make_client(clock=clock, max_open_rooms=5, max_rooms_per_hour_per_address=0)
    home, school, friend = browser(client), browser(client), browser(client)
    home_rooms = [_room(home, clock, WAITING)["id"] for _ in range(5)]
    # a friend waits in one of the home rooms; school has a game in play and 4 waiting
    first = _room(school, clock, WAITING)
    joined = friend.post(
        f"/api/rooms/{first['id']}/join",
        json={"token": _token(first["invite_url"], "t"), "name": "朋友"},
    )
    assert joined.status_code == 200, joined.text
    school_rooms = [first["id"], *(_room(school, clock, WAITING)["id"] for _ in range(3))]
    playing = _playing(school, clock)
    target = player_of(home)

    r = link(school, code_of(home)["code"], merge=True)
    assert r.status_code == 200, r.text
    left = r.json()["left_out"]
    # 10 open rooms, 5 allowed: school's 4 waiting ones (newest first), then home's newest
    assert [(n["cap"], n["done"]) for n in left] == [("open_rooms", "room_closed")] * 5
    closed = [n["id"] for n in left]
    assert closed == [*reversed(school_rooms), home_rooms[-1]]
    assert all("5" in n["message"] and "房间" in n["message"] for n in left)
    assert "朋友" in left[3]["message"]  # the room a friend waited in is named by its seats
    now_open = _open_rooms(client, target)
    assert len(now_open) == 5
    assert (playing, "playing") in now_open  # a game in play is never closed
    for room_id in closed:
        assert home.get(f"/api/rooms/{room_id}").json()["room"]["status"] == "expired"
        assert _log(client, room_id)[-1].kind == "expired"
    # the friend sees it expired; the cap holds for the next room
    assert friend.get(f"/api/rooms/{first['id']}").json()["room"]["status"] == "expired"
    sixth = home.post("/api/rooms", json={"seats": WAITING})
    assert (sixth.status_code, error_code(sixth)) == (409, "too_many_rooms")


def test_f27_a_merge_over_the_cap_with_games_in_play_is_refused_changing_nothing(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    client = make_client(clock=clock, max_open_rooms=2, max_rooms_per_hour_per_address=0)
    home, school = browser(client), browser(client)
    for _ in range(2):
        _playing(home, clock)
    _playing(school, clock)
    before = player_of(school)
    code = code_of(home)["code"]
    r = link(school, code, merge=True)
    assert (r.status_code, error_code(r)) == (409, "merge_over_limit"), r.text
    message = r.json()["error"]["message"]
    assert "3" in message
    assert "2" in message
    assert "结束" in message
    assert player_of(school) == before  # not linked
    assert len(_open_rooms(client, before)) == 1
    assert len(_open_rooms(client, player_of(home))) == 2


def test_f27_one_seat_a_room_through_a_merge(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    client = make_client(clock=clock, max_rooms_per_hour_per_address=0)
    home, school = browser(client), browser(client)
    # both browsers in one room still waiting: the later seat is freed
    room = _room(
        home, clock, [{"kind": "human", "name": "我"}, {"kind": "human"}, {"kind": "human"}]
    )
    token = _token(room["invite_url"], "t")
    sat = school.post(f"/api/rooms/{room['id']}/join", json={"token": token, "name": "学校的我"})
    assert sat.status_code == 200, sat.text
    r = link(school, code_of(home)["code"], merge=True)
    assert r.status_code == 200, r.text
    assert [(n["cap"], n["done"], n["id"]) for n in r.json()["left_out"]] == [
        ("room_seat", "seat_freed", room["id"])
    ]
    assert "学校的我" in r.json()["left_out"][0]["message"]
    seen = home.get(f"/api/rooms/{room['id']}").json()["room"]
    assert [(s["name"], s["you"]) for s in seen["seats"]] == [
        ("我", True),
        (None, False),
        (None, False),
    ]
    assert _log(client, room["id"])[-1].kind == "leave"
    # both in a room in play: refused (one person would hold two seats of the game)
    other = browser(client)
    mine = browser(client)
    game_room = _room(
        other, clock, [{"kind": "human", "name": "我"}, {"kind": "human"}, {"kind": "human"}]
    )
    token = _token(game_room["invite_url"], "t")
    r1 = mine.post(f"/api/rooms/{game_room['id']}/join", json={"token": token, "name": "小明"})
    assert r1.status_code == 200, r1.text
    assert other.post(f"/api/rooms/{game_room['id']}/start", json={}).status_code == 200
    r = link(other, code_of(mine)["code"], merge=True)
    assert (r.status_code, error_code(r)) == (409, "merge_over_limit"), r.text
    assert "座位" in r.json()["error"]["message"]


def test_f27_a_merge_keeps_the_open_groups_cap(make_client: Callable[..., TestClient]) -> None:
    client = make_client(clock=lambda: NOON, max_open_groups=2)
    home, school, pupil = browser(client), browser(client), browser(client)
    for name in ("家里一", "家里二"):
        assert home.post("/api/groups", json={"name": name, "your_name": "家长"}).status_code == 201
    shared = school.post("/api/groups", json={"name": "学校一", "your_name": "老师"}).json()
    joined = pupil.post(
        "/api/groups/join", json={"token": shared["invite_url"].rpartition("#")[2], "name": "小明"}
    )
    assert joined.status_code == 200, joined.text
    assert (
        school.post("/api/groups", json={"name": "学校二", "your_name": "老师"}).status_code == 201
    )

    # (said in the request's language, as an error is: English here)
    r = school.post(
        "/api/devices/link",
        json={"code": code_of(home)["code"], "merge": True},
        headers={"accept-language": "en"},
    )
    assert r.status_code == 200, r.text
    left = r.json()["left_out"]
    assert all("limit of 2 groups" in n["message"] for n in left)
    # 4 open groups, 2 allowed: school's newest (alone: closed), then school's first (the
    # pupil has it now; the player stays a member)
    assert [(n["done"], n["message"]) for n in left] == [
        ("group_closed", left[0]["message"]),
        ("group_handed_over", left[1]["message"]),
    ]
    assert "学校二" in left[0]["message"]
    assert "学校一" in left[1]["message"]
    assert "小明" in left[1]["message"]  # (the names as typed, in any language)
    mine = {g["name"]: g for g in home.get("/api/groups").json()["groups"]}
    kept = sorted(n for n, g in mine.items() if g["creator"] and not g["closed"])
    assert kept == ["家里一", "家里二"]
    assert mine["学校一"]["creator"] is False
    assert mine["学校一"]["member"] is True
    theirs = pupil.get("/api/groups").json()["groups"]
    assert [(g["name"], g["creator"]) for g in theirs] == [("学校一", True)]
    full = home.post("/api/groups", json={"name": "家里三", "your_name": "家长"})
    assert (full.status_code, error_code(full)) == (409, "too_many_groups")
