"""Stateful property test: random valid and invalid API calls against a model.

The model tracks what the rules say the game must be (dice, rolls and hints left, both
cards, version, status) using :mod:`yahtzee.rules` directly; every response is compared
with it, and after every step the invariants are checked: the stored game equals the
model, equals the replay of its event log, and the totals add up.
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, score_options
from yahtzee.server import Settings, create_app
from yahtzee.server.service import GameService
from yahtzee.server.views import game_json

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from .helpers import ALL_CATEGORIES, NO_LIMITS, error_code

holds = st.lists(st.booleans(), min_size=5, max_size=5)
junk = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.dictionaries(st.sampled_from(["version", "hold", "category", "x"]), st.integers()),
)


def _card(boxes: dict[str, int | None], bonus: int) -> Scorecard:
    return Scorecard(tuple(boxes[c.value] for c in CATEGORIES), bonus)


class GameApi(RuleBasedStateMachine):
    """One browser playing one game at a time, with a model of the game."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="yahtzee-stateful-"))
        app = create_app(Settings(db=self.tmp / "g.db", dice_seed=7, limits=NO_LIMITS))
        self.client = TestClient(app)
        self.client.__enter__()
        self.service: GameService = app.state.service
        self.game: dict[str, Any] = {}

    def teardown(self) -> None:
        self.client.__exit__(None, None, None)
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers --------------------------------------------------------------------------

    def post(self, action: str, body: Any) -> Any:
        return self.client.post(f"/api/games/{self.game['id']}/{action}", json=body)

    @property
    def over(self) -> bool:
        return bool(self.game["status"] != "in_progress")

    def expect_refused(self, response: Any, status: int, code: str) -> None:
        assert response.status_code == status, response.text
        assert error_code(response) == code

    def accept(self, response: Any, key: str | None = None) -> dict[str, Any]:
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        game: dict[str, Any] = body[key] if key else body
        assert game["version"] > self.game["version"]
        self.game = game
        return body

    # -- rules ----------------------------------------------------------------------------

    @initialize(mode=st.sampled_from(["solo", "vs_computer"]))
    def start(self, mode: str) -> None:
        self.new_game(mode, False)

    @rule(mode=st.sampled_from(["solo", "vs_computer"]), replace=st.booleans())
    def new_game(self, mode: str, replace: bool) -> None:
        old = self.game.get("id")
        body = {"mode": mode, "difficulty": "novice", "replace": replace}
        r = self.client.post("/api/games", json=body)
        if old is not None and not self.over and not replace:
            self.expect_refused(r, 409, "game_in_progress")  # F2: never lost silently
            return
        assert r.status_code == 201
        self.game = r.json()
        assert (self.game["version"], self.game["rolls_left"], self.game["hints_left"]) == (1, 3, 3)
        if old is not None:
            status = self.client.get(f"/api/games/{old}").json()["status"]
            assert status in ("abandoned", "finished")

    @rule(hold=holds)
    def roll(self, hold: list[bool]) -> None:
        before = self.game
        r = self.post("roll", {"version": before["version"], "hold": hold})
        first = before["dice"] is None
        if self.over or before["rolls_left"] == 0 or all(hold) or (first and any(hold)):
            self.expect_refused(r, 409, "illegal_action")
            return
        game = self.accept(r)
        assert game["version"] == before["version"] + 1
        assert game["rolls_left"] == before["rolls_left"] - 1
        if not first:
            for i in range(5):
                if hold[i]:
                    assert game["dice"][i] == before["dice"][i]

    @rule()
    def roll_all(self) -> None:
        """Rolling without holding anything: legal on every roll, so rolls happen often."""
        self.roll([False] * 5)

    @rule(category=st.sampled_from(ALL_CATEGORIES), confirm=st.booleans())
    def score(self, category: str, confirm: bool) -> None:
        before = self.game
        r = self.post(
            "score", {"version": before["version"], "category": category, "confirm_zero": confirm}
        )
        human = before["players"]["human"]
        if self.over or before["dice"] is None or human["boxes"][category] is not None:
            self.expect_refused(r, 409, "illegal_action")
            return
        card = _card(human["boxes"], human["yahtzee_bonus"])
        options = score_options(card, Dice.of(before["dice"]))
        option = options[Category(category)]
        if not option.legal:
            self.expect_refused(r, 409, "illegal_action")
            return
        others = any(o.legal and o.points > 0 for o in options.values() if o is not option)
        needs = option.points == 0 and others
        assert before["preview"][category]["needs_confirmation"] is needs  # U2, as previewed
        if needs and not confirm:
            self.expect_refused(r, 409, "zero_needs_confirmation")
            return
        game = self.accept(r)
        assert game["players"]["human"]["boxes"][category] == option.points
        gained = option.points + option.yahtzee_bonus + option.upper_bonus
        assert game["players"]["human"]["total"] == human["total"] + gained
        assert (game["dice"], game["rolls_left"]) == (None, 3)
        if game["mode"] == "vs_computer":
            assert game["computer_turn"]["steps"][-1]["action"] == "score"

    @rule()
    def hint(self) -> None:
        before = self.game
        r = self.post("hint", {"version": before["version"]})
        if self.over or before["dice"] is None or before["hints_left"] == 0:
            self.expect_refused(r, 409, "illegal_action")
            return
        body = self.accept(r, "game")
        assert self.game["hints_left"] == before["hints_left"] - 1
        assert (body["hold"] is None) != (body["category"] is None)

    @rule()
    def resume(self) -> None:
        before = self.game
        r = self.post("resume", {"version": before["version"]})
        if self.over:
            self.expect_refused(r, 409, "illegal_action")
            return
        game = self.accept(r)
        assert (game["dice"], game["rolls_left"]) == (None, 3)
        assert game["players"] == before["players"]

    @rule(
        offset=st.sampled_from([-2, -1, 1, 5]), action=st.sampled_from(["roll", "hint", "resume"])
    )
    def stale(self, offset: int, action: str) -> None:
        r = self.post(action, {"version": self.game["version"] + offset})
        if self.game["version"] + offset < 0:
            self.expect_refused(r, 422, "invalid_request")
        else:
            self.expect_refused(r, 409, "stale_version")

    @rule(body=junk, action=st.sampled_from(["roll", "score", "hint", "resume"]))
    def malformed(self, body: Any, action: str) -> None:
        r = self.post(action, body)
        if body is None:  # no body, so no Content-Type: not JSON (F3)
            assert r.status_code == 415, r.text
        else:
            assert r.status_code in (409, 422), r.text  # 409 when junk happens to be valid-ish
        error_code(r)

    @precondition(lambda self: self.game.get("status") == "in_progress")
    @rule()
    def play_quick_turn(self) -> None:
        """Progress towards the end of the game, so that finished games are explored."""
        if self.game["dice"] is None:
            self.roll([False] * 5)
        allowed = [c for c, o in self.game["preview"].items() if o["allowed"]]
        self.score(allowed[0], True)

    # -- invariants -----------------------------------------------------------------------

    @invariant()
    def stored_game_equals_model_and_replay(self) -> None:
        if not self.game:
            return
        served = self.client.get(f"/api/games/{self.game['id']}").json()
        assert served == self.game
        stored = self.service.storage.get_game(self.game["id"])
        assert stored is not None
        assert game_json(self.service.replayed(self.game["id"])) == served

    @invariant()
    def totals_and_counters_are_consistent(self) -> None:
        if not self.game:
            return
        game = self.game
        assert 0 <= game["hints_left"] <= 3
        assert 0 <= game["rolls_left"] <= 3
        assert (game["dice"] is None) == (game["rolls_left"] == 3)
        filled = []
        for seat, card in game["players"].items():
            boxes = card["boxes"]
            upper = sum(boxes[c] or 0 for c in ALL_CATEGORIES[:6])
            lower = sum(boxes[c] or 0 for c in ALL_CATEGORIES[6:])
            assert card["upper_subtotal"] == upper
            assert card["upper_bonus"] == (35 if upper >= 63 else 0)
            assert card["lower_total"] == lower
            assert card["total"] == upper + card["upper_bonus"] + lower + card["yahtzee_bonus"]
            filled.append(sum(v is not None for v in boxes.values()))
            assert seat in ("human", "computer")
        assert len(set(filled)) == 1  # the computer always plays right after the human
        assert game["round"] == min(13, filled[0] + 1)
        assert (game["status"] == "finished") == (filled[0] == 13)
        assert game["current_player"] == "human"


TestGameApi = GameApi.TestCase
TestGameApi.settings = settings(
    max_examples=25,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
