"""Every game endpoint and error code of docs/api.md, through HTTP (TestClient)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from yahtzee.dice import ScriptedDice
from yahtzee.rules import Dice, Scorecard
from yahtzee.solver import CategoryOption, KeepOption, advise

from .helpers import ALL_CATEGORIES, NO_HOLD, Api, error_code

GAME_FIELDS = {
    "id",
    "version",
    "mode",
    "difficulty",
    "status",
    "round",
    "current_player",
    "dice",
    "rolls_left",
    "hints_left",
    "players",
    "preview",
    "computer_turn",
    "turns",
    "result",
    "new_record",
    "daily",
    # T2: every game's one shape (the fields above are kept for solo and vs)
    "seats",
    "turn",
    "computer_turns",
    "ranking",
    "undo",  # 撤销: the box that may be taken back (issue 21)
    "kind",  # K2: what the game is
}


def test_u9_first_response_sets_an_anonymous_long_lived_httponly_cookie(client: TestClient) -> None:
    r = client.get("/api/records")
    cookie = r.headers["set-cookie"]
    # I3: the cookie names a device (v2.<device id>.<mac>), which names the player.
    match = re.match(r"yahtzee_player=(v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+);", cookie)
    assert match is not None
    assert len(match.group(1).split(".")[1]) * 6 >= 128  # url-safe base64: 6 bits a character
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Max-Age=31536000" in cookie
    # The browser sends it back: no new cookie, and the games are this player's.
    assert "set-cookie" not in client.get("/api/records").headers
    # Starting a game renews the same id for another year (a sliding expiry).
    renewed = client.post("/api/games", json={"mode": "solo"}).headers["set-cookie"]
    assert renewed.startswith(f"yahtzee_player={match.group(1)};")
    assert "Max-Age=31536000" in renewed


def test_a_forged_malformed_cookie_is_replaced(client: TestClient) -> None:
    client.cookies.set("yahtzee_player", "x")
    r = client.get("/api/records")
    assert "yahtzee_player=" in r.headers["set-cookie"]


def test_create_solo_game_has_the_documented_shape(api: Api) -> None:
    game = api.new("solo", difficulty="novice")
    assert set(game) == GAME_FIELDS
    assert game["mode"] == game["kind"] == "solo"
    assert game["difficulty"] is None  # difficulty is for vs games only
    assert game["status"] == "in_progress"
    assert (game["round"], game["current_player"]) == (1, "human")
    assert (game["dice"], game["rolls_left"], game["hints_left"]) == (None, 3, 3)
    assert set(game["players"]) == {"human"}
    human = game["players"]["human"]
    assert human["boxes"] == dict.fromkeys(ALL_CATEGORIES)
    assert human["total"] == 0
    assert game["preview"] is None
    assert game["computer_turn"] is None
    assert (game["result"], game["new_record"]) == (None, False)
    assert game["version"] == 1


def test_create_vs_game_defaults_to_expert(api: Api) -> None:
    game = api.new("vs_computer")
    assert game["difficulty"] == "expert"
    assert set(game["players"]) == {"human", "computer"}
    assert api.new("vs_computer", "novice", replace=True)["difficulty"] == "novice"


def test_current_game_is_404_then_the_unfinished_game(api: Api) -> None:
    r = api.client.get("/api/games/current")
    assert r.status_code == 404
    assert error_code(r) == "not_found"
    game = api.new()
    assert api.client.get("/api/games/current").json()["id"] == game["id"]


def test_f2_a_new_game_is_refused_while_one_is_in_progress(api: Api) -> None:
    """F2: no silent loss. 409 game_in_progress names the saved game's mode and round."""
    saved = api.play_turn(api.play_turn(api.new("vs_computer", "intermediate")))
    saved = api.roll(saved)
    for body in ({"mode": "solo"}, {"mode": "vs_computer"}, {"mode": "solo", "replace": False}):
        r = api.client.post("/api/games", json=body)
        assert (r.status_code, error_code(r)) == (409, "game_in_progress"), body
        message = r.json()["error"]["message"]
        assert "人机对战（普通，第 3 回合）" in message, message
    # Nothing changed: the saved game is still the current one, at the same version.
    assert api.client.get("/api/games/current").json() == saved
    assert api.get(saved["id"]) == saved
    # A solo game is named as such.
    solo = api.new("solo", replace=True)
    r = api.client.post("/api/games", json={"mode": "vs_computer"})
    assert "单人挑战（第 1 回合）" in r.json()["error"]["message"]
    assert api.client.get("/api/games/current").json()["id"] == solo["id"]


def test_f2_replace_must_be_a_real_boolean(api: Api) -> None:
    saved = api.new()
    for value in ("true", 1, "yes", None):
        r = api.client.post("/api/games", json={"mode": "solo", "replace": value})
        assert (r.status_code, error_code(r)) == (422, "invalid_request"), value
        assert "replace" in r.json()["error"]["message"]
    assert api.client.get("/api/games/current").json()["id"] == saved["id"]


def test_f2_no_replace_needed_once_the_game_is_finished(api: Api) -> None:
    api.play_to_end(api.new())
    assert api.new()["status"] == "in_progress"


def test_u3_replace_abandons_the_unfinished_one(api: Api) -> None:
    old = api.roll(api.new())
    new = api.new(replace=True)
    assert api.client.get("/api/games/current").json()["id"] == new["id"]
    abandoned = api.get(old["id"])
    assert abandoned["status"] == "abandoned"
    assert abandoned["version"] == old["version"] + 1
    # The old tab acting with its old version, then with the fresh one: both refused.
    assert error_code(api.post(old, "roll", hold=NO_HOLD)) == "stale_version"
    r = api.post(abandoned, "roll", hold=NO_HOLD)
    assert (r.status_code, error_code(r)) == (409, "illegal_action")


def test_another_players_game_is_not_found(make_client: Callable[..., TestClient]) -> None:
    alice = Api(make_client())
    game = alice.new()
    bob = Api(make_client())
    bob.client.get("/api/records")  # bob gets his own cookie
    for r in (
        bob.client.get(f"/api/games/{game['id']}"),
        bob.post(game, "roll", hold=NO_HOLD),
        bob.post(game, "hint"),
    ):
        assert (r.status_code, error_code(r)) == (404, "not_found")
    assert alice.get(game["id"])["version"] == 1  # untouched


def test_r1_roll_then_reroll_only_unheld_dice(api: Api) -> None:
    game = api.roll(api.new())
    assert game["rolls_left"] == 2
    assert len(game["dice"]) == 5
    assert game["preview"] is not None
    held = [True, True, False, False, False]
    again = api.roll(game, held)
    assert again["dice"][:2] == game["dice"][:2]
    assert again["version"] == game["version"] + 1
    last = api.roll(again, [True] * 4 + [False])
    assert last["rolls_left"] == 0
    r = api.post(last, "roll", hold=NO_HOLD)
    assert (r.status_code, error_code(r)) == (409, "illegal_action")  # a fourth roll
    assert api.get(game["id"])["version"] == last["version"]  # nothing changed


def test_r1_first_roll_must_not_hold(api: Api) -> None:
    game = api.new()
    r = api.post(game, "roll", hold=[True] + [False] * 4)
    assert (r.status_code, error_code(r)) == (409, "illegal_action")


def test_stale_version_is_refused_and_changes_nothing(api: Api) -> None:
    game = api.roll(api.new())
    for version in (game["version"] - 1, game["version"] + 1):
        r = api.post(game, "roll", version=version, hold=NO_HOLD)
        assert (r.status_code, error_code(r)) == (409, "stale_version")
    assert api.get(game["id"]) == game


def test_score_before_rolling_is_illegal(api: Api) -> None:
    game = api.new()
    r = api.post(game, "score", category="chance")
    assert (r.status_code, error_code(r)) == (409, "illegal_action")


def test_u2_a_registered_box_cannot_be_changed(api: Api) -> None:
    game = api.score(api.roll(api.new()), "chance")
    game = api.roll(game)
    r = api.post(game, "score", category="chance", confirm_zero=True)
    assert (r.status_code, error_code(r)) == (409, "illegal_action")


def test_u2_zero_needs_confirmation_server_side(make_client: Callable[..., TestClient]) -> None:
    api = Api(make_client(dice=ScriptedDice([1, 2, 3, 5, 6])))
    game = api.roll(api.new())
    # The preview marks the boxes whose 0 needs confirming: the page asks from this alone.
    marked = {c for c, o in game["preview"].items() if o["needs_confirmation"]}
    lower = {"three_of_a_kind", "four_of_a_kind", "full_house", "small_straight"}
    assert marked == {"fours", *lower, "large_straight", "yahtzee"}  # 1,2,3,5,6
    r = api.post(game, "score", category="yahtzee")
    assert (r.status_code, error_code(r)) == (409, "zero_needs_confirmation")
    assert api.get(game["id"]) == game  # "cancel changes nothing"
    done = api.ok(game, "score", category="yahtzee", confirm_zero=True)
    assert done["players"]["human"]["boxes"]["yahtzee"] == 0
    assert done["version"] == game["version"] + 1


def test_zero_without_alternative_needs_no_confirmation(
    make_client: Callable[..., TestClient],
) -> None:
    # Fill every box but yahtzee and chance... simpler: a box scoring > 0 never asks.
    api = Api(make_client(dice=ScriptedDice([1, 2, 3, 5, 6])))
    game = api.roll(api.new())
    done = api.ok(game, "score", category="chance")  # 17 points: no confirmation
    assert done["players"]["human"]["boxes"]["chance"] == 17


def test_r5_r6_joker_bonus_and_forbidden_boxes(make_client: Callable[..., TestClient]) -> None:
    api = Api(make_client(dice=ScriptedDice([5] * 10)))
    game = api.score(api.roll(api.new()), "yahtzee")
    assert game["players"]["human"]["boxes"]["yahtzee"] == 50
    game = api.roll(game)
    preview = game["preview"]
    assert preview["fives"] == {
        "points": 25,
        "yahtzee_bonus": 100,
        "upper_bonus": 0,
        "allowed": True,
        "needs_confirmation": False,
        "final": False,  # U18: 撤销 could take it back
    }
    assert preview["chance"]["allowed"] is False  # the matching upper box is open
    r = api.post(game, "score", category="chance")
    assert (r.status_code, error_code(r)) == (409, "illegal_action")
    game = api.score(game, "fives")
    human = game["players"]["human"]
    assert (human["yahtzee_bonus"], human["total"]) == (100, 175)


def test_u4_hints(api: Api) -> None:
    game = api.new()
    r = api.post(game, "hint")  # before the first roll: refused, nothing spent
    assert (r.status_code, error_code(r)) == (409, "illegal_action")
    game = api.roll(game)
    for left in (2, 1, 0):
        body = api.ok(game, "hint")
        assert set(body) == {"hold", "category", "value", "alternative", "game"}
        assert (body["hold"] is None) != (body["category"] is None)
        if body["hold"] is not None:
            assert len(body["hold"]) == 5
            assert not all(body["hold"])
        else:
            assert body["category"] in game["preview"]
        game = body["game"]
        assert game["hints_left"] == left
    r = api.post(game, "hint")
    assert (r.status_code, error_code(r)) == (409, "illegal_action")
    assert api.get(game["id"]) == game  # the refusal spent nothing
    # The counter resets with a new game.
    assert api.new(replace=True)["hints_left"] == 3


def test_u4_hint_with_no_rolls_left_names_a_box(api: Api) -> None:
    game = api.roll(api.roll(api.roll(api.new()), [True] * 4 + [False]), [True] * 4 + [False])
    body = api.ok(game, "hint")
    assert body["hold"] is None
    assert body["game"]["preview"][body["category"]]["allowed"]


def test_u4_hint_explains_itself_in_expected_points(make_client: Callable[..., TestClient]) -> None:
    """The hint's value and its best alternative are the solver's own ranking."""
    # 1,2,3,4 + 6 with two rolls left: the expert keeps the small straight 1-2-3-4.
    api = Api(make_client(dice=ScriptedDice([1, 2, 3, 4, 6] + [5] * 20)))
    game = api.roll(api.new())
    body = api.ok(game, "hint")
    ranked = advise(Scorecard(), Dice.parse("12346"), 2).options
    assert body["hold"] == [True, True, True, True, False]
    assert body["value"] == pytest.approx(ranked[0].value, abs=0.01)
    alternative = body["alternative"]
    assert alternative["value"] == pytest.approx(ranked[1].value, abs=0.01)
    assert alternative["value"] < body["value"]
    second = ranked[1]
    if isinstance(second, KeepOption) and len(second.keep) < 5:
        kept = sorted(f for f, h in zip([1, 2, 3, 4, 6], alternative["hold"], strict=True) if h)
        assert kept == list(second.keep)
    # With no rolls left the choices are the boxes.
    keep = [True, True, True, True, False]
    game = api.roll(api.roll(body["game"], keep), keep)
    assert (game["dice"], game["rolls_left"]) == ([1, 2, 3, 4, 5], 0)
    body = api.ok(game, "hint")
    boxes = advise(Scorecard(), Dice.of(game["dice"]), 0).options
    assert isinstance(boxes[0], CategoryOption)
    assert isinstance(boxes[1], CategoryOption)
    assert body["category"] == boxes[0].category.value
    assert body["value"] == pytest.approx(boxes[0].value, abs=0.01)
    assert body["alternative"]["category"] == boxes[1].category.value


def test_u4_hint_alternative_stop_is_worth_the_best_box(
    make_client: Callable[..., TestClient],
) -> None:
    """Issue 12: 16666 with two rolls left — keep the four 6s; the runner-up is stopping
    to write 六点 for 24, worth what that is worth now (268.23), not the 277.00 of "keep
    all five and roll once more" that the hint used to quote."""
    api = Api(make_client(dice=ScriptedDice([1, 6, 6, 6, 6] + [5] * 20)))
    body = api.ok(api.roll(api.new()), "hint")
    assert body["hold"] == [False, True, True, True, True]
    sixes = advise(Scorecard(), Dice.parse("16666"), 0).options[0]
    assert isinstance(sixes, CategoryOption)
    assert sixes.category.value == "sixes"
    assert body["alternative"] == {
        "hold": None,
        "category": "sixes",
        "value": round(sixes.value, 2),
    }


def test_f1_resume_is_gone_and_changes_nothing(api: Api) -> None:
    """F1/U6: /resume gave a fresh turn at will; now 410 gone, whatever the body."""
    game = api.play_turn(api.new())
    game = api.roll(api.roll(api.roll(game), [True] * 4 + [False]), [True] * 4 + [False])
    assert game["rolls_left"] == 0
    for body in ({"version": game["version"]}, {"version": game["version"] - 1}, [1, 2]):
        r = api.client.post(f"/api/games/{game['id']}/resume", json=body)
        assert (r.status_code, error_code(r)) == (410, "gone"), body
        assert "GET /api/games/current" in r.json()["error"]["message"]
    r = api.client.post("/api/games/nope/resume", json={"version": 1})
    assert (r.status_code, error_code(r)) == (410, "gone")
    # Continuing is a read: the exact position, and still no fourth roll.
    assert api.client.get("/api/games/current").json() == game
    assert api.get(game["id"]) == game
    r = api.post(game, "roll", hold=NO_HOLD)
    assert (r.status_code, error_code(r)) == (409, "illegal_action")


def test_invalid_requests_are_422_in_the_error_shape(api: Api) -> None:
    game = api.new()
    url = f"/api/games/{game['id']}"
    v = game["version"]
    bad = [
        ("/api/games", {"mode": "tournament"}),
        ("/api/games", {"mode": "vs_computer", "difficulty": "god"}),
        ("/api/games", {}),
        (f"{url}/roll", {"version": v, "hold": [1, 0, 0, 0, 0]}),
        (f"{url}/roll", {"version": v, "hold": [False] * 4}),
        (f"{url}/roll", {"version": "seven", "hold": NO_HOLD}),
        (f"{url}/roll", {"version": -1, "hold": NO_HOLD}),
        (f"{url}/roll", {"version": v, "hold": NO_HOLD, "extra": 1}),
        (f"{url}/score", {"version": v, "category": "bonus"}),
        (f"{url}/score", {"version": v}),
        (f"{url}/hint", {}),
    ]
    for path, body in bad:
        r = api.client.post(path, json=body)
        assert (r.status_code, error_code(r)) == (422, "invalid_request"), (path, body)
    for raw in (b"{not json", b""):
        r = api.client.post(
            f"{url}/roll", content=raw, headers={"content-type": "application/json"}
        )
        assert (r.status_code, error_code(r)) == (422, "invalid_request"), raw
    # A UTF-16 byte-order mark: not UTF-8, refused before parsing (issue 22 item 10).
    r = api.client.post(
        f"{url}/roll", content=b"\xff\xfe", headers={"content-type": "application/json"}
    )
    assert (r.status_code, error_code(r)) == (415, "unsupported_media_type")
    assert api.get(game["id"])["version"] == v


def test_invalid_request_messages_name_the_field_and_value(api: Api) -> None:
    game = api.new()
    url = f"/api/games/{game['id']}"
    cases = [
        ("/api/games", {"mode": "tournament"}, ["mode", "'tournament'"]),
        ("/api/games", {}, ["缺少", "mode"]),
        (f"{url}/roll", {"version": game["version"], "hold": [1, 0, 0, 0, 0]}, ["hold.0", "1"]),
        (f"{url}/roll", {"version": "seven"}, ["version", "'seven'"]),
        (f"{url}/score", {"version": 1, "category": "bonus"}, ["category", "'bonus'"]),
        (f"{url}/roll", {"version": 1, "extra": 1}, ["extra"]),
    ]
    for path, body, fragments in cases:
        message = api.client.post(path, json=body).json()["error"]["message"]
        assert message.startswith("请求格式不正确"), message
        for fragment in fragments:
            assert fragment in message, (body, message)
    for query, fragment in (("scores=twos=5", "twos=5"), ("dice=1234", "'1234'")):
        message = api.client.get(f"/api/advice?{query}").json()["error"]["message"]
        assert fragment in message, message


def test_u13_a_malformed_id_in_a_link_speaks_to_a_person(api: Api) -> None:
    """U13: an id in the address that cannot be one (a mistyped or cut link) is said as a
    link that is incomplete or gone, not as a field of a request; still invalid_request."""
    for path in ("/api/groups/not-a-group", "/api/groups/12345"):
        r = api.client.get(path)
        assert (r.status_code, error_code(r)) == (422, "invalid_request"), path
        message = r.json()["error"]["message"]
        assert message == "这个链接不完整或已失效。", message
        assert "字段" not in message


def test_unknown_routes_and_methods_are_json_errors(client: TestClient) -> None:
    r = client.get("/api/nothing/here")
    assert (r.status_code, error_code(r)) == (404, "not_found")
    r = client.get("/api/games/no-such-game")
    assert (r.status_code, error_code(r)) == (404, "not_found")
    r = client.delete("/api/health")
    assert r.status_code == 405
    error_code(r)
    r = client.post("/api/games/no-such-game/roll", json={"version": 1, "hold": NO_HOLD})
    assert (r.status_code, error_code(r)) == (404, "not_found")


def test_bodies_over_64_kb_are_refused(client: TestClient) -> None:
    big = b'{"mode": "solo", "pad": "' + b"x" * (65 * 1024) + b'"}'
    r = client.post("/api/games", content=big, headers={"content-type": "application/json"})
    assert (r.status_code, error_code(r)) == (413, "payload_too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit counts the bytes read
        for _ in range(70):
            yield b"x" * 1024

    r = client.post(
        "/api/games",
        content=chunks(),
        headers={"content-type": "application/json"},
    )
    assert (r.status_code, error_code(r)) == (413, "payload_too_large")
    r = client.post("/api/games", json={"mode": "solo", "pad": "x" * 60_000})
    assert r.status_code == 422  # under the limit: parsed, then refused as malformed


def test_security_headers_on_every_response(client: TestClient) -> None:
    for r in (
        client.get("/api/health"),
        client.get("/api/games/nope"),
        client.get("/"),
        client.get("/docs"),
        client.get("/openapi.json"),
        client.get("/missing.js"),
        client.post("/api/games", content=b"x" * 70_000),
    ):
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"


def test_game_responses_are_not_cached(api: Api) -> None:
    assert api.client.post("/api/games", json={"mode": "solo"}).headers["cache-control"] == (
        "no-store"
    )
