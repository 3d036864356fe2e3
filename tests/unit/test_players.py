"""Computer players (issue 2 §3, B1): legal actions only, expert = solver argmax, and the
three levels clearly separated in strength."""

from __future__ import annotations

import random
from functools import partial

import pytest

from yahtzee.game import GameState, Mode
from yahtzee.players import (
    PLAYER_NAMES,
    ExpertPlayer,
    Player,
    RollDecision,
    ScoreDecision,
    get_player,
)
from yahtzee.rules import CATEGORIES, Dice, Scorecard, possible_points, score_options
from yahtzee.solver import (
    CategoryOption,
    KeepOption,
    StopOption,
    ValueTable,
    advise,
    hold_for,
)
from yahtzee.solver.simulate import play_game, simulate_player

pytestmark = pytest.mark.usefixtures("table")  # the solver table is built once


def _random_position(rng: random.Random) -> tuple[Scorecard, Dice, int]:
    while True:
        boxes: list[int | None] = [None] * 13
        for c in CATEGORIES:
            if rng.random() < rng.random():
                boxes[c.index] = rng.choice(sorted(possible_points(c)))
        card = Scorecard(tuple(boxes))
        if not card.is_complete:
            break
    # Plenty of Yahtzees, so the forced Joker comes up often.
    if rng.random() < 0.2:
        dice = Dice.of([rng.randint(1, 6)] * 5)
    else:
        dice = Dice.of(rng.randint(1, 6) for _ in range(5))
    return card, dice, rng.randint(0, 2)


def test_get_player_names() -> None:
    assert set(PLAYER_NAMES) == {"expert", "intermediate", "novice"}
    for name in PLAYER_NAMES:
        assert get_player(name, random.Random(1)).name == name
    with pytest.raises(ValueError, match="grandmaster"):
        get_player("grandmaster")


@pytest.mark.parametrize("name", PLAYER_NAMES)
def test_players_only_return_legal_actions(name: str) -> None:
    player = get_player(name, random.Random(3))
    rng = random.Random(17)
    for _ in range(600):
        card, dice, rolls_left = _random_position(rng)
        decision = player.decide(card, dice, rolls_left)
        if isinstance(decision, RollDecision):
            assert rolls_left > 0
            assert len(decision.hold) == 5
            assert not all(decision.hold)
        else:
            assert isinstance(decision, ScoreDecision)
            option = score_options(card, dice).get(decision.category)
            assert option is not None
            assert option.legal, (str(card), str(dice), decision.category)


@pytest.mark.parametrize("name", PLAYER_NAMES)
def test_players_finish_games_through_the_state_machine(name: str) -> None:
    """Drive GameState with each player: the state machine accepts every action."""
    from yahtzee.dice import SeededDice

    player: Player = get_player(name, random.Random(5))
    source = SeededDice(9)
    for _ in range(3):
        state = GameState.new(Mode.SOLO)
        state = state.roll((False,) * 5, source)
        while not state.is_over:
            assert state.dice is not None
            decision = player.decide(state.current_card, state.dice, state.rolls_left)
            if isinstance(decision, RollDecision):
                state = state.roll(decision.hold, source)
            else:
                state = state.score(decision.category)
                if not state.is_over:
                    state = state.roll((False,) * 5, source)
        assert state.current_card.is_complete


def test_expert_follows_the_advice(table: ValueTable) -> None:
    expert = ExpertPlayer(table)
    rng = random.Random(23)
    for _ in range(300):
        card, dice, rolls_left = _random_position(rng)
        decision = expert.decide(card, dice, rolls_left)
        advice = advise(card, dice, rolls_left, table)
        best = advice.best
        if isinstance(decision, RollDecision):
            assert isinstance(best, KeepOption)
            kept = tuple(sorted(f for f, h in zip(dice, decision.hold, strict=True) if h))
            assert kept == best.keep
        else:
            # Scoring: either no rolls left or stopping is the best option (and it names
            # the box the expert writes).
            if rolls_left > 0:
                assert isinstance(best, StopOption)
                assert best.category is decision.category
                assert best.value == advise(card, dice, 0, table).state_value
                best = advise(card, dice, 0, table).best
            assert isinstance(best, CategoryOption)
            values = {
                o.category: o.value
                for o in advise(card, dice, 0, table).options
                if isinstance(o, CategoryOption)
            }
            assert values[decision.category] == pytest.approx(best.value, abs=1e-6)


def test_hold_for_keeps_exactly_the_faces() -> None:
    dice = Dice.parse("31343")
    assert hold_for(dice, (3, 3)) == (True, False, True, False, False)
    assert hold_for(dice, ()) == (False,) * 5
    with pytest.raises(ValueError, match="cannot keep"):
        hold_for(dice, (6,))


def test_intermediate_is_reproducible_with_a_seed() -> None:
    def run(seed: int) -> list[int]:
        player = get_player("intermediate", random.Random(seed))
        return [play_game(player, random.Random(100 + i)).total for i in range(20)]

    assert run(1) == run(1)
    assert run(1) != run(2)  # its choices do depend on its rng


def _make(name: str, rng: random.Random) -> Player:
    return get_player(name, rng)


def test_levels_are_well_separated() -> None:
    """Same dice seeds for all: novice << intermediate << expert (254.6)."""
    games = 400
    means = {}
    for name in PLAYER_NAMES:
        result = simulate_player(partial(_make, name), games, seed=8)
        means[name] = float(result.scores.mean())
    assert means["novice"] + 25 < means["intermediate"], means
    assert means["intermediate"] + 15 < means["expert"], means
    assert means["expert"] > 245, means


@pytest.mark.parametrize("name", ["novice", "intermediate"])
def test_player_simulation_does_not_depend_on_workers(name: str) -> None:
    def make(rng: random.Random) -> Player:
        return get_player(name, rng)

    one = simulate_player(make, 600, seed=4, workers=1)
    two = simulate_player(make, 600, seed=4, workers=2)
    assert one.scores.tolist() == two.scores.tolist()
    assert one.yahtzee.tolist() == two.yahtzee.tolist()
    assert simulate_player(make, 600, seed=5, workers=2).scores.tolist() != one.scores.tolist()
