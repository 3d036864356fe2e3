"""The tutorial's dice and steps (L10): what every step asks for is what the expert does,
through the one apply, on the tutorial's own stream."""

from __future__ import annotations

import pytest

from yahtzee import log
from yahtzee.dice import FACES_PER_ROUND
from yahtzee.errors import IllegalMoveError
from yahtzee.game import Mode, Result
from yahtzee.players.expert import ExpertPlayer
from yahtzee.rules import Category
from yahtzee.solver import ValueTable
from yahtzee.turn import Keep, Position, Score
from yahtzee.tutorial import SCRIPTED, STEPS, TutorialStream, Until, round_faces, steps_json

NO_HOLD = (False,) * 5


def test_the_stream_is_fixed_scripted_first_and_seeded_after() -> None:
    stream = TutorialStream()
    for r in range(1, 14):
        faces = stream.faces(r)
        assert len(faces) == FACES_PER_ROUND
        assert all(1 <= f <= 6 for f in faces)
        assert faces == round_faces(r) == TutorialStream().faces(r)  # the same every time
        assert faces[: len(SCRIPTED.get(r, ()))] == SCRIPTED.get(r, ())
    assert len({stream.faces(r) for r in range(1, 14)}) == 13
    assert stream.turn(1, 5).roll(2) == [1, 4]
    with pytest.raises(IllegalMoveError, match=r"rounds 1\.\.13, not 14"):
        stream.faces(14)


def test_a_step_ends_in_exactly_one_way() -> None:
    with pytest.raises(ValueError, match="exactly one way"):
        Until()
    with pytest.raises(ValueError, match="exactly one way"):
        Until(next=True, box=Category.ONES)
    with pytest.raises(ValueError, match="exactly one way"):
        Until(round=1)
    assert Until(round=2, rolls_left=0).to_json() == {"round": 2, "rolls_left": 0}
    assert Until(declined=Category.YAHTZEE).to_json() == {"declined": "yahtzee"}
    assert [s["id"] for s in steps_json()["steps"]] == [s.id for s in STEPS]
    assert len({s.id for s in STEPS}) == len(STEPS)


def test_every_choice_a_step_asks_for_is_the_experts(table: ValueTable) -> None:
    expert = ExpertPlayer(table)
    stream = TutorialStream()
    game = log.Start.of(Mode.SOLO).game()
    hold = NO_HOLD
    drawn = 0

    def decision() -> Keep | Score:
        assert game.dice is not None
        made = expert.decide(Position(game.current_card, game.dice, game.rolls_left))
        assert isinstance(made, Keep | Score)
        return made

    for step in STEPS:
        if step.dice is None:
            assert game.dice is None, step.id
        else:
            assert game.dice is not None, step.id
            assert game.dice.values == step.dice, step.id
        until = step.until
        if until.round is not None:
            assert until.rolls_left is not None
            while game.round < until.round or game.rolls_left > until.rolls_left:
                if game.dice is not None:  # the expert rolls on, keeping what is held
                    made = decision()
                    assert isinstance(made, Keep), step.id
                    assert made.hold(game.dice) == hold, step.id
                mask = hold if game.dice is not None else NO_HOLD
                faces = tuple(stream.turn(game.round, drawn).roll(mask.count(False)))
                drawn += len(faces)
                game = log.apply(game, log.Roll(0, mask, faces))
        elif until.hold is not None:
            made = decision()
            assert isinstance(made, Keep)
            assert game.dice is not None
            assert made.hold(game.dice) == until.hold, step.id
            hold = until.hold
        elif until.hints_left is not None:
            made = decision()
            assert isinstance(made, Keep)
            assert game.dice is not None
            hold = made.hold(game.dice)  # the page holds what the hint says
            game = log.apply(game, log.Hint(0, hold))
            assert game.hints[0] == until.hints_left
        elif until.declined is not None:
            assert game.dice is not None
            assert game.preview()[until.declined].points == 0
        elif until.box is not None:
            assert decision() == Score(until.box), step.id
            game = log.apply(game, log.Score(0, until.box))
            hold, drawn = NO_HOLD, 0
    assert game.current_card[Category.SIXES] == 24
    assert game.current_card[Category.LARGE_STRAIGHT] == 40


def test_a_tutorial_is_a_solo_game_and_an_old_tutorial_start_reads_as_one() -> None:
    """One name per concept (issue 36): the tutorial is a kind of game, played in the solo
    mode; a log written when it was a mode of its own replays as a solo game."""
    old = log.Start.from_json({"mode": "tutorial", "seats": [{"kind": "human"}]})
    assert old == log.Start.of(Mode.SOLO)
    game = old.game()
    for category in Category:
        game = game.apply_roll(NO_HOLD, (1, 2, 3, 4, 6)).score(category)
    assert game.result is Result.SOLO
