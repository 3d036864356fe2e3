"""One turn of play: the contract every player implements and the one driver of a turn.

A player — a computer level, the hint's expert, a simulated opponent — is asked one thing:
given a :class:`Position` (a scorecard, the dice on the table and the rolls left), what
now? It answers :class:`Keep` (these faces stay, the others are rolled again) or
:class:`Score` (write the dice in this box). Stopping is always a :class:`Score`; a keep
names the *faces* kept, and :meth:`Keep.hold` is the one place that turns faces into the
per-die hold mask the game uses.

:func:`play_turn` drives a whole turn of one player through :class:`~yahtzee.game.Game`
(so every rule is checked there) and returns the new state with the turn's steps. The
server's computer turn, the simulations and the tests all play turns through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from yahtzee.dice import DiceSource
from yahtzee.errors import IllegalMoveError, NotRolledError, RollLimitError
from yahtzee.game import NO_HOLD, Game, Hold, Seat
from yahtzee.rules import NUM_DICE, Category, Dice, Scorecard, ScoreOption, score_options


@dataclass(frozen=True, slots=True)
class Position:
    """What a player decides on: its card, the dice after a roll and the rolls left (0-2)."""

    card: Scorecard
    dice: Dice
    rolls_left: int


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep these faces (ascending; fewer than five) and roll the other dice again."""

    faces: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.faces) >= NUM_DICE:
            raise IllegalMoveError(
                f"a keep rolls at least one die; keeping {list(self.faces)} rolls none "
                "(to stop, score)"
            )
        if any(type(f) is not int or not 1 <= f <= 6 for f in self.faces):
            raise IllegalMoveError(f"kept faces must be 1..6, got {list(self.faces)}")

    def hold(self, dice: Dice) -> Hold:
        """The hold mask that keeps exactly these faces of ``dice`` (leftmost dice first)."""
        return hold_for(dice, self.faces)


@dataclass(frozen=True, slots=True)
class Score:
    """Stop rolling and write the dice in ``category``."""

    category: Category


Decision = Keep | Score


class Player(Protocol):
    """Anything that plays: given a position after a roll, keep some faces or score.

    With ``rolls_left == 0`` the answer must be a :class:`Score` of a legal box.
    """

    @property
    def name(self) -> str:
        """A stable id (a computer level's is its ``Difficulty`` value)."""
        ...

    def decide(self, position: Position) -> Decision:
        """The action this player takes in ``position``."""
        ...


def hold_for(dice: Dice, faces: tuple[int, ...]) -> Hold:
    """Positions to hold so that exactly ``faces`` stay (leftmost dice first).

    Raises :class:`IllegalMoveError` naming the faces when ``dice`` does not hold them.
    """
    want = list(faces)
    hold = []
    for face in dice.values:
        if face in want:
            want.remove(face)
            hold.append(True)
        else:
            hold.append(False)
    if want:
        raise IllegalMoveError(f"cannot keep {list(faces)} from {dice}")
    return (hold[0], hold[1], hold[2], hold[3], hold[4])


def kept_faces(dice: Dice, hold: Hold) -> tuple[int, ...]:
    """The faces a hold mask keeps, ascending (the inverse of :func:`hold_for`)."""
    return tuple(sorted(f for f, held in zip(dice.values, hold, strict=True) if held))


@dataclass(frozen=True, slots=True)
class RollStep:
    """A roll: the dice held, the new faces (one per rolled die, in order), the result, and
    the game after it."""

    hold: Hold
    fresh: tuple[int, ...]
    dice: Dice
    game: Game


@dataclass(frozen=True, slots=True)
class ScoreStep:
    """A score: the box, the dice written there, what it earned, and the game after it."""

    category: Category
    dice: Dice
    option: ScoreOption
    game: Game


Step = RollStep | ScoreStep


@dataclass(frozen=True, slots=True)
class TurnPlay:
    """A played turn: the state after it, its steps in order and any decision replaced."""

    state: Game
    steps: tuple[Step, ...]
    corrections: tuple[str, ...] = ()


Fallback = Callable[[Position], Category]


def best_points_now(position: Position) -> Category:
    """The legal box that adds the most right now (first on the card among equals)."""
    options = [o for o in score_options(position.card, position.dice).values() if o.legal]
    return max(options, key=lambda o: o.gain).category


def play_turn(
    state: Game,
    player: Player,
    dice: DiceSource,
    *,
    seat: Seat | None = None,
    fallback: Fallback | None = None,
) -> TurnPlay:
    """Play the current turn of ``state`` to its end with ``player``'s decisions.

    Rolls all five dice first if the turn has not started, then asks ``player`` after every
    roll. Every action goes through :class:`Game`, so an illegal decision raises its
    :class:`IllegalMoveError` — unless ``fallback`` is given: then the illegal decision is
    replaced by a score in ``fallback(position)`` and described in ``corrections`` (a server
    must not fail a human's request for a computer player's bug).
    """
    steps: list[Step] = []
    corrections: list[str] = []
    if state.dice is None:
        state = _roll(state, NO_HOLD, dice, seat, steps)
    while True:
        assert state.dice is not None
        position = Position(state.current_card, state.dice, state.rolls_left)
        decision = player.decide(position)
        try:
            if isinstance(decision, Keep):
                if state.rolls_left <= 0:
                    raise RollLimitError(
                        f"{player.name} kept {list(decision.faces)} with no roll left"
                    )
                state = _roll(state, decision.hold(state.dice), dice, seat, steps)
                continue
            state = _score(state, decision.category, seat, steps)
            return TurnPlay(state, tuple(steps), tuple(corrections))
        except IllegalMoveError as exc:
            if fallback is None:
                raise
            corrections.append(f"{player.name}: {decision!r} is illegal ({exc})")
            category = fallback(position)
            state = _score(state, category, seat, steps)
            return TurnPlay(state, tuple(steps), tuple(corrections))


def _roll(state: Game, hold: Hold, dice: DiceSource, seat: Seat | None, steps: list[Step]) -> Game:
    mask = state.check_roll(hold, by=seat)
    fresh = tuple(dice.roll(mask.count(False)))
    state = state.apply_roll(mask, fresh, by=seat)
    assert state.dice is not None
    steps.append(RollStep(mask, fresh, state.dice, state))
    return state


def _score(state: Game, category: Category, seat: Seat | None, steps: list[Step]) -> Game:
    if state.dice is None:
        raise NotRolledError(f"cannot score {category.value} before the first roll")
    dice, card = state.dice, state.current_card
    after = state.score(category, by=seat)  # raises for a used box or the Joker rule
    # What the write earned, read off the two cards (the rules engine scored it once).
    new = after.cards[state.seats.index(state.seat)]
    points = new[category]
    assert points is not None
    joker = dice.is_yahtzee and card[Category.YAHTZEE] is not None
    option = ScoreOption(
        category,
        points,
        new.yahtzee_bonus - card.yahtzee_bonus,
        new.upper_bonus - card.upper_bonus,
        True,
        joker,
    )
    steps.append(ScoreStep(category, dice, option, after))
    return after
