"""The game state machine (R1, R2, R8, U4, U6) and its illegal-action errors."""

from __future__ import annotations

from dataclasses import replace

import pytest

from yahtzee.dice import ScriptedDice, SeededDice
from yahtzee.errors import (
    CategoryUsedError,
    GameOverError,
    IllegalMoveError,
    JokerRuleError,
    NoHintsLeftError,
    NotRolledError,
    RollLimitError,
    WrongPlayerError,
)
from yahtzee.game import Game, Mode, Result, SeatKind
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard

NO_HOLD = [False] * 5


def test_r1_first_roll_rolls_all_five_and_holds_keep_their_dice() -> None:
    game = Game.new(Mode.SOLO)
    assert game.dice is None
    assert game.rolls_left == 3
    game = game.roll(NO_HOLD, ScriptedDice([6, 6, 2, 3, 1, 6, 5, 4, 6]))
    assert game.dice == Dice.parse("66231")
    assert game.rolls_left == 2
    game = game.roll([True, True, False, False, False], ScriptedDice([6, 5, 4]))
    assert game.dice == Dice.parse("66654")
    assert game.rolls_left == 1
    game = game.roll([True, True, True, False, True], ScriptedDice([6]))
    assert game.dice == Dice.parse("66664")
    assert game.rolls_left == 0


def test_r1_a_fourth_roll_is_refused() -> None:
    game = Game.new(Mode.SOLO)
    dice = SeededDice(1)
    for _ in range(3):
        game = game.roll(NO_HOLD, dice)
    with pytest.raises(RollLimitError, match="no rolls left"):
        game.roll(NO_HOLD, dice)


def test_r1_scoring_before_the_first_roll_is_refused() -> None:
    with pytest.raises(NotRolledError, match="before the first roll"):
        Game.new(Mode.SOLO).score(Category.CHANCE)


def test_r1_holding_before_the_first_roll_is_refused() -> None:
    with pytest.raises(NotRolledError, match="hold"):
        Game.new(Mode.SOLO).roll([True, False, False, False, False], SeededDice(1))


def test_r1_rolling_with_all_dice_held_is_refused() -> None:
    game = Game.new(Mode.SOLO).roll(NO_HOLD, SeededDice(1))
    with pytest.raises(IllegalMoveError, match="all five dice are held"):
        game.roll([True] * 5, SeededDice(1))


@pytest.mark.parametrize("hold", [[True] * 4, [1, 0, 0, 0, 0], "TFTFT"])
def test_malformed_hold_names_the_value(hold: object) -> None:
    game = Game.new(Mode.SOLO).roll(NO_HOLD, SeededDice(1))
    with pytest.raises(IllegalMoveError, match="hold must be five booleans"):
        game.roll(hold, SeededDice(1))  # type: ignore[arg-type]


def test_r1_score_after_first_roll_passes_the_turn() -> None:
    game = Game.new(Mode.SOLO).roll(NO_HOLD, ScriptedDice([6, 6, 6, 1, 2]))
    game = game.score(Category.THREE_OF_A_KIND)
    assert game.card(0)[Category.THREE_OF_A_KIND] == 21
    assert (game.dice, game.rolls_left, game.round) == (None, 3, 2)


def test_scoring_a_used_box_is_refused() -> None:
    game = Game.new(Mode.SOLO).roll(NO_HOLD, ScriptedDice([6, 6, 6, 1, 2]))
    game = game.score(Category.CHANCE).roll(NO_HOLD, ScriptedDice([1, 2, 3, 4, 5]))
    with pytest.raises(CategoryUsedError, match="chance"):
        game.score(Category.CHANCE)


def test_r6_joker_forbidden_box_is_refused_by_the_game() -> None:
    card = Scorecard.parse("yahtzee=50")
    game = replace(Game.new(Mode.SOLO), cards=(card,)).roll(NO_HOLD, ScriptedDice([2] * 5))
    with pytest.raises(JokerRuleError, match="allowed: twos"):
        game.score(Category.CHANCE)
    game = game.score(Category.TWOS)
    assert game.card(0).yahtzee_bonus == 100


def test_r8_vs_computer_alternates_and_wrong_player_is_refused() -> None:
    dice = SeededDice(7)
    game = Game.new(Mode.VS_COMPUTER)
    with pytest.raises(WrongPlayerError, match=r"seat 0's turn \(human\), not seat 1's"):
        game.roll(NO_HOLD, dice, by=1)
    game = game.roll(NO_HOLD, dice, by=0).score(Category.CHANCE, by=0)
    assert (game.turn, game.kind) == (1, SeatKind.COMPUTER)
    assert game.round == 1
    with pytest.raises(WrongPlayerError):
        game.roll(NO_HOLD, dice, by=0)
    with pytest.raises(WrongPlayerError):
        game.use_hint()  # hints are the human's
    game = game.roll(NO_HOLD, dice, by=1).score(Category.CHANCE, by=1)
    assert (game.turn, game.round) == (0, 2)


def _play_out(game: Game, seed: int) -> Game:
    dice = SeededDice(seed)
    while not game.is_over:
        game = game.roll(NO_HOLD, dice)
        game = game.score(game.current_card.open_categories[0])
    return game


def test_r8_thirteen_turns_each_then_game_over() -> None:
    game = _play_out(Game.new(Mode.VS_COMPUTER), seed=3)
    assert all(c.filled_count == 13 for c in game.cards)
    assert game.round == 13
    human, computer = (c.total for c in game.cards)
    expected = Result.WIN if human > computer else Result.LOSS if human < computer else Result.DRAW
    assert game.result is expected
    with pytest.raises(GameOverError):
        game.roll(NO_HOLD, SeededDice(1))
    with pytest.raises(GameOverError):
        game.score(Category.CHANCE)


def test_r8_equal_totals_are_a_draw() -> None:
    full = Scorecard.from_scores(dict.fromkeys(CATEGORIES[:12], 0) | {Category.CHANCE: 20})
    game = replace(Game.new(Mode.VS_COMPUTER), cards=(full, full))
    assert game.is_over
    assert game.result is Result.DRAW


def test_solo_result() -> None:
    assert _play_out(Game.new(Mode.SOLO), seed=4).result is Result.SOLO
    assert Game.new(Mode.SOLO).result is None


def test_u4_three_hints_per_game_and_only_after_a_roll() -> None:
    game = Game.new(Mode.SOLO)
    with pytest.raises(NotRolledError, match="roll first"):
        game.use_hint()
    game = game.roll(NO_HOLD, SeededDice(1))
    for left in (2, 1, 0):
        game = game.use_hint()
        assert game.hints_left == left
    with pytest.raises(NoHintsLeftError, match="all 3 hints"):
        game.use_hint()


def test_u6_restart_turn_keeps_scores_and_rerolls() -> None:
    game = Game.new(Mode.SOLO).roll(NO_HOLD, ScriptedDice([1, 1, 1, 1, 1]))
    game = game.score(Category.YAHTZEE).roll(NO_HOLD, ScriptedDice([2, 3, 4, 5, 6]))
    restarted = game.restart_turn()
    assert restarted.dice is None
    assert restarted.rolls_left == 3
    assert restarted.cards == game.cards


def test_apply_roll_checks_the_number_of_faces() -> None:
    with pytest.raises(IllegalMoveError, match="5 dice are rolled but 4 faces"):
        Game.new(Mode.SOLO).apply_roll(NO_HOLD, [1, 2, 3, 4])


def test_canonical_text_names_everything() -> None:
    game = Game.new(Mode.VS_COMPUTER).roll(NO_HOLD, ScriptedDice([1, 3, 3, 5, 6]))
    assert str(game) == (
        "mode=vs_computer turn=0 dice=13356 rolls_left=2 hints=3,0 0:human=[] 1:computer=[]"
    )
