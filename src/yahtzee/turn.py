"""One turn of play: the contract every player implements and the one driver of a turn.

A player — a computer level, the hint's expert, a simulated opponent — is asked one thing:
given a :class:`Position` (a scorecard, the dice on the table and the rolls left), what
now? It answers :class:`Keep` (these faces stay, the others are rolled again) or
:class:`Score` (write the dice in this box). Stopping is always a :class:`Score`; a keep
names the *faces* kept, and :meth:`Keep.hold` is the one place that turns faces into the
per-die hold mask the game uses.

:func:`play_turn` drives a whole turn of the seat to play: each step is a
:mod:`yahtzee.log` event (a roll of faces drawn from the injected dice, or a score) put
through :func:`yahtzee.log.apply`, so every rule is checked there, once. It returns the new
state with the turn's steps (each event and the position after it), which the server logs
as they are. The server's computer turn, self-play, the simulations and the tests all play
turns through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from yahtzee import log
from yahtzee.dice import DiceSource
from yahtzee.errors import IllegalMoveError, RollLimitError
from yahtzee.game import NO_HOLD, Game, Hold
from yahtzee.rules import NUM_DICE, Category, Dice, Scorecard, score_options


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
class Step:
    """One step of a turn: the event (a roll or a score, as logged) and the game after it."""

    event: log.Roll | log.Score
    game: Game


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
    fallback: Fallback | None = None,
) -> TurnPlay:
    """Play the current turn of ``state`` (its seat ``state.turn``) to its end with
    ``player``'s decisions.

    Rolls all five dice first if the turn has not started, then asks ``player`` after every
    roll. Every action goes through :func:`yahtzee.log.apply`, so an illegal decision raises
    its :class:`IllegalMoveError` — unless ``fallback`` is given: then the illegal decision
    is replaced by a score in ``fallback(position)`` and described in ``corrections`` (a
    server must not fail a human's request for a computer player's bug).
    """
    steps: list[Step] = []
    corrections: list[str] = []
    if state.dice is None:
        state = _roll(state, NO_HOLD, dice, steps)
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
                state = _roll(state, decision.hold(state.dice), dice, steps)
                continue
            state = _score(state, decision.category, steps)
            return TurnPlay(state, tuple(steps), tuple(corrections))
        except IllegalMoveError as exc:
            if fallback is None:
                raise
            corrections.append(f"{player.name}: {decision!r} is illegal ({exc})")
            category = fallback(position)
            state = _score(state, category, steps)
            return TurnPlay(state, tuple(steps), tuple(corrections))


def _roll(state: Game, hold: Hold, dice: DiceSource, steps: list[Step]) -> Game:
    event = log.Roll(state.turn, hold, tuple(dice.roll(hold.count(False))))
    state = log.apply(state, event)
    steps.append(Step(event, state))
    return state


def _score(state: Game, category: Category, steps: list[Step]) -> Game:
    event = log.Score(state.turn, category)
    state = log.apply(state, event)  # raises for a used box or the Joker rule
    steps.append(Step(event, state))
    return state
