"""``/api/puzzles`` (练习, L6-L8) on SQLite and PostgreSQL: serving, exact grading, one
answer per serving, stale and hostile answers, the player's own mistakes, themes,
「练习这一步」, ratings and the schedule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee.review import review_events
from yahtzee.storage import Storage
from yahtzee.training.bank import decision_position, mistakes
from yahtzee.training.puzzle import Answer, PuzzlePosition, grade, options_of

from .helpers import Api, error_code, on_app_loop

pytestmark = pytest.mark.usefixtures("table")


def next_puzzle(client: TestClient, **params: Any) -> dict[str, Any]:
    r = client.get("/api/puzzles/next", params=params)
    assert r.status_code == 200, r.text
    puzzle: dict[str, Any] = r.json()["puzzle"]
    return puzzle


def position_of(puzzle: dict[str, Any]) -> PuzzlePosition:
    scores = ",".join(f"{k}={v}" for k, v in puzzle["scores"].items())
    if puzzle["yahtzee_bonus"]:
        scores += f",yahtzee_bonus={puzzle['yahtzee_bonus']}"
    dice = "".join(map(str, puzzle["dice"]))
    held = "".join(map(str, puzzle["held"]))
    return PuzzlePosition.parse(f"{scores}|{dice}|{puzzle['rolls_left']}|{held}")


def answer(client: TestClient, puzzle: dict[str, Any], body: dict[str, Any]) -> Any:
    return client.post(f"/api/puzzles/{puzzle['id']}/answer", json=body)


def best_body(puzzle: dict[str, Any]) -> dict[str, Any]:
    return Answer.of(options_of(position_of(puzzle))[0]).to_json()


def worst_body(puzzle: dict[str, Any]) -> dict[str, Any]:
    return Answer.of(options_of(position_of(puzzle))[-1]).to_json()


def storage_of(client: TestClient) -> Storage:
    store: Storage = client.app.state.service.storage  # type: ignore[attr-defined]
    return store


def test_a_bank_puzzle_is_graded_exactly_and_only_once(client: TestClient) -> None:
    r = client.get("/api/puzzles/next")
    assert r.status_code == 200
    body = r.json()
    puzzle = body["puzzle"]
    assert body["rating"] == 1500
    assert puzzle["source"] == "bank"
    assert puzzle["rating"] == 1500
    position = position_of(puzzle)
    options = options_of(position)
    chosen = options[-1]
    r = answer(client, puzzle, Answer.of(chosen).to_json())
    assert r.status_code == 200, r.text
    graded = r.json()
    expected = grade(position, Answer.of(chosen))
    assert graded["loss"] == pytest.approx(expected.loss, abs=1e-4)
    assert graded["mark"] == expected.mark
    assert [o["value"] for o in graded["options"]] == [round(o.value, 4) for o in options]
    assert graded["best"]["value"] == round(options[0].value, 4)
    assert graded["explanation"]
    assert graded["options"][0]["loss"] == 0
    # A wrong answer: the player's rating goes down; the difficulty shown is the one
    # shown with the puzzle (L14).
    assert graded["puzzle_rating"] == 1500
    if expected.mark in ("mistake", "blunder"):
        assert graded["rating"] < 1500
        assert graded["rating_change"] < 0
    again = answer(client, puzzle, Answer.of(options[0]).to_json())
    assert again.status_code == 409
    assert error_code(again) == "already_answered"


def test_a_best_answer_raises_the_rating(client: TestClient) -> None:
    puzzle = next_puzzle(client)
    r = answer(client, puzzle, best_body(puzzle))
    assert r.status_code == 200
    assert r.json()["mark"] == "best"
    assert r.json()["rating"] > 1500 == r.json()["puzzle_rating"]
    assert r.json()["explanation"][0] == "答对了！这是最好的选择。"
    progress = client.get("/api/puzzles/progress").json()
    assert progress["answers"] == 1
    assert progress["marks"]["best"] == 1
    assert progress["rating"] == r.json()["rating"]
    assert progress["rating_history"][-1]["rating"] == r.json()["rating"]


def test_l14_the_difficulty_shown_before_is_the_one_after_and_new_ratings_settle(
    client: TestClient,
) -> None:
    """L14: 「难度分」 shown with the puzzle is the one the answer is rated against and
    shows after; a new rating (Glicko-2 RD above SETTLED_RD) is 「定级中」."""
    from yahtzee.training.progress import SETTLED_RD, Glicko, rate

    first = client.get("/api/puzzles/next").json()
    assert first["rating_settling"] is True
    puzzle = first["puzzle"]
    assert puzzle["rating_settling"] is True
    shown = puzzle["rating"]
    graded = answer(client, puzzle, worst_body(puzzle)).json()
    assert graded["puzzle_rating"] == shown
    assert graded["puzzle_rating_settling"] is True
    assert graded["rating_settling"] is True
    player, _ = rate(Glicko(), Glicko(rating=shown), graded["mark"])
    assert graded["rating"] == round(player.rating)
    # After enough answers (two right, one wrong) the rating settles.
    for i in range(60):
        p = next_puzzle(client)
        g = answer(client, p, best_body(p) if i % 3 else worst_body(p)).json()
        if not g["rating_settling"]:
            break
    assert not g["rating_settling"]
    assert client.get("/api/puzzles/progress").json()["rating_settling"] is False
    assert SETTLED_RD == 110


def test_stale_and_foreign_answers_are_not_found(client: TestClient) -> None:
    first = next_puzzle(client)
    second = next_puzzle(client)  # the first one is stale now
    r = answer(client, first, best_body(first))
    assert r.status_code == 404
    assert error_code(r) == "not_found"
    assert client.post("/api/puzzles/nope/answer", json={"keep": "stop"}).status_code == 404
    # Another browser (its own cookie) cannot answer this player's puzzle.
    other = TestClient(client.app)
    r = answer(other, second, best_body(second))
    assert r.status_code == 404
    # The player's own current one still works.
    assert answer(client, second, best_body(second)).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"keep": [7]},
        {"keep": [1, 2, 3, 4, 5]},
        {"keep": "all"},
        {"keep": ["1"]},
        {"keep": [True]},
        {"category": "sevens"},
        {"keep": [1], "category": "ones"},
        {"keep": "stop", "extra": 1},
    ],
)
def test_hostile_answers_are_refused_and_the_puzzle_stays_answerable(
    client: TestClient, body: dict[str, Any]
) -> None:
    puzzle = next_puzzle(client)
    r = answer(client, puzzle, body)
    assert r.status_code == 422, r.text
    assert error_code(r) == "invalid_request"
    assert answer(client, puzzle, best_body(puzzle)).status_code == 200


def test_answers_that_are_not_options_are_illegal(client: TestClient) -> None:
    puzzle = next_puzzle(client)
    position = position_of(puzzle)
    if position.rolls_left:
        missing = next(f for f in range(1, 7) if f not in position.dice.values)
        bad: dict[str, Any] = {"keep": [missing]}
    else:
        bad = {"keep": "stop"}
    r = answer(client, puzzle, bad)
    assert r.status_code == 409
    assert error_code(r) == "illegal_action"
    assert answer(client, puzzle, best_body(puzzle)).status_code == 200


def test_a_theme_gives_puzzles_of_that_theme(client: TestClient) -> None:
    for theme in ("straights", "顺子", "zero"):
        puzzle = next_puzzle(client, theme=theme)
        assert {"straights": "straights", "顺子": "straights", "zero": "zero"}[theme] in puzzle[
            "themes"
        ]
    r = client.get("/api/puzzles/next", params={"theme": "<b>x</b>"})
    assert r.status_code == 422
    assert error_code(r) == "invalid_request"


async def _events(storage: Storage, game_id: str) -> list[Any]:
    return list(await storage.events(game_id))


def test_a_mistake_from_a_played_game_is_served(client: TestClient, api: Api) -> None:
    game = api.play_to_end(api.new())  # first allowed box each turn: mistakes aplenty
    r = client.get(f"/api/games/{game['id']}/review")
    assert r.status_code == 200
    lost = [d for d in r.json()["decisions"] if d["loss"] >= 1]
    assert lost
    puzzle = next_puzzle(client)
    assert puzzle["source"] == "mine"
    assert puzzle["game_id"] == game["id"]
    position = position_of(puzzle)
    served = [
        d
        for d in lost
        if d["dice"] == list(position.dice.values)
        and d["card"]["boxes"] == puzzle["scores"]
        and (d["rolls_left"] if d["kind"] == "keep" else 0) == position.rolls_left
    ]
    assert served, "the puzzle is one of the game's lost decisions"
    # Answered right, it goes to the back of the queue: the next one is another mistake.
    r = answer(client, puzzle, best_body(puzzle))
    assert r.status_code == 200
    following = next_puzzle(client)
    assert following["source"] == "mine"
    key = ("scores", "dice", "rolls_left")
    assert [following[k] for k in key] != [puzzle[k] for k in key]
    progress = client.get("/api/puzzles/progress").json()
    assert progress["mine"]["puzzles"] == len(lost)
    assert progress["mine"]["answered_right"] == 1


def test_practice_this_opens_a_decision_of_the_review(client: TestClient, api: Api) -> None:
    game = api.play_to_end(api.new())
    review = client.get(f"/api/games/{game['id']}/review").json()
    decision = review["decisions"][4]
    puzzle = next_puzzle(client, game=game["id"], decision=4)
    assert puzzle["source"] == "mine"
    assert puzzle["dice"] == decision["dice"]
    assert puzzle["scores"] == decision["card"]["boxes"]
    chosen = decision["chosen"]
    body = (
        {"keep": chosen["keep"]} if decision["kind"] == "keep" else {"category": chosen["category"]}
    )
    r = answer(client, puzzle, body)
    assert r.status_code == 200
    assert r.json()["loss"] == pytest.approx(decision["loss"], abs=1e-3)
    # Not the player's game, unknown, or no such decision.
    other = TestClient(client.app)
    assert other.get("/api/puzzles/next", params={"game": game["id"]}).status_code == 404
    r = client.get("/api/puzzles/next", params={"game": game["id"], "decision": 200})
    assert r.status_code == 409


def test_an_unfinished_game_cannot_be_practised(client: TestClient, api: Api) -> None:
    game = api.roll(api.new())
    r = client.get("/api/puzzles/next", params={"game": game["id"], "decision": 0})
    assert r.status_code == 409


def test_the_schedule_brings_a_miss_back_before_a_best_answer(client: TestClient, api: Api) -> None:
    """Two of the player's mistakes: one missed again, one answered best; after the
    learning step the miss is due first (FSRS), the best answer much later."""
    clock = [datetime(2026, 12, 1, 9, 0, tzinfo=UTC)]
    practice = client.app.state.practice  # type: ignore[attr-defined]
    practice._now = lambda: clock[0]
    api.play_to_end(api.new())
    first = next_puzzle(client)
    assert first["source"] == "mine"
    assert answer(client, first, worst_body(first)).json()["mark"] != "best"
    second = next_puzzle(client)
    assert second["source"] == "mine"
    assert answer(client, second, best_body(second)).json()["mark"] == "best"
    cards = {c.puzzle_key: c for c in on_app_loop(client, practice.store.cards, _player(client))}
    missed = next(c for c in cards.values() if c.answers == 1 and c.best_answers == 0)
    right = next(c for c in cards.values() if c.best_answers == 1)
    assert missed.due < right.due
    assert datetime.fromisoformat(missed.due) - clock[0] <= timedelta(minutes=10)
    # Later, when both the miss and the untouched ones are due, the oldest due comes first;
    # a best answer is not due again for at least a few minutes more than a miss.
    clock[0] = datetime.fromisoformat(missed.due) + timedelta(seconds=1)
    assert datetime.fromisoformat(right.due) > clock[0]


def _player(client: TestClient) -> str:
    """The one player of this test's app (read from the practice tables)."""
    db = client.app.state.practice.store.db  # type: ignore[attr-defined]

    async def read() -> Any:
        return await db.run(
            lambda tx: tx.one("SELECT player_id FROM practice_players"), write=False
        )

    player: str = on_app_loop(client, read)[0]
    return player


def test_decision_positions_carry_what_was_held(client: TestClient, api: Api) -> None:
    game = api.play_to_end(api.new())
    events = on_app_loop(client, _events, storage_of(client), game["id"])
    decisions = review_events(events).human.decisions
    for i, d in enumerate(decisions):
        p = decision_position(decisions, i)
        assert p.dice.values == d.dice
        assert p.card == d.card
    assert list(mistakes(decisions))


def test_the_themes_are_named_by_the_server(client: TestClient) -> None:
    body = client.get("/api/puzzles/themes").json()
    ids = [t["id"] for t in body["themes"]]
    assert ids == [
        "upper_bonus",
        "straights",
        "kinds",
        "full_house",
        "yahtzee",
        "zero",
        "chance",
        "endgame",
        "mixed",
    ]
    assert body["themes"][0]["name"] == "上区奖励"
    assert body["marks"]["best"] == "最佳"
    # G2: in the request's language
    english = client.get("/api/puzzles/themes", headers={"accept-language": "en"}).json()
    assert [t["id"] for t in english["themes"]] == ids
    assert english["themes"][0]["name"] == "Upper bonus"
    assert english["themes"][0]["help"].startswith("Get 63 points")
    assert english["marks"] == {
        "best": "Best",
        "inaccuracy": "Inaccuracy",
        "mistake": "Mistake",
        "blunder": "Blunder",
    }
    taiwan = client.get("/api/puzzles/themes", headers={"accept-language": "zh-TW"}).json()
    assert taiwan["themes"][0]["name"] == "上區獎勵"


def test_f15_a_decision_answered_once_is_served_again_only_as_review(
    client: TestClient, api: Api
) -> None:
    """Issue 28 item 8: serving the same decision again (``?game=G&decision=0``) and
    answering with the ``best`` shown last time moved a rating from 1338 to 1855 in 25
    answers. A puzzle counts for the rating once; served again it is a review: graded,
    scheduled, but no rating (the player's or the puzzle's) moves."""
    game = api.play_to_end(api.new())
    first = next_puzzle(client, game=game["id"], decision=0)
    graded = answer(client, first, worst_body(first)).json()
    rating = graded["rating"]
    for _ in range(5):
        again = next_puzzle(client, game=game["id"], decision=0)
        reply = answer(client, again, best_body(again))
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert body["mark"] == "best"  # graded as ever
        assert (body["rating"], body["rating_change"]) == (rating, 0)
        assert again["review"] is True
        assert body["review"] is True
    assert client.get("/api/puzzles/progress").json()["rating"] == rating
    assert (first["review"], graded["review"]) == (False, False)
    # Another decision of the game is a new puzzle: it counts.
    other = next_puzzle(client, game=game["id"], decision=1)
    assert other["review"] is False
    assert answer(client, other, best_body(other)).json()["rating_change"] != 0


def test_f15_a_bank_puzzle_answered_before_is_a_review_too(client: TestClient) -> None:
    first = next_puzzle(client)
    rated = answer(client, first, best_body(first)).json()
    practice = client.app.state.practice  # type: ignore[attr-defined]
    # The bank's draw cannot be steered from outside; serve the same puzzle again directly.
    key, position, rating = on_app_loop(client, _bank_puzzle, practice, first["id"])
    again = on_app_loop(
        client, practice._serve, _player(client), "bank", key, position, first["themes"], rating
    )
    body = answer(client, again["puzzle"], best_body(again["puzzle"])).json()
    assert (body["rating"], body["rating_change"]) == (rated["rating"], 0)
    after = on_app_loop(client, _bank_puzzle, practice, again["puzzle"]["id"])[2]
    assert after == rating  # the puzzle's own rating did not move either
    assert again["puzzle"]["review"] is True
    assert body["review"] is True


async def _bank_puzzle(practice: Any, serving_id: str) -> tuple[str, str, Any]:
    """The (key, position, rating) the bank served ``serving_id`` with."""
    store = practice.store
    row = await store.db.run(
        lambda tx: tx.one(
            "SELECT puzzle_key, position FROM practice_servings WHERE id = :id",
            {"id": serving_id},
        ),
        write=False,
    )
    key, position = row[0], row[1]
    return key, position, (await store.bank_ratings([key]))[key]
