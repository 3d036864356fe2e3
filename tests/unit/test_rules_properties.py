"""Property tests (hypothesis) of the rules engine and the game state machine."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee.dice import SeededDice
from yahtzee.errors import IllegalMoveError
from yahtzee.game import Game, Mode, SeatKind
from yahtzee.rules import (
    CATEGORIES,
    UPPER_BONUS,
    Category,
    Dice,
    Scorecard,
    base_score,
    score_options,
)

dice_st = st.tuples(*[st.integers(1, 6)] * 5).map(Dice)


@st.composite
def cards(draw: st.DrawFn) -> Scorecard:
    """A card reached by legally writing random dice in random boxes."""
    card = Scorecard()
    for _ in range(draw(st.integers(0, 13))):
        dice = draw(dice_st)
        legal = [c for c, o in score_options(card, dice).items() if o.legal]
        card = card.score(draw(st.sampled_from(legal)), dice)
    return card


@given(dice_st, st.sampled_from(CATEGORIES))
def test_base_scores_are_never_negative_and_chance_is_the_sum(
    dice: Dice, category: Category
) -> None:
    assert base_score(category, dice) >= 0
    assert base_score(Category.CHANCE, dice) == sum(dice.values)


@given(dice_st, st.permutations(range(5)))
def test_scores_ignore_dice_order(dice: Dice, order: list[int]) -> None:
    shuffled = Dice.of(dice.values[i] for i in order)
    for category in CATEGORIES:
        assert base_score(category, dice) == base_score(category, shuffled)


@given(cards(), dice_st)
def test_some_box_is_always_legal_and_option_gain_matches_the_new_total(
    card: Scorecard, dice: Dice
) -> None:
    options = score_options(card, dice)
    if card.is_complete:
        assert options == {}
        return
    assert any(o.legal for o in options.values())
    for category, option in options.items():
        assert option.points >= 0
        if option.legal:
            after = card.score(category, dice)
            assert after.total - card.total == option.gain


@given(cards())
def test_r7_total_is_the_sum_of_its_parts(card: Scorecard) -> None:
    upper = sum(card[c] or 0 for c in CATEGORIES[:6])
    lower = sum(card[c] or 0 for c in CATEGORIES[6:])
    bonus = UPPER_BONUS if upper >= 63 else 0
    assert card.total == upper + bonus + lower + card.yahtzee_bonus
    assert Scorecard.parse(str(card)) == card


actions = st.lists(
    st.one_of(
        st.tuples(st.just("roll"), st.lists(st.booleans(), min_size=5, max_size=5)),
        st.tuples(st.just("score"), st.sampled_from(CATEGORIES)),
        st.tuples(st.just("hint"), st.none()),
    ),
    max_size=300,
)


@settings(max_examples=60)
@given(st.sampled_from(Mode), actions, st.integers(0, 2**32))
def test_any_action_sequence_keeps_the_game_consistent(
    mode: Mode, script: list[tuple[str, object]], seed: int
) -> None:
    """Random (often illegal) actions never corrupt a game; legal play ends after 13 each."""
    dice = SeededDice(seed)
    # A table chooses its seats (T1): people and a computer, mixed.
    seats = (SeatKind.HUMAN, SeatKind.COMPUTER, SeatKind.HUMAN) if mode is Mode.TABLE else None
    game = Game.new(mode, seats)
    for kind, arg in script:
        before = game
        try:
            if kind == "roll":
                game = game.roll(arg, dice)  # type: ignore[arg-type]
            elif kind == "score":
                game = game.score(arg)  # type: ignore[arg-type]
            else:
                game = game.use_hint()
        except IllegalMoveError:
            assert game is before  # a refused action changes nothing
        assert 0 <= game.rolls_left <= 3
        assert 0 <= game.hints_left <= 3
        assert all(c.filled_count <= 13 for c in game.cards)
    # Finish the game legally: exactly 13 scores per player, then it is over.
    while not game.is_over:
        if game.dice is None:
            game = game.roll([False] * 5, dice)
        game = game.score(next(o.category for o in game.preview().values() if o.legal))
    assert [c.filled_count for c in game.cards] == [13] * len(game.seats)
    assert game.result is not None
    if mode is not Mode.SOLO:
        assert game.turn == 0
