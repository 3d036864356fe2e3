"""练习 core (L6-L9): positions, exact grading, themes, explanations, ratings, schedule, bank."""

from __future__ import annotations

import itertools
import lzma
import random
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from importlib import resources

import pytest

from yahtzee.dice import SeededDice
from yahtzee.errors import IllegalMoveError, InvalidPuzzleError
from yahtzee.i18n import Lang, Msg, text
from yahtzee.players import get_player
from yahtzee.review import review_events
from yahtzee.review.analysis import STOP, Choice
from yahtzee.review.selfplay import play_log
from yahtzee.rules import Category, Dice, Scorecard
from yahtzee.solver import advise
from yahtzee.solver.advice import CategoryOption, KeepOption, StopOption
from yahtzee.training.bank import (
    BANK_FILE,
    MIN_LOSS,
    BankPuzzle,
    answer_text,
    generate,
    load_bank,
    mistakes,
    parse_answer_text,
)
from yahtzee.training.explain import SMALL, chance, explain, of_a_kind
from yahtzee.training.progress import Glicko, card_due, new_card, rate, review_card
from yahtzee.training.puzzle import Answer, PuzzlePosition, grade, options_of
from yahtzee.training.themes import THEMES, bonus_open, parse_theme, themes_of

pytestmark = pytest.mark.usefixtures("table")

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def pos(text: str) -> PuzzlePosition:
    return PuzzlePosition.parse(text)


# -- positions and answers ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["|13356|2|", "ones=3,sixes=24,yahtzee=50,yahtzee_bonus=100|66666|0|66", "|12345|1|1"]
)
def test_position_text_round_trips(text: str) -> None:
    assert str(pos(text)) == text
    assert pos(text).to_json()["dice"] == [int(c) for c in text.split("|")[1]]


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("|1335|2|", "dice"),
        ("|13356|3|", "rolls left"),
        ("|13356|2|3", "nothing is held"),
        ("|13356|1|44", r"held \(4, 4\)"),
        ("|13356|1", "card|dice"),
        ("ones=7|13356|1|", "ones=7"),
    ],
)
def test_bad_positions_are_refused_naming_the_part(text: str, part: str) -> None:
    with pytest.raises(
        (InvalidPuzzleError, ValueError),
        match=part if part.startswith("held") else part.replace("|", r"\|"),
    ):
        pos(text)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"keep": [7]},
        {"keep": [1, 2, 3, 4, 5]},
        {"keep": "all"},
        {"keep": [True]},
        {"category": "sevens"},
        {"keep": [1], "category": "ones"},
        [1, 2],
    ],
)
def test_hostile_answers_are_refused(body: object) -> None:
    with pytest.raises(InvalidPuzzleError):
        Answer.from_json(body)


def test_answer_json_and_text_round_trip() -> None:
    for answer in (
        Answer(keep=(6, 6)),
        Answer(keep=()),
        Answer(keep=STOP),
        Answer(category=Category.CHANCE),
    ):
        assert Answer.from_json(answer.to_json()) == answer
        assert parse_answer_text(answer_text(answer)) == answer


# -- grading equals the solver --------------------------------------------------------------


def _random_positions(n: int, seed: int) -> list[PuzzlePosition]:
    """Positions of real (simulated) games: every decision of a few 普通 games."""
    out: list[PuzzlePosition] = []
    dice = SeededDice(seed)
    player = get_player("intermediate", rng=random.Random(seed))
    for _ in range(n):
        log, _ = play_log(player, dice)
        decisions = review_events(log).human.decisions
        out.extend(p for _, p, _ in mistakes(decisions, min_loss=0.0))
    return out


def test_grading_equals_the_solvers_option_values() -> None:
    positions = _random_positions(3, seed=7)
    assert len(positions) > 60
    for p in positions:
        advice = advise(p.card, p.dice, p.rolls_left)
        total = p.card.total
        graded_options = options_of(p)
        assert len(graded_options) == len(advice.options)
        for option in advice.options:
            if isinstance(option, CategoryOption):
                answer = Answer(category=option.category)
            elif isinstance(option, StopOption):
                answer = Answer(keep=STOP)
            else:
                assert isinstance(option, KeepOption)
                answer = Answer(keep=option.keep)
            g = grade(p, answer)
            assert g.chosen.value == pytest.approx(total + option.value, abs=1e-9)
            assert g.best.value == pytest.approx(total + advice.state_value, abs=1e-9)
            assert g.loss == pytest.approx(advice.state_value - option.value, abs=1e-9)
        values = [o.value for o in graded_options]
        assert values == sorted(values, reverse=True)


def test_a_game_decision_graded_as_a_puzzle_has_the_reviews_loss_and_mark() -> None:
    log, _ = play_log(get_player("novice"), SeededDice(3))
    decisions = review_events(log).human.decisions
    found = list(mistakes(decisions))
    assert found
    for _i, p, d in found:
        g = grade(p, Answer.of(d.chosen))
        assert g.loss == pytest.approx(d.loss, abs=1e-9)
        assert g.mark == d.mark
        assert g.loss >= MIN_LOSS


def test_marks_follow_the_reviews_thresholds() -> None:
    p = pos("|66512|2|")
    marks = Counter(grade(p, Answer.of(o)).mark for o in options_of(p))
    assert marks["best"] == 1
    assert set(marks) <= {"best", "inaccuracy", "mistake", "blunder"}
    assert marks["blunder"] > 0


def test_answers_that_are_not_options_are_illegal() -> None:
    with pytest.raises(IllegalMoveError, match="cannot keep"):
        grade(pos("|13356|2|"), Answer(keep=(4,)))
    with pytest.raises(IllegalMoveError, match="not the box"):
        grade(pos("|13356|2|"), Answer(category=Category.CHANCE))
    with pytest.raises(IllegalMoveError, match="already used"):
        grade(pos("chance=20|13356|0|"), Answer(category=Category.CHANCE))
    with pytest.raises(IllegalMoveError, match="a box, not a keep"):
        grade(pos("|13356|0|"), Answer(keep=STOP))
    # The Joker rule: a Yahtzee of 3s with 三点 open must go there.
    joker = pos("yahtzee=50|33333|0|")
    with pytest.raises(IllegalMoveError, match="Joker"):
        grade(joker, Answer(category=Category.CHANCE))


# -- explanations (L9) -----------------------------------------------------------------------


def _brute_force_one_roll(keep: tuple[int, ...], ok: Callable[[Dice], bool]) -> float:
    """Chance over every way the other dice can fall, by enumeration."""
    free = 5 - len(keep)
    hits = sum(
        1 for faces in itertools.product(range(1, 7), repeat=free) if ok(Dice.of((*keep, *faces)))
    )
    return float(hits) / float(6**free)


def test_keep_chances_are_exact() -> None:
    p = pos("|66512|1|")
    three_sixes = of_a_kind(6, 3)
    # The example: 留 6、6 -> 42 %, 留 5、6、6 -> 31 %.
    assert chance(three_sixes, p, (6, 6)) == pytest.approx(1 - (5 / 6) ** 3, abs=1e-12)
    assert chance(three_sixes, p, (5, 6, 6)) == pytest.approx(1 - (5 / 6) ** 2, abs=1e-12)
    for keep in [(1, 2), (2, 5), (1, 2, 5)]:
        brute = _brute_force_one_roll(
            keep,
            lambda d: any(
                set(r) <= set(d.values) for r in ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))
            ),
        )
        assert chance(SMALL, p, keep) == pytest.approx(brute, abs=1e-12)
    assert chance(three_sixes, p, STOP) == 0.0
    # Two rolls left: at least the one-roll chance, at most 1.
    p2 = pos("|66512|2|")
    assert 1 - (5 / 6) ** 3 < chance(three_sixes, p2, (6, 6)) < 1


def said(messages: list[Msg], lang: Lang = Lang.ZH_HANS) -> list[str]:
    """The explanation as ``lang``'s reader reads it."""
    return [m.render(lang) for m in messages]


def test_keep_explanation_names_both_chances() -> None:
    p = pos("|66512|1|")
    lines = said(explain(grade(p, Answer(keep=(5, 6, 6)))))
    assert lines[0].startswith("最好的选择平均能多得")
    assert "留 6、6：这回合结束时至少三个 6 的机会是 42%；留 5、6、6：31%。" in lines


CHANCE_WORDS = "的机会是"
LATE = (
    "ones=2,twos=6,threes=6,fours=8,fives=20,four_of_a_kind=17,small_straight=30,"
    "large_straight=40,chance=21"
)


@pytest.mark.parametrize(
    ("text", "chosen", "sentence"),
    [
        # 欠佳 (lost under a point), a keep without a pair: 留 4、6 against 留 6.
        (f"{LATE}|46213|1|6", (4, 6), "留 6：这回合结束时至少三个 6 的机会是 13%；留 4、6：7%。"),
        # A single die, and rolling all five.
        (f"{LATE}|46213|1|6", (4,), "留 6：这回合结束时至少三个 6 的机会是 13%；留 4：2%。"),
        (f"{LATE}|46213|1|6", (), "留 6：这回合结束时至少三个 6 的机会是 13%；全部重掷：4%。"),
        # Stopping is best: the combination it writes now, against rolling on.
        (
            "ones=3,twos=4,threes=9,fives=20,sixes=24,four_of_a_kind=21,small_straight=30,"
            "chance=23|33111|2|",
            (),
            "不再掷，直接记分：这回合结束时葫芦（三个一样加两个一样）的机会是 100%；"
            "全部重掷：19%。",
        ),
    ],
)
def test_l14_every_keep_that_loses_gets_its_chance_sentence(
    text: str, chosen: tuple[int, ...], sentence: str
) -> None:
    """L14: stop, empty keeps and keeps without a pair get the chance sentence too (the
    old explanation had only 「最好的选择平均能多得 X 分」 for these)."""
    g = grade(pos(text), Answer(keep=chosen))
    assert g.mark != "best"
    lines = said(explain(g))
    assert lines[0].startswith("最好的选择平均能多得")
    assert sentence in lines


def test_l14_a_stop_answer_gets_the_chance_of_what_rolling_on_aims_at() -> None:
    g = grade(pos("|66612|2|"), Answer(keep=STOP))
    assert g.best.keep == (6, 6, 6)
    assert any(CHANCE_WORDS in line and "不再掷" in line for line in said(explain(g)))


def test_l14_the_chances_in_the_sentences_are_the_exact_ones() -> None:
    p = pos(f"{LATE}|46213|1|6")
    assert round(100 * chance(of_a_kind(6, 3), p, (6,))) == 13
    assert round(100 * chance(of_a_kind(6, 3), p, (4, 6))) == 7


def test_box_explanation_says_what_each_box_brings_later() -> None:
    p = pos("|23216|0|22")
    g = grade(p, Answer(category=Category.ONES))
    lines = said(explain(g))
    assert g.best.category is not None
    assert any(
        line.startswith(f"记在「{text(Lang.ZH_HANS, g.best.category.name_key)}」") for line in lines
    )
    assert any("记在「一点」：现在得 1 分" in line for line in lines)
    best = said(explain(grade(p, Answer.of(g.best))))
    assert best[0] == "答对了！这是最好的选择。"


def test_g2_the_explanation_is_said_in_the_readers_language() -> None:
    """The sentences are catalog messages: the same explanation reads in each language
    (G5: one review, cached once, for readers of every language)."""
    g = grade(pos("|66512|1|"), Answer(keep=(5, 6, 6)))
    english = said(explain(g), Lang.EN)
    assert english[0].startswith("The best choice scores ")
    assert (
        "Keep 6, 6: the chance of at least three 6s by the end of this turn is 42%. "
        "Keep 5, 6, 6: 31%." in english
    )
    assert "留 6、6：這回合結束時至少三個 6 的機會是 42%；留 5、6、6：31%。" in said(
        explain(g), Lang.ZH_HANT
    )
    box = grade(pos("|23216|0|22"), Answer(category=Category.ONES))
    lines = said(explain(box), Lang.EN)
    assert "Scoring Ones: 1 point now" in lines[2]  # (a plural: one point)
    assert said(explain(grade(pos("|23216|0|22"), Answer.of(box.best))), Lang.EN)[0] == (
        "Right! That's the best choice."
    )


# -- themes (L8) -----------------------------------------------------------------------------


def _themes(text: str, best: Choice, chosen: Choice) -> tuple[str, ...]:
    return themes_of(pos(text), best, chosen)


def keep(*faces: int) -> Choice:
    return Choice(0.0, keep=tuple(faces))


def box(category: Category, points: int) -> Choice:
    return Choice(0.0, category=category, points=points)


def test_themes_on_hand_made_positions() -> None:
    assert "upper_bonus" in _themes("|66512|2|", keep(6, 6), keep(5, 6, 6))
    assert "straights" in _themes(
        "|12346|2|",
        keep(1, 2, 3, 4),
        keep(
            6,
        ),
    )
    assert "full_house" in _themes("|22335|1|", keep(2, 2, 3, 3), keep(2, 2))
    assert "yahtzee" in _themes("|44412|2|", keep(4, 4, 4), keep(1, 2))
    assert "zero" in _themes("|11236|0|", box(Category.YAHTZEE, 0), box(Category.CHANCE, 13))
    assert "chance" in _themes("|11236|0|", box(Category.YAHTZEE, 0), box(Category.CHANCE, 13))
    late = (
        "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,"
        "four_of_a_kind=0,full_house=25,small_straight=30"
    )
    assert "endgame" in _themes(
        f"{late}|11236|0|", box(Category.CHANCE, 13), box(Category.YAHTZEE, 0)
    )
    # And not where they do not apply.
    assert "endgame" not in _themes("|11236|0|", box(Category.CHANCE, 13), box(Category.ONES, 2))
    assert "straights" not in _themes(
        "small_straight=30,large_straight=40|12346|2|",
        keep(1, 2, 3, 4),
        keep(
            6,
        ),
    )
    done = "ones=3,twos=6,threes=9,fours=16,fives=20,sixes=24"
    assert not bonus_open(Scorecard.parse(done))
    assert "upper_bonus" not in _themes(f"{done}|66512|2|", keep(6, 6), keep(5, 6, 6))
    assert "yahtzee" not in _themes("yahtzee=0|44412|2|", keep(4, 4, 4), keep(1, 2))


def test_l14_every_decision_has_a_theme() -> None:
    """L14: a keep with a gap is about straights, a pair about collecting one face, and
    what no rule names is 综合 (605 of 4,712 bank puzzles had no theme before)."""
    assert "straights" in _themes("|24556|2|", keep(2, 4, 5), keep(5, 5))
    assert "kinds" in _themes("|24556|2|", keep(2, 4, 5), keep(5, 5))
    spent = "threes=9,three_of_a_kind=20,four_of_a_kind=22,small_straight=30,large_straight=40"
    assert _themes(f"{spent}|35331|2|", keep(), keep(1, 5)) == ("mixed",)
    assert all(p.themes for p in load_bank())


def test_theme_names_parse() -> None:
    assert parse_theme("顺子") == "straights"
    assert parse_theme("upper_bonus") == "upper_bonus"
    with pytest.raises(ValueError, match="unknown theme"):
        parse_theme("<script>")


# -- ratings and schedule ----------------------------------------------------------------------


def test_ratings_move_the_right_way() -> None:
    me, puzzle = Glicko(), Glicko()
    up, down = rate(me, puzzle, "best")
    assert up.rating > me.rating
    assert down.rating < puzzle.rating
    worse, harder = rate(me, puzzle, "blunder")
    assert worse.rating < me.rating
    assert harder.rating > puzzle.rating
    half, _ = rate(me, puzzle, "inaccuracy")
    assert worse.rating < half.rating < up.rating
    # Beating a harder puzzle earns more than beating an easier one.
    hard_win, _ = rate(me, Glicko(1800, 100), "best")
    easy_win, _ = rate(me, Glicko(1200, 100), "best")
    assert hard_win.rating - me.rating > easy_win.rating - me.rating
    assert up.rd < me.rd


def test_schedule_brings_a_miss_back_sooner_than_a_best_answer() -> None:
    card = new_card(1, NOW)
    assert card_due(card) == NOW
    later = NOW + timedelta(minutes=5)
    missed, due_miss = review_card(card, "blunder", later)
    right, due_right = review_card(card, "best", later)
    assert later < due_miss < due_right
    # Right again after the learning step: the interval grows (days, not minutes).
    _, due_again = review_card(right, "best", due_right)
    assert due_again - due_right > due_right - later
    _, due_miss_again = review_card(missed, "mistake", due_miss)
    assert due_miss_again - due_miss <= timedelta(minutes=10)


# -- the bank ------------------------------------------------------------------------------------


def test_the_shipped_bank_is_thousands_of_real_mistakes_under_5_mb() -> None:
    data = resources.files("yahtzee.training").joinpath(BANK_FILE).read_bytes()
    assert len(data) <= 5 * 1024 * 1024
    bank = load_bank()
    assert len(bank) >= 3000
    assert {p.level for p in bank} == {"novice", "intermediate"}
    assert len({p.key for p in bank}) == len(bank)
    tags = Counter(t for p in bank for t in p.themes)
    assert set(tags) == set(THEMES)
    assert min(tags.values()) >= 100  # every 专项练习 has enough puzzles
    text = lzma.decompress(data).decode()
    assert text.splitlines()[0] == str(bank[0])


def test_bank_losses_and_themes_are_what_the_solver_and_rules_say() -> None:
    rng = random.Random(5)
    for p in rng.sample(load_bank(), 150):
        g = grade(p.position, p.chosen)
        assert g.loss == pytest.approx(p.loss, abs=1e-4)
        assert g.loss >= MIN_LOSS
        assert themes_of(p.position, g.best, g.chosen) == p.themes


def test_bank_generation_is_reproducible_and_parses_back() -> None:
    one = generate(2, seed=11)
    assert one == generate(2, seed=11)
    assert one
    for p in one:
        assert BankPuzzle.parse(str(p)) == p
        assert p.loss >= MIN_LOSS
