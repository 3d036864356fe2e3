"""T1–T4 and T6 through the API: table games (多人同屏) of two to six seats."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee import log
from yahtzee.game import Mode, SeatKind
from yahtzee.rules import Category, Dice, Scorecard

from .helpers import ALL_CATEGORIES, Api, error_code

HOSTILE = "<img src=x>"
FAMILY = [
    {"kind": "human", "name": "小明"},
    {"kind": "computer", "difficulty": "expert"},
    {"kind": "human", "name": "妈妈"},
]


def _table(api: Api, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    r = api.client.post("/api/games", json={"mode": "table", "seats": seats, **extra})
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    return game


def _play_turn(api: Api, game: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The person on turn rolls once or twice and writes a random allowed box."""
    game = api.roll(game)
    if rng.random() < 0.5:
        game = api.roll(game, [rng.random() < 0.5 for _ in range(4)] + [False])
    seat = game["seats"][game["turn"]]
    open_boxes = [c for c in ALL_CATEGORIES if seat["scores"][c] is None]
    allowed = [c for c in open_boxes if game["preview"][c]["allowed"]]
    return api.score(game, rng.choice(allowed))


def _recomputed(turns: list[dict[str, Any]], seat: int) -> Scorecard:
    """Seat ``seat``'s card rebuilt by the rules from the turn log (dice and box)."""
    card = Scorecard()
    for t in turns:
        if t["seat"] == seat:
            card = card.score(Category(t["category"]), Dice.of(tuple(t["dice"])))
    return card


def test_t1_a_family_table_starts_with_its_seats(api: Api) -> None:
    game = _table(api, FAMILY)
    assert game["mode"] == "table"
    assert game["turn"] == 0
    assert game["players"] is None
    assert [s["kind"] for s in game["seats"]] == ["human", "computer", "human"]
    assert [s["name"] for s in game["seats"]] == ["小明", None, "妈妈"]
    assert [s["difficulty"] for s in game["seats"]] == [None, "expert", None]
    assert [s["hints_left"] for s in game["seats"]] == [3, None, 3]
    assert all(s["total"] == 0 and s["index"] == i for i, s in enumerate(game["seats"]))
    assert game["ranking"] is None


@pytest.mark.parametrize(
    "seats",
    [
        [{"kind": "human", "name": "小明"}],
        [{"kind": "human", "name": str(i)} for i in range(7)],
        [{"kind": "computer", "difficulty": "expert"}] * 3,
        [{"kind": "human", "name": "小明"}, {"kind": "human", "name": " 小明 "}],
        [{"kind": "human", "name": "小明"}, {"kind": "human", "name": "\u200b"}],
        [
            {"kind": "human", "name": "小明"},
            {"kind": "human", "name": "一二三四五六七八九十一二三"},
        ],
        [{"kind": "human", "name": "小明"}, {"kind": "computer", "difficulty": "god"}],
        [{"kind": "human", "name": "小明"}, {"kind": "alien"}],
        None,
    ],
)
def test_t1_bad_seats_are_422_invalid_seats(api: Api, seats: Any) -> None:
    r = api.client.post("/api/games", json={"mode": "table", "seats": seats})
    assert r.status_code == 422, r.text
    assert error_code(r) == "invalid_seats"
    assert r.json()["error"]["message"]
    # Nothing was started: the player can still start a game.
    assert api.client.get("/api/games/current").status_code == 404


def test_t1_seats_belong_to_table_games_only(api: Api) -> None:
    r = api.client.post("/api/games", json={"mode": "solo", "seats": FAMILY})
    assert (r.status_code, error_code(r)) == (422, "invalid_seats")


def test_t2_solo_and_vs_games_carry_seats_and_turn_and_keep_their_fields(api: Api) -> None:
    solo = api.new("solo")
    assert solo["turn"] == 0
    assert [s["kind"] for s in solo["seats"]] == ["human"]
    assert solo["players"]["human"]["total"] == 0
    vs = api.new("vs_computer", "novice", replace=True)
    assert [(s["kind"], s["difficulty"]) for s in vs["seats"]] == [
        ("human", None),
        ("computer", "novice"),
    ]
    vs = api.score(api.roll(vs), "chance")
    assert vs["computer_turn"] is not None
    assert vs["seats"][1]["total"] == vs["players"]["computer"]["total"]
    assert vs["seats"][0]["scores"] == vs["players"]["human"]["boxes"]
    assert [t["seat"] for t in vs["turns"]] == [0, 1]


def test_t3_computers_seated_first_play_before_the_first_person(api: Api) -> None:
    seats = [
        {"kind": "computer", "difficulty": "novice"},
        {"kind": "computer", "difficulty": "intermediate"},
        {"kind": "human", "name": "妈妈"},
    ]
    game = _table(api, seats)
    assert game["turn"] == 2
    assert [t["seat"] for t in game["computer_turns"]] == [0, 1]
    assert all(t["steps"][-1]["action"] == "score" for t in game["computer_turns"])
    assert [sum(v is not None for v in s["scores"].values()) for s in game["seats"]] == [1, 1, 0]
    # The person plays; then both computers play round 2 in the same response.
    game = api.score(api.roll(game), "chance")
    assert game["turn"] == 2
    assert [(t["seat"], t["round"]) for t in game["computer_turns"]] == [(0, 2), (1, 2)]


def test_t3_two_people_in_a_row_and_a_computer_last(api: Api) -> None:
    game = _table(api, [FAMILY[2], {"kind": "human", "name": "爸爸"}, FAMILY[1]])
    assert game["turn"] == 0
    game = api.score(api.roll(game), "chance")
    assert (game["turn"], game["computer_turns"]) == (1, [])
    # The second person acts for seat 1; seat 0's hints are its own.
    game = api.roll(game)
    hinted = api.ok(game, "hint")
    assert [s["hints_left"] for s in hinted["game"]["seats"]] == [3, 2, None]
    game = api.score(hinted["game"], "chance")
    assert game["turn"] == 0
    assert [t["seat"] for t in game["computer_turns"]] == [2]


def test_t3_each_person_has_three_hints(api: Api) -> None:
    game = _table(api, [{"kind": "human", "name": "a"}, {"kind": "human", "name": "b"}])
    game = api.roll(game)
    for _ in range(3):
        game = api.ok(game, "hint")["game"]
    r = api.post(game, "hint")
    assert (r.status_code, error_code(r)) == (409, "illegal_action")
    game = api.score(game, "chance")
    game = api.roll(game)
    assert api.ok(game, "hint")["game"]["seats"][1]["hints_left"] == 2


@pytest.mark.parametrize("seats", [6, 4])
def test_t4_a_whole_table_game_ends_with_its_ranking(api: Api, seats: int) -> None:
    """People (one with a hostile name) and computers of every level to the end: every
    seat's card is what the rules make of its turns, the log is within its bound (F1), the
    ranking orders the totals with shared places, and the records are untouched (T6)."""
    layout = [
        {"kind": "human", "name": HOSTILE},
        {"kind": "computer", "difficulty": "expert"},
        {"kind": "human", "name": "妈妈"},
        {"kind": "computer", "difficulty": "novice"},
        {"kind": "human", "name": "小明"},
        {"kind": "computer", "difficulty": "intermediate"},
    ][:seats]
    before = api.client.get("/api/records").json()
    game = _table(api, layout)
    rng = random.Random(seats)
    while game["status"] == "in_progress":
        game = _play_turn(api, game, rng)
    assert game["status"] == "finished"
    assert game["result"] == "table"
    assert game["seats"][0]["name"] == HOSTILE  # text, exactly as typed
    kinds = [SeatKind(s["kind"]) for s in game["seats"]]
    assert game["version"] <= log.max_events(kinds, Mode.TABLE)
    for seat in game["seats"]:
        card = _recomputed(game["turns"], seat["index"])
        assert card.is_complete
        assert seat["total"] == card.total
        assert seat["upper_bonus"] == card.upper_bonus
        assert seat["yahtzee_bonus"] == card.yahtzee_bonus
    totals = [s["total"] for s in game["seats"]]
    ranking = game["ranking"]
    assert sorted(p["seat"] for p in ranking) == list(range(seats))
    assert [p["total"] for p in ranking] == sorted(totals, reverse=True)
    for p in ranking:
        assert p["place"] == 1 + sum(t > p["total"] for t in totals)
    after = api.client.get("/api/records").json()
    assert (after["best_score"], after["wins"], after["losses"], after["draws"]) == (
        before["best_score"],
        before["wins"],
        before["losses"],
        before["draws"],
    )
    assert after["recent"][0]["id"] == game["id"]
    assert after["recent"][0]["mode"] == "table"


def test_t3_continue_and_reload_mid_turn_of_the_third_seat(
    make_client: Callable[..., TestClient],
) -> None:
    """The third person has rolled twice: 继续游戏 on a fresh server (the position rebuilt
    from the log) shows the same seat, dice, rolls and hints."""
    first = make_client()
    api = Api(first)
    people = [{"kind": "human", "name": n} for n in ("a", "b", "c")]
    game = _table(api, people)
    game = api.score(api.roll(game), "chance")
    game = api.score(api.roll(game), "chance")
    game = api.roll(api.roll(game), [True, False, True, False, False])
    assert (game["turn"], game["rolls_left"]) == (2, 1)
    second = make_client()
    second.cookies.update(first.cookies)
    again = second.get("/api/games/current")
    assert again.status_code == 200, again.text
    shown = again.json()
    for key in ("turn", "dice", "rolls_left", "version", "seats", "preview", "round"):
        assert shown[key] == game[key], key
    # It plays on from there.
    game = Api(second).score(shown, "chance")
    assert game["turn"] == 0


def test_t3_restart_keeps_the_same_seats(api: Api) -> None:
    game = _table(api, FAMILY)
    again = _table(api, FAMILY, replace=True)
    assert again["id"] != game["id"]
    assert again["seats"] == game["seats"]
    assert api.get(game["id"])["status"] == "abandoned"


def _finished_table(api: Api, seats: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    game = _table(api, seats)
    rng = random.Random(seed)
    while game["status"] == "in_progress":
        game = _play_turn(api, game, rng)
    return game


PAIR_AND_NOVICE = [
    {"kind": "human", "name": "a"},
    {"kind": "human", "name": "b"},
    {"kind": "computer", "difficulty": "novice"},
]


def test_t5_the_meter_gives_every_seat_its_chance_of_first_place(api: Api) -> None:
    """Before any move a person and two 高手 are a third each, a person and five 高手 a
    sixth each (T5's symmetry values); mid-game the figures still sum to 1."""
    expert = {"kind": "computer", "difficulty": "expert"}
    game = _table(api, [{"kind": "human", "name": "a"}, expert, expert])
    meter = api.client.get(f"/api/games/{game['id']}/meter").json()
    assert meter["win_probabilities"] == pytest.approx([1 / 3] * 3, abs=1e-4)
    assert meter["seat"] == 0
    game = _table(api, [{"kind": "human", "name": "a"}, *[expert] * 5], replace=True)
    meter = api.client.get(f"/api/games/{game['id']}/meter").json()
    assert meter["win_probabilities"] == pytest.approx([1 / 6] * 6, abs=1e-4)
    game = _table(api, PAIR_AND_NOVICE, replace=True)
    rng = random.Random(1)
    for _ in range(4):
        game = _play_turn(api, game, rng)
    game = api.roll(game)
    meter = api.client.get(f"/api/games/{game['id']}/meter").json()
    assert meter["seat"] == game["turn"]
    assert abs(sum(meter["win_probabilities"]) - 1) <= 0.001
    assert meter["win_probability"] == meter["win_probabilities"][game["turn"]]


def test_t6_review_any_persons_seat_and_table_records_apart(api: Api) -> None:
    game = _finished_table(api, PAIR_AND_NOVICE, 7)
    gid = game["id"]
    first = api.client.get(f"/api/games/{gid}/review")
    assert first.status_code == 200, first.text
    review = first.json()
    assert review["seat"] == 0
    assert review["mode"] == "table"
    assert [s["name"] for s in review["seats"]] == ["a", "b", None]
    assert [s["final_score"] for s in review["seats"]] == [s["total"] for s in game["seats"]]
    places = {p["seat"]: p["place"] for p in game["ranking"]}
    assert [s["place"] for s in review["seats"]] == [places[i] for i in range(3)]
    assert len(review["timeline"]) == 14
    for point in review["timeline"]:
        chances = point["win_probabilities"]
        assert len(chances) == 3
        assert abs(sum(chances) - 1) <= 0.001
        assert point["win_probability"] == chances[0]
    top = max(s["total"] for s in game["seats"])
    winners = [i for i, s in enumerate(game["seats"]) if s["total"] == top]
    assert review["timeline"][-1]["win_probabilities"] == pytest.approx(
        [1 / len(winners) if i in winners else 0 for i in range(3)], abs=1e-4
    )
    second = api.client.get(f"/api/games/{gid}/review", params={"seat": 1}).json()
    assert second["seat"] == 1
    assert second["final_score"] == game["seats"][1]["total"]
    assert second["timeline"][5]["win_probability"] == review["timeline"][5]["win_probabilities"][1]
    for bad in (2, 5):
        r = api.client.get(f"/api/games/{gid}/review", params={"seat": bad})
        assert (r.status_code, error_code(r)) == (422, "invalid_seats")
    # The lobby's recent game and 统计, apart from solo and vs.
    recent = api.client.get("/api/records").json()["recent"][0]
    assert (recent["mode"], recent["seats"]) == ("table", 3)
    assert recent["place"] == min(places[0], places[1])
    stats = api.client.get("/api/stats").json()
    assert stats["table"]["games"] == 1
    people = {p["name"]: p for p in stats["table"]["people"]}
    assert set(people) == {"a", "b"}
    assert people["a"]["places"] == {str(places[0]): 1}
    assert people["b"]["mean"] == game["seats"][1]["total"]
    assert stats["solo"]["games"] == 0
    assert all(v["games"] == 0 for v in stats["vs"].values())


def test_f2_a_table_in_progress_is_named_when_another_game_starts(api: Api) -> None:
    _table(api, FAMILY)
    r = api.client.post("/api/games", json={"mode": "solo"})
    assert (r.status_code, error_code(r)) == (409, "game_in_progress")
    assert "多人同屏（第 1 回合）" in r.json()["error"]["message"]
