"""Win probability (L4): exact turn outcomes per level, the exact late game, the timeline."""

from __future__ import annotations

import random

import numpy as np
import pytest

from yahtzee.dice import SeededDice
from yahtzee.game import Game, Mode, Seat
from yahtzee.players import get_player
from yahtzee.review import review_events
from yahtzee.review.selfplay import play_log
from yahtzee.review.turns import (
    STOP_SLOT,
    SUBS,
    ExpertModel,
    IntermediateModel,
    NoviceModel,
    _Writes,
    canonical,
    turn_outcomes,
)
from yahtzee.review.winprob import (
    EXACT_TURNS,
    Side,
    compare,
    remaining_distribution,
    side,
    timeline,
    win_probability,
)
from yahtzee.rules import Category, Dice, Scorecard
from yahtzee.solver import ValueTable, state_of
from yahtzee.solver.tables import KEEP_FACES, LEVELS
from yahtzee.turn import Keep, Position, Score


def _cards(level: str, seed: int) -> list[Scorecard]:
    """The card at the start of each of the 13 turns of a solo game played by ``level``."""
    log, _ = play_log(get_player(level, random.Random(seed)), SeededDice(seed))
    cards = []
    state = Game.new(Mode.SOLO)
    for e in log[1:]:
        if e.kind == "roll":
            state = state.apply_roll(e.data["hold"], e.data["faces"], by=Seat.HUMAN)
        else:
            cards.append(state.current_card)
            state = state.score(Category(e.data["category"]), by=Seat.HUMAN)
    return cards


@pytest.mark.parametrize(
    ("model", "level"),
    [(NoviceModel(), "novice"), (IntermediateModel(), "intermediate"), (None, "expert")],
)
def test_l4_turn_models_mirror_the_players(model: object, level: str, table: ValueTable) -> None:
    """Each level's vectorised policy gives the player's decision (deterministic levels)
    or puts weight on it (the intermediate's random choice), roll by roll."""
    m = model if model is not None else ExpertModel(table)
    player = get_player(level, random.Random(1))
    rng = random.Random(5)
    checked = 0
    for card in _cards("intermediate", 2)[::3]:
        state = canonical(state_of(card))
        box, keeps = m.policy(state, _Writes(state))  # type: ignore[attr-defined]
        for d in rng.sample(range(252), 25):
            dice = Dice.of(LEVELS[5][d])
            for rolls_left in (2, 1, 0):
                decision = player.decide(Position(card, dice, rolls_left))
                if rolls_left and isinstance(decision, Keep):
                    slot = list(SUBS[d]).index(
                        next(k for k in SUBS[d] if k >= 0 and KEEP_FACES[k] == decision.faces)
                    )
                    assert keeps[rolls_left][d, slot] > 0
                    if level != "intermediate":
                        assert keeps[rolls_left][d, slot] == 1.0
                    continue
                assert isinstance(decision, Score)
                if rolls_left:
                    assert keeps[rolls_left][d, STOP_SLOT[d]] > 0
                assert box[decision.category.index, d] > 0
                if level != "intermediate":
                    assert box[decision.category.index, d] == 1.0
                checked += 1
    assert checked > 50


def test_l4_expert_turn_outcomes_average_to_the_solver_value(table: ValueTable) -> None:
    """Σ p · (points + value after) over the expert's exact turn outcomes is the table's
    value of the state: the outcome distribution is exact."""
    for card in _cards("novice", 3)[:10]:
        state = canonical(state_of(card))
        succ, gain, prob = turn_outcomes(ExpertModel(table), state)
        assert prob.sum() == pytest.approx(1.0, abs=1e-12)
        mean = float(prob @ (gain + table.flat[succ].astype(np.float64)))
        assert mean == pytest.approx(table.value(card), abs=2e-3)


def test_l4_exact_late_game_distribution_mean_is_the_solver_value(table: ValueTable) -> None:
    card = _cards("expert", 4)[13 - EXACT_TURNS]
    assert card.filled_count == 13 - EXACT_TURNS
    dist = remaining_distribution(ExpertModel(table), canonical(state_of(card)))
    assert dist.sum() == pytest.approx(1.0)
    assert float(np.arange(len(dist)) @ dist) == pytest.approx(table.value(card), abs=2e-3)


def test_l4_compare_exact_components() -> None:
    """Two exact sides: P(H > C) + P(H = C)/2 over their point masses."""
    one = Side(np.array([1.0]), np.array([200.0]), (None,), {})
    two = Side(np.array([0.5, 0.5]), np.array([190.0, 200.0]), (None, None), {})
    assert compare(one, two) == pytest.approx(0.5 + 0.25)
    assert compare(two, one) == pytest.approx(0.25)


def test_l4_compare_with_a_tail() -> None:
    """A tail x in {0, 50} (50/50): final = base - x against an exact 180."""
    tail = (25.0, np.array([0.5] + [0.0] * 24 + [0.5]), 0)  # bins of 2 points: 0 and 50
    lumpy = Side(np.array([1.0]), np.array([200.0]), ("t",), {"t": tail})
    exact = Side(np.array([1.0]), np.array([180.0]), (None,), {})
    # H = 200 (p .5) or 150 (p .5) vs C = 180: wins half the time.
    assert compare(lumpy, exact) == pytest.approx(0.5)
    assert compare(exact, lumpy) == pytest.approx(0.5)
    higher = Side(np.array([1.0]), np.array([140.0]), (None,), {})
    assert compare(lumpy, higher) == pytest.approx(1.0)


def test_l4_start_vs_expert_is_even_and_ordered_by_level(table: ValueTable) -> None:
    new = Scorecard()
    vs_expert = win_probability(new, new, "expert", table)
    assert vs_expert == pytest.approx(0.5, abs=1e-9)
    assert (
        vs_expert
        < win_probability(new, new, "intermediate", table)
        < win_probability(new, new, "novice", table)
    )


@pytest.mark.parametrize("level", ["novice", "intermediate", "expert"])
def test_l4_timeline_ends_with_the_result(level: str, table: ValueTable) -> None:
    for seed in range(4):
        log, state = play_log(
            get_player("intermediate", random.Random(seed)),
            SeededDice(seed),
            get_player(level, random.Random(seed)),
        )
        review = review_events(log, table)
        assert review.computer is not None
        points = timeline(review.human.turn_cards, review.computer.turn_cards, level, table)
        assert len(points) == 14
        assert all(0 <= p <= 1 for p in points)
        human, computer = (c.total for c in state.cards)
        assert points[-1] == (1.0 if human > computer else 0.0 if human < computer else 0.5)


def test_l4_live_meter_mid_turn_matches_the_review(table: ValueTable) -> None:
    """Mid-turn, the meter's expected final is the review's position value, and the human
    side's mean (one enumerated turn from the dice on the table + centred tails, or exact
    near the end) is that same number."""
    from yahtzee.review.live import live_meter

    log, _ = play_log(
        get_player("novice", random.Random(8)),
        SeededDice(8),
        get_player("expert", random.Random(8)),
    )
    state = Game.new(Mode.VS_COMPUTER)
    checked = 0
    for e in log[1:]:
        seat = Seat(e.data["seat"])
        if e.kind == "roll":
            state = state.apply_roll(e.data["hold"], e.data["faces"], by=seat)
        else:
            state = state.score(Category(e.data["category"]), by=seat)
        if seat is Seat.HUMAN and state.dice is not None and state.rolls_left > 0:
            meter = live_meter(state, "expert", table)
            card = state.card(Seat.HUMAN)
            h = side(ExpertModel(table), card, table, state.dice, state.rolls_left)
            mean = float(h.weights @ h.bases) - sum(
                float(w) * h.tail_of[k][0] for w, k in zip(h.weights, h.tails, strict=True) if k
            )
            assert mean == pytest.approx(meter["expected_final"], abs=0.02)
            assert 0 <= meter["win_probability"] <= 1
            checked += 1
    assert checked >= 10
