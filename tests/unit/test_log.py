"""The core event log (yahtzee.log): typed events, their stored JSON, the one apply, the
log bound (F1) and the legacy forms that old databases hold."""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

import pytest

from yahtzee import log
from yahtzee.dice import SeededDice
from yahtzee.errors import (
    CorruptLogError,
    GameOverError,
    IllegalMoveError,
    NoHintsLeftError,
    WrongPlayerError,
)
from yahtzee.game import NO_HOLD, Game, Mode, SeatKind
from yahtzee.players import get_player
from yahtzee.review.selfplay import play_log
from yahtzee.rules import CATEGORIES, Category

HUMAN, COMPUTER = SeatKind.HUMAN, SeatKind.COMPUTER


def _roll(faces: list[int], hold: tuple[bool, ...] = NO_HOLD, seat: int = 0) -> log.Roll:
    return log.Roll(seat, hold, tuple(faces))  # type: ignore[arg-type]


def _stored(event: log.Event) -> log.Event:
    """Through the stored form, as the storage writes and reads it."""
    return log.from_json(event.kind, event.to_json())


# -- the stored form ----------------------------------------------------------------


def test_every_kind_prints_and_parses_back() -> None:
    events: list[log.Event] = [
        log.Start.of(Mode.SOLO),
        log.Start.of(Mode.VS_COMPUTER, "novice"),
        log.Start(
            Mode.VS_COMPUTER,
            (log.Seat(HUMAN, name="小明"), log.Seat(COMPUTER, difficulty="expert")),
            dt.date(2026, 12, 1),
        ),
        _roll([1, 2, 3, 4, 5]),
        _roll([6, 6], (True, False, True, True, False), seat=1),
        log.Score(1, Category.CHANCE),
        log.Roll(0, (True, False, True, True, False), (2, 3), proxy="intermediate"),  # K2
        log.Score(0, Category.CHANCE, proxy="intermediate"),
        log.Hint(0, (True, True, False, False, False), None),
        log.Hint(0, None, Category.YAHTZEE),
        log.Abandon(),
        log.RestartTurn(),
    ]
    for event in events:
        assert _stored(event) == event


def test_new_events_name_seats_by_index() -> None:
    assert log.Start.of(Mode.VS_COMPUTER, "expert").to_json() == {
        "mode": "vs_computer",
        "seats": [{"kind": "human"}, {"kind": "computer", "difficulty": "expert"}],
    }
    assert _roll([6, 5], (True, True, True, False, False), seat=1).to_json() == {
        "seat": 1,
        "hold": [True, True, True, False, False],
        "faces": [6, 5],
    }
    assert log.Score(0, Category.FULL_HOUSE).to_json() == {"seat": 0, "category": "full_house"}
    assert log.Hint(0, None, Category.CHANCE).to_json() == {
        "seat": 0,
        "hold": None,
        "category": "chance",
    }


def test_logs_of_older_versions_read_as_they_always_did() -> None:
    """What commit 339df8a (and older) stored: seats by name, start without seats, hints
    without a seat, informational dice/points (tests/api/test_legacy_log.py replays a whole
    database of them)."""
    assert log.from_json("start", {"mode": "vs_computer", "difficulty": "novice"}) == (
        log.Start.of(Mode.VS_COMPUTER, "novice")
    )
    assert log.from_json("start", {"mode": "solo", "difficulty": None}) == log.Start.of(Mode.SOLO)
    roll = {"seat": "computer", "hold": [True, False, False, False, False], "faces": [1, 2, 3, 4]}
    assert log.from_json("roll", {**roll, "dice": [6, 1, 2, 3, 4]}) == log.Roll(
        1, (True, False, False, False, False), (1, 2, 3, 4)
    )
    score = {"seat": "human", "category": "ones", "points": 3, "yahtzee_bonus": 0, "dice": [1] * 5}
    assert log.from_json("score", score) == log.Score(0, Category.ONES)
    assert log.from_json("hint", {"hold": None, "category": "yahtzee"}) == log.Hint(
        0, None, Category.YAHTZEE
    )
    assert log.from_json("restart_turn", {}) == log.RestartTurn()
    assert log.from_json("abandon", {}) == log.Abandon()


@pytest.mark.parametrize(
    ("kind", "data", "named"),
    [
        ("start", {"mode": "chess"}, "'chess'"),
        ("start", {"mode": "solo", "seats": [{"kind": "robot"}]}, "'robot'"),
        ("start", {"mode": "vs_computer", "seats": [{"kind": "human"}]}, "['human']"),
        ("start", {"mode": "solo", "seats": [{"kind": "human"}], "date": "yesterday"}, "yesterday"),
        ("start", {"mode": "vs_computer", "difficulty": None}, "None"),
        ("roll", {"seat": 7, "hold": [False] * 5, "faces": [1] * 5}, "7"),
        ("roll", {"seat": "dealer", "hold": [False] * 5, "faces": [1] * 5}, "'dealer'"),
        ("roll", {"seat": 0, "hold": [0, 0, 0, 0, 0], "faces": [1] * 5}, "(0, 0, 0, 0, 0)"),
        ("roll", {"seat": 0, "hold": [False] * 5, "faces": [1, 2, 3, 4, 9]}, "9"),
        ("roll", {"seat": 0, "hold": [False] * 5}, "faces"),
        ("score", {"seat": 0, "category": "sevens"}, "'sevens'"),
        ("score", {"seat": True, "category": "ones"}, "True"),
        ("score", {"seat": 0, "category": "ones", "proxy": ""}, "''"),
        ("roll", {"seat": 0, "hold": [False] * 5, "faces": [1] * 5, "proxy": 2}, "2"),
        ("hint", {"seat": 0, "hold": "all", "category": None}, "'all'"),
        ("abandon", {"why": "bored"}, "why"),
        ("teleport", {}, "'teleport'"),
        ("roll", [1, 2, 3], "[1, 2, 3]"),
    ],
)
def test_a_malformed_stored_event_is_a_corrupt_log_naming_the_value(
    kind: str, data: Any, named: str
) -> None:
    with pytest.raises(CorruptLogError, match=re.escape(named)) as raised:
        log.from_json(kind, data)
    assert kind in str(raised.value)


def test_events_refuse_malformed_fields_when_built() -> None:
    with pytest.raises(IllegalMoveError, match="hold must be five booleans"):
        log.Roll(0, (True,) * 4, (1,))  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="a computer seat needs a level"):
        log.Seat(COMPUTER)
    with pytest.raises(IllegalMoveError, match="a person's seat has no level"):
        log.Seat(HUMAN, difficulty="expert")
    with pytest.raises(IllegalMoveError, match="non-empty string"):
        log.Seat(HUMAN, name="")


# -- the one apply ------------------------------------------------------------------


def test_apply_is_the_rules() -> None:
    game = log.Start.of(Mode.VS_COMPUTER, "expert").game()
    with pytest.raises(WrongPlayerError, match="seat 0's turn"):
        log.apply(game, _roll([1, 2, 3, 4, 5], seat=1))
    game = log.apply(game, _roll([1, 2, 3, 4, 5]))
    with pytest.raises(IllegalMoveError, match="2 dice are rolled but 1 faces"):
        log.apply(game, _roll([6], (True, True, True, False, False)))
    with pytest.raises(CorruptLogError, match="start"):
        log.apply(game, log.Start.of(Mode.SOLO))
    for left in (2, 1, 0):
        game = log.apply(game, log.Hint(0))
        assert game.hints == (left, 0)
    with pytest.raises(NoHintsLeftError):
        log.apply(game, log.Hint(0))
    game = log.apply(game, log.Score(0, Category.LARGE_STRAIGHT))
    assert (game.turn, game.card(0)[Category.LARGE_STRAIGHT]) == (1, 40)
    game = log.apply(game, _roll([2, 2, 2, 2, 2], seat=1))
    with pytest.raises(WrongPlayerError, match="hints are for people"):
        log.apply(game, log.Hint(1))
    assert log.apply(game, log.Abandon()) == game


def test_f1_legacy_restart_turn_replays_but_is_never_applied_anew() -> None:
    """Logs from before /resume was removed still replay: the turn restarted, scores kept."""
    events: list[log.Event] = [
        log.Start.of(Mode.SOLO),
        _roll([1, 2, 3, 4, 5]),
        log.Score(0, Category.LARGE_STRAIGHT),
        _roll([6, 6, 6, 6, 1]),
        _roll([2, 2, 2, 2, 2]),
        log.Hint(0, None, Category.YAHTZEE),
        log.RestartTurn(),
        _roll([3, 3, 3, 4, 4]),
    ]
    game = log.replay(events)
    assert game.card(0).filled_count == 1
    assert game.dice is not None
    assert game.dice.values == (3, 3, 3, 4, 4)
    assert (game.rolls_left, game.hints_left) == (2, 2)
    restarted = log.replay(events[:-1])
    assert (restarted.dice, restarted.rolls_left) == (None, 3)
    with pytest.raises(CorruptLogError, match="restart_turn"):
        log.apply(log.replay(events[:-2]), log.RestartTurn())


def test_legacy_restart_turn_after_the_end_is_refused() -> None:
    events: list[log.Event] = [log.Start.of(Mode.SOLO)]
    for category in CATEGORIES:
        events += [_roll([1, 2, 3, 4, 6]), log.Score(0, category)]
    assert log.replay(events).is_over
    with pytest.raises(GameOverError):
        log.replay([*events, log.RestartTurn()])


def test_a_log_begins_with_its_start() -> None:
    with pytest.raises(CorruptLogError, match="must begin with a start"):
        log.replay([_roll([1, 2, 3, 4, 5])])
    with pytest.raises(CorruptLogError, match="must begin with a start"):
        log.replay([])


def test_self_played_games_replay_through_their_stored_form() -> None:
    for seed in range(4):
        computer = get_player("novice", random.Random(seed)) if seed % 2 else None
        human = get_player("intermediate", random.Random(seed))
        events, final = play_log(human, SeededDice(seed), computer)
        stored = [_stored(e) for e in events]
        assert stored == events
        assert log.replay(stored) == final
        assert len(events) <= log.max_events(final.seats, final.mode)


# -- the bound (F1) -----------------------------------------------------------------


def test_f1_log_bound_follows_from_the_rules_and_grows_with_the_seats() -> None:
    # start + seats x 13 turns x (3 rolls + 1 score) + 3 hints per person + abandon
    vs, solo, table = Mode.VS_COMPUTER, Mode.SOLO, Mode.TABLE
    assert log.max_events((HUMAN, COMPUTER), vs) == 1 + 2 * 13 * 4 + 3 + 1 == 109
    # solo: 1 + 13 x 4 + 3 + 1 = 57, + an undo and the box again for every person's turn
    # but the game's last (撤销)
    assert log.max_events((HUMAN,), solo) == 57 + 2 * 12 == 81
    assert log.max_events((HUMAN,) * 6, table) == 1 + 6 * 13 * 4 + 6 * 3 + 1 + 2 * 77 == 486
    assert log.max_events((HUMAN, COMPUTER, COMPUTER), table) == 1 + 3 * 52 + 3 + 1 + 2 * 12
    bounds = [log.max_events((HUMAN,) * n, table) for n in range(1, 7)]
    assert bounds == sorted(set(bounds))


def test_f1_the_longest_legal_game_meets_the_bound() -> None:
    """Every roll of every turn, every hint, then an abandon: exactly max_events."""
    start = log.Start.of(Mode.VS_COMPUTER, "expert")
    events: list[log.Event] = [start]
    game = start.game()
    while not game.is_over:
        seat = game.turn
        for _ in range(3):
            hold = NO_HOLD if game.dice is None else (True, False, False, False, False)
            events.append(_roll([3] * hold.count(False), hold, seat=seat))
            game = log.apply(game, events[-1])
            if game.kind is HUMAN and game.hints_left:
                events.append(log.Hint(seat))
                game = log.apply(game, events[-1])
        events.append(log.Score(seat, game.current_card.open_categories[0]))
        game = log.apply(game, events[-1])
    events.append(log.Abandon())
    assert len(events) == log.max_events(game.seats, game.mode) == 109
    assert log.replay(events) == game


def test_game_seats_are_indices() -> None:
    game = Game.new(Mode.VS_COMPUTER)
    assert (game.seats, game.turn, game.hints) == ((HUMAN, COMPUTER), 0, (3, 0))
    table = Game.new(Mode.SOLO, (HUMAN, COMPUTER, HUMAN, HUMAN))
    assert len(table.cards) == 4
    assert table.hints == (3, 0, 3, 3)
    with pytest.raises(IllegalMoveError, match="1 to 6 seats, not 7"):
        Game.new(Mode.SOLO, (HUMAN,) * 7)
