"""Whole games through HTTP, records (U7-U9), replay of the event log, advice, pages."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee import log
from yahtzee.game import Status
from yahtzee.rules import CATEGORIES
from yahtzee.server.service import GameService
from yahtzee.server.views import game_json
from yahtzee.storage import GameRecord
from yahtzee.turn import Decision, Keep, Position, Score

from .helpers import Api, error_code, on_app_loop


def _service(api: Api) -> GameService:
    service: GameService = api.client.app.state.service  # type: ignore[attr-defined]
    return service


def _assert_stored_equals_replay(api: Api, game: dict[str, Any]) -> None:
    """The game the API shows equals the replay of its stored event log."""
    service = _service(api)
    view = game_json(on_app_loop(api.client, service.replayed, game["id"]))
    assert view == api.get(game["id"])


def test_u7_full_solo_game_to_the_end_updates_records(api: Api) -> None:
    game = api.new("solo")
    turns = 0
    while game["status"] == "in_progress":
        assert game["round"] == turns + 1
        game = api.roll(game)
        game = api.roll(game, [True, True, False, False, False])
        allowed = [c for c, o in game["preview"].items() if o["allowed"]]
        game = api.score(game, allowed[-1])
        turns += 1
    assert turns == 13
    assert game["status"] == "finished"
    assert game["result"] == "solo"
    assert game["new_record"] is True  # the first finished game is a record
    human = game["players"]["human"]
    assert None not in human["boxes"].values()
    assert human["total"] == (
        human["upper_subtotal"]
        + human["upper_bonus"]
        + human["lower_total"]
        + human["yahtzee_bonus"]
    )
    r = api.post(game, "roll", hold=[False] * 5)
    assert (r.status_code, error_code(r)) == (409, "illegal_action")
    assert api.client.get("/api/games/current").status_code == 404
    records = api.client.get("/api/records").json()
    assert records["games_played"] == 1
    assert records["best_score"] == human["total"]
    assert (records["wins"], records["losses"], records["draws"]) == (0, 0, 0)
    (recent,) = records["recent"]
    assert recent["id"] == game["id"]
    assert (recent["mode"], recent["result"], recent["human_total"]) == (
        "solo",
        "solo",
        human["total"],
    )
    _assert_stored_equals_replay(api, game)


def test_u8_full_vs_game_plays_the_computer_inside_the_score_request(api: Api) -> None:
    game = api.new("vs_computer", "expert")
    while game["status"] == "in_progress":
        before = game["players"]["computer"]
        game = api.play_turn(game)
        assert game["current_player"] == "human"
        turn = game["computer_turn"]
        if game["status"] == "in_progress" or turn["round"] == 13:
            steps = turn["steps"]
            assert steps[0]["action"] == "roll"
            assert steps[0]["hold"] == [False] * 5
            assert 2 <= len(steps) <= 4
            assert steps[-1]["action"] == "score"
            for prev, step in itertools.pairwise(steps):
                if step["action"] == "roll":  # held dice stay, the others are rerolled
                    kept = [d for d, h in zip(prev["dice"], step["hold"], strict=True) if h]
                    assert kept == [d for d, h in zip(step["dice"], step["hold"], strict=True) if h]
            category, points = steps[-1]["category"], steps[-1]["points"]
            assert before["boxes"][category] is None
            assert game["players"]["computer"]["boxes"][category] == points
            assert turn["round"] == game["round"] - 1 or game["status"] == "finished"
    human = game["players"]["human"]["total"]
    computer = game["players"]["computer"]["total"]
    expected = "win" if human > computer else "loss" if human < computer else "draw"
    assert game["result"] == expected
    assert None not in game["players"]["computer"]["boxes"].values()
    records = api.client.get("/api/records").json()
    assert records["games_played"] == 1
    assert records[{"win": "wins", "loss": "losses", "draw": "draws"}[expected]] == 1
    assert records["recent"][0]["computer_total"] == computer
    assert records["recent"][0]["difficulty"] == "expert"
    _assert_stored_equals_replay(api, game)


def test_u7_new_record_only_when_beating_the_best(api: Api) -> None:
    first = api.play_to_end(api.new("solo"))
    second = api.play_to_end(api.new("solo"))  # same policy; the seeded dice differ
    best = max(first["players"]["human"]["total"], second["players"]["human"]["total"])
    beat = second["players"]["human"]["total"] > first["players"]["human"]["total"]
    assert second["new_record"] is beat
    records = api.client.get("/api/records").json()
    assert records["best_score"] == best
    assert records["games_played"] == 2
    assert [g["id"] for g in records["recent"]] == [second["id"], first["id"]]


def test_abandoned_games_do_not_count_in_records(api: Api) -> None:
    api.play_turn(api.new())
    current = api.new(replace=True)
    records = api.client.get("/api/records").json()
    assert records == {
        "best_score": None,
        "wins": 0,
        "losses": 0,
        "draws": 0,
        "games_played": 0,
        "recent": [],
        "current_game": current,
    }


def test_u5_records_carry_the_saved_game_until_it_is_finished(api: Api) -> None:
    assert api.client.get("/api/records").json()["current_game"] is None
    game = api.roll(api.new("solo"))
    assert api.client.get("/api/records").json()["current_game"] == api.get(game["id"])
    assert api.client.get("/api/games/current").json() == api.get(game["id"])
    api.play_to_end(game)
    records = api.client.get("/api/records").json()
    assert records["current_game"] is None
    assert records["games_played"] == 1


def test_games_survive_a_restart_by_replaying_the_log(
    make_client: Callable[..., TestClient],
) -> None:
    first = Api(make_client())
    game = first.roll(first.play_turn(first.play_turn(first.new("vs_computer", "novice"))))
    second = Api(make_client())  # a new app (a new process) on the same database
    second.client.cookies.update(first.client.cookies)
    assert second.get(game["id"]) == game
    assert second.client.get("/api/games/current").json() == game  # the exact position
    allowed = [c for c, o in game["preview"].items() if o["allowed"]]
    assert second.score(game, allowed[0])["round"] == 4


def test_b2_advice_endpoint(client: TestClient) -> None:
    r = client.get(
        "/api/advice", params={"scores": "ones=3,twos=6", "dice": "13356", "rolls_left": 2}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["options"]
    assert body["best"] == body["options"][0]
    r = client.get("/api/advice", params={"dice": "66666", "rolls_left": 0})
    assert r.status_code == 200


def test_b2_advice_stop_is_its_own_option_worth_the_best_box(client: TestClient) -> None:
    """Issue 12: with rolls left, stopping is ``{"stop": true, "category", "points",
    "value"}``, worth the rolls-left-0 best (no "keep all five and roll on")."""
    now = client.get("/api/advice", params={"dice": "44411", "rolls_left": 0}).json()
    for rolls_left in (1, 2):
        body = client.get("/api/advice", params={"dice": "44411", "rolls_left": rolls_left}).json()
        stops = [o for o in body["options"] if "stop" in o]
        assert stops == [
            {"stop": True, "category": "full_house", "points": 25, "value": now["state_value"]}
        ]
        assert all(len(o["keep"]) < 5 for o in body["options"] if "keep" in o)
    for params in (
        {"dice": "1234"},
        {"dice": "12347"},
        {"scores": "twos=5", "dice": "12345"},
        {"scores": "nonsense", "dice": "12345"},
        {"dice": "12345", "rolls_left": 3},
        {"dice": "12345", "rolls_left": "x"},
    ):
        r = client.get("/api/advice", params=params)
        assert (r.status_code, error_code(r)) == (422, "invalid_request"), params


def test_health(client: TestClient) -> None:
    assert client.get("/api/health").json() == {"status": "ok"}


def test_openapi_documents_every_endpoint_and_docs_work_offline(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = {(p, m) for p, ops in spec["paths"].items() for m in ops}
    assert paths >= {
        ("/api/games", "post"),
        ("/api/games/current", "get"),
        ("/api/games/{game_id}", "get"),
        ("/api/games/{game_id}/roll", "post"),
        ("/api/games/{game_id}/score", "post"),
        ("/api/games/{game_id}/hint", "post"),
        ("/api/records", "get"),
        ("/api/advice", "get"),
        ("/api/health", "get"),
    }
    page = client.get("/docs")
    assert page.status_code == 200
    assert "<script" not in page.text  # works under the CSP, without a CDN
    assert "http://" not in page.text.replace("http://127.0.0.1", "")
    assert "https://" not in page.text
    for path, _ in paths:
        assert path in page.text
    assert client.get("/docs/style.css").headers["content-type"].startswith("text/css")


def test_static_front_end_is_served_from_the_same_origin(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    static = tmp_path / "static"
    (static / "js").mkdir(parents=True)
    (static / "index.html").write_text("<!doctype html><title>快艇骰子</title>", encoding="utf-8")
    (static / "js" / "app.js").write_text("export const x = 1;\n")
    (static / "app.css").write_text("body{}\n")
    client = make_client(static_dir=static)
    for path in ("/", "/rules", "/game", "/lobby"):
        r = client.get(path)
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/html")
        assert "快艇骰子" in r.text
    js = client.get("/js/app.js")
    assert js.headers["content-type"].startswith("text/javascript")
    assert client.get("/app.css").headers["content-type"].startswith("text/css")
    assert client.get("/../pyproject.toml").status_code == 404
    assert client.get("/js/missing.js").status_code == 404


def test_an_installation_without_the_browser_game_fails_at_startup(tmp_path: Path) -> None:
    from yahtzee.web import Settings, Wiring, create_app

    with pytest.raises(FileNotFoundError, match=r"index\.html does not exist"):
        create_app(Settings(db=tmp_path / "x.db"), Wiring(static_dir=tmp_path / "nothing"))


def test_replay_rebuilds_the_same_position(api: Api) -> None:
    game = api.roll(api.play_turn(api.new("vs_computer")))
    hint = api.ok(game, "hint")
    service = _service(api)
    rebuilt = log.replay(on_app_loop(api.client, service.storage.events, game["id"]))
    assert rebuilt.hints_left == hint["game"]["hints_left"]
    assert rebuilt.dice is not None
    assert list(rebuilt.dice.values) == hint["game"]["dice"]


class _BuggyPlayer:
    """By turn: keeps a face the dice lack; keeps rolling past the last roll; picks a used
    box. Each is an illegal decision the server must replace, never fail on."""

    name = "expert"

    def decide(self, position: Position) -> Decision:
        card, dice = position.card, position.dice
        bug = card.filled_count % 3
        if bug == 0:
            return Keep((next(f for f in range(1, 7) if f not in dice.values),))
        if bug == 1:
            return Keep(())
        filled = [c for c in CATEGORIES if not card.is_open(c)]
        return Score(filled[0])


def test_a_buggy_computer_player_cannot_break_the_humans_request(
    make_client: Callable[..., TestClient],
) -> None:
    api = Api(make_client(players=lambda _name: _BuggyPlayer()))
    game = api.play_to_end(api.new("vs_computer"))
    assert game["status"] == "finished"
    assert None not in game["players"]["computer"]["boxes"].values()
    _assert_stored_equals_replay(api, game)


def test_p4_turns_list_every_finished_turn_of_both_players(api: Api) -> None:
    """P4: the game's ``turns`` is the turn log: round, player, dice, box, points, in order."""
    game = api.new("vs_computer", "novice")
    assert game["turns"] == []
    for round_ in (1, 2, 3):
        rolled = api.roll(game)
        box = next(c for c, o in rolled["preview"].items() if o["allowed"])
        game = api.score(rolled, box)
        assert len(game["turns"]) == 2 * round_
        mine, computer = game["turns"][-2:]
        assert mine == {
            "round": round_,
            "seat": 0,
            "player": "human",
            "dice": rolled["dice"],
            "category": box,
            "points": game["players"]["human"]["boxes"][box],
            "yahtzee_bonus": 0,
        }
        last = game["computer_turn"]["steps"][-1]
        assert computer["round"] == round_
        assert (computer["seat"], computer["player"]) == (1, "computer")
        assert (computer["dice"], computer["category"], computer["points"]) == (
            last["dice"],
            last["category"],
            last["points"],
        )
    # The same log after a reload (rebuilt from the stored events).
    assert api.get(game["id"])["turns"] == game["turns"]
    assert api.client.get("/api/games/current").json()["turns"] == game["turns"]


def _legacy_game(api: Api, restarts: int) -> tuple[str, int]:
    """A game as an older version stored it: a roll, then ``restarts`` restart_turn events
    (what each ``POST /resume`` wrote), then another roll."""
    service = _service(api)
    game = api.roll(api.play_turn(api.new("vs_computer", "novice")))
    stored = on_app_loop(api.client, service.storage.get_game, game["id"])
    assert stored is not None
    legacy: list[log.Event] = [log.RestartTurn()] * restarts
    roll = log.Roll(0, (False,) * 5, (6, 6, 6, 6, 5))

    async def append() -> GameRecord:
        assert stored is not None
        return await service.storage.append(stored, [*legacy, roll], status=Status.IN_PROGRESS)

    after = on_app_loop(api.client, append)
    return str(game["id"]), after.version


@pytest.mark.parametrize("restarts", [2, 3000])
def test_f1_legacy_logs_with_restart_turn_still_replay(
    make_client: Callable[..., TestClient], tmp_path: Path, restarts: int
) -> None:
    """Existing databases keep their games: legacy restart_turn events replay as before
    (3000 of them, beyond the rules' bound, take the off-the-event-loop path)."""
    first = Api(make_client(db=tmp_path / "legacy.db"))
    game_id, version = _legacy_game(first, restarts)
    later = Api(make_client(db=tmp_path / "legacy.db"))  # a restart: nothing cached
    later.client.cookies.update(first.client.cookies)
    game = later.client.get("/api/games/current").json()
    assert game["id"] == game_id
    assert game["version"] == version
    assert (game["dice"], game["rolls_left"], game["round"]) == ([6, 6, 6, 6, 5], 2, 2)
    _assert_stored_equals_replay(later, game)
    # It plays on; nothing new is ever a restart_turn.
    game = later.play_turn(later.roll(game, [True] * 4 + [False]))
    assert game["round"] == 3
    kinds = [e.kind for e in on_app_loop(later.client, _service(later).storage.events, game_id)]
    assert kinds.count("restart_turn") == restarts
