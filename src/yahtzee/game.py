"""The game state machine: solo (单人挑战) and human-vs-computer (人机对战).

:class:`Game` is immutable: every action returns a new state, so a game is exactly the
fold of its actions over :meth:`Game.new` (the server's event log replays this way).
Each illegal action raises a specific :class:`~yahtzee.errors.IllegalMoveError` subclass
whose message names what was wrong.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from yahtzee.dice import DiceSource
from yahtzee.errors import (
    GameOverError,
    IllegalMoveError,
    NoHintsLeftError,
    NotRolledError,
    RollLimitError,
    WrongPlayerError,
)
from yahtzee.rules import NUM_DICE, Category, Dice, Scorecard, ScoreOption, score_options

ROLLS_PER_TURN = 3
HINTS_PER_GAME = 3
ROUNDS = 13

Hold = tuple[bool, bool, bool, bool, bool]
NO_HOLD: Hold = (False, False, False, False, False)


class Mode(enum.Enum):
    """Which kind of game (U5)."""

    SOLO = "solo"
    VS_COMPUTER = "vs_computer"


class Seat(enum.Enum):
    """Who is at the table. The human always plays first in a vs game (R8)."""

    HUMAN = "human"
    COMPUTER = "computer"


class Result(enum.Enum):
    """How a finished game ended, from the human's point of view."""

    SOLO = "solo"
    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"


class Status(enum.Enum):
    """Where a game stands: being played, played to the end, or replaced by a new game."""

    IN_PROGRESS = "in_progress"
    FINISHED = "finished"
    ABANDONED = "abandoned"


_VS_SEATS = (Seat.HUMAN, Seat.COMPUTER)
_SOLO_SEATS = (Seat.HUMAN,)


def as_hold(hold: Sequence[bool]) -> Hold:
    """Validate and normalise a hold mask (five booleans, one per die position)."""
    if len(hold) != NUM_DICE or not all(isinstance(h, bool) for h in hold):
        raise IllegalMoveError(f"hold must be five booleans, got {list(hold)!r}")
    return (hold[0], hold[1], hold[2], hold[3], hold[4])


@dataclass(frozen=True, slots=True)
class Game:
    """A position: both scorecards, whose turn it is, the dice and the counters.

    ``dice`` is ``None`` before the first roll of a turn; ``rolls_left`` counts down from 3.
    """

    mode: Mode
    cards: tuple[Scorecard, ...]
    seat: Seat = Seat.HUMAN
    dice: Dice | None = None
    rolls_left: int = ROLLS_PER_TURN
    hints_left: int = HINTS_PER_GAME

    @classmethod
    def new(cls, mode: Mode) -> Game:
        """A fresh game of ``mode``: empty cards, the human to roll, three hints."""
        players = 2 if mode is Mode.VS_COMPUTER else 1
        return cls(mode=mode, cards=tuple(Scorecard() for _ in range(players)))

    # -- queries ----------------------------------------------------------------------

    @property
    def seats(self) -> tuple[Seat, ...]:
        """The seats in this game, in playing order."""
        return _VS_SEATS if self.mode is Mode.VS_COMPUTER else _SOLO_SEATS

    def card(self, seat: Seat) -> Scorecard:
        """The scorecard of ``seat``."""
        if seat not in self.seats:
            raise WrongPlayerError(f"there is no {seat.value} player in a {self.mode.value} game")
        return self.cards[self.seats.index(seat)]

    @property
    def current_card(self) -> Scorecard:
        """The scorecard of the player whose turn it is."""
        return self.card(self.seat)

    @property
    def is_over(self) -> bool:
        """Every card is complete (13 scores per player, R2/R8)."""
        return all(c.is_complete for c in self.cards)

    @property
    def round(self) -> int:
        """The round being played, 1..13 (13 once the game is over)."""
        return min(ROUNDS, self.current_card.filled_count + 1)

    @property
    def has_rolled(self) -> bool:
        """At least one roll this turn (scoring is allowed, R1)."""
        return self.dice is not None

    @property
    def status(self) -> Status:
        """In progress or finished (only a newer game abandons one: see the game's record)."""
        return Status.FINISHED if self.is_over else Status.IN_PROGRESS

    @property
    def result(self) -> Result | None:
        """``None`` while playing; for a finished vs game, win/loss/draw for the human."""
        if not self.is_over:
            return None
        if self.mode is Mode.SOLO:
            return Result.SOLO
        human, computer = (c.total for c in self.cards)
        if human > computer:
            return Result.WIN
        return Result.LOSS if human < computer else Result.DRAW

    def preview(self) -> dict[Category, ScoreOption]:
        """What the current dice would score in each open box of the current card (U1)."""
        if self.dice is None:
            return {}
        return score_options(self.current_card, self.dice)

    def __str__(self) -> str:
        """Canonical one-line text form of the position."""
        parts = [
            f"mode={self.mode.value}",
            f"seat={self.seat.value}",
            f"dice={self.dice if self.dice is not None else '-'}",
            f"rolls_left={self.rolls_left}",
            f"hints_left={self.hints_left}",
        ]
        parts += [f"{seat.value}=[{self.card(seat)}]" for seat in self.seats]
        return " ".join(parts)

    # -- actions ----------------------------------------------------------------------

    def _check_turn(self, by: Seat | None) -> None:
        if self.is_over:
            raise GameOverError("the game is over; no more actions are allowed")
        if by is not None and by is not self.seat:
            raise WrongPlayerError(f"it is the {self.seat.value}'s turn, not the {by.value}'s")

    def check_roll(self, hold: Sequence[bool], *, by: Seat | None = None) -> Hold:
        """Raise unless rolling with ``hold`` is legal now; return the normalised hold."""
        self._check_turn(by)
        mask = as_hold(hold)
        if self.rolls_left <= 0:
            raise RollLimitError(f"no rolls left this turn (already rolled {ROLLS_PER_TURN} times)")
        if self.dice is None and any(mask):
            raise NotRolledError("cannot hold dice before the first roll of the turn")
        if all(mask):
            raise IllegalMoveError("all five dice are held; there is nothing to roll")
        return mask

    def roll(self, hold: Sequence[bool], source: DiceSource, *, by: Seat | None = None) -> Game:
        """Roll the dice not held (all five on a turn's first roll), R1."""
        mask = self.check_roll(hold, by=by)
        fresh = source.roll(mask.count(False))
        return self.apply_roll(mask, fresh, by=by)

    def apply_roll(
        self, hold: Sequence[bool], fresh: Sequence[int], *, by: Seat | None = None
    ) -> Game:
        """Apply a roll whose new faces are known (``fresh``: one per unheld die, in order).

        Used by :meth:`roll` and to replay a stored game.
        """
        mask = self.check_roll(hold, by=by)
        need = mask.count(False)
        if len(fresh) != need:
            raise IllegalMoveError(f"{need} dice are rolled but {len(fresh)} faces were given")
        new_faces = iter(fresh)
        old = self.dice.values if self.dice is not None else (0,) * NUM_DICE
        dice = Dice.of(old[i] if mask[i] else next(new_faces) for i in range(NUM_DICE))
        return replace(self, dice=dice, rolls_left=self.rolls_left - 1)

    def score(self, category: Category, *, by: Seat | None = None) -> Game:
        """Write the dice in ``category`` and pass the turn (R2-R6, R8)."""
        self._check_turn(by)
        if self.dice is None:
            raise NotRolledError(f"cannot score {category.value} before the first roll")
        index = self.seats.index(self.seat)
        card = self.cards[index].score(category, self.dice)
        cards = (*self.cards[:index], card, *self.cards[index + 1 :])
        seats = self.seats
        next_seat = seats[(index + 1) % len(seats)]
        return replace(self, cards=cards, seat=next_seat, dice=None, rolls_left=ROLLS_PER_TURN)

    def use_hint(self) -> Game:
        """Spend one of the human's three hints (U4); the advice itself comes from a player."""
        self._check_turn(Seat.HUMAN)
        if self.dice is None:
            raise NotRolledError("a hint needs dice: roll first")
        if self.hints_left <= 0:
            raise NoHintsLeftError(f"all {HINTS_PER_GAME} hints of this game are used")
        return replace(self, hints_left=self.hints_left - 1)

    def restart_turn(self) -> Game:
        """Start the current turn over; scores stay. Only to replay *legacy* logs: older
        versions did this when a game was continued (a fourth roll at will). No request can
        do it any more (F1, U6 changed), see :mod:`yahtzee.storage.events`."""
        self._check_turn(None)
        return replace(self, dice=None, rolls_left=ROLLS_PER_TURN)
