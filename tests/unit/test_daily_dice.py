"""The day's dice stream (D1): one face sequence per round, the same for everyone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee.daily.dice import DailyStream, day_of, parse_day, round_faces
from yahtzee.dice import FACES_PER_ROUND, StreamDice
from yahtzee.errors import IllegalMoveError
from yahtzee.game import NO_HOLD, Game, Mode
from yahtzee.rules import Category

SECRET = b"s" * 32
DAY = date(2026, 12, 1)


def test_d1_the_day_is_shanghais_date() -> None:
    # 15:59 UTC is 23:59 in Shanghai, 16:00 UTC is the next day there.
    assert day_of(datetime(2026, 11, 30, 15, 59, tzinfo=UTC)) == date(2026, 11, 30)
    assert day_of(datetime(2026, 11, 30, 16, 0, tzinfo=UTC)) == date(2026, 12, 1)
    with pytest.raises(ValueError, match="aware"):
        day_of(datetime(2026, 11, 30, 16, 0))
    assert parse_day("2026-12-01") == DAY
    with pytest.raises(ValueError, match="'tomorrow'"):
        parse_day("tomorrow")


def test_d1_a_round_has_thirteen_fair_faces_fixed_by_secret_and_day() -> None:
    faces = round_faces(SECRET, DAY, 1)
    assert len(faces) == FACES_PER_ROUND == 15
    assert all(1 <= f <= 6 for f in faces)
    assert faces == round_faces(SECRET, DAY, 1)  # every process computes the same
    assert faces != round_faces(b"t" * 32, DAY, 1)  # another secret, other dice
    assert faces != round_faces(SECRET, date(2026, 12, 2), 1)
    assert faces != round_faces(SECRET, DAY, 2)
    with pytest.raises(IllegalMoveError, match="14"):
        round_faces(SECRET, DAY, 14)


def test_d1_faces_are_uniform() -> None:
    counts = Counter(
        f
        for d in range(1, 29)
        for r in range(1, 14)
        for f in round_faces(SECRET, date(2026, 2, d), r)
    )
    total = sum(counts.values())  # 28 * 13 * 15 = 5460
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    for face in range(1, 7):  # within ~4.5 standard deviations of 1/6
        assert abs(counts[face] / total - 1 / 6) < 0.025


def _play_turn(stream: DailyStream, holds: Sequence[Sequence[bool]]) -> list[tuple[int, ...]]:
    """A turn of round 1 rolled with ``holds`` after the first roll; the dice after each."""
    game = Game.new(Mode.SOLO)
    dice = stream.turn(1)
    game = game.roll(NO_HOLD, dice)
    seen: list[tuple[int, ...]] = [game.dice.values if game.dice else ()]
    for hold in holds:
        game = game.roll(hold, dice)
        seen.append(game.dice.values if game.dice else ())
    game.score(Category.CHANCE)
    return seen


def test_d1_same_holds_give_same_faces_for_two_players() -> None:
    holds = [(True, False, True, False, False), (True, True, True, False, False)]
    first = _play_turn(DailyStream(SECRET, DAY), holds)
    second = _play_turn(DailyStream(SECRET, DAY), holds)  # another player, another process
    assert first == second


def test_d1_different_holds_follow_the_stream_rule() -> None:
    faces = DailyStream(SECRET, DAY).faces(1)
    # Player A keeps dice 1 and 3, then 1, 2 and 3.
    a = _play_turn(DailyStream(SECRET, DAY), [(True, False, True, False, False)] * 1)
    assert a[0] == faces[:5]
    assert a[1] == (faces[0], faces[5], faces[2], faces[6], faces[7])
    # Player B keeps only die 5: the next four faces go to dice 1-4, left to right.
    b = _play_turn(
        DailyStream(SECRET, DAY),
        [(False, False, False, False, True), (True, True, False, False, False)],
    )
    assert b[0] == faces[:5]
    assert b[1] == (faces[5], faces[6], faces[7], faces[8], faces[4])
    assert b[2] == (faces[5], faces[6], faces[9], faces[10], faces[11])


@given(st.lists(st.integers(1, 5), min_size=0, max_size=2))  # a reroll may hold nothing
def test_d1_any_turn_stays_within_the_rounds_faces(rerolls: list[int]) -> None:
    dice = StreamDice(round_faces(SECRET, DAY, 7))
    drawn = [dice.roll(5), *(dice.roll(n) for n in rerolls)]
    flat = [f for roll in drawn for f in roll]
    assert tuple(flat) == round_faces(SECRET, DAY, 7)[: len(flat)]


def test_d1_no_turn_can_draw_past_the_sequence() -> None:
    dice = StreamDice(round_faces(SECRET, DAY, 1), drawn=15)
    with pytest.raises(IllegalMoveError, match="used up"):
        dice.roll(1)
