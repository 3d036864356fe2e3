"""The event log's bound and its legacy events (F1, U6 changed)."""

from __future__ import annotations

import pytest

from yahtzee.errors import GameOverError
from yahtzee.game import Mode, Seat
from yahtzee.players import Difficulty
from yahtzee.storage.events import (
    MAX_EVENTS,
    CorruptLogError,
    Event,
    apply_event,
    max_events,
    replay,
    start,
)

NO_HOLD = [False] * 5


def _roll(faces: list[int], hold: list[bool] = NO_HOLD, seat: Seat = Seat.HUMAN) -> Event:
    return Event("roll", {"seat": seat.value, "hold": hold, "faces": faces})


def test_f1_log_bound_follows_from_the_rules() -> None:
    # start + players x 13 turns x (3 rolls + 1 score) + 3 hints + abandon
    assert max_events(Mode.SOLO) == 1 + 13 * 4 + 3 + 1 == 57
    assert max_events(Mode.VS_COMPUTER) == 1 + 2 * 13 * 4 + 3 + 1 == 109
    assert MAX_EVENTS == 109


def test_f1_legacy_restart_turn_replays_as_before() -> None:
    """Logs from before /resume was removed still replay: the turn restarted, scores kept."""
    first, _ = start(Mode.SOLO, None)
    log = [
        first,
        _roll([1, 2, 3, 4, 5]),
        Event("score", {"seat": "human", "category": "large_straight"}),
        _roll([6, 6, 6, 6, 1]),
        _roll([2, 2, 2, 2, 2]),
        Event("hint", {"hold": None, "category": "yahtzee"}),
        Event("restart_turn"),
        _roll([3, 3, 3, 4, 4]),
    ]
    game = replay(log)
    assert game.card(Seat.HUMAN).filled_count == 1
    assert game.dice is not None
    assert game.dice.values == (3, 3, 3, 4, 4)
    assert (game.rolls_left, game.hints_left) == (2, 2)
    restarted = replay(log[:-1])
    assert (restarted.dice, restarted.rolls_left) == (None, 3)


def test_f1_restart_turn_can_never_be_applied_as_a_new_event() -> None:
    _, game = start(Mode.VS_COMPUTER, Difficulty.EXPERT)
    game = apply_event(game, _roll([1, 1, 2, 3, 5]))
    with pytest.raises(CorruptLogError, match="restart_turn"):
        apply_event(game, Event("restart_turn"))


def test_legacy_restart_turn_after_the_end_is_refused() -> None:
    first, _ = start(Mode.SOLO, None)
    log = [first]
    for category in ("ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind",
                     "four_of_a_kind", "full_house", "small_straight", "large_straight",
                     "yahtzee", "chance"):  # fmt: skip
        log += [_roll([1, 2, 3, 4, 6]), Event("score", {"seat": "human", "category": category})]
    assert replay(log).is_over
    with pytest.raises(GameOverError):
        replay([*log, Event("restart_turn")])
