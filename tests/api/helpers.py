"""Helpers shared by the API tests."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from yahtzee.serve_config import Limits

NO_HOLD = [False] * 5
# The rate limits off (F5), for tests that play at machine speed (see conftest.py).
NO_LIMITS = Limits(new_games_per_minute=0, new_players_per_minute=0, actions_per_second=0)
ALL_CATEGORIES = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yahtzee",
    "chance",
)


class Api:
    """A browser: one TestClient (one cookie jar) with helpers for the game endpoints."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def new(self, mode: str = "solo", difficulty: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"mode": mode}
        if difficulty is not None:
            body["difficulty"] = difficulty
        r = self.client.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        game: dict[str, Any] = r.json()
        return game

    def post(self, game: dict[str, Any], action: str, **body: Any) -> Any:
        body.setdefault("version", game["version"])
        return self.client.post(f"/api/games/{game['id']}/{action}", json=body)

    def ok(self, game: dict[str, Any], action: str, **body: Any) -> dict[str, Any]:
        r = self.post(game, action, **body)
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def roll(self, game: dict[str, Any], hold: list[bool] | None = None) -> dict[str, Any]:
        return self.ok(game, "roll", hold=hold or NO_HOLD)

    def score(self, game: dict[str, Any], category: str) -> dict[str, Any]:
        return self.ok(game, "score", category=category, confirm_zero=True)

    def get(self, game_id: str) -> dict[str, Any]:
        r = self.client.get(f"/api/games/{game_id}")
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def play_turn(self, game: dict[str, Any]) -> dict[str, Any]:
        """Roll once and write the dice in the first allowed box."""
        game = self.roll(game)
        allowed = [c for c, o in game["preview"].items() if o["allowed"]]
        return self.score(game, allowed[0])

    def play_to_end(self, game: dict[str, Any]) -> dict[str, Any]:
        while game["status"] == "in_progress":
            game = self.play_turn(game)
        return game


def error_code(response: Any) -> str:
    """The ``code`` of an error response, after checking the one error shape."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["message"], body
    code: str = body["error"]["code"]
    return code
