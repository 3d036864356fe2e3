"""``GET /api/games/{id}/review`` (L1-L4): states, ownership, shape and the cache."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee import cli

from .helpers import ALL_CATEGORIES, Api


def client_review(api: Api, game_id: str, lang: str) -> Any:
    """The review object of ``game_id`` as a reader of ``lang`` gets it."""
    r = api.client.get(f"/api/games/{game_id}/review", headers={"accept-language": lang})
    assert r.status_code == 200
    return r.json()


def _play_to_end(api: Api, game: dict[str, Any]) -> dict[str, Any]:
    """Roll once per turn and score in the first open box (a weak but legal game)."""
    while game["status"] == "in_progress":
        game = api.roll(game)
        boxes = game["players"]["human"]["boxes"]
        allowed = game["preview"]
        category = next(c for c in ALL_CATEGORIES if boxes[c] is None and allowed[c]["allowed"])
        game = api.score(game, category)
    return game


def test_l1_solo_review_shape(api: Api) -> None:
    game = _play_to_end(api, api.new())
    r = api.client.get(f"/api/games/{game['id']}/review")
    assert r.status_code == 200, r.text
    review = r.json()
    assert review["game_id"] == game["id"]
    assert review["mode"] == "solo"
    assert review["difficulty"] is None
    assert review["start_value"] == 254.5878
    assert review["final_score"] == game["players"]["human"]["total"]
    assert (
        abs(review["start_value"] + review["luck"] - review["skill_loss"] - review["final_score"])
        < 0.01
    )
    assert 0 <= review["accuracy"] <= 100
    assert sum(review["counts"].values()) == len(review["decisions"])
    # Rolled once each turn and never chose to stop on purpose: every counted decision
    # is a "stop" keep or a box choice.
    kinds = {(d["kind"], d["roll"]) for d in review["decisions"]}
    assert kinds <= {("keep", 1), ("score", 1)}
    first = review["decisions"][0]
    assert first["chosen"] == {"keep": "stop", "value": first["chosen"]["value"]}
    assert abs(first["loss"] - (first["best"]["value"] - first["chosen"]["value"])) < 1e-3
    assert len(first["options"]) == 3
    assert [p["round"] for p in review["timeline"]] == list(range(14))
    # L12: a decision that was not best says why; a best one does not.
    for d in review["decisions"]:
        assert bool(d.get("why")) == (d["mark"] != "best"), d
    assert review["timeline"][0]["expected_final"] == 254.59
    assert review["timeline"][-1]["expected_final"] == review["final_score"]
    assert "computer" not in review


def test_l1_review_is_cached(api: Api) -> None:
    game = _play_to_end(api, api.new())
    url = f"/api/games/{game['id']}/review"
    first = api.client.get(url).json()
    assert api.client.app.state.reviews._cache  # type: ignore[attr-defined]
    assert api.client.get(url).json() == first


def test_l1_vs_review_has_the_computer(api: Api) -> None:
    game = _play_to_end(api, api.new("vs_computer", "novice"))
    review = api.client.get(f"/api/games/{game['id']}/review").json()
    assert review["mode"] == "vs_computer"
    assert review["difficulty"] == "novice"
    computer = review["computer"]
    assert set(computer) >= {"accuracy", "skill_loss", "luck"}
    assert computer["final_score"] == game["players"]["computer"]["total"]
    assert (
        abs(254.5878 + computer["luck"] - computer["skill_loss"] - computer["final_score"]) < 0.01
    )
    chances = [p["win_probability"] for p in review["timeline"]]
    assert len(chances) == 14
    assert 0.8 < chances[0] < 0.9  # vs 入门, before any move
    human, machine = game["players"]["human"]["total"], game["players"]["computer"]["total"]
    assert chances[-1] == (1.0 if human > machine else 0.0 if human < machine else 0.5)


def test_l1_review_refused_while_in_progress_or_abandoned(api: Api) -> None:
    game = api.roll(api.new())
    r = api.client.get(f"/api/games/{game['id']}/review")
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "illegal_action"
    assert "复盘" in r.json()["error"]["message"]
    api.new(replace=True)  # abandons the first game (F2)
    r = api.client.get(f"/api/games/{game['id']}/review")
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "illegal_action"


def test_l1_review_of_unknown_or_another_players_game_is_not_found(
    api: Api, make_client: Callable[..., TestClient]
) -> None:
    game = _play_to_end(api, api.new())
    assert api.client.get("/api/games/nope/review").status_code == 404
    other = make_client()
    r = other.get(f"/api/games/{game['id']}/review")
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"


def test_l1_cli_review_prints_the_same_review(
    api: Api, db: Path | str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``yahtzee review GAME_ID --db PATH|URL [--json]`` (issue 9 §6; S1 for the URL)."""
    game = _play_to_end(api, api.new())
    review = api.client.get(f"/api/games/{game['id']}/review").json()
    db = str(db)
    assert cli.main(["review", game["id"], "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == review
    assert cli.main(["review", game["id"], "--db", db, "--lang", "zh-Hans"]) == 0
    table = capsys.readouterr().out
    assert "准确率" in table
    assert f"终局 {review['final_score']} = 开局期望" in table
    assert table.count("\n") >= len(review["decisions"]) + 4
    # G2: the command speaks the language asked for, its --json the API's object in it
    assert cli.main(["review", game["id"], "--db", db, "--lang", "en"]) == 0
    english = capsys.readouterr().out
    assert f"final {review['final_score']} = start " in english
    assert not re.search(r"[\u4e00-\u9fff]", english)
    assert cli.main(["review", game["id"], "--db", db, "--json", "--lang", "en"]) == 0
    in_english = client_review(api, game["id"], "en")
    assert json.loads(capsys.readouterr().out) == in_english


def test_l1_cli_review_of_a_vs_game_prints_the_win_probabilities(
    api: Api, db: Path | str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command shows what the API returns: the chance to win after each round."""
    game = _play_to_end(api, api.new("vs_computer", "novice"))
    review = api.client.get(f"/api/games/{game['id']}/review").json()
    assert cli.main(["review", game["id"], "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == review
    assert cli.main(["review", game["id"], "--db", str(db), "--lang", "zh-Hans"]) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(x for x in lines if x.startswith("胜率"))
    shown = line.split(":", 1)[1].split()
    chances = [p["win_probability"] for p in review["timeline"]]
    assert shown == [f"{100 * p:.0f}%" for p in chances]
    assert len(shown) == 14


def test_l1_cli_review_errors(
    api: Api, db: Path | str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = api.roll(api.new())
    db = str(db)
    assert cli.main(["review", game["id"], "--db", db]) == 2
    assert "in_progress" in capsys.readouterr().err
    assert cli.main(["review", "nope", "--db", db]) == 2
    assert "no game 'nope'" in capsys.readouterr().err
    assert cli.main(["review", "x", "--db", str(tmp_path / "missing.db")]) == 2
    assert "no database" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()


def test_l1_review_and_stats_pages_are_the_app(api: Api) -> None:
    """``/review/{id}`` and ``/stats`` serve the single-page app; nothing deeper does."""
    for path in ("/stats", "/review/0123abcd"):
        r = api.client.get(path)
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/html")
        assert '<main id="main"' in r.text  # the page; its lazy views build their sections
    assert api.client.get("/review/a/b").status_code == 404
    assert api.client.get("/review/").status_code == 404


def test_l4_live_meter_solo_and_vs(api: Api, make_client: Callable[..., TestClient]) -> None:
    """``GET /api/games/{id}/meter``: expected final now; in vs games the chance to win."""
    game = api.new()
    url = f"/api/games/{game['id']}/meter"
    start = api.client.get(url).json()
    assert start == {"expected_final": 254.59, "win_probability": None}
    game = api.roll(game)
    rolled = api.client.get(url).json()
    assert rolled["expected_final"] != start["expected_final"]
    game = _play_to_end(api, game)
    assert api.client.get(url).json()["expected_final"] == game["players"]["human"]["total"]
    assert make_client().get(url).status_code == 404

    vs = api.new("vs_computer", "expert")
    vs_url = f"/api/games/{vs['id']}/meter"
    assert api.client.get(vs_url).json()["win_probability"] == 0.5
    vs = api.roll(vs)
    chance = api.client.get(vs_url).json()["win_probability"]
    assert 0 < chance < 1
    vs = _play_to_end(api, vs)
    human, machine = vs["players"]["human"]["total"], vs["players"]["computer"]["total"]
    final = api.client.get(vs_url).json()["win_probability"]
    assert final == (1.0 if human > machine else 0.0 if human < machine else 0.5)
