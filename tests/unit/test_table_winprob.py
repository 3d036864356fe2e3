"""T5: each seat's chance of first place at a table of 2–6 seats, ties split evenly."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee.dice import SeededDice
from yahtzee.players import get_player
from yahtzee.review import review_events
from yahtzee.review.selfplay import play_log
from yahtzee.review.turns import canonical, model_for
from yahtzee.review.winprob import (
    TABLE_EXACT_TURNS,
    Side,
    compare,
    first_place,
    live_table_chances,
    remaining_distribution,
    side,
    table_chances,
    table_timeline,
    turn_start_side,
    win_probability,
)
from yahtzee.rules import Dice, Scorecard
from yahtzee.solver import ValueTable, state_of

MIXED = ("expert", "intermediate", "novice", "expert", "novice", "intermediate")


def _seat_cards(levels: tuple[str, ...], seed: int) -> list[tuple[Scorecard, ...]]:
    """Each seat's card after 0..13 rounds: every seat plays its own seeded game (no seat
    looks at another's card, so a table's seats are independent games)."""
    out = []
    for i, level in enumerate(levels):
        log, _ = play_log(get_player(level, random.Random(seed + i)), SeededDice(seed * 10 + i))
        out.append(review_events(log).human.turn_cards)
    return out


def _brute_force(supports: list[dict[int, Fraction]]) -> list[Fraction]:
    """P(first) with ties split evenly, by going through every tuple of totals."""
    out = [Fraction(0)] * len(supports)
    for combo in itertools.product(*(s.items() for s in supports)):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        top = max(t for t, _ in combo)
        winners = [i for i, (t, _) in enumerate(combo) if t == top]
        for i in winners:
            out[i] += p / len(winners)
    return out


def test_t5_six_expert_seats_are_a_sixth_each_before_any_move(table: ValueTable) -> None:
    chances = table_chances([Scorecard()] * 6, ["expert"] * 6, table)
    assert chances == pytest.approx([1 / 6] * 6, abs=1e-9)


def test_t5_a_person_and_two_experts_are_a_third_each(table: ValueTable) -> None:
    """A person is modelled as the expert, so a person and two 高手 are three equal seats."""
    chances = table_chances([Scorecard()] * 3, ["expert"] * 3, table)
    assert chances == pytest.approx([1 / 3] * 3, abs=1e-9)


def test_t5_the_levels_order_the_chances_before_any_move(table: ValueTable) -> None:
    chances = table_chances([Scorecard()] * 3, ["expert", "intermediate", "novice"], table)
    assert chances[0] > chances[1] > chances[2] > 0
    assert sum(chances) == pytest.approx(1.0, abs=1e-9)


def test_t5_ties_split_evenly_on_point_masses() -> None:
    def at(*totals: int) -> Side:
        return Side.exact(np.full(len(totals), 1 / len(totals)), np.array(totals))

    assert first_place([at(200), at(200), at(190)]) == pytest.approx([0.5, 0.5, 0.0])
    assert first_place([at(250)] * 4) == pytest.approx([0.25] * 4)
    assert first_place([at(100), at(300), at(200)]) == pytest.approx([0.0, 1.0, 0.0])
    # 200 or 210 against a sure 200: a tie half the time (½ each), a win the other half.
    assert first_place([at(200, 210), at(200)]) == pytest.approx([0.75, 0.25])
    assert first_place([at(7)]) == [1.0]
    assert first_place([]) == []


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.integers(0, 6), st.integers(1, 5), min_size=1, max_size=4),
        min_size=2,
        max_size=6,
    )
)
def test_t5_first_place_is_the_brute_force_over_every_tuple(raw: list[dict[int, int]]) -> None:
    """Small supports with many ties: the closed form equals going through every tuple."""
    supports = [{t: Fraction(w, sum(d.values())) for t, w in d.items()} for d in raw]
    want = _brute_force(supports)
    sides = [
        Side.exact(np.array([float(q) for q in s.values()]), np.array(list(s))) for s in supports
    ]
    got = first_place(sides)
    assert got == pytest.approx([float(w) for w in want], abs=1e-12)
    assert sum(got) == pytest.approx(1.0, abs=1e-12)


def test_t5_two_seats_are_the_vs_figure(table: ValueTable) -> None:
    """Two seats give exactly the vs meter's P(win) + P(draw)/2 (vs is unchanged)."""
    for human, computer in zip(
        _seat_cards(("intermediate",), 3)[0], _seat_cards(("novice",), 4)[0], strict=True
    ):
        for level in ("expert", "intermediate"):
            h = side(model_for("expert", table), human, table)
            c = side(model_for(level, table), computer, table)
            pair = first_place([h, c])
            assert pair[0] == pytest.approx(compare(h, c), abs=1e-12)
            chances = table_chances([human, computer], ["expert", level], table)
            assert chances[0] == pytest.approx(
                win_probability(human, computer, level, table), abs=1e-12
            )


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_t5_figures_sum_to_one_through_a_game(seats: int, table: ValueTable) -> None:
    levels = MIXED[:seats]
    seat_cards = _seat_cards(levels, 11)
    points = table_timeline(seat_cards, levels, table)
    assert len(points) == 14
    for chances in points:
        assert len(chances) == seats
        assert sum(chances) == pytest.approx(1.0, abs=1e-9)
        assert all(0.0 <= c <= 1.0 for c in chances)
        # What the API sends: four decimals, still within ±0.001 of 1.
        assert abs(sum(round(c, 4) for c in chances) - 1.0) <= 0.001
    # The last point is the result: the highest total(s) share 1.
    finals = [cards[-1].total for cards in seat_cards]
    top = [i for i, t in enumerate(finals) if t == max(finals)]
    assert points[-1] == pytest.approx([1 / len(top) if i in top else 0.0 for i in range(seats)])


def test_t5_seats_permuted_permute_the_chances(table: ValueTable) -> None:
    seat_cards = _seat_cards(MIXED[:4], 21)
    cards = [c[4] for c in seat_cards]
    levels = list(MIXED[:4])
    chances = table_chances(cards, levels, table)
    order = [2, 0, 3, 1]
    permuted = table_chances([cards[i] for i in order], [levels[i] for i in order], table)
    assert permuted == pytest.approx([chances[i] for i in order], abs=1e-12)


def test_t5_exact_where_every_seat_is_enumerated(table: ValueTable) -> None:
    """From 13 − TABLE_EXACT_TURNS turns played on, each seat's side is enumerated exactly,
    so the chances are the exact ones (every way every seat's last turns can go)."""
    seat_cards = _seat_cards(MIXED, 31)
    for r in (13 - TABLE_EXACT_TURNS, 11):
        cards = [c[r] for c in seat_cards]
        exact = []
        for level, card in zip(MIXED, cards, strict=True):
            dist = remaining_distribution(model_for(level, table), canonical(state_of(card)))
            support = np.nonzero(dist)[0]
            exact.append(Side.exact(dist[support], card.total + support))
        assert table_chances(cards, list(MIXED), table) == pytest.approx(
            first_place(exact), abs=1e-12
        )


def test_t5_live_chances_mid_turn(table: ValueTable) -> None:
    """The meter: the seat on turn from its dice, the others at their turn's start; the
    figures still sum to 1 and before the roll they are the turn-start figures."""
    seat_cards = _seat_cards(MIXED[:3], 41)
    cards = [seat_cards[0][6], seat_cards[1][5], seat_cards[2][5]]
    levels = list(MIXED[:3])
    start = live_table_chances(cards, levels, 0, None, 3, table)
    assert start == table_chances(cards, levels, table)
    good = live_table_chances(cards, levels, 0, Dice.of((6, 6, 6, 6, 6)), 0, table)
    assert sum(good) == pytest.approx(1.0, abs=1e-9)
    assert sum(start) == pytest.approx(1.0, abs=1e-9)
    mine = side(model_for("expert", table), cards[0], table, Dice.of((6, 6, 6, 6, 6)), 0)
    others = [turn_start_side(lv, c, table) for lv, c in zip(levels[1:], cards[1:], strict=True)]
    assert good == pytest.approx(first_place([mine, *others]), abs=1e-12)


def test_t5_mismatched_inputs_are_refused(table: ValueTable) -> None:
    with pytest.raises(ValueError, match="2 cards for 3 levels"):
        table_chances([Scorecard()] * 2, ["expert"] * 3, table)
    with pytest.raises(ValueError, match="different numbers of rounds"):
        table_timeline([(Scorecard(),), (Scorecard(), Scorecard())], ["expert"] * 2, table)
