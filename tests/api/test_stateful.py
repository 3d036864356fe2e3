"""Stateful property test of the whole HTTP API: the server is the referee (F1, F2, U2-U7).

Two browsers (two cookies) call every endpoint in arbitrary orderings: new games with and
without ``replace``, ``current``, a game by id, rolls with arbitrary holds, scores of
arbitrary boxes with and without ``confirm_zero``, hints, undos, records, advice, the removed
``/resume`` path, stale versions, junk bodies, and each other's game ids. A model built
on :mod:`yahtzee.rules` predicts every answer. After every step, for every game either
browser ever started, the invariants are checked on the **stored event log** itself:

* no turn has more than three ``roll`` events (F1, R1);
* no game has more than three ``hint`` events (U4);
* no player has more than 13 ``score`` events (R2);
* the log is no longer than :func:`~yahtzee.log.max_events` of its seats
  (1 start + players x 13 turns x (3 rolls + 1 score) + 3 hints + 1 abandon, and in solo
  an undo and a new box for each turn but the last: 81 solo, 109 vs);
* an ``undo`` follows the ``score`` it takes back (撤销, once a turn, solo only);
* what the server shows equals the replay of the log, and the totals add up.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from yahtzee import log as events_log
from yahtzee.game import HINTS_PER_GAME, ROLLS_PER_TURN, ROUNDS, SEATS_OF, Mode, Status
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, score_options
from yahtzee.server.service import GameService
from yahtzee.server.views import game_json
from yahtzee.storage import is_postgres_url
from yahtzee.web import Settings, Wiring, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from .helpers import ALL_CATEGORIES, NO_LIMITS, TEST_SECRET, error_code, on_app_loop

holds = st.lists(st.booleans(), min_size=5, max_size=5)
junk = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.dictionaries(st.sampled_from(["version", "hold", "category", "x"]), st.integers()),
)
who = st.sampled_from([0, 1])
MODES = st.sampled_from(["solo", "vs_computer"])


def _card(boxes: dict[str, int | None], bonus: int) -> Scorecard:
    return Scorecard(tuple(boxes[c.value] for c in CATEGORIES), bonus)


class Browser:
    """One cookie jar, its game as last seen, and what its records must say."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.game: dict[str, Any] = {}
        self.finished: list[dict[str, Any]] = []
        # 撤销: the game as it was before the box just written, while it may be taken back
        self.undo_to: dict[str, Any] | None = None
        self.undone = False  # this turn took its one undo already

    @property
    def playing(self) -> bool:
        return bool(self.game) and self.game["status"] == "in_progress"


class WholeApi(RuleBasedStateMachine):
    """Two browsers, each with a model of its game (see the module docstring).

    Each example is a new app (a new process, as it were) and new browsers (new players)
    on the database ``db``, which the examples of one run share.
    """

    db: Path | str = ""

    def __init__(self) -> None:
        super().__init__()
        secret = TEST_SECRET if is_postgres_url(self.db) else None
        settings = Settings(db=self.db, sections=NO_LIMITS, secret=secret)
        # Its CPU jobs in threads of this process: a worker process per example would cost
        # 2 s each (the process pool itself is tested in test_costs.py).
        app = create_app(settings, Wiring(dice_seed=7, cpu_processes=False))
        first = TestClient(app)
        first.__enter__()  # the lifespan (players, solver table) runs once
        self.browsers = [Browser(first), Browser(TestClient(app))]
        self.service: GameService = app.state.service
        self.owners: dict[str, int] = {}  # every game ever started -> its browser

    def teardown(self) -> None:
        self.browsers[0].client.__exit__(None, None, None)

    # -- helpers --------------------------------------------------------------------------

    def post(self, b: Browser, action: str, body: Any, game: dict[str, Any] | None = None) -> Any:
        game = game if game is not None else b.game
        return b.client.post(f"/api/games/{game['id']}/{action}", json=body)

    def expect_refused(self, response: Any, status: int, code: str) -> None:
        assert response.status_code == status, response.text
        assert error_code(response) == code

    def accept(self, b: Browser, response: Any, key: str | None = None) -> dict[str, Any]:
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        game: dict[str, Any] = body[key] if key else body
        assert game["version"] > b.game["version"]
        b.game = game
        b.undo_to = None  # any accepted action but a score makes the last box final
        if game["status"] == "finished":
            b.finished.append(game)
        return body

    # -- starting games (F2) --------------------------------------------------------------

    @initialize(mode=MODES)
    def start(self, mode: str) -> None:
        self.new_game(0, mode, None)

    @rule(i=who, mode=MODES, replace=st.sampled_from([None, False, True]))
    def new_game(self, i: int, mode: str, replace: bool | None) -> None:
        b = self.browsers[i]
        old = b.game if b.playing else None
        body: dict[str, Any] = {"mode": mode, "difficulty": "novice"}
        if replace is not None:  # omitted: the default is false
            body["replace"] = replace
        r = b.client.post("/api/games", json=body)
        if old is not None and not replace:
            self.expect_refused(r, 409, "game_in_progress")  # F2: never lost silently
            assert f"第 {old['round']} 回合" in r.json()["error"]["message"]
            assert b.client.get(f"/api/games/{old['id']}").json() == old
            return
        assert r.status_code == 201, r.text
        b.game = r.json()
        b.undo_to, b.undone = None, False
        self.owners[b.game["id"]] = i
        assert (b.game["version"], b.game["rolls_left"], b.game["hints_left"]) == (1, 3, 3)
        if old is not None:
            abandoned = b.client.get(f"/api/games/{old['id']}").json()
            assert (abandoned["status"], abandoned["version"]) == ("abandoned", old["version"] + 1)

    # -- reads ----------------------------------------------------------------------------

    @rule(i=who)
    def current(self, i: int) -> None:
        b = self.browsers[i]
        r = b.client.get("/api/games/current")
        if b.playing:
            assert r.status_code == 200, r.text
            assert r.json() == b.game
        else:
            self.expect_refused(r, 404, "not_found")

    @rule(i=who)
    def records(self, i: int) -> None:
        b = self.browsers[i]
        r = b.client.get("/api/records")
        assert r.status_code == 200, r.text
        records = r.json()
        assert records["current_game"] == (b.game if b.playing else None)
        assert records["games_played"] == len(b.finished)
        solo = [g["players"]["human"]["total"] for g in b.finished if g["mode"] == "solo"]
        assert records["best_score"] == (max(solo) if solo else None)  # U7: solo only
        results = [g["result"] for g in b.finished]
        assert (records["wins"], records["losses"], records["draws"]) == (
            results.count("win"),
            results.count("loss"),
            results.count("draw"),
        )

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule(rolls_left=st.sampled_from([0, 1, 2, 3]))
    def advice(self, rolls_left: int) -> None:
        """A pure read: the advisor on the game's card and dice changes nothing."""
        b = self.browsers[0]
        boxes = b.game["players"]["human"]["boxes"]
        params = {"scores": ",".join(f"{c}={p}" for c, p in boxes.items() if p is not None)}
        if b.game["dice"] is not None:
            params["dice"] = "".join(map(str, b.game["dice"]))
        params["rolls_left"] = str(rolls_left)
        r = b.client.get("/api/advice", params=params)
        if rolls_left == 3:
            self.expect_refused(r, 422, "invalid_request")
        elif r.status_code != 200:  # e.g. a complete card: nothing left to advise
            assert r.status_code == 422, r.text
            error_code(r)

    # -- actions --------------------------------------------------------------------------

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule(hold=holds)
    def roll(self, hold: list[bool]) -> None:
        b = self.browsers[0]
        before = b.game
        r = self.post(b, "roll", {"version": before["version"], "hold": hold})
        first = before["dice"] is None
        over = not b.playing
        if over or before["rolls_left"] == 0 or all(hold) or (first and any(hold)):
            self.expect_refused(r, 409, "illegal_action")
            return
        game = self.accept(b, r)
        assert game["version"] == before["version"] + 1
        assert game["rolls_left"] == before["rolls_left"] - 1
        if not first:
            for i in range(5):
                if hold[i]:
                    assert game["dice"][i] == before["dice"][i]

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule()
    def roll_all(self) -> None:
        """Rolling without holding anything: legal on every roll, so rolls happen often."""
        self.roll([False] * 5)

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule(category=st.sampled_from(ALL_CATEGORIES), confirm=st.booleans())
    def score(self, category: str, confirm: bool) -> None:
        b = self.browsers[0]
        before = b.game
        body = {"version": before["version"], "category": category, "confirm_zero": confirm}
        r = self.post(b, "score", body)
        human = before["players"]["human"]
        if not b.playing or before["dice"] is None or human["boxes"][category] is not None:
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
        game = self.accept(b, r)
        if game["mode"] == "solo" and game["status"] == "in_progress" and not b.undone:
            b.undo_to = before
        b.undone = False
        assert game["undo"] == ({"seat": 0, "category": category} if b.undo_to else None)
        assert game["players"]["human"]["boxes"][category] == option.points
        gained = option.points + option.yahtzee_bonus + option.upper_bonus
        assert game["players"]["human"]["total"] == human["total"] + gained
        assert (game["dice"], game["rolls_left"]) == (None, 3)
        if game["mode"] == "vs_computer":
            assert game["computer_turn"]["steps"][-1]["action"] == "score"
            assert game["new_record"] is False  # U7: never in vs
        elif game["status"] == "finished":  # U7: above every earlier solo total
            earlier = [
                g["players"]["human"]["total"] for g in b.finished[:-1] if g["mode"] == "solo"
            ]
            total = game["players"]["human"]["total"]
            assert game["new_record"] is (not earlier or total > max(earlier))

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule()
    def undo(self) -> None:
        """撤销: only the box just written, in solo, until the next roll, once a turn."""
        b = self.browsers[0]
        before, back = b.game, b.undo_to
        r = self.post(b, "undo", {"version": before["version"]})
        if before["status"] == "abandoned":
            self.expect_refused(r, 409, "illegal_action")
        elif before["mode"] != "solo":
            self.expect_refused(r, 409, "undo_not_allowed")
        elif before["status"] == "finished":
            self.expect_refused(r, 409, "illegal_action")  # the last box is final
        elif back is None:
            self.expect_refused(r, 409, "nothing_to_undo")
        else:
            game = self.accept(b, r)
            b.undone = True
            assert game["version"] == before["version"] + 1
            for key in ("dice", "rolls_left", "hints_left", "players", "turns"):
                assert game[key] == back[key], key
            # The same preview, but the box written next is final (one undo a turn, U18).
            same = (
                {c: {**o, "final": True} for c, o in g["preview"].items()} for g in (back, game)
            )
            assert next(same) == next(same)
            assert all(o["final"] for o in game["preview"].values())

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule()
    def hint(self) -> None:
        b = self.browsers[0]
        before = b.game
        r = self.post(b, "hint", {"version": before["version"]})
        if not b.playing or before["dice"] is None or before["hints_left"] == 0:
            self.expect_refused(r, 409, "illegal_action")
            return
        body = self.accept(b, r, "game")
        assert b.game["hints_left"] == before["hints_left"] - 1
        assert (body["hold"] is None) != (body["category"] is None)

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule(version_offset=st.sampled_from([0, -1, 1]))
    def resume_is_gone(self, version_offset: int) -> None:
        """The removed /resume answers 410 gone and changes nothing (F1, U6)."""
        b = self.browsers[0]
        r = self.post(b, "resume", {"version": b.game["version"] + version_offset})
        self.expect_refused(r, 410, "gone")

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule(offset=st.sampled_from([-2, -1, 1, 5]), action=st.sampled_from(["roll", "hint", "score"]))
    def stale(self, offset: int, action: str) -> None:
        b = self.browsers[0]
        body: dict[str, Any] = {"version": b.game["version"] + offset}
        if action == "score":
            body["category"] = "chance"
        r = self.post(b, action, body)
        if b.game["version"] + offset < 0:
            self.expect_refused(r, 422, "invalid_request")
        else:
            self.expect_refused(r, 409, "stale_version")

    @precondition(lambda self: bool(self.browsers[0].game))
    @rule(body=junk, action=st.sampled_from(["roll", "score", "hint"]))
    def malformed(self, body: Any, action: str) -> None:
        r = self.post(self.browsers[0], action, body)
        if body is None:  # no body, so no Content-Type: not JSON (F3)
            assert r.status_code == 415, r.text
        else:
            assert r.status_code in (409, 422), r.text  # 409 when junk happens to be valid-ish
        error_code(r)

    @precondition(lambda self: bool(self.browsers[0].game) and bool(self.browsers[1].game))
    @rule(i=who, action=st.sampled_from(["get", "roll", "score", "hint"]))
    def foreign_game(self, i: int, action: str) -> None:
        """A browser acting on the other's game, with its right version: not found."""
        b, other = self.browsers[i], self.browsers[1 - i]
        if action == "get":
            r = b.client.get(f"/api/games/{other.game['id']}")
        else:
            body: dict[str, Any] = {"version": other.game["version"]}
            if action == "score":
                body.update(category="chance", confirm_zero=True)
            r = self.post(b, action, body, other.game)
        self.expect_refused(r, 404, "not_found")

    @precondition(lambda self: self.browsers[0].playing)
    @rule()
    def play_quick_turn(self) -> None:
        """Progress towards the end of the game, so that finished games are explored."""
        b = self.browsers[0]
        if b.game["dice"] is None:
            self.roll([False] * 5)
        allowed = [c for c, o in b.game["preview"].items() if o["allowed"]]
        self.score(allowed[0], True)

    @precondition(lambda self: self.browsers[0].playing)
    @rule()
    def play_longest_turn(self) -> None:
        """Three rolls and a hint where one is left: the turns that make the longest logs."""
        b = self.browsers[0]
        while b.game["rolls_left"]:
            self.roll([False] * 5)
            if b.game["hints_left"]:
                self.hint()
        allowed = [c for c, o in b.game["preview"].items() if o["allowed"]]
        self.score(allowed[-1], True)

    # -- invariants -----------------------------------------------------------------------

    @invariant()
    def every_stored_log_obeys_the_rules(self) -> None:
        """F1 on the log itself, for every game ever started, whatever the requests were."""
        storage = self.service.storage
        client = self.browsers[0].client
        for game_id, owner in self.owners.items():
            stored = on_app_loop(client, storage.get_game, game_id)
            assert stored is not None
            log = on_app_loop(client, storage.events, game_id)
            assert len(log) == stored.version
            assert len(log) <= events_log.max_events(
                SEATS_OF[Mode(stored.mode)], Mode(stored.mode)
            ), len(log)
            assert log[0].kind == "start"
            assert sum(e.kind == "abandon" for e in log) == (stored.status is Status.ABANDONED)
            assert sum(e.kind == "hint" for e in log) <= HINTS_PER_GAME
            rolls: dict[int, int] = {}
            scores: dict[int, int] = {}
            scored_after = 0  # the rolls of the turn whose box was just written
            for before, event in zip([None, *log], log, strict=False):
                assert event.kind in ("start", "roll", "score", "hint", "undo", "abandon"), event
                seat = getattr(event, "seat", -1)
                if event.kind == "roll":
                    rolls[seat] = rolls.get(seat, 0) + 1
                    assert rolls[seat] <= ROLLS_PER_TURN, (game_id, rolls)
                elif event.kind == "score":
                    scored_after, rolls[seat] = rolls.get(seat, 0), 0
                    scores[seat] = scores.get(seat, 0) + 1
                    assert scores[seat] <= ROUNDS, (game_id, scores)
                elif event.kind == "undo":  # right after its score: that turn goes on
                    assert before is not None, game_id
                    assert before.kind == "score", (game_id, before)
                    rolls[seat], scores[seat] = scored_after, scores[seat] - 1
            # The server's view equals the replay of the log.
            served = self.browsers[owner].client.get(f"/api/games/{game_id}").json()
            assert game_json(on_app_loop(client, self.service.replayed, game_id)) == served

    @invariant()
    def each_browser_sees_its_game_as_the_model_says(self) -> None:
        for b in self.browsers:
            if not b.game:
                continue
            served = b.client.get(f"/api/games/{b.game['id']}").json()
            assert served == b.game
            self.totals_and_counters_are_consistent(served)

    @staticmethod
    def totals_and_counters_are_consistent(game: dict[str, Any]) -> None:
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
        if game["mode"] == "vs_computer":
            assert game["new_record"] is False


SETTINGS = settings(
    max_examples=25,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_whole_api_state_machine(db: Path | str) -> None:
    """The state machine above, on SQLite and on PostgreSQL (S1)."""
    machine = type("WholeApiOnDb", (WholeApi,), {"db": db})
    run_state_machine_as_test(machine, settings=SETTINGS)
