"""Computer players (B1): legal decisions only, expert = solver argmax, the levels clearly
separated in strength, all played through the one turn driver."""

from __future__ import annotations

import random
import subprocess
import sys
from functools import partial

import pytest

from yahtzee import log
from yahtzee.dice import ScriptedDice, SeededDice
from yahtzee.errors import IllegalMoveError, RollLimitError
from yahtzee.game import Game, Mode, SeatKind
from yahtzee.i18n import Lang, text
from yahtzee.players import LEVELS, Difficulty, get_player
from yahtzee.players.expert import ExpertPlayer
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, possible_points, score_options
from yahtzee.simulation import play_game, simulate_player
from yahtzee.solver import CategoryOption, KeepOption, StopOption, ValueTable, advise
from yahtzee.turn import (
    Decision,
    Keep,
    Player,
    Position,
    Score,
    best_points_now,
    hold_for,
    kept_faces,
    play_turn,
)

LEVEL_IDS = [d.value for d in Difficulty]

pytestmark = pytest.mark.usefixtures("table")  # the solver table is built once


def _random_position(rng: random.Random) -> Position:
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
    return Position(card, dice, rng.randint(0, 2))


def test_b1_levels_registry_names_and_builds_every_level() -> None:
    # B1's three levels, by their ids and names (a new level adds to these).
    names = {d.value: text(Lang.ZH_HANS, d.name_key) for d in Difficulty}
    assert {"novice": "入门", "intermediate": "普通", "expert": "高手"}.items() <= names.items()
    assert len(set(names.values())) == len(names)
    for level in Difficulty:
        assert get_player(level, random.Random(1)).name == level.value
        assert get_player(level.value).name == level.value
        assert text(Lang.EN, LEVELS[level].summary_key)
    with pytest.raises(ValueError, match="grandmaster"):
        get_player("grandmaster")


def test_importing_the_novice_does_not_import_numpy() -> None:
    code = "import yahtzee.players.novice, sys; assert 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
    code = "import yahtzee.players, yahtzee.turn, sys; assert 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", LEVEL_IDS)
def test_players_only_return_legal_decisions(name: str) -> None:
    player = get_player(name, random.Random(3))
    rng = random.Random(17)
    for _ in range(600):
        position = _random_position(rng)
        card, dice = position.card, position.dice
        decision = player.decide(position)
        if isinstance(decision, Keep):
            assert position.rolls_left > 0
            assert len(decision.faces) < 5
            assert kept_faces(dice, decision.hold(dice)) == tuple(sorted(decision.faces))
        else:
            assert isinstance(decision, Score)
            option = score_options(card, dice).get(decision.category)
            assert option is not None
            assert option.legal, (str(card), str(dice), decision.category)


@pytest.mark.parametrize("name", LEVEL_IDS)
def test_r1_players_finish_games_through_the_turn_driver(name: str) -> None:
    """play_turn drives Game with each player: the state machine accepts every step."""
    player: Player = get_player(name, random.Random(5))
    source = SeededDice(9)
    for _ in range(3):
        state = Game.new(Mode.SOLO)
        while not state.is_over:
            played = play_turn(state, player, source)
            rolls = [s for s in played.steps if isinstance(s.event, log.Roll)]
            assert 1 <= len(rolls) <= 3
            assert isinstance(played.steps[-1].event, log.Score)
            assert played.state.dice is None
            assert played.state.current_card.filled_count == state.current_card.filled_count + 1
            state = played.state
        assert state.current_card.is_complete


class _Scripted:
    """A player that answers from a list (to test the driver itself)."""

    name = "scripted"

    def __init__(self, *decisions: Decision) -> None:
        self._decisions = list(decisions)

    def decide(self, position: Position) -> Decision:  # noqa: ARG002
        return self._decisions.pop(0)


def test_r1_play_turn_records_each_step_and_passes_the_turn() -> None:
    state = Game.new(Mode.VS_COMPUTER)
    state = state.roll((False,) * 5, ScriptedDice([1, 2, 3, 4, 6])).score(Category.CHANCE)
    assert state.kind is SeatKind.COMPUTER
    dice = ScriptedDice([6, 6, 1, 2, 3, 6, 5, 6, 1, 2])
    player = _Scripted(Keep((6, 6)), Keep((6, 6, 6)), Score(Category.SIXES))
    played = play_turn(state, player, dice)
    first, second, third, score = (s.event for s in played.steps)
    assert first == log.Roll(1, (False,) * 5, (6, 6, 1, 2, 3))
    assert str(played.steps[0].game.dice) == "66123"
    assert second == log.Roll(1, (True, True, False, False, False), (6, 5, 6))
    assert str(played.steps[1].game.dice) == "66656"
    assert third == log.Roll(1, (True, True, True, False, False), (1, 2))
    assert str(played.steps[2].game.dice) == "66612"
    assert score == log.Score(1, Category.SIXES)
    assert played.steps[3].game is played.state
    assert played.state.turn == 0
    assert played.state.card(1)[Category.SIXES] == 18


def test_play_turn_refuses_illegal_decisions_or_replaces_them_with_a_fallback() -> None:
    state = Game.new(Mode.SOLO)
    with pytest.raises(IllegalMoveError, match="cannot keep"):
        play_turn(state, _Scripted(Keep((6,))), ScriptedDice([1, 2, 3, 4, 5]))
    dice = ScriptedDice([1, 2, 3, 4, 5] * 3)
    with pytest.raises(RollLimitError):
        play_turn(state, _Scripted(Keep(()), Keep(()), Keep(())), dice)
    played = play_turn(
        state, _Scripted(Keep((6,))), ScriptedDice([1, 2, 3, 4, 5]), fallback=best_points_now
    )
    assert played.state.current_card[Category.LARGE_STRAIGHT] == 40
    assert len(played.corrections) == 1


def test_keep_never_means_stop() -> None:
    with pytest.raises(IllegalMoveError, match="to stop, score"):
        Keep((1, 2, 3, 4, 5))
    with pytest.raises(IllegalMoveError, match=r"1\.\.6"):
        Keep((7,))


def test_expert_follows_the_advice(table: ValueTable) -> None:
    expert = ExpertPlayer(table)
    rng = random.Random(23)
    for _ in range(300):
        position = _random_position(rng)
        card, dice, rolls_left = position.card, position.dice, position.rolls_left
        decision = expert.decide(position)
        advice = advise(card, dice, rolls_left, table)
        best = advice.best
        if isinstance(decision, Keep):
            assert isinstance(best, KeepOption)
            assert decision.faces == best.keep
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
    with pytest.raises(IllegalMoveError, match="cannot keep"):
        hold_for(dice, (6,))
    assert kept_faces(dice, (True, False, True, False, False)) == (3, 3)


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
    for name in LEVEL_IDS:
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
