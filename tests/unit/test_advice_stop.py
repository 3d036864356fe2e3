"""Issue 12 (B2, U4): with rolls left, "stop and score" is worth the best box *now*.

The game has no "hold all five and roll once more" (holding all five is ``illegal_action``),
so the advisor must never value that phantom move. Stopping is its own option
(:class:`StopOption`): its value is the best legal box for these dice — points, upper bonus,
Yahtzee bonus and forced Joker included, plus the table value of the card after writing —
exactly as with no rolls left. These tests compute that value from the rules engine
(``score_options`` + ``Scorecard.score``) and the table, independently of the advisor.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yahtzee.players.expert import ExpertPlayer
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, possible_points, score_options
from yahtzee.server.explain import explain
from yahtzee.solver import (
    CategoryOption,
    KeepOption,
    Option,
    StopOption,
    ValueTable,
    advise,
    state_of,
    tables,
)
from yahtzee.solver.kernel import reroll, turn_start_e0
from yahtzee.turn import Keep, Position, Score, hold_for


def best_box_now(card: Scorecard, dice: Dice, table: ValueTable) -> tuple[float, set[Category]]:
    """Max over legal boxes of (gain now + table value of the card after writing), and the
    boxes that reach it — from the rules engine, sharing no code with the advisor."""
    values = {
        category: option.gain + table.value(card.score(category, dice))
        for category, option in score_options(card, dice).items()
        if option.legal
    }
    best = max(values.values())
    return best, {c for c, v in values.items() if v == best}


def random_card(rng: random.Random) -> Scorecard:
    """A card with each box filled (with a possible score) at a random rate, never full."""
    while True:
        rate = rng.random()
        boxes: list[int | None] = [None] * 13
        for c in CATEGORIES:
            if rng.random() < rate:
                boxes[c.index] = rng.choice(sorted(possible_points(c)))
        card = Scorecard(tuple(boxes))
        if not card.is_complete:
            return card


def positions(seed: int, n: int) -> list[tuple[Scorecard, Dice]]:
    """``n`` seeded (card, dice) pairs; a quarter of the rolls are Yahtzees (Joker, bonus)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        card = random_card(rng)
        if i % 4 == 0:
            dice = Dice.of([rng.randint(1, 6)] * 5)
        else:
            dice = Dice.of(rng.randint(1, 6) for _ in range(5))
        out.append((card, dice))
    return out


def stop_of(options: list[Option]) -> StopOption:
    stops = [o for o in options if isinstance(o, StopOption)]
    assert len(stops) == 1, options
    return stops[0]


@pytest.mark.parametrize("rolls_left", [1, 2])
def test_stop_is_worth_the_best_box_now(table: ValueTable, rolls_left: int) -> None:
    """B2: for 300 seeded positions, the stop option is the best legal box, valued as with
    no rolls left; the keeps are the proper keeps only (fewer than five dice)."""
    for card, dice in positions(1200 + rolls_left, 300):
        advice = advise(card, dice, rolls_left, table)
        stop = stop_of(advice.options)
        expected, boxes = best_box_now(card, dice, table)
        where = (str(card), str(dice), rolls_left)
        assert stop.value == pytest.approx(expected, rel=0, abs=1e-9), where
        assert stop.category in boxes, where
        assert stop.points == score_options(card, dice)[stop.category].points, where
        assert stop.value == advise(card, dice, 0, table).state_value, where
        keeps = [o for o in advice.options if not isinstance(o, StopOption)]
        assert all(isinstance(o, KeepOption) and len(o.keep) < 5 for o in keeps), where
        assert len({o.keep for o in keeps if isinstance(o, KeepOption)}) == len(keeps), where
        assert advice.state_value == max(o.value for o in advice.options), where


def test_the_issue_example(table: ValueTable) -> None:
    """44411, empty card: stopping is the full house, 253.909…, with one or two rolls left
    (main reported 255.254 with two: keep all five and roll once more)."""
    dice = Dice.parse("44411")
    now = advise(Scorecard(), dice, 0, table)
    assert now.state_value == pytest.approx(253.909, abs=5e-4)
    for rolls_left in (1, 2):
        stop = stop_of(advise(Scorecard(), dice, rolls_left, table).options)
        assert stop.category is Category.FULL_HOUSE
        assert stop.points == 25
        assert stop.value == now.state_value
    data = advise(Scorecard(), dice, 2, table).to_json()
    assert {"stop": True, "category": "full_house", "points": 25, "value": now.state_value} in (
        data["options"]
    )


def _kernel_position_value(
    table: ValueTable, card: Scorecard, dice: Dice, rolls_left: int
) -> float:
    """The value of holding ``dice`` with ``rolls_left`` rolls to come, from the batch
    kernel that builds the table (float32, a separate code path from the advisor)."""
    mask, up, flag = (np.array([x], dtype=np.intp) for x in state_of(card))
    e, shift = turn_start_e0(table.flat, mask, up, flag)
    for _ in range(rolls_left):
        _, e = reroll(e)
    return float(e[tables.dice_index(dice.values), 0]) + float(shift[0])


dice_st = st.tuples(*[st.integers(1, 6)] * 5).map(Dice)


@st.composite
def cards(draw: st.DrawFn) -> Scorecard:
    """A card reached by legally writing random dice in random boxes (never full)."""
    card = Scorecard()
    for _ in range(draw(st.integers(0, 12))):
        dice = draw(dice_st)
        legal = [c for c, o in score_options(card, dice).items() if o.legal]
        card = card.score(draw(st.sampled_from(legal)), dice)
    return card


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cards(), dice_st, st.integers(0, 2))
def test_no_option_is_worth_more_than_the_position(
    table: ValueTable, card: Scorecard, dice: Dice, rolls_left: int
) -> None:
    """Property (B2): the position's value is its best option's; no option exceeds it; it
    is the value the table was built with (so the best choice did not change); stopping is
    worth the rolls-left-0 value and never more than rolling on can be; the expert plays
    the best option."""
    advice = advise(card, dice, rolls_left, table)
    values = [o.value for o in advice.options]
    assert advice.state_value == values[0] == max(values)
    assert values == sorted(values, reverse=True)
    assert advice.state_value == pytest.approx(
        _kernel_position_value(table, card, dice, rolls_left), abs=2e-3
    )
    now = advise(card, dice, 0, table).state_value
    if rolls_left == 0:
        assert all(isinstance(o, CategoryOption) for o in advice.options)
    else:
        assert stop_of(advice.options).value == now
        fewer = advise(card, dice, rolls_left - 1, table).state_value
        assert fewer <= advice.state_value + 1e-9
    decision = ExpertPlayer(table).decide(Position(card, dice, rolls_left))
    best = advice.best
    if isinstance(decision, Keep):
        assert isinstance(best, KeepOption)
        assert best.keep == decision.faces
    else:
        assert isinstance(decision, Score)
        assert isinstance(best, StopOption | CategoryOption)
        assert best.category is decision.category


def test_hint_alternative_stop_is_worth_the_best_box(table: ValueTable) -> None:
    """U4: when the runner-up is stopping, the hint's alternative names the best box and is
    worth the rolls-left-0 value (the 「次好的是……」 sentence)."""
    checked = 0
    for card, dice in positions(77, 400):
        for rolls_left in (1, 2):
            advice = advise(card, dice, rolls_left, table)
            best, second = advice.options[0], advice.options[1]
            if not isinstance(second, StopOption) or not isinstance(best, KeepOption):
                continue
            why = explain(card, dice, rolls_left, hold_for(dice, best.keep), None)
            assert why is not None
            assert why.alternative is not None
            assert why.alternative.hold is None
            assert why.alternative.category is second.category
            assert why.alternative.value == advise(card, dice, 0, table).state_value
            assert why.advised.value == best.value
            checked += 1
    assert checked >= 5  # the seeded positions do reach this case
