"""Turns over days (W1-W4, W6) over the API, on SQLite and PostgreSQL: a room's pace and
its deadlines on an injected clock (a simulated week, no test sleeps), three missed turns
and the seat is away, a waiting room nobody plays is finished as it stands, 「轮到你了」
across linked devices, the cap of waiting rooms, what is new since a seat last looked,
「提醒他」, and the reminder points told to the notices' seam once across two apps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from yahtzee.rooms.notices import TurnNotice
from yahtzee.rooms.service import RoomService

from .helpers import error_code, on_app_loop
from .test_devices import browser, code_of, link
from .test_rooms import Clock, _log, _rooms, _seats, _token

HOUR, DAY = 3600.0, 86400.0


def _started(
    host: TestClient,
    friends: list[TestClient],
    body: dict[str, Any],
    made: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """A room made by ``host`` from ``body`` (checked by ``made`` before anyone joins), each
    friend in the next open seat, started."""
    r = host.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    room = r.json()["room"]
    if made is not None:
        made(room)
    for i, friend in enumerate(friends):
        token = _token(room["invite_url"], "t")
        joined = friend.post(
            f"/api/rooms/{room['id']}/join", json={"token": token, "name": f"朋友{i + 1}"}
        )
        assert joined.status_code == 200, joined.text
    started = host.post(f"/api/rooms/{room['id']}/start", json={})
    assert started.status_code == 200, started.text
    out: dict[str, Any] = started.json()["room"]
    return out


def _room(
    host: TestClient, friends: list[TestClient], pace: str = "12h", **body: Any
) -> dict[str, Any]:
    """A started room at ``pace``: the host, then each friend in an open seat."""
    seats = _seats(*(["open"] * len(friends)))
    return _started(host, friends, {"seats": seats, "pace": pace, **body})


def _turn_faces(
    client: TestClient, game: dict[str, Any], hold: list[bool] | None = None
) -> tuple[dict[str, Any], list[int], list[int]]:
    """One whole turn of the seat on turn: a roll, a reroll holding ``hold`` (if given),
    then the first box allowed. Returns the game after it, the first roll's faces and the
    last roll's."""
    gid = game["id"]
    r = client.post(f"/api/games/{gid}/roll", json={"version": game["version"]})
    assert r.status_code == 200, r.text
    rolled = r.json()
    first = list(rolled["dice"])
    if hold is not None:
        r = client.post(f"/api/games/{gid}/roll", json={"version": rolled["version"], "hold": hold})
        assert r.status_code == 200, r.text
        rolled = r.json()
    box = next(c for c, o in rolled["preview"].items() if o["allowed"])
    r = client.post(
        f"/api/games/{gid}/score",
        json={"version": rolled["version"], "category": box, "confirm_zero": True},
    )
    assert r.status_code == 200, r.text
    return r.json(), first, list(rolled["dice"])


def _turn(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """One whole turn of the seat on turn (a roll, then the first box allowed)."""
    return _turn_faces(client, game)[0]


def _rounds(client: TestClient, game: dict[str, Any], n: int) -> dict[str, Any]:
    """``n`` whole turns of the same seat (a race's, which waits for nobody)."""
    for _ in range(n):
        game = _turn(client, game)
    return game


def _sweep(client: TestClient) -> int:
    played: int = on_app_loop(client, _rooms(client).sweep)
    return played


def _get(client: TestClient, rid: str) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{rid}")
    assert r.status_code == 200, r.text
    room: dict[str, Any] = r.json()["room"]
    return room


def test_w1_a_waiting_room_waits_its_pace_and_three_missed_turns_mark_a_seat_away(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    room = _room(host, [friend], "12h")
    rid = room["id"]
    assert (room["pace"], room["turn_seconds"]) == ("12h", 12 * 3600)
    assert room["deadline"] == clock.now + 12 * HOUR  # set when the turn came up (F12)
    # a roll does not give the turn its time again
    clock.now += 5 * HOUR
    game = host.post(
        f"/api/games/{room['game']['id']}/roll", json={"version": room["game"]["version"]}
    ).json()
    assert _get(host, rid)["deadline"] == room["deadline"]
    # 12 hours: the turn waits; a second past them, 托管 plays it, the seat is not away yet
    clock.now = room["deadline"] - 1
    assert _sweep(host) == 0
    clock.now = room["deadline"] + 1
    _sweep(host)
    now = _get(host, rid)
    assert now["game"]["turn"] == 1
    assert now["seats"][0]["away"] is False
    assert now["deadline"] == clock.now + 12 * HOUR  # the friend's turn: 12 hours of its own
    proxied = _log(host, rid)[-1]
    assert (proxied.kind, proxied.data["seat"], proxied.data["proxy"]) == ("roll", 0, True)
    # three turns in a row played by 托管 and the seat is away; the friend's two, not yet
    for _ in range(4):  # the friend's first, the host's second, ..., the host's third
        clock.now = _get(host, rid)["deadline"] + 1
        _sweep(host)
    now = _get(host, rid)
    assert [s["away"] for s in now["seats"]] == [True, False]
    assert [e.kind for e in _log(host, rid)].count("away") == 1
    # the friend acts: their count of missed turns starts again
    assert now["game"]["turn"] == 1
    game = _turn(friend, now["game"])
    now = _get(host, rid)
    # the away host's turn comes after the short grace, not 12 hours
    assert now["deadline"] == clock.now + 3
    # the host acts: back, and the turn is theirs for 12 hours from now
    clock.now += 1
    game = host.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]}).json()
    now = _get(host, rid)
    assert now["seats"][0]["away"] is False
    assert now["deadline"] == clock.now + 12 * HOUR


def test_w1_no_clock_waits_forever_until_nobody_played_for_14_days(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    room = _room(host, [friend], "none")
    rid, gid = room["id"], room["game"]["id"]
    assert (room["pace"], room["turn_seconds"], room["deadline"]) == ("none", None, None)
    game = _turn(host, room["game"])
    assert _get(host, rid)["deadline"] is None
    clock.now += 13 * DAY  # 13 days after the host acted: nothing happens
    assert _sweep(host) == 0
    assert _get(host, rid)["status"] == "playing"
    listed = friend.get("/api/rooms/turns").json()
    assert [(g["room_id"], g["your_turn"], g["deadline"]) for g in listed["games"]] == [
        (rid, True, None)
    ]
    clock.now += 1 * DAY + 1  # 14 days: finished as it stands, and it says so
    _sweep(host)
    now = _get(host, rid)
    assert now["status"] == "finished"
    end = _log(host, rid)[-1]
    assert end.kind == "end"
    assert end.data["reason"] == "idle"
    assert end.data["days"] == 14
    totals = [s["total"] for s in game["seats"]]
    assert [p["seat"] for p in end.data["ranking"]] == sorted(
        range(2), key=lambda i: (-totals[i], i)
    )
    # the game is closed: nobody plays on, and it is no longer anyone's turn
    assert host.get(f"/api/games/{gid}").json()["status"] == "abandoned"
    r = friend.post(f"/api/games/{gid}/roll", json={"version": game["version"]})
    assert r.status_code == 409, r.text
    assert friend.get("/api/rooms/turns").json() == {
        "games": [],
        "your_turns": 0,
        "now": clock.now,
    }
    # nobody else is told twice: the next sweep finds nothing
    _sweep(host)
    assert [e.kind for e in _log(host, rid)].count("end") == 1
    # 「再来一局」 keeps the pace
    again = host.post(f"/api/rooms/{rid}/rematch", json={}).json()["room"]
    assert (again["pace"], again["turn_seconds"]) == ("none", None)


def test_w6_a_pace_is_one_of_the_listed_values(make_client: Callable[..., TestClient]) -> None:
    host = make_client()
    for body, code in (
        ({"pace": "2h"}, "invalid_pace"),
        ({"pace": 3600}, "invalid_pace"),
        ({"pace": ["1d"]}, "invalid_pace"),
        ({"pace": "1d", "turn_seconds": 60}, "invalid_pace"),
        ({"turn_seconds": 9}, "invalid_pace"),
    ):
        r = host.post("/api/rooms", json={"seats": _seats("open"), **body})
        assert (r.status_code, error_code(r)) == (422, code), body
    said = host.post("/api/rooms", json={"seats": _seats("open"), "pace": "2h"}).json()["error"]
    assert "'2h'" in said["message"]
    assert "live, 1h, 12h, 1d, 3d, 7d, none" in said["message"]
    english = host.post(
        "/api/rooms",
        json={"seats": _seats("open"), "pace": "2h"},
        headers={"accept-language": "en"},
    ).json()
    assert english["error"]["message"].startswith("A room's pace must be one of")
    config = host.get("/api/config").json()["rooms"]
    assert [(p["id"], p["seconds"]) for p in config["paces"]] == [
        ("live", None),
        ("1h", 3600),
        ("12h", 43200),
        ("1d", 86400),
        ("3d", 259200),
        ("7d", 604800),
        ("none", None),
    ]
    assert config["idle_days"] == 14
    for pace in ("live", "1h", "7d"):
        r = host.post("/api/rooms", json={"seats": _seats("open"), "pace": pace})
        assert r.status_code == 201, r.text
        assert r.json()["room"]["pace"] == pace
    assert r.json()["room"]["turn_seconds"] == 7 * 86400


def test_w2_your_turns_on_every_linked_device_own_turns_first_then_soonest(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    me, friend = make_client(clock=clock), make_client(clock=clock)
    phone = browser(me)
    # three rooms: my turn (1 day), a friend's turn (1 hour), my turn without a clock
    mine_day = _room(me, [friend], "1d")
    clock.now += 10
    friends_hour = _room(me, [friend], "1h")
    _turn(me, friends_hour["game"])
    clock.now += 10
    mine_none = _room(me, [friend], "none")
    live = _room(me, [friend], "live", turn_seconds=300)  # a live room in play counts too
    r = me.get("/api/rooms/turns")
    assert r.status_code == 200, r.text
    listed = r.json()
    order = [g["room_id"] for g in listed["games"]]
    assert order == [live["id"], mine_day["id"], mine_none["id"], friends_hour["id"]]
    assert listed["your_turns"] == 3
    first = listed["games"][1]
    assert first["your_turn"] is True
    assert (first["round"], first["turn"], first["your_seat"]) == (1, 0, 0)
    assert first["deadline"] == mine_day["deadline"]
    assert first["url"] == f"/rooms/{mine_day['id']}"
    assert [(s["name"], s["you"]) for s in first["seats"]] == [("房主", True), ("朋友1", False)]
    theirs = listed["games"][3]
    assert (theirs["your_turn"], theirs["turn"]) == (False, 1)
    assert friend.get("/api/rooms/turns").json()["your_turns"] == 1
    # the same list on a device linked to this player (我的设备)
    assert link(phone, code_of(me)["code"]).status_code == 200
    assert phone.get("/api/rooms/turns").json() == me.get("/api/rooms/turns").json()


def test_w2_a_player_is_in_at_most_max_waiting_rooms(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host = make_client(clock=clock, max_waiting_rooms=2, max_open_rooms=1)
    friend = browser(host)
    rooms = []
    for pace in ("1h", "none"):
        r = host.post("/api/rooms", json={"seats": _seats("open"), "pace": pace})
        assert r.status_code == 201, r.text
        rooms.append(r.json()["room"])
    r = host.post("/api/rooms", json={"seats": _seats("open"), "pace": "7d"})
    assert (r.status_code, error_code(r)) == (409, "too_many_waiting_rooms")
    assert "2" in r.json()["error"]["message"]
    # a live room is not a waiting one (and its own cap, --max-open-rooms, is apart)
    assert host.post("/api/rooms", json={"seats": _seats("open")}).status_code == 201
    # joining a third: refused; once one is over, there is room again
    for room in rooms:
        r = friend.post(
            f"/api/rooms/{room['id']}/join",
            json={"token": _token(room["invite_url"], "t"), "name": "朋友"},
        )
        assert r.status_code == 200, r.text
    third = friend.post("/api/rooms", json={"seats": _seats("open"), "pace": "1d"})
    assert error_code(third) == "too_many_waiting_rooms"
    other = browser(host)
    theirs = other.post("/api/rooms", json={"seats": _seats("open"), "pace": "3d"}).json()["room"]
    r = friend.post(
        f"/api/rooms/{theirs['id']}/join",
        json={"token": _token(theirs["invite_url"], "t"), "name": "朋友"},
    )
    assert (r.status_code, error_code(r)) == (409, "too_many_waiting_rooms")
    # a waiting room not started expires after a day: its seats count no more
    clock.now += DAY + 1
    _sweep(host)
    r = friend.post(
        f"/api/rooms/{theirs['id']}/join",
        json={"token": _token(theirs["invite_url"], "t"), "name": "朋友"},
    )
    assert r.status_code == 409  # (that one expired too)
    assert (
        friend.post("/api/rooms", json={"seats": _seats("open"), "pace": "1d"}).status_code == 201
    )


def test_w3_the_turns_since_a_seat_last_looked_are_new(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host, friend, other = (make_client(clock=clock) for _ in range(3))
    room = _room(host, [friend, other], "1d")
    rid = room["id"]
    game = _turn(host, room["game"])
    seen = _get(host, rid)
    assert seen["seen_event_id"] == 0
    r = host.post(f"/api/rooms/{rid}/seen", json={"event_id": seen["last_event_id"]})
    assert r.json() == {"seen_event_id": seen["last_event_id"]}
    assert [t.get("new", False) for t in _get(host, rid)["game"]["turns"]] == [False]
    # two friends play while the host is away
    game = _turn(friend, game)
    game = _turn(other, game)
    back = _get(host, rid)
    assert [(t["seat"], t.get("new", False)) for t in back["game"]["turns"]] == [
        (0, False),
        (1, True),
        (2, True),
    ]
    assert back["last_event_id"] > back["seen_event_id"]
    listed = host.get("/api/rooms/turns").json()["games"][0]
    assert listed["new_events"] == back["last_event_id"] - back["seen_event_id"]
    # the stream from the marker replays exactly what happened meanwhile
    replay = _log(host, rid, back["seen_event_id"])
    assert [e.kind for e in replay if e.kind in ("roll", "score")] == ["roll", "score"] * 2
    # looked at: nothing is new; the marker never goes back nor past the log
    host.post(f"/api/rooms/{rid}/seen", json={"event_id": back["last_event_id"]})
    assert not any(t.get("new") for t in _get(host, rid)["game"]["turns"])
    assert host.post(f"/api/rooms/{rid}/seen", json={"event_id": 1}).json() == {
        "seen_event_id": back["last_event_id"]
    }
    assert host.post(f"/api/rooms/{rid}/seen", json={"event_id": 10**6}).json() == {
        "seen_event_id": back["last_event_id"]
    }
    # 托管's turn for the host is news to the host too
    clock.now += DAY + 1
    _sweep(host)
    turns = _get(host, rid)["game"]["turns"]
    assert [(t["seat"], "proxy" in t, t.get("new", False)) for t in turns][-3:] == [
        (1, False, False),
        (2, False, False),
        (0, True, True),
    ]
    stranger = make_client(clock=clock)
    r = stranger.post(f"/api/rooms/{rid}/seen", json={"event_id": 1})
    assert r.status_code == 404
    r = host.post(f"/api/rooms/{rid}/seen", json={"event_id": -1})
    assert r.status_code == 422


def test_w4_nudge_a_friend_on_turn_once_an_hour(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    room = _room(host, [friend], "1d")
    rid = room["id"]
    # the host's own turn: nothing to nudge; the friend is not on turn
    r = friend.post(f"/api/rooms/{rid}/nudge", json={"seat": 1})
    assert (r.status_code, error_code(r)) == (409, "not_their_turn")
    _turn(host, room["game"])
    clock.now += 5 * HOUR + 30
    r = host.post(f"/api/rooms/{rid}/nudge", json={"seat": 1})
    assert r.status_code == 200, r.text
    nudge = r.json()
    assert nudge["seat"] == 1
    assert nudge["name"] == "朋友1"
    assert nudge["url"] == f"http://testserver/rooms/{rid}"
    assert nudge["text"] == (
        f"朋友1，轮到你了！我们的快艇骰子在等你（还剩 18 小时）：http://testserver/rooms/{rid}"
    )
    assert nudge["next_nudge_at"] == clock.now + HOUR
    # once an hour a seat, whoever asks (429 with the wait)
    clock.now += 59 * 60
    again = host.post(f"/api/rooms/{rid}/nudge", json={"seat": 1})
    assert (again.status_code, error_code(again)) == (429, "nudge_too_soon")
    assert again.headers["retry-after"] == "60"
    assert "1 分钟" in again.json()["error"]["message"]
    clock.now += 60
    english = host.post(
        f"/api/rooms/{rid}/nudge", json={"seat": 1}, headers={"accept-language": "en"}
    )
    assert english.status_code == 200, english.text
    assert english.json()["text"].startswith("朋友1, it's your turn! Our Yacht Dice game")
    assert "(17 hours left)" in english.json()["text"]
    # nobody else's room; a seat that is not a person's on turn
    stranger = make_client(clock=clock)
    assert stranger.post(f"/api/rooms/{rid}/nudge", json={"seat": 1}).status_code == 404
    r = host.post(f"/api/rooms/{rid}/nudge", json={"seat": 0})
    assert (r.status_code, error_code(r)) == (409, "not_their_turn")
    assert host.post(f"/api/rooms/{rid}/nudge", json={"seat": 9}).status_code == 422


def test_w6_nudges_have_a_cap_per_player(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    host = make_client(clock=clock, max_room_nudges_per_hour=1)
    friend = browser(host)
    rooms = []
    for _ in range(2):
        room = host.post("/api/rooms", json={"seats": _seats("open"), "pace": "1h"}).json()
        rid = room["room"]["id"]
        token = _token(room["room"]["invite_url"], "t")
        friend.post(f"/api/rooms/{rid}/join", json={"token": token, "name": "朋友"})
        started = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]
        _turn(host, started["game"])
        rooms.append(rid)
    assert host.post(f"/api/rooms/{rooms[0]}/nudge", json={"seat": 1}).status_code == 200
    r = host.post(f"/api/rooms/{rooms[1]}/nudge", json={"seat": 1})
    assert (r.status_code, error_code(r)) == (429, "rate_limited")


class _Told:
    """The notices' seam (W4) as a test sees it: every notice, in order."""

    def __init__(self) -> None:
        self.told: list[tuple[str, TurnNotice]] = []

    async def turn(self, notice: TurnNotice) -> None:
        self.told.append(("turn", notice))

    async def deadline_near(self, notice: TurnNotice) -> None:
        self.told.append(("deadline_near", notice))


def test_w4_a_turn_and_its_reminder_points_are_told_once_across_two_apps(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    told: list[tuple[str, TurnNotice]] = []
    for client in (host, friend):  # two apps (processes) on one database
        seam = _Told()
        seam.told = told
        svc: RoomService = _rooms(client)
        svc.notices = seam
    room = _room(host, [friend], "12h")
    rid = room["id"]
    friend_id = friend.get("/api/me/export").json()["player_id"]
    host_id = host.get("/api/me/export").json()["player_id"]
    # the first turn came to the host (who pressed start, with no stream open)
    assert [(k, n.player_id, n.round) for k, n in told] == [("turn", host_id, 1)]
    game = _turn(host, room["game"])
    kind, notice = told[-1]
    assert (kind, notice.player_id, notice.room_id) == ("turn", friend_id, rid)
    assert notice.seats == ("房主", "朋友1")
    assert notice.link == f"/rooms/{rid}"
    assert notice.deadline == clock.now + 12 * HOUR
    deadline = notice.deadline
    del told[:]
    # 80 % of 12 hours (9.6 h), then an hour before: each once, whichever app sweeps
    clock.now = deadline - 12 * HOUR + 9.6 * HOUR - 1
    _sweep(host)
    _sweep(friend)
    assert told == []
    clock.now += 2
    _sweep(host)
    _sweep(friend)
    assert [(k, n.player_id) for k, n in told] == [("deadline_near", friend_id)]
    clock.now = deadline - HOUR + 1
    _sweep(friend)
    _sweep(host)
    assert [k for k, _ in told] == ["deadline_near", "deadline_near"]
    clock.now = deadline - 60
    _sweep(host)
    _sweep(friend)
    assert len(told) == 2  # no more points in this turn
    # the friend acts: the turn goes to the host; a roll alone tells nobody
    game = friend.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]}).json()
    assert len(told) == 2
    scored = friend.post(
        f"/api/games/{game['id']}/score",
        json={
            "version": game["version"],
            "category": next(c for c, o in game["preview"].items() if o["allowed"]),
            "confirm_zero": True,
        },
    )
    assert scored.status_code == 200
    assert [(k, n.player_id, n.round) for k, n in told[2:]] == [("turn", host_id, 2)]
    # a live room tells nobody
    del told[:]
    live = _room(host, [friend], "live")
    _turn(host, live["game"])
    assert told == []


def test_w2_a_merge_keeps_the_cap_of_waiting_rooms(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    client = make_client(clock=clock, max_waiting_rooms=3)
    home, school = browser(client), browser(client)

    def waiting(who: TestClient, start: bool = False) -> str:
        clock.now += 1  # (one after another: newest last)
        seats = _seats("novice") if start else _seats("open")
        room = who.post("/api/rooms", json={"seats": seats, "pace": "1d"}).json()["room"]
        if start:
            assert who.post(f"/api/rooms/{room['id']}/start", json={}).status_code == 200
        return str(room["id"])

    home_rooms = [waiting(home), waiting(home)]
    school_waiting, school_playing = waiting(school), waiting(school, start=True)
    r = link(school, code_of(home)["code"], merge=True)
    assert r.status_code == 200, r.text
    # four, three allowed: the newest room not started goes (school's own: it expires)
    (note,) = r.json()["left_out"]
    assert (note["cap"], note["done"], note["id"]) == (
        "waiting_rooms",
        "room_closed",
        school_waiting,
    )
    assert "3" in note["message"]
    assert _get(home, school_waiting)["status"] == "expired"
    assert [_get(home, rid)["status"] for rid in home_rooms] == ["waiting", "waiting"]
    assert _get(home, school_playing)["status"] == "playing"
    # two games in play over a cap of one: nothing is given up, the merge is refused
    solo = make_client(clock=clock, max_waiting_rooms=1)
    a, b = browser(solo), browser(solo)
    waiting(a, start=True)
    waiting(b, start=True)
    r = link(b, code_of(a)["code"], merge=True)
    assert (r.status_code, error_code(r)) == (409, "merge_over_limit")
    assert len(b.get("/api/rooms/turns").json()["games"]) == 1


def test_w1_a_room_whose_log_missed_its_game_s_last_action_catches_up_when_due(
    make_client: Callable[..., TestClient],
) -> None:
    """A process killed between a game's commit and its room's event (the window of every
    action) left the room on the old turn's deadline and version, which 托管 can never
    play (the game moved on): the sweep logs the game as it stands with the turn on's
    deadline instead of trying that turn forever (seen with kill -9 on PostgreSQL)."""
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    room = _room(host, [friend], "1d")
    rid = room["id"]
    svc = _rooms(host)
    game = host.post(
        f"/api/games/{room['game']['id']}/roll", json={"version": room["game"]["version"]}
    ).json()
    record = svc.store.record

    async def lost(*args: Any, **kwargs: Any) -> Any:  # (the process dies before it logs)
        del args, kwargs
        raise ConnectionError("killed")

    svc.store.record = lost  # type: ignore[method-assign]
    box = next(c for c, o in game["preview"].items() if o["allowed"])
    scored = host.post(
        f"/api/games/{game['id']}/score",
        json={"version": game["version"], "category": box, "confirm_zero": True},
    )
    assert scored.status_code == 200  # (the game is stored: the answer says so)
    svc.store.record = record  # type: ignore[method-assign]
    behind = _get(host, rid)
    assert behind["deadline"] == room["deadline"]  # the room still waits on the host's turn
    clock.now = room["deadline"] + 1
    _sweep(host)
    now = _get(host, rid)
    assert now["game"]["turn"] == 1
    assert now["deadline"] == clock.now + DAY  # the friend's turn, from now
    assert _log(host, rid)[-1].kind == "game"
    assert _sweep(host) == 0
    # and the friend plays on as usual
    _turn(friend, now["game"])
    assert _get(host, rid)["game"]["turn"] == 0
