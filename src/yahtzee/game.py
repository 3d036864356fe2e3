"""The game state machine: solo (单人挑战) and human-vs-computer (人机对战), by seat index.

:class:`Game` is immutable: every action returns a new state, so a game is exactly the
fold of its actions over :meth:`Game.new` (:mod:`yahtzee.log` replays a game's log so).
Each illegal action raises a specific :class:`~yahtzee.errors.IllegalMoveError` subclass
whose message names what was wrong.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from yahtzee.dice import DiceSource
from yahtzee.errors import (
    GameOverError,
    IllegalMoveError,
    NoHintsLeftError,
    NothingToUndoError,
    NotRolledError,
    RollLimitError,
    UndoNotAllowedError,
    WrongPlayerError,
)
from yahtzee.rules import NUM_DICE, Category, Dice, Scorecard, ScoreOption, score_options

ROLLS_PER_TURN = 3
HINTS_PER_GAME = 3
ROUNDS = 13

Hold = tuple[bool, bool, bool, bool, bool]
NO_HOLD: Hold = (False, False, False, False, False)


class Mode(enum.Enum):
    """The rules' shape of a game (U5): who sits at it. What a game is to the player (a
    单人挑战, a 新手教程, a feature's game) is its :class:`GameKind`."""

    SOLO = "solo"
    """One person."""
    VS_COMPUTER = "vs_computer"
    """A person, then a computer (R8)."""
    TABLE = "table"
    """多人同屏 (T1): two to six seats, people and computers."""

    @classmethod
    def parse(cls, value: object) -> Mode:
        """The mode named ``value`` as stored: also the name a tutorial's ``start`` was
        written with before a tutorial was a kind of solo game (schema level 9), which
        reads as solo. :class:`ValueError` for anything else."""
        return cls.SOLO if value == _OLD_TUTORIAL_MODE else cls(value)


_OLD_TUTORIAL_MODE = "tutorial"
_KIND_NAME = re.compile(r"[a-z][a-z_]{0,31}")


class GameKind:
    """What a game is to the player (K2), stored with it: what the records, the lobby's
    recent games, 统计 and 复盘 go by, and whose rules it follows beyond the rules of its
    :class:`Mode` (its dice, hints, undo: the kind's rules, which the server registers).

    A kind is a name: the platform's own are the constants below (the three modes' plain
    kinds and :attr:`TUTORIAL`, a solo game on the tutorial's fixed dice); a feature
    declares its own kinds in its package. ``GameKind(name)`` is the one object of that
    name (compare with ``is``), so a stored kind always reads back, whoever made it.
    """

    __slots__ = ("value",)
    _named: ClassVar[dict[str, GameKind]] = {}

    SOLO: ClassVar[GameKind]
    VS_COMPUTER: ClassVar[GameKind]
    TABLE: ClassVar[GameKind]
    TUTORIAL: ClassVar[GameKind]
    """新手教程 (L10): a solo game on the tutorial's fixed dice, kept out of every record."""

    value: str

    def __new__(cls, value: str) -> GameKind:
        known = cls._named.get(value)
        if known is not None:
            return known
        if not isinstance(value, str) or not _KIND_NAME.fullmatch(value):
            raise ValueError(f"a kind of game is named in lowercase letters, got {value!r}")
        kind = super().__new__(cls)
        object.__setattr__(kind, "value", value)
        return cls._named.setdefault(value, kind)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a kind of game is immutable ({name})")

    def __reduce__(self) -> tuple[type[GameKind], tuple[str]]:
        return GameKind, (self.value,)  # (one object per name in every process)

    def __repr__(self) -> str:
        return f"GameKind({self.value!r})"

    @classmethod
    def of(cls, mode: Mode) -> GameKind:
        """The plain kind of ``mode`` (a game of that shape no feature made)."""
        return cls(mode.value)


GameKind.SOLO = GameKind("solo")
GameKind.VS_COMPUTER = GameKind("vs_computer")
GameKind.TABLE = GameKind("table")
GameKind.TUTORIAL = GameKind("tutorial")


class SeatKind(enum.Enum):
    """Who sits in a seat: a person at the screen or a computer level.

    Seats are addressed by their index in :attr:`Game.seats` (0..n-1, the playing order);
    this is what sits there. In a vs game the person plays first (R8): seat 0.
    """

    HUMAN = "human"
    COMPUTER = "computer"


class Result(enum.Enum):
    """How a finished game ended, from the human's point of view (a table game: its
    ranking says it, :func:`yahtzee.table.ranking`)."""

    SOLO = "solo"
    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"
    TABLE = "table"


class Status(enum.Enum):
    """Where a game stands: being played, played to the end, or replaced by a new game."""

    IN_PROGRESS = "in_progress"
    FINISHED = "finished"
    ABANDONED = "abandoned"


#: The seats of each mode with fixed seats (a table chooses its own, T1).
SEATS_OF: dict[Mode, tuple[SeatKind, ...]] = {
    Mode.SOLO: (SeatKind.HUMAN,),
    Mode.VS_COMPUTER: (SeatKind.HUMAN, SeatKind.COMPUTER),
}
MIN_TABLE_SEATS = 2
MAX_SEATS = 6

#: The modes whose last box written may be taken back (撤销, issue 21): solo and 多人同屏.
#: Not vs (the computer rolls at once). A kind of game may refuse it still (its rules on
#: the server: the tutorial's, a feature's whose referee stays strict).
UNDO_MODES = frozenset({Mode.SOLO, Mode.TABLE})


def check_seats(mode: Mode, kinds: Sequence[SeatKind]) -> None:
    """Raise unless ``kinds`` are the seats ``mode`` allows: solo and vs their fixed
    seats, a table 2 to 6 seats with at least one person (T1)."""
    if mode is not Mode.TABLE:
        if tuple(kinds) != SEATS_OF[mode]:
            expected = [k.value for k in SEATS_OF[mode]]
            raise IllegalMoveError(
                f"a {mode.value} game seats {expected}, got {[k.value for k in kinds]}"
            )
        return
    if not MIN_TABLE_SEATS <= len(kinds) <= MAX_SEATS:
        raise IllegalMoveError(f"a table seats {MIN_TABLE_SEATS} to {MAX_SEATS}, not {len(kinds)}")
    if SeatKind.HUMAN not in kinds:
        raise IllegalMoveError("a table needs at least one person")


def most_seats(mode: Mode) -> tuple[SeatKind, ...]:
    """The seats of ``mode`` whose log can be the longest (F1: a table of six people)."""
    return SEATS_OF.get(mode, (SeatKind.HUMAN,) * MAX_SEATS)


def as_hold(hold: Sequence[bool]) -> Hold:
    """Validate and normalise a hold mask (five booleans, one per die position)."""
    if len(hold) != NUM_DICE or not all(isinstance(h, bool) for h in hold):
        raise IllegalMoveError(f"hold must be five booleans, got {list(hold)!r}")
    return (hold[0], hold[1], hold[2], hold[3], hold[4])


@dataclass(frozen=True, slots=True)
class Game:
    """A position: the seats and their scorecards, whose turn it is, the dice, the counters.

    A seat is its index in ``seats`` (0..n-1, the playing order); ``turn`` is the index of
    the seat to play. ``dice`` is ``None`` before the first roll of a turn; ``rolls_left``
    counts down from 3. ``hints[i]`` is what seat ``i`` has left of its three hints (a
    computer seat has none).

    ``undoable`` is the position just before the last box written while that box may
    still be taken back (:meth:`undo`): a person's box, from the score until the next
    roll of anyone, in the :data:`UNDO_MODES`, never once the game is over. ``undone``
    says the turn being played already took its box back once: its next box is final (so
    a turn has at most one undo, which bounds the log, F1).
    """

    mode: Mode
    seats: tuple[SeatKind, ...]
    cards: tuple[Scorecard, ...]
    turn: int = 0
    dice: Dice | None = None
    rolls_left: int = ROLLS_PER_TURN
    hints: tuple[int, ...] = (HINTS_PER_GAME,)
    undoable: Game | None = None
    undone: bool = False

    @classmethod
    def new(cls, mode: Mode, seats: Sequence[SeatKind] | None = None) -> Game:
        """A fresh game of ``mode`` (by default with the mode's seats): empty cards, seat 0
        to roll, three hints for each person."""
        if seats is None and mode not in SEATS_OF:
            raise IllegalMoveError(f"a {mode.value} game needs its seats")
        kinds = tuple(seats) if seats is not None else SEATS_OF[mode]
        if not 1 <= len(kinds) <= MAX_SEATS:
            raise IllegalMoveError(f"a game has 1 to {MAX_SEATS} seats, not {len(kinds)}")
        return cls(
            mode=mode,
            seats=kinds,
            cards=tuple(Scorecard() for _ in kinds),
            hints=tuple(HINTS_PER_GAME if k is SeatKind.HUMAN else 0 for k in kinds),
        )

    # -- queries ----------------------------------------------------------------------

    def card(self, seat: int) -> Scorecard:
        """The scorecard of seat ``seat``."""
        if not 0 <= seat < len(self.cards):
            raise WrongPlayerError(f"there is no seat {seat} in a game of {len(self.cards)}")
        return self.cards[seat]

    @property
    def kind(self) -> SeatKind:
        """Who sits in the seat whose turn it is."""
        return self.seats[self.turn]

    @property
    def current_card(self) -> Scorecard:
        """The scorecard of the seat whose turn it is."""
        return self.cards[self.turn]

    @property
    def hints_left(self) -> int:
        """The hints the seat whose turn it is has left."""
        return self.hints[self.turn]

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
        if self.mode is Mode.TABLE:
            return Result.TABLE
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
            f"turn={self.turn}",
            f"dice={self.dice if self.dice is not None else '-'}",
            f"rolls_left={self.rolls_left}",
            f"hints={','.join(map(str, self.hints))}",
        ]
        seats = enumerate(zip(self.seats, self.cards, strict=True))
        parts += [f"{i}:{kind.value}=[{card}]" for i, (kind, card) in seats]
        return " ".join(parts)

    # -- actions ----------------------------------------------------------------------

    def _check_turn(self, by: int | None) -> None:
        if self.is_over:
            raise GameOverError("the game is over; no more actions are allowed")
        if by is not None and by != self.turn:
            raise WrongPlayerError(
                f"it is seat {self.turn}'s turn ({self.kind.value}), not seat {by}'s"
                + (f" ({self.seats[by].value})" if 0 <= by < len(self.seats) else "")
            )

    def check_roll(self, hold: Sequence[bool], *, by: int | None = None) -> Hold:
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

    def roll(self, hold: Sequence[bool], source: DiceSource, *, by: int | None = None) -> Game:
        """Roll the dice not held (all five on a turn's first roll), R1."""
        mask = self.check_roll(hold, by=by)
        return self._rolled(mask, source.roll(mask.count(False)))

    def apply_roll(
        self, hold: Sequence[bool], fresh: Sequence[int], *, by: int | None = None
    ) -> Game:
        """Apply a roll whose new faces are known (``fresh``: one per unheld die, in order):
        how a logged roll (:class:`yahtzee.log.Roll`) is played."""
        return self._rolled(self.check_roll(hold, by=by), fresh)

    def _rolled(self, mask: Hold, fresh: Sequence[int]) -> Game:
        need = mask.count(False)
        if len(fresh) != need:
            raise IllegalMoveError(f"{need} dice are rolled but {len(fresh)} faces were given")
        if self.dice is None:  # a turn's first roll: all five are fresh
            dice = Dice.of(fresh)
        else:
            new_faces = iter(fresh)
            old = self.dice.values
            dice = Dice.of([old[i] if mask[i] else next(new_faces) for i in range(NUM_DICE)])
        # Built field by field: dataclasses.replace costs twice as much, on every replayed
        # event (benchmarks/replay_bench.py).
        # A roll (of anyone) makes the last box written final: no undoable position.
        return Game(
            self.mode,
            self.seats,
            self.cards,
            self.turn,
            dice,
            self.rolls_left - 1,
            self.hints,
            None,
            self.undone,
        )

    def score(self, category: Category, *, by: int | None = None) -> Game:
        """Write the dice in ``category`` and pass the turn (R2-R6, R8)."""
        self._check_turn(by)
        if self.dice is None:
            raise NotRolledError(f"cannot score {category.value} before the first roll")
        index = self.turn
        card = self.cards[index].score(category, self.dice)
        cards = (*self.cards[:index], card, *self.cards[index + 1 :])
        turn = (index + 1) % len(self.cards)
        after = Game(self.mode, self.seats, cards, turn, None, ROLLS_PER_TURN, self.hints)
        return after if self.score_is_final else replace(after, undoable=self)

    @property
    def score_is_final(self) -> bool:
        """Whether the box the seat on turn writes now is final, never taken back by
        :meth:`undo`: outside the :data:`UNDO_MODES`, a computer's box, the second box of a
        turn that took one back, and the game's last box (U18: the page says so before a
        0 is written)."""
        if self.undone or self.mode not in UNDO_MODES:
            return True
        if self.kind is not SeatKind.HUMAN:  # a computer's box is never taken back
            return True
        others = (c for i, c in enumerate(self.cards) if i != self.turn)
        # The game's last box: the others are complete and this card has one box left.
        return self.current_card.filled_count == len(self.current_card.boxes) - 1 and all(
            c.is_complete for c in others
        )

    def check_undo(self, *, by: int | None = None) -> Game:
        """Raise unless seat ``by`` may take back the box it just wrote (撤销); return the
        position it goes back to (the dice and rolls left as they were, this turn's one
        undo spent)."""
        if self.mode not in UNDO_MODES:
            raise UndoNotAllowedError(f"a {self.mode.value} game has no undo")
        if self.is_over:
            raise GameOverError("the game is over; its last box is final")
        before = self.undoable
        if before is None:
            raise NothingToUndoError(
                "no box to take back: none was written since the last roll, or the turn "
                "that wrote it had already taken one back"
            )
        if by is not None and by != before.turn:
            raise WrongPlayerError(f"seat {before.turn} wrote the last box, not seat {by}")
        return replace(before, undone=True)

    def undo(self, *, by: int | None = None) -> Game:
        """Take back the last box written (see :meth:`check_undo`): seat ``by`` plays on
        from just before it, with the same dice and rolls left."""
        return self.check_undo(by=by)

    def use_hint(self, *, by: int | None = None) -> Game:
        """Spend one of the current person's three hints (U4); the advice itself comes from
        a player."""
        self._check_turn(by)
        if self.kind is not SeatKind.HUMAN:
            raise WrongPlayerError(f"hints are for people; seat {self.turn} is a {self.kind.value}")
        if self.dice is None:
            raise NotRolledError("a hint needs dice: roll first")
        left = self.hints[self.turn]
        if left <= 0:
            raise NoHintsLeftError(f"all {HINTS_PER_GAME} hints of this game are used")
        hints = (*self.hints[: self.turn], left - 1, *self.hints[self.turn + 1 :])
        return replace(self, hints=hints)

    def restart_turn(self) -> Game:
        """Start the current turn over; scores stay. Only to replay *legacy* logs: older
        versions did this when a game was continued (a fourth roll at will). No request can
        do it any more (F1, U6 changed), see :class:`yahtzee.log.RestartTurn`."""
        self._check_turn(None)
        return replace(self, dice=None, rolls_left=ROLLS_PER_TURN, undoable=None)


@dataclass(frozen=True, slots=True)
class Place:
    """One line of a finished table's ranking (T4): seat ``seat`` with ``total`` points is
    ``place``-th; equal totals share a place and the next place is skipped (1, 1, 3)."""

    seat: int
    total: int
    place: int

    def to_json(self) -> dict[str, Any]:
        """``{"seat", "total", "place"}``."""
        return {"seat": self.seat, "total": self.total, "place": self.place}


def ranking(totals: Sequence[int]) -> tuple[Place, ...]:
    """The seats by their ``totals``, highest first (equal totals: in seat order, sharing
    a place)."""
    order = sorted(range(len(totals)), key=lambda i: (-totals[i], i))
    return tuple(Place(i, totals[i], 1 + sum(t > totals[i] for t in totals)) for i in order)


def place_of(totals: Sequence[int], seat: int) -> int:
    """The place of ``seat`` in :func:`ranking`."""
    return next(p.place for p in ranking(totals) if p.seat == seat)
