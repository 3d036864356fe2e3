"""好友房间 (O1-O9) over the API, on SQLite and PostgreSQL: create, join, start, play
from each seat's browser, 托管, reactions, rematch, expiry, the limits, hostile input,
and the room's event log (its ids, and what a stream replays after ``Last-Event-ID``)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

from yahtzee.rooms.service import RoomService
from yahtzee.rooms.store import NOTIFY_CHANNEL, RoomEvent
from yahtzee.server.routers import records as records_router
from yahtzee.storage import notices

from .helpers import error_code, on_app_loop

NOON = 1_796_112_000.0  # 2026-12-01 12:00 UTC


class Clock:
    """A wall clock the test moves."""

    def __init__(self, now: float = NOON) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _token(url: str, key: str) -> str:
    """The token of a room link: it rides in the fragment, which browsers never send."""
    fragment = url.partition("#")[2]
    name, _, token = fragment.partition("=")
    assert name == key, url
    return token


def _seats(*kinds: str) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = [{"kind": "human", "name": "房主"}]
    for kind in kinds:
        seats.append(
            {"kind": "human"} if kind == "open" else {"kind": "computer", "difficulty": kind}
        )
    return seats


def _rooms(client: TestClient) -> RoomService:
    svc: RoomService = client.app.state.rooms  # type: ignore[attr-defined]
    return svc


def _log(client: TestClient, room_id: str, after: int = 0) -> list[RoomEvent]:
    return on_app_loop(client, _rooms(client).store.events, room_id, after)


def _stream(client: TestClient, room_id: str, after: int, count: int) -> list[RoomEvent]:
    """The first ``count`` events a stream of the room sends after ``after`` (replay,
    then live), as the SSE endpoint iterates them."""

    async def take() -> list[RoomEvent]:
        out: list[RoomEvent] = []
        gen = _rooms(client).hub.events(room_id, after)
        async with asyncio.timeout(10):
            async for event in gen:
                if event is None:  # a keep-alive
                    continue
                out.append(event)
                if len(out) == count:
                    break
        await gen.aclose()
        return out

    return on_app_loop(client, take)


def _play(clients: dict[int, TestClient], game: dict[str, Any]) -> dict[str, Any]:
    """Play the room's game to its end, each action from the browser of the seat on turn."""
    while game["status"] == "in_progress":
        seat = game["turn"]
        client = clients[seat]
        gid = game["id"]
        if game["dice"] is None or game["rolls_left"] == 3:
            r = client.post(f"/api/games/{gid}/roll", json={"version": game["version"]})
        else:
            box = next(c for c, o in game["preview"].items() if o["allowed"])
            r = client.post(
                f"/api/games/{gid}/score",
                json={"version": game["version"], "category": box, "confirm_zero": True},
            )
        assert r.status_code == 200, r.text
        game = r.json()
    return game


def test_o1_to_o4_a_room_from_link_to_ranking(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    host, friend, late, stranger = (make_client(clock=clock) for _ in range(4))
    created = host.post("/api/rooms", json={"seats": _seats("open", "novice"), "turn_seconds": 60})
    assert created.status_code == 201, created.text
    room = created.json()["room"]
    assert room["status"] == "waiting"
    assert room["game_id"] is None
    assert [(s["index"], s["kind"], s["name"], s["taken"], s["you"]) for s in room["seats"]] == [
        (0, "human", "房主", True, True),
        (1, "human", None, False, False),
        (2, "computer", None, False, False),
    ]
    invite = _token(room["invite_url"], "t")
    watch = _token(room["watch_url"], "w")
    assert len(invite) == 22  # 128 bits (storage.invites)
    assert len(watch) == 22
    assert invite != watch
    rid = room["id"]

    # the invite link shows the room; nothing else does
    assert stranger.get(f"/api/rooms/{rid}").status_code == 404
    assert stranger.get(f"/api/rooms/{rid}", params={"token": "A" * 22}).status_code == 404
    seen = friend.get(f"/api/rooms/{rid}", params={"token": invite})
    assert seen.status_code == 200
    assert seen.json()["room"]["your_seat"] is None
    # the QR code of the invite link (segno, a standalone SVG), for a seat holder
    qr = host.get(room["qr_url"])
    assert qr.status_code == 200
    assert qr.headers["content-type"].startswith("image/svg+xml")
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in qr.text
    assert stranger.get(room["qr_url"]).status_code == 404

    # joining: the watch token takes no seat; the invite takes the first open one, once
    refused = friend.post(f"/api/rooms/{rid}/join", json={"token": watch, "name": "小明"})
    assert refused.status_code == 404
    joined = friend.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "小明"})
    assert joined.status_code == 200, joined.text
    assert joined.json()["room"]["your_seat"] == 1
    again = friend.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "别名"})
    assert again.json()["room"]["your_seat"] == 1  # the same seat, the name kept
    assert again.json()["room"]["seats"][1]["name"] == "小明"
    full = late.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "小红"})
    assert full.status_code == 409
    assert error_code(full) == "room_full"

    # only the creator starts
    forbidden = friend.post(f"/api/rooms/{rid}/start", json={})
    assert forbidden.status_code == 403
    assert error_code(forbidden) == "not_room_creator"
    started = host.post(f"/api/rooms/{rid}/start", json={})
    assert started.status_code == 200, started.text
    room = started.json()["room"]
    assert room["status"] == "playing"
    game = room["game"]
    assert game["mode"] == "table"
    assert [s["name"] for s in game["seats"]] == ["房主", "小明", None]
    assert room["deadline"] == NOON + 60
    assert host.post(f"/api/rooms/{rid}/start", json={}).status_code == 409
    too_late = late.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "小红"})
    assert error_code(too_late) == "already_started"

    # O3: only the browser of the seat on turn acts; anyone else gets 404, as today
    gid = game["id"]
    # S5: the game's id begins with the room's (nginx's key to the room's process), and
    # is shaped as any game's: 32 hex digits
    assert gid.startswith(rid), gid
    assert re.fullmatch("[0-9a-f]{32}", gid), gid
    for other in (friend, stranger):
        r = other.post(f"/api/games/{gid}/roll", json={"version": game["version"]})
        assert r.status_code == 404
        assert error_code(r) == "not_found"
    assert stranger.get(f"/api/games/{gid}").status_code == 404
    assert friend.get(f"/api/games/{gid}").status_code == 200  # a seat holder sees it
    # the room's game is nobody's "unfinished game" (it is the room's), nor anyone's to give up
    assert host.get("/api/games/current").status_code == 404
    given_up = host.post(f"/api/games/{gid}/abandon", json={"version": game["version"]})
    assert given_up.status_code == 409
    assert error_code(given_up) == "illegal_action"

    # holds as they happen, from the seat on turn only
    rolled = host.post(f"/api/games/{gid}/roll", json={"version": game["version"]}).json()
    hold = [True, False, True, False, False]
    assert host.post(f"/api/rooms/{rid}/hold", json={"hold": hold}).status_code == 204
    assert friend.post(f"/api/rooms/{rid}/hold", json={"hold": hold}).status_code == 409
    assert stranger.post(f"/api/rooms/{rid}/hold", json={"hold": hold}).status_code == 404

    final = _play({0: host, 1: friend}, rolled)
    assert final["status"] == "finished"
    assert final["ranking"] is not None

    # the room's log: dense ordered ids, every change
    events = _log(host, rid)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    kinds = [e.kind for e in events]
    assert kinds[:3] == ["created", "join", "start"]
    assert "hold" in kinds
    assert kinds.count("roll") >= 26  # 13 rounds x 2 people, at least one roll each
    assert kinds.count("score") == 26  # the computer's turns ride in the people's events
    assert kinds[-1] == "end"
    assert events[-1].data["ranking"] == final["ranking"]
    assert host.get(f"/api/rooms/{rid}").json()["room"]["status"] == "finished"
    # every game event carries the game as it stands after it
    last_game = next(e for e in reversed(events) if e.kind == "score").data["game"]
    assert last_game["version"] == final["version"]
    # ... with only the last round of its turn log (U11: one per seat, never the whole log:
    # an event is framed once for all the room's streams)
    assert [t["seat"] for t in last_game["turns"]] == list(range(len(last_game["seats"])))
    assert {t["round"] for t in last_game["turns"]} == {13}
    # U17: the room itself (a page's load) carries every turn, for 本局记录 from round 1
    whole = host.get(f"/api/rooms/{rid}").json()["room"]["game"]["turns"]
    seats = len(last_game["seats"])
    assert [(t["round"], t["seat"]) for t in whole] == [
        (r, s) for r in range(1, 14) for s in range(seats)
    ]

    # O4: a stream from any id gets exactly the events after it
    middle = len(events) // 2
    replayed = _stream(host, rid, middle, len(events) - middle)
    assert [e.seq for e in replayed] == [e.seq for e in events[middle:]]

    # O7: the game is in each person's rooms
    assert [r["id"] for r in friend.get("/api/rooms").json()["rooms"]] == [rid]


def test_o4_a_stream_gets_the_log_then_live_events(make_client: Callable[..., TestClient]) -> None:
    host, friend = make_client(), make_client()
    room = host.post("/api/rooms", json={"seats": _seats("open")}).json()["room"]
    rid = room["id"]
    invite = _token(room["invite_url"], "t")

    async def scenario() -> list[RoomEvent]:
        svc = _rooms(host)
        got: list[RoomEvent] = []

        async def listen() -> None:
            async for event in svc.hub.events(rid, 0):
                if event is None:
                    continue
                got.append(event)
                if len(got) == 3:
                    return

        task = asyncio.create_task(listen())
        await asyncio.sleep(0.05)  # the stream has replayed "created" and waits
        await svc.join(rid, "p" * 32, invite, "小红")  # live: join
        await svc.react(rid, "p" * 32, "thumbs_up")  # live: reaction
        async with asyncio.timeout(5):
            await task
        return got

    got = on_app_loop(host, scenario)
    assert [(e.seq, e.kind) for e in got] == [(1, "created"), (2, "join"), (3, "reaction")]
    assert got[2].data == {"seat": 1, "reaction": "thumbs_up"}
    del friend


def test_o5_a_person_who_does_not_act_is_played_for(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    room = host.post("/api/rooms", json={"seats": _seats("open"), "turn_seconds": 10}).json()
    rid = room["room"]["id"]
    friend.post(
        f"/api/rooms/{rid}/join",
        json={"token": _token(room["room"]["invite_url"], "t"), "name": "慢"},
    )
    game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    game = host.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]}).json()
    svc = _rooms(host)
    clock.now += 9  # not yet
    assert on_app_loop(host, svc.sweep) == 0
    clock.now += 2  # past turn_seconds: 托管 (by this sweep, or the app's own running one)
    on_app_loop(host, svc.sweep)
    assert on_app_loop(host, svc.sweep) == 0  # played once only
    room_now = host.get(f"/api/rooms/{rid}").json()["room"]
    assert room_now["seats"][0]["away"] is True
    assert room_now["game"]["turn"] == 1  # the computer finished the host's turn
    assert room_now["game"]["seats"][0]["scores"] != game["seats"][0]["scores"]
    assert room_now["deadline"] == clock.now + 10
    kinds = [e.kind for e in _log(host, rid)]
    assert kinds[-2:] == ["away", "roll"]
    proxied = _log(host, rid)[-1]
    assert proxied.data["proxy"] is True
    assert proxied.data["seat"] == 0
    # U11: the room's game carries the turn 托管 wrote for the host, marked with its level
    (written,) = room_now["game"]["turns"]
    assert (written["seat"], written["round"]) == (0, 1)
    assert written["proxy"] in {"novice", "intermediate", "expert"}  # the computer level

    # the friend plays; the away host's next turn comes after the short grace only
    g = room_now["game"]
    g = friend.post(f"/api/games/{g['id']}/roll", json={"version": g["version"]}).json()
    box = next(c for c, o in g["preview"].items() if o["allowed"])
    g = friend.post(
        f"/api/games/{g['id']}/score",
        json={"version": g["version"], "category": box, "confirm_zero": True},
    ).json()
    after_friend = host.get(f"/api/rooms/{rid}").json()["room"]
    assert after_friend["deadline"] == clock.now + 3
    # U11: one turn per seat at most, the friend's last and not marked 托管
    assert [t["seat"] for t in after_friend["game"]["turns"]] == [0, 1]
    assert "proxy" not in after_friend["game"]["turns"][-1]
    # acting takes the seat back
    g = host.post(f"/api/games/{g['id']}/roll", json={"version": g["version"]}).json()
    room_now = host.get(f"/api/rooms/{rid}").json()["room"]
    assert room_now["seats"][0]["away"] is False
    assert [e.kind for e in _log(host, rid)][-2:] == ["back", "roll"]
    # a browser gone for good: its seat is played to the end, the game never stalls
    for _ in range(200):
        if room_now["status"] != "playing":
            break
        clock.now += 11
        on_app_loop(host, svc.sweep)
        room_now = host.get(f"/api/rooms/{rid}").json()["room"]
    assert room_now["status"] == "finished"
    assert room_now["game"]["status"] == "finished"
    # U17: the room's game has every turn (the events, the last round's)
    turns = [(t["seat"], t["round"]) for t in room_now["game"]["turns"]]
    assert turns == [(s, r) for r in range(1, 14) for s in (0, 1)]


def test_o6_reactions_fixed_set_one_a_second(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    host, stranger = make_client(clock=clock), make_client(clock=clock)
    rid = host.post("/api/rooms", json={"seats": _seats("novice")}).json()["room"]["id"]
    assert host.post(f"/api/rooms/{rid}/react", json={"reaction": "nice"}).status_code == 204
    again = host.post(f"/api/rooms/{rid}/react", json={"reaction": "oops"})
    assert again.status_code == 429
    assert again.headers["retry-after"] == "1"
    clock.now += 1.0
    assert host.post(f"/api/rooms/{rid}/react", json={"reaction": "oops"}).status_code == 204
    clock.now += 1.0
    free_text = host.post(f"/api/rooms/{rid}/react", json={"reaction": "<b>你好</b>"})
    assert free_text.status_code == 422
    assert error_code(free_text) == "invalid_reaction"
    assert stranger.post(f"/api/rooms/{rid}/react", json={"reaction": "nice"}).status_code == 404
    config = host.get("/api/config").json()["rooms"]
    assert [r["id"] for r in config["reactions"]] == ["good_luck", "nice", "oops", "thumbs_up"]
    assert config["turn_seconds"] == {"min": 10, "max": 300, "default": 60}


def test_o2_remove_rematch_expire(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    host, friend, other = (make_client(clock=clock) for _ in range(3))
    room = host.post("/api/rooms", json={"seats": _seats("open", "open")}).json()["room"]
    rid, invite = room["id"], _token(room["invite_url"], "t")
    friend.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "甲"})
    other.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "乙"})
    assert friend.post(f"/api/rooms/{rid}/remove", json={"seat": 2}).status_code == 403
    assert host.post(f"/api/rooms/{rid}/remove", json={"seat": 0}).status_code == 404
    removed = host.post(f"/api/rooms/{rid}/remove", json={"seat": 2}).json()["room"]
    assert removed["seats"][2]["taken"] is False
    # not a seat holder any more, and out of the room (F8)
    assert other.get(f"/api/rooms/{rid}").status_code == 403
    # start with an open seat: it is dropped
    game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    assert [s["name"] for s in game["seats"]] == ["房主", "甲"]
    assert host.post(f"/api/rooms/{rid}/rematch", json={}).status_code == 409  # not over
    final = _play({0: host, 1: friend}, game)
    assert final["status"] == "finished"
    new = host.post(f"/api/rooms/{rid}/rematch", json={}).json()["room"]
    assert new["id"] != rid
    assert new["status"] == "waiting"
    assert [(s["name"], s["taken"]) for s in new["seats"]] == [("房主", True), ("甲", True)]
    assert new["your_seat"] == 0
    assert new["creator"] is True
    same = friend.post(f"/api/rooms/{rid}/rematch", json={}).json()["room"]
    assert same["id"] == new["id"]  # once per room
    assert same["creator"] is False
    assert same["your_seat"] == 1
    assert _log(host, rid)[-1].kind == "rematch"
    assert _log(host, rid)[-1].data == {"room": new["id"]}
    # a room left waiting a day expires
    clock.now += 24 * 3600 + 1
    on_app_loop(host, _rooms(host).sweep)
    assert host.get(f"/api/rooms/{new['id']}").json()["room"]["status"] == "expired"
    assert _log(host, new["id"])[-1].kind == "expired"


def test_o9_hostile_names_and_bad_input(make_client: Callable[..., TestClient]) -> None:
    host, friend, third = make_client(), make_client(), make_client()
    bad = host.post(
        "/api/rooms", json={"seats": [{"kind": "human", "name": "\u2800房主"}, {"kind": "human"}]}
    )
    assert error_code(bad) == "invalid_name"
    for seats in (
        [{"kind": "human", "name": "房主"}],  # one seat
        [{"kind": "computer", "difficulty": "novice"}, {"kind": "human"}],  # creator a computer
        [{"kind": "human", "name": "房主"}, {"kind": "human", "name": "预设"}],  # named open seat
        [{"kind": "human", "name": "房主"}, {"kind": "robot"}],
        "two",
    ):
        r = host.post("/api/rooms", json={"seats": seats})
        assert r.status_code == 422, seats
        assert error_code(r) == "invalid_seats"
    assert (
        error_code(host.post("/api/rooms", json={"seats": _seats("open"), "turn_seconds": 5}))
        == "invalid_pace"
    )
    assert (
        error_code(host.post("/api/rooms", json={"seats": _seats("open"), "turn_seconds": 301}))
        == "invalid_pace"
    )
    hostile = '<i>"甲"&</i>'  # 10 characters of markup, to be shown as text
    room = host.post("/api/rooms", json={"seats": _seats("open", "open")}).json()["room"]
    rid, invite = room["id"], _token(room["invite_url"], "t")
    joined = friend.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": hostile})
    assert joined.status_code == 200
    assert joined.json()["room"]["seats"][1]["name"] == hostile  # kept as text, shown as text
    taken = third.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": hostile.upper()})
    assert error_code(taken) == "name_taken"
    assert (
        error_code(third.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": ""}))
        == "invalid_name"
    )
    assert (
        error_code(third.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": 7}))
        == "invalid_name"
    )
    assert (
        third.post(
            f"/api/rooms/{rid}/join",
            json={"token": invite[:-1] + ("B" if invite[-1] != "B" else "C"), "name": "丙"},
        ).status_code
        == 404
    )
    assert third.get("/api/rooms/not-a-room").status_code == 422
    assert third.get(f"/api/rooms/{rid}/events", headers={"last-event-id": "x"}).status_code == 422


def test_o9_limits(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    host = make_client(clock=clock, max_open_rooms=5, max_rooms_per_hour_per_address=0)
    for _ in range(5):
        assert host.post("/api/rooms", json={"seats": _seats("open")}).status_code == 201
    sixth = host.post("/api/rooms", json={"seats": _seats("open")})
    assert sixth.status_code == 409
    assert error_code(sixth) == "too_many_rooms"
    # the hourly limit per address (the test clients share one address)
    second = make_client(clock=clock, max_rooms_per_hour_per_address=2)
    assert second.post("/api/rooms", json={"seats": _seats("open")}).status_code == 201
    assert second.post("/api/rooms", json={"seats": _seats("open")}).status_code == 201
    third = second.post("/api/rooms", json={"seats": _seats("open")})
    assert third.status_code == 429
    assert int(third.headers["retry-after"]) > 60
    # joins: 20 a minute per browser
    joiner = make_client(clock=clock, max_room_joins_per_minute=2)
    room = second.get("/api/rooms").json()["rooms"][0]["id"]
    bad = {"token": "A" * 22, "name": "甲"}
    assert joiner.post(f"/api/rooms/{room}/join", json=bad).status_code == 404
    assert joiner.post(f"/api/rooms/{room}/join", json=bad).status_code == 404
    assert joiner.post(f"/api/rooms/{room}/join", json=bad).status_code == 429
    # streams: at most max_room_streams a room
    few = make_client(clock=clock, max_room_streams=1, max_rooms_per_hour_per_address=0)
    rid = few.post("/api/rooms", json={"seats": _seats("open")}).json()["room"]["id"]
    svc = _rooms(few)

    async def two_streams() -> str:
        with svc.hub.subscribe(rid):
            try:
                svc.hub.release(await svc.open_stream(rid, "nobody", "127.0.0.1", None))
            except Exception as exc:
                return type(exc).__name__
        return "allowed"

    assert on_app_loop(few, two_streams) == "RoomNotFoundError"  # not a seat holder
    room_now = few.get(f"/api/rooms/{rid}").json()["room"]
    watch = _token(room_now["watch_url"], "w")

    async def over_limit() -> str:
        first = await svc.open_stream(rid, "watcher", "127.0.0.1", watch)
        try:
            svc.hub.release(await svc.open_stream(rid, "nobody", "127.0.0.1", watch))
        except Exception as exc:
            return type(exc).__name__
        finally:
            svc.hub.release(first)
        return "allowed"

    assert on_app_loop(few, over_limit) == "TooManyStreamsError"


def test_o7_a_room_game_is_in_each_person_s_recent_games_and_stats(
    make_client: Callable[..., TestClient],
) -> None:
    """A room's game belongs to the room; each person who played it finds it in the lobby's
    recent games, by their own seat's total and place, and in 统计 as a table game."""
    host, friend, stranger = (make_client() for _ in range(3))
    rid = host.post("/api/rooms", json={"seats": _seats("open", "novice")}).json()["room"]["id"]
    room = host.get(f"/api/rooms/{rid}").json()["room"]
    invite = _token(room["invite_url"], "t")
    joined = friend.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "小明"})
    assert joined.status_code == 200, joined.text
    game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    final = _play({0: host, 1: friend}, game)
    places = {p["seat"]: p for p in final["ranking"]}
    for seat, client, name in ((0, host, "房主"), (1, friend, "小明")):
        records = client.get("/api/records").json()
        assert records["games_played"] == 1
        [line] = records["recent"]
        assert line["id"] == final["id"]
        assert line["mode"] == "table"
        assert line["seats"] == 3
        assert line["place"] == places[seat]["place"]
        assert line["human_total"] == final["seats"][seat]["total"]
        assert records["best_score"] is None  # never the solo best (T6)
        assert (records["wins"], records["losses"], records["draws"]) == (0, 0, 0)
        table = client.get("/api/stats").json()["table"]
        assert table["games"] == 1
        assert name in {p["name"] for p in table["people"]}
        review = client.get(f"/api/games/{final['id']}/review", params={"seat": seat})
        assert review.status_code == 200, review.text
    nobody = stranger.get("/api/records").json()
    assert nobody["recent"] == []
    assert nobody["games_played"] == 0
    assert stranger.get("/api/stats").json()["table"]["games"] == 0


def test_o7_every_finished_room_counts_though_only_the_last_few_are_read(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``games_played`` counts every finished room of the browser, while the lobby reads
    (and lists) only the last ``RECENT_ELSEWHERE`` of them."""
    monkeypatch.setattr(records_router, "RECENT_ELSEWHERE", 1)
    host = make_client()
    ids = []
    for _ in range(2):
        rid = host.post("/api/rooms", json={"seats": _seats("novice")}).json()["room"]["id"]
        game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
        ids.append(_play({0: host}, game)["id"])
    records = host.get("/api/records").json()
    assert records["games_played"] == 2
    assert [line["id"] for line in records["recent"]] == ids[-1:]  # the one room read


def test_o4_the_listener_hears_the_rooms_channel_and_stops_at_once(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notification on the rooms' channel reaches the hub (on the process's one LISTEN
    connection, A3); stop() wakes the LISTEN thread through its own channel rather than
    waiting out its poll (here a minute): every app's shutdown waited for it."""
    monkeypatch.setattr(notices, "LISTEN_POLL", 60.0)
    heard: list[str] = []

    async def main() -> bool:
        listener = notices.Listener(pg_url)
        listener.listen(NOTIFY_CHANNEL, heard.append)
        listener.listen("yahtzee_other", lambda payload: heard.append("other: " + payload))
        listener.start()
        assert await asyncio.to_thread(listener.listening.wait, 30)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("SELECT pg_notify(%s, 'a room event')", (NOTIFY_CHANNEL,))
        for _ in range(600):
            if heard:
                break
            await asyncio.sleep(0.05)
        await listener.stop()  # (joins for LISTEN_POLL + 3 s at most)
        thread = listener._thread
        return thread is not None and thread.is_alive()

    still_running = asyncio.run(main())
    assert heard == ["a room event"]
    assert not still_running
