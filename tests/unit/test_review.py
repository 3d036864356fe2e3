"""The review (复盘, L1-L3): identity, marks, accuracy and agreement with advise()."""

from __future__ import annotations

import dataclasses
import random

import pytest

from yahtzee import log as events_log
from yahtzee.dice import SeededDice
from yahtzee.errors import IllegalMoveError, NotReviewableError
from yahtzee.players import get_player
from yahtzee.review import accuracy_of, mark_of, review_events
from yahtzee.review.analysis import PlayerReview
from yahtzee.review.selfplay import play_log
from yahtzee.rules import Dice
from yahtzee.solver import CategoryOption, KeepOption, ValueTable, advise

LEVELS = ("expert", "intermediate", "novice")


def _log(level: str, seed: int, opponent: str | None = None) -> list[events_log.Event]:
    human = get_player(level, random.Random(seed))
    computer = get_player(opponent, random.Random(-seed)) if opponent else None
    log, state = play_log(human, SeededDice(seed), computer)
    assert state.is_over
    return log


def _identity_error(side: PlayerReview) -> float:
    return abs(side.start_value + side.luck - side.skill_loss - side.final_score)


def test_l3_marks_follow_verhoeffs_buckets() -> None:
    """L1: < 0.01 best, < 1 inaccuracy, < 5 mistake, >= 5 blunder."""
    assert [mark_of(x) for x in (0, 0.0099, 0.01, 0.99, 1, 4.99, 5, 40)] == [
        "best",
        "best",
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "mistake",
        "blunder",
        "blunder",
    ]


def test_l3_accuracy_formula_clamped() -> None:
    """L3: 103.1668*exp(-0.04354*2.5*loss) - 3.1669 in 0..100, 100 below 0.01."""
    assert accuracy_of(0.005) == 100.0
    assert accuracy_of(0.01) == pytest.approx(103.1668 * 2.718281828 ** (-0.0010885) - 3.1669)
    assert accuracy_of(1.0) == pytest.approx(103.1668 * 2.718281828 ** (-0.10885) - 3.1669)
    assert 0 < accuracy_of(10) < accuracy_of(5) < accuracy_of(1) < 100
    assert accuracy_of(1000) == 0.0


@pytest.mark.parametrize("level", LEVELS)
def test_l2_identity_holds_on_many_simulated_games(level: str, table: ValueTable) -> None:
    """L2: start_value + luck - skill_loss == final_score (to 0.01) for every game, with each
    computer level in the player's seat: 700 solo games per level (2,100 in all)."""
    games = 700
    worst = 0.0
    marks: set[str] = set()
    for seed in range(games):
        side = review_events(_log(level, seed), table).human
        worst = max(worst, _identity_error(side))
        marks.update(d.mark for d in side.decisions)
        assert all(d.loss >= 0 for d in side.decisions)
        assert side.turn_values[-1] == side.final_score
        assert len(side.turn_values) == 14
        assert side.turn_values[0] == pytest.approx(254.5877, abs=1e-3)
    assert worst < 0.01
    if level == "expert":
        assert marks == {"best"}
    else:  # the weaker levels do make every kind of error over 700 games
        assert marks == {"best", "inaccuracy", "mistake", "blunder"}


@pytest.mark.parametrize(("level", "opponent"), [("novice", "expert"), ("expert", "intermediate")])
def test_l2_identity_holds_for_both_sides_of_vs_games(
    level: str, opponent: str, table: ValueTable
) -> None:
    """L2 in vs games: the human's and the computer's sides each add up."""
    for seed in range(60):
        review = review_events(_log(level, seed, opponent), table)
        assert review.computer is not None
        assert _identity_error(review.human) < 0.01
        assert _identity_error(review.computer) < 0.01


def test_l3_expert_game_is_all_best_with_accuracy_100(table: ValueTable) -> None:
    """An expert-played game: accuracy 100, only ``best`` marks, no skill loss."""
    for seed in range(20):
        side = review_events(_log("expert", 1000 + seed), table).human
        assert side.accuracy == 100.0
        assert side.counts()["best"] == len(side.decisions) > 13
        assert side.skill_loss < 0.01 * len(side.decisions)


@pytest.mark.parametrize("level", ["novice", "intermediate"])
def test_l1_losses_equal_what_advise_says(level: str, table: ValueTable) -> None:
    """Each decision's values are advise()'s (plus the points on the card): a keep's value
    is the keep's, "stop" is the best box's value, a box's is the box's."""
    checked = 0
    for seed in range(15):
        for d in review_events(_log(level, seed), table).human.decisions:
            dice = Dice.of(d.dice)
            total = d.card.total
            if d.kind == "score":
                advice = advise(d.card, dice, 0, table)
                values = {
                    o.category: o.value for o in advice.options if isinstance(o, CategoryOption)
                }
                assert d.chosen.category is not None
                assert d.chosen.value == pytest.approx(total + values[d.chosen.category], abs=1e-6)
            else:
                rolls_left = 3 - d.roll
                keeps = {
                    o.keep: o.value
                    for o in advise(d.card, dice, rolls_left, table).options
                    if isinstance(o, KeepOption) and len(o.keep) < 5
                }
                stop = advise(d.card, dice, 0, table).state_value
                best = max([*keeps.values(), stop])
                chosen = stop if d.chosen.keep == "stop" else keeps[d.chosen.keep]  # type: ignore[index]
                assert d.loss == pytest.approx(best - chosen, abs=1e-6)
            assert d.best.value == pytest.approx(d.options[0].value)
            assert d.loss == pytest.approx(d.best.value - d.chosen.value)
            checked += 1
    assert checked > 400


def test_l1_single_option_choices_are_not_decisions(table: ValueTable) -> None:
    """The last box of the game (one legal option) is never a counted decision."""
    side = review_events(_log("novice", 7), table).human
    last_box = [d for d in side.decisions if d.kind == "score" and d.round == 13]
    assert last_box == []
    assert all(len(d.options) > 1 for d in side.decisions)


def test_unfinished_or_abandoned_games_are_not_reviewable(table: ValueTable) -> None:
    log = _log("novice", 3)
    with pytest.raises(NotReviewableError, match="in progress"):
        review_events(log[:-1], table)
    with pytest.raises(NotReviewableError, match="abandoned"):
        review_events([*log[:10], events_log.Abandon()], table)
    with pytest.raises(IllegalMoveError, match="start event"):
        review_events(log[1:], table)


def test_hints_and_legacy_restarts_keep_the_identity(table: ValueTable) -> None:
    """A ``hint`` changes nothing; a legacy ``restart_turn`` (the dice thrown away) counts
    as luck, so the identity still holds."""
    log = _log("intermediate", 11)
    plain = review_events(log, table).human
    second_roll = [i for i, e in enumerate(log) if e.kind == "roll"][1]
    hinted = [*log[:second_roll], events_log.Hint(0)]
    hinted += log[second_roll:]
    assert review_events(hinted, table).human == plain
    # Restart right after round 1's first roll, then play that turn from its top.
    restarted = review_events([log[0], log[1], events_log.RestartTurn(), *log[1:]], table).human
    assert _identity_error(restarted) < 0.01
    assert restarted.final_score == plain.final_score
    assert restarted.decisions == plain.decisions


def test_k2_autopilot_decisions_are_marked_and_not_the_persons(table: ValueTable) -> None:
    """托管 (K2): the rolls and boxes the computer made for an away person carry ``proxy``;
    their decisions are reviewed and marked, left out of the person's skill loss, accuracy
    and counts, and the identity holds with 托管's loss apart; 练习 makes no card of them."""
    from yahtzee.practice.service import cards_of_game

    plain = _log("novice", 7)
    # the novice's rounds 1-4 played "for" the person: the same moves, marked as 托管's
    proxied: list[events_log.Event] = []
    scores = 0
    for event in plain:
        if isinstance(event, events_log.Roll | events_log.Score) and scores < 4:
            event = dataclasses.replace(event, proxy="intermediate")
        scores += isinstance(event, events_log.Score)
        proxied.append(event)
    before = review_events(plain, table).human
    after = review_events(proxied, table).human
    by_proxy = [d for d in after.decisions if d.proxy is not None]
    assert by_proxy
    assert {d.round for d in by_proxy} == {1, 2, 3, 4}
    assert len(after.decisions) == len(before.decisions)  # all still shown
    assert after.own == tuple(d for d in after.decisions if d.round > 4)
    assert after.skill_loss + after.proxy_loss == pytest.approx(before.skill_loss)
    assert sum(after.counts().values()) == len(after.own)
    assert after.proxy_loss > 0
    chain = after.start_value + after.luck - after.skill_loss - after.proxy_loss
    assert abs(chain - after.final_score) < 1e-6
    rounds = {after.decisions[card.decision].round for card in cards_of_game("g", proxied)}
    assert rounds
    assert min(rounds) > 4


def test_l12_every_decision_that_was_not_best_says_why_as_practice_does(
    table: ValueTable,
) -> None:
    """L12: 复盘 gives each decision that was not best the sentences 练习 gives the same
    decision as a puzzle (one source), and none to the best ones."""
    from yahtzee.review import review_json
    from yahtzee.training.bank import decision_position
    from yahtzee.training.explain import explain
    from yahtzee.training.puzzle import Answer, grade

    for seed in (1, 2):
        review = review_events(_log("novice", seed), table)
        out = review_json(review, "g")
        decisions = review.human.decisions
        assert any(d["mark"] != "best" for d in out["decisions"])
        for i, (d, shown) in enumerate(zip(decisions, out["decisions"], strict=True)):
            if d.mark == "best":
                assert "why" not in shown
                continue
            puzzle = grade(decision_position(decisions, i), Answer.of(d.chosen), table)
            assert shown["why"] == explain(puzzle, table)[1:]
            assert shown["why"]
