"""T1/T3/T4 in the core: a table's seats, its turn order and bound, its ranking."""

from __future__ import annotations

import random

import pytest

from yahtzee import log
from yahtzee.dice import SeededDice
from yahtzee.errors import IllegalMoveError, InvalidSeatsError, WrongPlayerError
from yahtzee.game import Game, Mode, Place, Result, SeatKind, check_seats, place_of, ranking
from yahtzee.i18n import REAL, Lang
from yahtzee.players import get_player
from yahtzee.rules import Category
from yahtzee.table import parse_seats
from yahtzee.turn import play_turn

H, C = SeatKind.HUMAN, SeatKind.COMPUTER


def test_t1_seats_parse_people_and_computers_in_order() -> None:
    seats = parse_seats(
        [
            {"kind": "human", "name": "  小明 "},
            {"kind": "computer", "difficulty": "expert"},
            {"kind": "human", "name": "妈妈"},
        ]
    )
    assert [s.kind for s in seats] == [H, C, H]
    assert [s.name for s in seats] == ["小明", None, "妈妈"]
    assert seats[1].difficulty == "expert"
    # The print is the start event's seat JSON, and it parses back to the same seats.
    assert parse_seats([s.to_json() for s in seats]) == seats


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ([{"kind": "human", "name": "a"}], "2 to 6"),
        ([{"kind": "human", "name": str(i)} for i in range(7)], "2 to 6"),
        ([{"kind": "computer", "difficulty": "expert"}] * 2, "at least one person"),
        ([{"kind": "human", "name": "Tom"}, {"kind": "human", "name": "tom"}], "both named"),
        ([{"kind": "human", "name": "小明"}, {"kind": "human", "name": " 小明"}], "both named"),
        ([{"kind": "human", "name": "   "}, {"kind": "human", "name": "b"}], "seat 1"),
        ([{"kind": "human", "name": "x" * 13}, {"kind": "human", "name": "b"}], "13 characters"),
        ([{"kind": "human", "name": "a\x07"}, {"kind": "human", "name": "b"}], r"U\+0007"),
        ([{"kind": "human"}, {"kind": "human", "name": "b"}], "a name is text"),
        ([{"kind": "human", "name": "a"}, {"kind": "computer", "difficulty": "god"}], "god"),
        ([{"kind": "human", "name": "a"}, {"kind": "computer"}], "difficulty"),
        ([{"kind": "human", "name": "a", "difficulty": "expert"}, {"kind": "human", "name": "b"}],
         "no difficulty"),
        ([{"kind": "human", "name": "a"}, {"kind": "computer", "difficulty": "expert",
                                           "name": "x"}], "no name"),
        ([{"kind": "human", "name": "a"}, {"kind": "robot"}], "robot"),
        ([{"kind": "human", "name": "a"}, {"kind": "human", "name": "b", "age": 3}], "seat 2"),
        ([{"kind": "human", "name": "a"}, "b"], "seat 2"),
        (None, "list"),
        ("ab", "list"),
    ],
)  # fmt: skip
def test_t1_bad_seats_are_refused_naming_the_problem(raw: object, needle: str) -> None:
    with pytest.raises(InvalidSeatsError, match=needle) as caught:
        parse_seats(raw)
    for lang in REAL:  # a sentence for the player, in each language
        assert caught.value.said.render(lang)


def test_g2_a_seat_refusal_is_said_in_each_language() -> None:
    """The seats' refusals are catalog messages (zh-Hans as it was), the levels' names
    listed in the reader's language."""
    with pytest.raises(InvalidSeatsError) as caught:
        parse_seats([{"kind": "human", "name": "a"}, {"kind": "computer", "difficulty": "god"}])
    said = caught.value.said
    assert said.render(Lang.ZH_HANS) == "第 2 位电脑的难度不对（应是 入门、普通 或 高手）。"
    assert said.render(Lang.ZH_HANT) == "第 2 位電腦的難度不對（應是 入門、普通 或 高手）。"
    assert said.render(Lang.EN) == (
        "Seat 2's computer level is wrong (it must be Beginner, Normal or Expert)."
    )
    with pytest.raises(InvalidSeatsError) as caught:
        parse_seats([{"kind": "human", "name": "  "}, {"kind": "human", "name": "b"}])
    assert caught.value.said.render(Lang.ZH_HANS) == "第 1 位的名字不能为空（至少 1 个字）。"
    english = caught.value.said.render(Lang.EN)
    assert english == "Seat 1's name can't be empty (at least 1 character)."


def test_t1_a_table_start_checks_its_seats() -> None:
    check_seats(Mode.TABLE, [H, C])
    with pytest.raises(IllegalMoveError, match="at least one person"):
        log.Start(Mode.TABLE, (log.Seat(C, difficulty="novice"),) * 3)
    with pytest.raises(IllegalMoveError, match="2 to 6"):
        log.Start(Mode.TABLE, (log.Seat(H, name="a"),))
    with pytest.raises(IllegalMoveError, match="vs_computer"):
        check_seats(Mode.VS_COMPUTER, [H, H])


def test_t1_a_table_start_round_trips_through_its_json() -> None:
    start = log.Start(Mode.TABLE, (log.Seat(C, difficulty="novice"), log.Seat(H, name="<b>x</b>")))
    again = log.from_json("start", start.to_json())
    assert again == start
    game = again.game()
    assert game.seats == (C, H)
    assert game.hints == (0, 3)


def test_t4_equal_totals_share_a_place() -> None:
    totals = [200, 250, 250, 100]
    assert ranking(totals) == (
        Place(1, 250, 1),
        Place(2, 250, 1),
        Place(0, 200, 3),
        Place(3, 100, 4),
    )
    assert [place_of(totals, s) for s in range(4)] == [3, 1, 1, 4]
    assert [p.place for p in ranking([50] * 3)] == [1, 1, 1]
    assert ranking([9])[0].to_json() == {"seat": 0, "total": 9, "place": 1}


def test_f1_the_bound_grows_with_the_seats() -> None:
    t = Mode.TABLE
    assert log.max_events([H], Mode.SOLO) == 57 + 24
    assert log.max_events([H, C], Mode.VS_COMPUTER) == 109
    assert log.max_events([H] * 6, t) == 332 + 2 * (6 * 13 - 1)
    assert log.max_events([H, C, C], t) < log.max_events([H, H, C], t) < log.max_events([H] * 4, t)


@pytest.mark.parametrize("kinds", [(C, H, H), (H, H, C), (H, C, C, H, C, H)])
def test_t3_seats_play_their_13_turns_in_order(kinds: tuple[SeatKind, ...]) -> None:
    """Round by round, each seat in its order, whatever sits there; a finished table is
    within its bound and ends with the ranking of its totals."""
    seats = tuple(
        log.Seat(k, name=f"p{i}") if k is H else log.Seat(k, difficulty="novice")
        for i, k in enumerate(kinds)
    )
    start = log.Start(Mode.TABLE, seats)
    game = start.game()
    dice = SeededDice(5)
    player = get_player("intermediate", random.Random(3))
    order = []
    events: list[log.Event] = [start]
    while not game.is_over:
        order.append(game.turn)
        turn = play_turn(game, player, dice)
        events.extend(step.event for step in turn.steps)
        game = turn.state
    assert order == list(range(len(kinds))) * 13
    assert len(events) <= log.max_events(kinds, Mode.TABLE)
    assert log.replay(events) == game
    assert game.result is Result.TABLE
    assert [p.total for p in ranking([c.total for c in game.cards])] == sorted(
        (c.total for c in game.cards), reverse=True
    )


def test_t3_only_the_seat_on_turn_acts_and_hints_are_per_person() -> None:
    game = log.Start(Mode.TABLE, (log.Seat(H, name="a"), log.Seat(H, name="b"))).game()
    with pytest.raises(WrongPlayerError, match="seat 0"):
        game.apply_roll([False] * 5, [1, 2, 3, 4, 5], by=1)
    game = game.apply_roll([False] * 5, [1, 2, 3, 4, 5], by=0)
    for _ in range(3):
        game = game.use_hint(by=0)
    assert game.hints == (0, 3)
    game = game.score(Category.LARGE_STRAIGHT, by=0)
    assert game.turn == 1
    game = game.apply_roll([False] * 5, [6, 6, 6, 6, 6], by=1)
    assert game.use_hint(by=1).hints == (0, 2)
    assert Game.new(Mode.TABLE, (H, C, H)).hints == (3, 0, 3)
