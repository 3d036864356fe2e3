"""统计 (L5): the shipped expert reference and the stats object."""

from __future__ import annotations

from yahtzee.game import Mode, Result
from yahtzee.players import Difficulty
from yahtzee.review.stats import FinishedGame, expert_reference, histogram, stats_json
from yahtzee.rules import CATEGORIES, Scorecard
from yahtzee.solver import ValueTable
from yahtzee.solver.cache import RULES_VERSION


def test_l5_expert_reference_is_a_million_games_of_these_rules(table: ValueTable) -> None:
    ref = expert_reference()
    assert ref.games >= 1_000_000
    assert abs(sum(ref.shares.values()) - 1) < 1e-9
    mean = sum(s * p for s, p in ref.shares.items())
    assert abs(mean - ref.mean) < 1e-6
    # Within 4 standard errors (sd ~ 60) of the solver's exact expected score.
    assert abs(ref.mean - table.start_value) < 4 * 60 / ref.games**0.5
    assert abs(sum(ref.box_means.values()) - ref.mean) < 40  # + bonuses
    assert list(ref.box_means) == [c.value for c in CATEGORIES]
    assert 0.6 < ref.upper_bonus_rate < 0.75
    assert 0.3 < ref.yahtzee_rate < 0.4
    import json
    from importlib import resources

    text = resources.files("yahtzee.review").joinpath("expert_scores.json").read_text("utf-8")
    assert json.loads(text)["rules_version"] == RULES_VERSION


def test_l5_histogram_bins() -> None:
    bins = histogram([0, 19, 20, 255, 499, 500, 1200])
    assert bins[0] == {"from": 0, "to": 19, "games": 2, "expert": bins[0]["expert"]}
    assert bins[1]["games"] == 1
    assert bins[12]["from"] == 240
    assert bins[12]["games"] == 1
    assert bins[-2]["to"] == 499
    assert bins[-2]["games"] == 1
    assert bins[-1] == {"from": 500, "to": None, "games": 2, "expert": bins[-1]["expert"]}
    assert max(bins, key=lambda b: b["expert"])["from"] in (220, 240, 260)


def test_l5_stats_rates_and_boxes() -> None:
    full = Scorecard.parse(
        "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,"
        "four_of_a_kind=0,full_house=25,small_straight=30,large_straight=40,yahtzee=50,chance=22"
    )
    weak = Scorecard.parse(
        "ones=0,twos=0,threes=0,fours=0,fives=0,sixes=0,three_of_a_kind=0,"
        "four_of_a_kind=0,full_house=0,small_straight=0,large_straight=0,yahtzee=0,chance=5"
    )
    games = [
        FinishedGame(Mode.SOLO, None, Result.SOLO, full.total, full, 91.5),
        FinishedGame(Mode.SOLO, None, Result.SOLO, weak.total, weak, 40.0),
        FinishedGame(Mode.VS_COMPUTER, Difficulty.EXPERT, Result.LOSS, weak.total, weak, 40.0),
    ]
    out = stats_json(games)
    assert out["solo"]["games"] == 2
    assert out["solo"]["upper_bonus_rate"] == 0.5
    assert out["solo"]["yahtzee_rate"] == 0.5
    assert out["solo"]["accuracy"] == [91.5, 40.0]
    assert out["vs"]["expert"] == {"games": 1, "wins": 0, "losses": 1, "draws": 0, "mean": 5.0}
    assert out["boxes"]["chance"]["mean"] == round((22 + 5 + 5) / 3, 2)
    assert out["boxes"]["yahtzee"]["mean"] == round(50 / 3, 2)


def test_a2_each_game_counts_in_the_section_its_kind_names() -> None:
    """Issue 36 (A2): stats group by the section a game's kind names, never by its mode:
    a solo game of a kind counted apart (每日挑战's ``daily``) is in that section alone,
    outside the solo figures and the boxes' means; a kind's section is listed empty too."""
    full = Scorecard.parse(
        "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,"
        "four_of_a_kind=0,full_house=25,small_straight=30,large_straight=40,yahtzee=50,chance=22"
    )
    weak = Scorecard.parse(
        "ones=0,twos=0,threes=0,fours=0,fives=0,sixes=0,three_of_a_kind=0,"
        "four_of_a_kind=0,full_house=0,small_straight=0,large_straight=0,yahtzee=0,chance=5"
    )
    games = [
        FinishedGame(Mode.SOLO, None, Result.SOLO, full.total, full, 91.5, section="solo"),
        FinishedGame(Mode.SOLO, None, Result.SOLO, weak.total, weak, 40.0, section="daily"),
    ]
    out = stats_json(games, apart=("daily", "weekly"))
    assert out["solo"]["games"] == 1
    assert out["solo"]["accuracy"] == [91.5]
    assert out["daily"] == {"games": 1, "mean": 5.0, "best": 5}
    assert out["weekly"] == {"games": 0, "mean": None, "best": None}
    assert out["boxes"]["chance"]["mean"] == 22
    assert out["boxes"]["ones"]["mean"] == 3
