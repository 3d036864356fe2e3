"""撤销 over the API (issue 21 item 8), on SQLite and PostgreSQL: ``POST .../undo`` takes
back the box just written until the next roll, once a turn, in solo and table games only;
the server referees it (the daily challenge, a room, vs and the tutorial refuse it), the log
records it and the review judges the box written instead."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from yahtzee import log
from yahtzee.game import Mode, SeatKind

from .helpers import Api, error_code, on_app_loop

NOON = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.UTC).timestamp()  # 10:00 in Shanghai


def _undo(api: Api, game: dict[str, Any]) -> Any:
    return api.post(game, "undo")


def _events(api: Api, game_id: str) -> list[log.Event]:
    storage = api.client.app.state.service.storage  # type: ignore[attr-defined]
    events: list[log.Event] = on_app_loop(api.client, storage.events, game_id)
    return events


def _finals(game: dict[str, Any]) -> set[bool]:
    """U18: what the preview says of every box: whether writing it now is final."""
    return {option["final"] for option in game["preview"].values()}


def test_undo_takes_back_the_box_and_the_same_dice_play_on(api: Api) -> None:
    game = api.roll(api.new())
    assert game["undo"] is None
    written = api.score(game, "chance")
    assert written["undo"] == {"seat": 0, "category": "chance"}
    assert written["seats"][0]["scores"]["chance"] is not None
    back = api.ok(written, "undo")
    assert back["version"] == written["version"] + 1
    assert back["seats"][0]["scores"]["chance"] is None
    assert back["dice"] == game["dice"]
    assert back["rolls_left"] == game["rolls_left"]
    # U18: the same preview, but now a box written is final (the zero dialog says so)
    assert _finals(game) == {False}
    assert _finals(back) == {True}
    plain = ({c: {**o, "final": None} for c, o in g["preview"].items()} for g in (back, game))
    assert next(plain) == next(plain)
    assert back["undo"] is None
    assert back["turns"] == game["turns"]  # the box taken back left the turn log
    # the turn's next box is final
    final = api.score(back, "ones")
    assert final["undo"] is None
    r = _undo(api, final)
    assert (r.status_code, error_code(r)) == (409, "nothing_to_undo")
    assert api.get(game["id"]) == final  # nothing changed
    assert [e.kind for e in _events(api, game["id"])][-4:] == ["roll", "score", "undo", "score"]


def test_a_roll_makes_the_box_final_and_a_stale_undo_is_refused(api: Api) -> None:
    game = api.score(api.roll(api.new()), "chance")
    r = api.post(game, "undo", version=game["version"] - 1)
    assert (r.status_code, error_code(r)) == (409, "stale_version")
    rolled = api.roll(game)
    assert rolled["undo"] is None
    r = _undo(api, rolled)
    assert (r.status_code, error_code(r)) == (409, "nothing_to_undo")
    r = _undo(api, api.new(replace=True))  # nothing written yet
    assert (r.status_code, error_code(r)) == (409, "nothing_to_undo")


def test_the_games_last_box_is_final(api: Api) -> None:
    game = api.new()
    while game["status"] == "in_progress":
        game = api.play_turn(game)
    assert game["undo"] is None
    r = _undo(api, game)
    assert (r.status_code, error_code(r)) == (409, "illegal_action")


def test_a_table_undo_is_for_the_seat_that_wrote_the_box(api: Api) -> None:
    seats = [{"kind": "human", "name": "<b>甲</b>"}, {"kind": "human", "name": "乙"}]
    r = api.client.post("/api/games", json={"mode": "table", "seats": seats})
    game = api.score(api.roll(r.json()), "chance")
    assert game["turn"] == 1
    assert game["undo"] == {"seat": 0, "category": "chance"}
    back = api.ok(game, "undo")
    assert back["turn"] == 0
    assert back["seats"][0]["scores"]["chance"] is None
    assert _events(api, game["id"])[-1] == log.Undo(0)
    # a computer after the person rolls at once: nothing to take back then
    seats = [{"kind": "human", "name": "甲"}, {"kind": "computer", "difficulty": "novice"}]
    r = api.client.post("/api/games", json={"mode": "table", "seats": seats, "replace": True})
    game = api.score(api.roll(r.json()), "chance")
    assert game["turn"] == 0
    assert game["undo"] is None
    r = _undo(api, game)
    assert (r.status_code, error_code(r)) == (409, "nothing_to_undo")


def test_no_undo_in_vs_or_the_tutorial(api: Api) -> None:
    for mode in ("vs_computer", "tutorial"):
        rolled = api.roll(api.new(mode, replace=True))
        assert _finals(rolled) == {True}  # U18
        game = api.score(rolled, "chance")
        assert game["undo"] is None
        r = _undo(api, game)
        assert (r.status_code, error_code(r)) == (409, "undo_not_allowed")
        assert api.get(game["id"]) == game


def test_no_undo_in_the_daily_challenge(make_client: Callable[..., TestClient]) -> None:
    client = make_client(clock=lambda: NOON)
    api = Api(client)
    game = client.post("/api/daily", json={"name": "小明"}).json()
    rolled = api.roll(game)
    assert _finals(rolled) == {True}  # U18: a solo game's rules, but the daily's referee
    game = api.score(rolled, "chance")
    assert game["daily"] is not None
    assert game["undo"] is None
    r = _undo(api, game)
    assert (r.status_code, error_code(r)) == (409, "undo_not_allowed")
    assert api.get(game["id"]) == game


def test_no_undo_in_a_room(make_client: Callable[..., TestClient]) -> None:
    host = make_client()
    seats = [{"kind": "human", "name": "房主"}, {"kind": "human"}]
    room = host.post("/api/rooms", json={"seats": seats}).json()
    rid = room["room"]["id"]
    url = room["room"]["invite_url"]
    friend = make_client()
    token = url.partition("#t=")[2]
    assert friend.post(f"/api/rooms/{rid}/join", json={"token": token, "name": "客人"}).is_success
    game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    api = Api(host)
    rolled = api.roll(game)
    assert _finals(rolled) == {True}  # U18
    game = api.score(rolled, "chance")
    assert game["undo"] is None
    r = _undo(api, game)  # the host: not the seat on turn (O3)
    assert (r.status_code, error_code(r)) == (404, "not_found")
    r = _undo(Api(friend), game)  # the seat on turn: a room's boxes are final
    assert (r.status_code, error_code(r)) == (409, "undo_not_allowed")


def test_the_review_counts_the_undo_and_judges_the_box_written(api: Api) -> None:
    game = api.roll(api.new())
    game = api.ok(api.score(game, "yahtzee"), "undo")
    while game["status"] == "in_progress":
        game = api.play_turn(game)
    review = api.client.get(f"/api/games/{game['id']}/review").json()
    assert review["undos"] == 1
    assert review["decisions"][0]["round"] == 1
    assert all(
        d["chosen"].get("category") != "yahtzee" or d["round"] > 1 for d in review["decisions"]
    )
    kinds = [e.kind for e in _events(api, game["id"])]
    assert kinds.count("undo") == 1
    assert len(kinds) <= log.max_events((SeatKind.HUMAN,), Mode.SOLO)


def test_u18_the_games_last_box_is_final(api: Api) -> None:
    """The preview of the game's last box says no 撤销 will take it back."""
    game = api.new()
    for _ in range(12):
        game = api.roll(game)
        assert _finals(game) == {False}
        game = api.score(game, next(c for c, o in game["preview"].items() if o["allowed"]))
    assert _finals(api.roll(game)) == {True}
