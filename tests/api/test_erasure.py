"""F24 (issue 35 item 7), on SQLite and PostgreSQL: 删除我的数据 leaves nothing of the
player, not in a row, an event or a cache of any process.

Two apps on one database stand for two server processes (each its own caches: the
positions of games in progress, the reviews, the rooms' holders and plans). The player to
delete creates rooms (its name in each room's ``created`` event), plays with a friend in
one and to the end in another, and asks for a rematch (every name in the new room's
``created`` event); the friend and a watcher have read everything on both apps, so both
hold the positions and reviews with the name. After the deletion, everything the friend
and the watcher can read on either app, and every text of every table of the database,
holds neither the name nor the player's id — also after the friend's next action on the
app whose cached position had the name (it used to write the name back into the room's
events)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from .helpers import error_code
from .test_devices import _rows_with, browser, player_of
from .test_rooms import Clock, _log, _play, _token

NAME = "删我的名字"  # the name the deleted player typed (unique: searched for everywhere)
FRIEND = "朋友乙"


def _twin(app: TestClient, who: TestClient) -> TestClient:
    """``who``'s browser (its cookie) talking to ``app`` (another process)."""
    other = browser(app)
    other.cookies.update(who.cookies)
    return other


def _get(client: TestClient, path: str) -> str:
    r = client.get(path)
    assert r.status_code == 200, (path, r.text)
    text: str = r.text
    return text


def _seats() -> list[dict[str, Any]]:
    return [
        {"kind": "human", "name": NAME},
        {"kind": "human"},
        {"kind": "computer", "difficulty": "novice"},
    ]


def _room_with_friend(me: TestClient, friend: TestClient) -> tuple[str, str]:
    created = me.post("/api/rooms", json={"seats": _seats(), "turn_seconds": 300})
    assert created.status_code == 201, created.text
    room = created.json()["room"]
    joined = friend.post(
        f"/api/rooms/{room['id']}/join",
        json={"token": _token(room["invite_url"], "t"), "name": FRIEND},
    )
    assert joined.status_code == 200, joined.text
    return room["id"], _token(room["watch_url"], "w")


def _act(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """One action of the seat on turn (a roll, or a box once rolled)."""
    gid = game["id"]
    if game["dice"] is None or game["rolls_left"] == 3:
        r = client.post(f"/api/games/{gid}/roll", json={"version": game["version"]})
    else:
        box = next(c for c, o in game["preview"].items() if o["allowed"])
        body = {"version": game["version"], "category": box, "confirm_zero": True}
        r = client.post(f"/api/games/{gid}/score", json=body)
    assert r.status_code == 200, r.text
    result: dict[str, Any] = r.json()
    return result


@pytest.mark.usefixtures("table")
def test_f24_a_deleted_player_is_nowhere_in_rows_events_or_either_processs_caches(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    one, two = make_client(clock=clock), make_client(clock=clock)  # two "processes"
    me, friend = browser(one), browser(one)
    # a room in play: the game in progress, the friend on turn after me
    live, live_watch = _room_with_friend(me, friend)
    started = me.post(f"/api/rooms/{live}/start", json={})
    assert started.status_code == 200, started.text
    game = started.json()["room"]["game"]
    by_seat = {0: me, 1: friend}
    while game["turn"] != 1 or game["dice"] is not None:  # up to the friend's turn, unrolled
        game = _act(by_seat[game["turn"]], game)
    # a room played to its end, then a rematch (every name in its `created` event)
    over, over_watch = _room_with_friend(me, friend)
    done = me.post(f"/api/rooms/{over}/start", json={}).json()["room"]["game"]
    done = _play(by_seat, done)
    rematch = me.post(f"/api/rooms/{over}/rematch", json={})
    assert rematch.status_code == 200, rematch.text
    again = rematch.json()["room"]["id"]
    player = player_of(me)

    # Everything the friend (a seat) and a watcher can read, on both processes: read now,
    # so that each process holds the positions, reviews and holders with the name.
    def readable(app: TestClient) -> str:
        seat = _twin(app, friend)
        watcher = browser(app)
        texts = [
            _get(seat, f"/api/rooms/{live}"),
            _get(seat, f"/api/rooms/{over}"),
            _get(seat, f"/api/rooms/{again}"),
            _get(seat, "/api/rooms"),
            _get(seat, f"/api/games/{game['id']}"),
            _get(seat, f"/api/games/{done['id']}"),
            _get(seat, f"/api/games/{done['id']}/review?seat=1"),
            _get(seat, f"/api/games/{done['id']}/review?seat=0"),
            _get(seat, "/api/records"),
            _get(watcher, f"/api/rooms/{live}?token={live_watch}"),
            _get(watcher, f"/api/rooms/{over}?token={over_watch}"),
        ]
        texts += [e.to_json() for room in (live, over, again) for e in _log(app, room)]
        return "\n".join(texts)

    for app in (one, two):
        assert NAME in readable(app)
    assert _rows_with(one, NAME)

    erased = me.post("/api/me/delete", json={"confirm": True})
    assert erased.status_code == 200, erased.text

    for app in (one, two):
        seen = readable(app)
        assert NAME not in seen
        assert player not in seen
        assert FRIEND in seen  # (the others' names stay)
    # the friend acts through the process whose cached position had the name: refused as
    # stale once (its seats changed outside the log), then from the position as stored
    seat = _twin(two, friend)
    game = seat.get(f"/api/games/{game['id']}").json()
    assert game["seats"][0]["name"] is None
    game = _act(seat, game)
    assert NAME not in str(game)
    for app in (one, two):
        assert NAME not in readable(app)
    # and nothing in any row of any table: not the name, not the id
    assert _rows_with(one, NAME) == []
    assert _rows_with(one, player) == []


@pytest.mark.usefixtures("table")
def test_f24_an_action_on_a_stale_cached_position_is_refused_not_written_with_the_name(
    make_client: Callable[..., TestClient],
) -> None:
    """The other process's cached position at the same version: the next action there is
    409 ``stale_version`` (the append is conditional on the seat serial), never an event
    built on the position with the name."""
    clock = Clock()
    one, two = make_client(clock=clock), make_client(clock=clock)
    me, friend = browser(one), browser(one)
    live, _watch = _room_with_friend(me, friend)
    game = me.post(f"/api/rooms/{live}/start", json={}).json()["room"]["game"]
    by_seat = {0: me, 1: friend}
    while game["turn"] != 1 or game["dice"] is not None:
        game = _act(by_seat[game["turn"]], game)
    seat = _twin(two, friend)
    assert seat.get(f"/api/games/{game['id']}").json()["seats"][0]["name"] == NAME  # cached
    assert me.post("/api/me/delete", json={"confirm": True}).status_code == 200
    r = seat.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]})
    assert (r.status_code, error_code(r)) == (409, "stale_version"), r.text
    fresh = seat.get(f"/api/games/{game['id']}").json()
    assert fresh["version"] == game["version"]
    assert fresh["seats"][0]["name"] is None
    rolled = seat.post(f"/api/games/{game['id']}/roll", json={"version": fresh["version"]})
    assert rolled.status_code == 200, rolled.text
    assert not [e for e in _log(two, live) if NAME in e.to_json()]


def test_f24_a_waiting_room_tells_its_pages_and_frees_the_seat(
    make_client: Callable[..., TestClient],
) -> None:
    """A room not over gets a ``leave`` event for the deleted seat (its pages show it
    nameless; its streams end and are checked again)."""
    one = make_client(clock=Clock())
    host, me = browser(one), browser(one)
    created = host.post(
        "/api/rooms",
        json={"seats": [{"kind": "human", "name": "房主"}, {"kind": "human"}], "turn_seconds": 60},
    ).json()["room"]
    joined = me.post(
        f"/api/rooms/{created['id']}/join",
        json={"token": _token(created["invite_url"], "t"), "name": NAME},
    )
    assert joined.status_code == 200, joined.text
    assert me.post("/api/me/delete", json={"confirm": True}).status_code == 200
    last = _log(one, created["id"])[-1]
    assert (last.kind, last.data) == ("leave", {"seat": 1, "name": None})
    room = host.get(f"/api/rooms/{created['id']}").json()["room"]
    assert [(s["name"], s["taken"]) for s in room["seats"]] == [("房主", True), (None, False)]
