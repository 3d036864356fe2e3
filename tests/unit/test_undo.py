"""撤销 (issue 21 item 8) in the core: the ``undo`` event, its one check in the game, the
log bound it keeps (F1) and the review of a game with undos."""

from __future__ import annotations

import pytest

from yahtzee import log
from yahtzee.errors import (
    CorruptLogError,
    GameOverError,
    NothingToUndoError,
    UndoNotAllowedError,
    WrongPlayerError,
)
from yahtzee.game import NO_HOLD, Game, Mode, SeatKind
from yahtzee.review.analysis import review_events
from yahtzee.rules import CATEGORIES, Category

HUMAN, COMPUTER = SeatKind.HUMAN, SeatKind.COMPUTER
HOLD_FIRST = (True, False, False, False, False)


def _roll(faces: list[int], hold: tuple[bool, ...] = NO_HOLD, seat: int = 0) -> log.Roll:
    return log.Roll(seat, hold, tuple(faces))  # type: ignore[arg-type]


def _play(game: Game, *events: log.Event) -> Game:
    for event in events:
        game = log.apply(game, event)
    return game


def _table() -> log.Start:
    return log.Start(Mode.TABLE, (log.Seat(HUMAN, name="甲"), log.Seat(HUMAN, name="乙")))


def test_undo_prints_and_parses_back() -> None:
    event = log.Undo(1)
    assert event.to_json() == {"seat": 1}
    assert log.from_json("undo", {"seat": 1}) == event
    for bad in ({}, {"seat": "1"}, {"seat": 7}, {"seat": 0, "category": "ones"}):
        with pytest.raises(CorruptLogError, match="undo"):
            log.from_json("undo", bad)


def test_undo_goes_back_to_just_before_the_box() -> None:
    start = log.Start.of(Mode.SOLO)
    rolled = _play(start.game(), _roll([2, 2, 3, 5, 6]))
    scored = _play(rolled, log.Score(0, Category.CHANCE))
    assert scored.undoable == rolled
    back = _play(scored, log.Undo(0))
    assert back.dice == rolled.dice
    assert back.rolls_left == 2
    assert back.current_card == rolled.current_card
    assert back.undone
    # The same dice may go in another box (or be rolled on): that box is final.
    again = _play(back, log.Score(0, Category.TWOS))
    assert again.card(0)[Category.TWOS] == 4
    assert again.card(0)[Category.CHANCE] is None
    assert again.undoable is None
    with pytest.raises(NothingToUndoError, match="had already taken one back"):
        log.apply(again, log.Undo(0))
    # The next turn's box may be taken back again.
    nxt = _play(again, _roll([1, 1, 1, 1, 1]), log.Score(0, Category.YAHTZEE))
    assert _play(nxt, log.Undo(0)).card(0)[Category.YAHTZEE] is None


def test_rolling_on_after_an_undo_is_the_same_turn() -> None:
    game = _play(log.Start.of(Mode.SOLO).game(), _roll([2, 2, 3, 5, 6]))
    game = _play(game, log.Score(0, Category.CHANCE), log.Undo(0))
    game = _play(game, _roll([2, 2, 2, 2], HOLD_FIRST), _roll([4], (True,) * 4 + (False,)))
    assert game.rolls_left == 0
    assert game.undone
    game = _play(game, log.Score(0, Category.TWOS))
    assert game.undoable is None  # the turn's one undo was spent


def test_a_roll_of_anyone_makes_the_box_final() -> None:
    game = _play(_table().game(), _roll([3, 3, 3, 4, 4]), log.Score(0, Category.FULL_HOUSE))
    assert game.turn == 1
    assert game.undoable is not None
    with pytest.raises(WrongPlayerError, match="seat 0 wrote the last box"):
        log.apply(game, log.Undo(1))
    back = _play(game, log.Undo(0))
    assert back.turn == 0
    assert back.card(0)[Category.FULL_HOUSE] is None
    game = _play(back, log.Score(0, Category.THREES), _roll([1, 2, 3, 4, 5], seat=1))
    with pytest.raises(NothingToUndoError, match="since the last roll"):
        log.apply(game, log.Undo(0))


def test_nothing_to_undo_at_the_start_and_the_last_box_is_final() -> None:
    game = log.Start.of(Mode.SOLO).game()
    with pytest.raises(NothingToUndoError):
        log.apply(game, log.Undo(0))
    for category in CATEGORIES:
        game = _play(game, _roll([1, 2, 3, 4, 6]), log.Score(0, category))
    assert game.is_over
    assert game.undoable is None
    with pytest.raises(GameOverError, match="last box is final"):
        log.apply(game, log.Undo(0))


def test_a_computers_box_is_never_taken_back() -> None:
    seats = (log.Seat(COMPUTER, difficulty="novice"), log.Seat(HUMAN, name="甲"))
    game = _play(log.Start(Mode.TABLE, seats).game(), _roll([1, 2, 3, 4, 6]))
    game = _play(game, log.Score(0, Category.CHANCE))
    assert game.turn == 1
    assert game.undoable is None
    with pytest.raises(NothingToUndoError):
        log.apply(game, log.Undo(0))


def test_no_undo_in_vs() -> None:
    """The rules refuse 撤销 in vs (the computer rolls at once); the tutorial's refusal is
    its kind's, on the server (tests/api/test_undo.py)."""
    start = log.Start.of(Mode.VS_COMPUTER, "expert")
    game = _play(start.game(), _roll([1, 2, 3, 4, 6]), log.Score(0, Category.CHANCE))
    assert game.undoable is None
    with pytest.raises(UndoNotAllowedError):
        log.apply(game, log.Undo(0))


def test_f1_the_longest_solo_game_with_undos_meets_the_bound() -> None:
    """Every roll, every hint, an undo and a new box every turn but the last, an abandon."""
    start = log.Start.of(Mode.SOLO)
    events: list[log.Event] = [start]
    game = start.game()
    while not game.is_over:
        for _ in range(3):
            hold = NO_HOLD if game.dice is None else HOLD_FIRST
            events.append(_roll([1, 2, 3, 4, 6][: hold.count(False)], hold))  # no Joker
            game = log.apply(game, events[-1])
            if game.hints_left:
                events.append(log.Hint(0))
                game = log.apply(game, events[-1])
        events.append(log.Score(0, game.current_card.open_categories[0]))
        game = log.apply(game, events[-1])
        if game.undoable is not None:
            events += [log.Undo(0), log.Score(0, game.undoable.current_card.open_categories[-1])]
            game = _play(game, *events[-2:])
    events.append(log.Abandon())
    assert len(events) == log.max_events(game.seats, game.mode) == 81
    assert sum(type(e) is log.Undo for e in events) == 12
    assert log.replay(events) == game


def test_the_review_judges_the_box_written_and_counts_the_undo() -> None:
    """A game with undos reviews like the same game without the boxes taken back."""
    start = log.Start.of(Mode.SOLO)
    plain: list[log.Event] = [start]
    undone: list[log.Event] = [start]
    for i, category in enumerate(CATEGORIES):
        roll = _roll([6, 6, 6, 5, 5] if i % 2 else [1, 2, 3, 4, 5])
        plain += [roll, log.Score(0, category)]
        undone += [roll]
        if i < 3:  # a mis-tap in the last open box, taken back
            undone += [log.Score(0, CATEGORIES[-1 - i]), log.Undo(0)]
        undone += [log.Score(0, category)]
    with_undos, without = review_events(undone), review_events(plain)
    assert with_undos.human.undos == 3
    assert without.human.undos == 0
    assert with_undos.human.decisions == without.human.decisions
    assert with_undos.human.final_score == without.human.final_score
    assert with_undos.human.luck == pytest.approx(without.human.luck)


@pytest.mark.parametrize("mode", [Mode.SOLO, Mode.TABLE, Mode.VS_COMPUTER])
def test_u18_score_is_final_says_what_the_score_will_allow(mode: Mode) -> None:
    """Before every box of a whole game (an undo in round 5 included), ``score_is_final``
    is what writing it then allows: no position to take back."""
    game = Game.new(mode, (HUMAN, HUMAN) if mode is Mode.TABLE else None)
    said = []
    while not game.is_over:
        if game.kind is not HUMAN:
            game = game.apply_roll(NO_HOLD, (6, 6, 6, 6, 5))
            game = game.score(game.current_card.open_categories[0])
            continue
        game = game.apply_roll(NO_HOLD, (1, 2, 3, 4, 5))
        category = game.current_card.open_categories[0]
        said.append(game.score_is_final)
        written = game.score(category)
        assert game.score_is_final is (written.undoable is None), (mode, game.round)
        if game.round == 5 and not game.undone and written.undoable is not None:
            game = written.undo()
            assert game.score_is_final  # the turn's second box
            written = game.score(category)
        game = written
    assert said[-1] is True  # the game's last box
    assert (False in said) is (mode in (Mode.SOLO, Mode.TABLE))
