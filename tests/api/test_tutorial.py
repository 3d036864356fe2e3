"""新手教程 over the API (L10), on SQLite and PostgreSQL: the tutorial is a real game on the
server's fixed dice, its steps come true when played as they say, it never counts for
records or statistics, a new game replaces it without asking, and bad input is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from yahtzee.i18n import Lang, text

from .helpers import Api, error_code

NO_HOLD = [False] * 5


def _steps(client: TestClient) -> list[dict[str, Any]]:
    r = client.get("/api/tutorial")
    assert r.status_code == 200
    steps: list[dict[str, Any]] = r.json()["steps"]
    return steps


def _reached(game: dict[str, Any], until: dict[str, Any]) -> bool:
    return bool(
        game["round"] > until["round"]
        or (game["round"] == until["round"] and game["rolls_left"] <= until["rolls_left"])
    )


def play_steps(api: Api, game: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """Do what each step says, as the page does, checking the dice each step begins with.
    Returns the game after the last step and the dice seen at each step."""
    hold = list(NO_HOLD)
    seen: list[Any] = []
    for step in _steps(api.client):
        assert game["dice"] == step["dice"], (step["id"], game["dice"])
        seen.append(game["dice"])
        until = step["until"]
        if "round" in until:
            while not _reached(game, until):
                game = api.roll(game, hold if game["dice"] is not None else NO_HOLD)
        elif "hold" in until:
            hold = until["hold"]
        elif "hints_left" in until:
            advice = api.ok(game, "hint")
            game = advice["game"]
            assert advice["hold"] is not None, "the tutorial's hint is a keep"
            hold = advice["hold"]
            assert game["hints_left"] == until["hints_left"]
        elif "declined" in until:
            box = until["declined"]
            assert game["preview"][box]["points"] == 0
            assert game["preview"][box]["needs_confirmation"] is True
            r = api.post(game, "score", category=box)  # no confirm_zero: it asks
            assert r.status_code == 409
            assert error_code(r) == "zero_needs_confirmation"
            assert api.get(game["id"])["version"] == game["version"]  # nothing written
        elif "box" in until:
            game = api.ok(game, "score", category=until["box"])
            hold = list(NO_HOLD)
            assert game["players"]["human"]["boxes"][until["box"]] is not None
        else:
            assert "next" in until or "done" in until, until
    return game, seen


def test_l10_the_steps_come_true_on_the_servers_fixed_dice(
    make_client: Callable[..., TestClient],
) -> None:
    # Two servers with different random dice, two browsers: the same tutorial dice.
    dice = []
    for seed in (1, 2):
        api = Api(make_client(dice_seed=seed))
        game = api.new("tutorial")
        # one name per concept (issue 36): the tutorial is a kind of solo game
        assert (game["mode"], game["kind"]) == ("solo", "tutorial")
        assert game["difficulty"] is None
        assert game["hints_left"] == 3
        game, seen = play_steps(api, game)
        dice.append(seen)
        boxes = game["players"]["human"]["boxes"]
        assert boxes["sixes"] == 24
        assert boxes["large_straight"] == 40
        assert game["round"] == 3
        assert game["status"] == "in_progress"
        assert game["hints_left"] == 2
    assert dice[0] == dice[1]
    # The steps are short, child-sized, and at about ten.
    steps = _steps(api.client)
    assert 8 <= len(steps) <= 12
    assert all(len(s["text"]) <= 80 for s in steps)
    assert steps[-1]["until"] == {"done": True}
    assert {"roll", "hint", "cell-0-sixes", "upper-progress-0", "confirm-no"} <= {
        t for s in steps for t in s["target"]
    }


def test_l10_a_tutorial_played_to_the_end_counts_for_nothing(api: Api) -> None:
    tutorial = api.play_to_end(api.new("tutorial"))
    assert tutorial["status"] == "finished"
    assert tutorial["result"] == "solo"
    assert tutorial["new_record"] is False
    records = api.client.get("/api/records").json()
    assert records["games_played"] == 0
    assert records["best_score"] is None
    assert records["recent"] == []
    assert records["current_game"] is None
    stats = api.client.get("/api/stats").json()
    assert stats["solo"]["games"] == 0
    assert api.client.get("/api/puzzles/progress").json()["mine"]["puzzles"] == 0
    # Its review still works (it is a real game), and a solo game afterwards counts.
    assert api.client.get(f"/api/games/{tutorial['id']}/review").status_code == 200
    solo = api.play_to_end(api.new("solo"))
    assert solo["new_record"] is True
    records = api.client.get("/api/records").json()
    assert records["games_played"] == 1
    assert records["best_score"] == solo["players"]["human"]["total"]
    assert [g["id"] for g in records["recent"]] == [solo["id"]]


def test_l10_a_new_game_replaces_a_tutorial_without_asking(api: Api) -> None:
    tutorial = api.roll(api.new("tutorial"))
    current = api.client.get("/api/records").json()["current_game"]
    assert current["id"] == tutorial["id"]
    assert current["kind"] == "tutorial"
    solo = api.new("solo")  # no replace: a tutorial is not a game to lose
    assert api.get(tutorial["id"])["status"] == "abandoned"
    # A real game is kept, as ever: a tutorial over it asks first (F2).
    api.roll(solo)
    r = api.client.post("/api/games", json={"mode": "tutorial"})
    assert r.status_code == 409
    assert error_code(r) == "game_in_progress"
    assert "单人挑战" in r.json()["error"]["message"]
    assert api.new("tutorial", replace=True)["kind"] == "tutorial"
    assert api.get(solo["id"])["status"] == "abandoned"


def test_l10_skipping_abandons_the_tutorial(api: Api) -> None:
    game = api.roll(api.new("tutorial"))
    left = api.ok(game, "abandon")
    assert left["status"] == "abandoned"
    assert left["version"] == game["version"] + 1
    assert api.client.get("/api/games/current").status_code == 404
    assert api.client.get("/api/records").json()["current_game"] is None
    again = api.post(left, "abandon")
    assert again.status_code == 409
    assert error_code(again) == "illegal_action"
    # The log says why: an abandon event, and nothing is lost of what was played.
    assert api.get(game["id"])["dice"] == game["dice"]


def test_l10_bad_input_is_refused(api: Api, make_client: Callable[..., TestClient]) -> None:
    for body in ({"mode": "tutorials"}, {"mode": "tutorial", "replace": "yes"}):
        r = api.client.post("/api/games", json=body)
        assert r.status_code == 422, body
        assert error_code(r) == "invalid_request", body
    assert api.new("tutorial", "novice")["difficulty"] is None  # a level means nothing here
    game = api.client.get("/api/games/current").json()
    stale = api.post(game, "abandon", version=game["version"] + 5)
    assert stale.status_code == 409
    assert error_code(stale) == "stale_version"
    bad = api.post(game, "abandon", version="1")
    assert bad.status_code == 422
    assert error_code(bad) == "invalid_request"
    extra = api.post(game, "abandon", hold=NO_HOLD)
    assert extra.status_code == 422
    other = Api(make_client())  # another browser: not its game
    r = other.client.post(f"/api/games/{game['id']}/abandon", json={"version": game["version"]})
    assert r.status_code == 404
    assert error_code(r) == "not_found"
    finished = api.play_to_end(api.new("solo"))
    over = api.post(finished, "abandon")
    assert over.status_code == 409
    assert error_code(over) == "illegal_action"
    assert api.get(finished["id"])["status"] == "finished"
    config = api.client.get("/api/config").json()
    assert text(Lang.ZH_HANS, config["modes"]["tutorial"]) == "新手教程"
