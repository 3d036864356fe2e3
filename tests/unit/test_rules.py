"""Table-driven tests of the scoring rules R3-R7 (docs/requirements.md)."""

from __future__ import annotations

import pytest

from yahtzee.errors import (
    CategoryUsedError,
    InvalidDiceError,
    InvalidScorecardError,
    JokerRuleError,
)
from yahtzee.i18n import Lang, text
from yahtzee.rules import (
    CATEGORIES,
    LOWER,
    UPPER,
    Category,
    Dice,
    Scorecard,
    base_score,
    legal_options,
    score_options,
)

C = Category

# (dice, category, points) straight from R3 and the seed's examples.
R3_EXAMPLES = [
    ("44412", C.FOURS, 12),  # three 4s in 四点 = 12
    ("11235", C.FOURS, 0),  # no 4s: 0
    ("66612", C.THREE_OF_A_KIND, 21),  # all five dice count, not just the three 6s
    ("66612", C.FOUR_OF_A_KIND, 0),
    ("55552", C.THREE_OF_A_KIND, 22),  # four alike also qualifies for 三条
    ("55552", C.FOUR_OF_A_KIND, 22),
    ("33333", C.THREE_OF_A_KIND, 15),  # five alike qualifies for both
    ("33333", C.FOUR_OF_A_KIND, 15),
    ("22333", C.FULL_HOUSE, 25),
    ("33333", C.FULL_HOUSE, 0),  # five alike is not a full house without the Joker
    ("33332", C.FULL_HOUSE, 0),  # four alike + one is not a full house
    ("12344", C.SMALL_STRAIGHT, 30),  # 1,2,3,4,4 counts
    ("34561", C.SMALL_STRAIGHT, 30),
    ("13456", C.SMALL_STRAIGHT, 30),
    ("12356", C.SMALL_STRAIGHT, 0),
    ("12345", C.SMALL_STRAIGHT, 30),  # a large straight also fits 小顺
    ("12345", C.LARGE_STRAIGHT, 40),
    ("65432", C.LARGE_STRAIGHT, 40),
    ("12344", C.LARGE_STRAIGHT, 0),  # a small straight does not fit 大顺
    ("13456", C.LARGE_STRAIGHT, 0),
    ("44444", C.YAHTZEE, 50),
    ("44443", C.YAHTZEE, 0),
    ("61524", C.CHANCE, 18),
    ("11111", C.CHANCE, 5),
    ("66666", C.SIXES, 30),
]


@pytest.mark.parametrize(("dice", "category", "points"), R3_EXAMPLES)
def test_r3_base_scores(dice: str, category: Category, points: int) -> None:
    assert base_score(category, Dice.parse(dice)) == points
    # and the same through the one authority, on a fresh card
    assert score_options(Scorecard(), Dice.parse(dice))[category].points == points


def test_r2_thirteen_categories_with_stable_ids_and_chinese_names() -> None:
    assert [c.value for c in CATEGORIES] == [
        "ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind",
        "four_of_a_kind", "full_house", "small_straight", "large_straight", "yahtzee", "chance",
    ]  # fmt: skip
    assert [text(Lang.ZH_HANS, c.name_key) for c in CATEGORIES] == [
        "一点", "二点", "三点", "四点", "五点", "六点",
        "三条", "四条", "葫芦", "小顺", "大顺", "快艇", "机会",
    ]  # fmt: skip
    assert Category.parse("葫芦") is C.FULL_HOUSE
    assert Category.parse("small_straight") is C.SMALL_STRAIGHT


def test_g2_a_box_is_parsed_by_its_name_in_every_language() -> None:
    """``--scores`` and ``/api/advice`` take a box by its id or its name in any of the
    game's languages (the Chinese-only parse refused 葫蘆 and Full House)."""
    assert Category.parse("葫蘆") is C.FULL_HOUSE
    assert Category.parse("Full House") is C.FULL_HOUSE
    assert Category.parse("large straight") is C.LARGE_STRAIGHT
    assert Category.parse("Yacht") is C.YAHTZEE
    assert Scorecard.parse("Sixes=24,Yacht bonus=100,快艇=50").yahtzee_bonus == 100
    with pytest.raises(InvalidScorecardError, match="unknown category 'Yahtzee!'"):
        Category.parse("Yahtzee!")


def test_r3_zero_is_allowed_in_any_open_box() -> None:
    options = score_options(Scorecard(), Dice.parse("12356"))
    assert len(options) == 13
    assert all(o.legal for o in options.values())
    assert options[C.YAHTZEE].points == 0


def _card(**scores: int) -> Scorecard:
    return Scorecard.from_scores({Category(k): v for k, v in scores.items()})


def test_r4_upper_bonus_at_exactly_63() -> None:
    card = _card(ones=3, twos=6, threes=9, fours=12, fives=15, sixes=18)
    assert card.upper_subtotal == 63
    assert card.upper_bonus == 35
    assert card.total == 98


def test_r4_no_upper_bonus_at_62() -> None:
    card = _card(ones=2, twos=6, threes=9, fours=12, fives=15, sixes=18)
    assert card.upper_subtotal == 62
    assert card.upper_bonus == 0
    assert card.total == 62


def test_r4_option_reports_bonus_earned_by_crossing_63() -> None:
    card = _card(ones=3, twos=6, threes=9, fours=12, fives=15)  # 45, sixes open
    options = score_options(card, Dice.parse("66612"))
    assert options[C.SIXES].points == 18
    assert options[C.SIXES].upper_bonus == 35
    assert options[C.SIXES].gain == 53
    assert score_options(card, Dice.parse("66123"))[C.SIXES].upper_bonus == 0


def test_r5_yahtzee_bonus_only_with_50_in_the_box() -> None:
    with_50 = _card(yahtzee=50)
    with_0 = _card(yahtzee=0)
    dice = Dice.parse("22222")
    assert all(o.yahtzee_bonus == 100 for o in score_options(with_50, dice).values())
    assert all(o.yahtzee_bonus == 0 for o in score_options(with_0, dice).values())
    after = with_50.score(C.TWOS, dice)
    assert after.yahtzee_bonus == 100
    assert after.total == 50 + 10 + 100
    assert with_0.score(C.TWOS, dice).yahtzee_bonus == 0


def test_r5_no_bonus_for_the_first_yahtzee() -> None:
    option = score_options(Scorecard(), Dice.parse("55555"))[C.YAHTZEE]
    assert (option.points, option.yahtzee_bonus) == (50, 0)


@pytest.mark.parametrize("box", [50, 0])
def test_r6_joker_matching_upper_box_open_is_the_only_legal_box(box: int) -> None:
    card = _card(yahtzee=box)
    options = score_options(card, Dice.parse("44444"))
    legal = [c for c, o in options.items() if o.legal]
    assert legal == [C.FOURS]
    assert options[C.FOURS].points == 20
    with pytest.raises(JokerRuleError, match="full_house"):
        card.score(C.FULL_HOUSE, Dice.parse("44444"))


@pytest.mark.parametrize("box", [50, 0])
def test_r6_joker_upper_filled_any_open_lower_box_at_full_value(box: int) -> None:
    card = _card(yahtzee=box, fours=12, chance=20)
    options = score_options(card, Dice.parse("44444"))
    legal = {c: o.points for c, o in options.items() if o.legal}
    assert legal == {
        C.THREE_OF_A_KIND: 20,
        C.FOUR_OF_A_KIND: 20,
        C.FULL_HOUSE: 25,
        C.SMALL_STRAIGHT: 30,
        C.LARGE_STRAIGHT: 40,
    }
    assert not any(options[c].legal for c in UPPER if card.is_open(c))


@pytest.mark.parametrize("box", [50, 0])
def test_r6_joker_all_lower_filled_any_open_upper_box_at_zero(box: int) -> None:
    card = _card(
        yahtzee=box,
        fours=12,
        three_of_a_kind=20,
        four_of_a_kind=0,
        full_house=25,
        small_straight=30,
        large_straight=0,
        chance=22,
    )
    options = score_options(card, Dice.parse("44444"))
    legal = {c: o.points for c, o in options.items() if o.legal}
    assert legal == {C.ONES: 0, C.TWOS: 0, C.THREES: 0, C.FIVES: 0, C.SIXES: 0}
    expected_bonus = 100 if box == 50 else 0
    assert all(o.yahtzee_bonus == expected_bonus for o in options.values())


def test_r6_no_joker_while_the_yahtzee_box_is_open() -> None:
    options = score_options(_card(fours=12), Dice.parse("44444"))
    assert all(o.legal and not o.joker for o in options.values())
    assert options[C.FULL_HOUSE].points == 0
    assert options[C.YAHTZEE].points == 50


def test_r7_total_is_upper_plus_bonus_plus_lower_plus_yahtzee_bonus() -> None:
    card = Scorecard.parse(
        "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,"
        "four_of_a_kind=0,full_house=25,small_straight=30,large_straight=40,yahtzee=50,"
        "chance=22,yahtzee_bonus=200"
    )
    assert card.is_complete
    assert card.lower_total == 187
    assert card.total == 63 + 35 + 187 + 200


def test_score_in_used_box_names_the_box() -> None:
    card = _card(chance=20)
    with pytest.raises(CategoryUsedError, match=r"chance already holds 20"):
        card.score(C.CHANCE, Dice.parse("12345"))


@pytest.mark.parametrize("text", ["1234", "123456", "12347", "abcde", "1 2 3"])
def test_bad_dice_text_names_the_value(text: str) -> None:
    with pytest.raises(InvalidDiceError, match=repr(text).replace("(", r"\(")):
        Dice.parse(text)


@pytest.mark.parametrize("values", [(1, 2, 3, 4), (0, 1, 2, 3, 4), (1, 2, 3, 4, 7)])
def test_bad_dice_values_rejected(values: tuple[int, ...]) -> None:
    with pytest.raises(InvalidDiceError):
        Dice.of(values)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("twos=5", "twos=5 is impossible"),
        ("chance=0", "chance=0 is impossible"),
        ("full_house=20", "full_house=20 is impossible"),
        ("bogus=3", "unknown category 'bogus'"),
        ("ones=1,ones=2", "ones is listed twice"),
        ("ones", "expected name=points"),
        ("ones=x", "points must be an integer"),
        ("yahtzee=0,chance=20,yahtzee_bonus=100", "needs yahtzee=50"),
    ],
)
def test_impossible_scorecards_are_rejected(text: str, fragment: str) -> None:
    with pytest.raises(InvalidScorecardError, match=fragment):
        Scorecard.parse(text)


def test_scorecard_text_round_trip() -> None:
    text = "ones=3,twos=6,yahtzee=50,chance=22,yahtzee_bonus=100"
    card = Scorecard.parse(text)
    assert str(card) == text
    assert Scorecard.parse(str(card)) == card
    assert Scorecard.parse("一点=3,快艇=50") == _card(ones=3, yahtzee=50)


def test_dice_text_form_and_derived_values() -> None:
    dice = Dice.parse("61524")
    assert str(dice) == "61524"
    assert dice.total == 18
    assert dice.counts == (1, 1, 0, 1, 1, 1)
    assert dice.sorted() == (1, 2, 4, 5, 6)
    assert not dice.is_yahtzee
    assert Dice.parse("33333").is_yahtzee


def test_scorecard_derived_values_are_cached_per_card() -> None:
    card = _card(ones=3, chance=20)
    assert card.open_categories == tuple(c for c in CATEGORIES if c not in (C.ONES, C.CHANCE))
    assert (card.filled_count, card.upper_subtotal, card.lower_total, card.total) == (2, 3, 20, 23)
    after = card.score(C.TWOS, Dice.parse("22222"))
    assert (after.filled_count, after.upper_subtotal, after.total) == (3, 13, 33)
    assert (card.filled_count, card.total) == (2, 23)  # the old card is unchanged


def test_legal_options_lists_only_legal_boxes() -> None:
    card = _card(yahtzee=50)
    assert [o.category for o in legal_options(card, Dice.parse("66666"))] == [C.SIXES]
    assert len(legal_options(Scorecard(), Dice.parse("12345"))) == 13
    assert set(LOWER) <= {o.category for o in legal_options(Scorecard(), Dice.parse("66666"))}
