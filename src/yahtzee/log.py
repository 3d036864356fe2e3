"""A game's event log: typed events, their stored JSON, and the one :func:`apply`.

Every change to a game is one event, and the position is exactly the fold of its events
over the ``Start`` (:func:`replay`). Everyone who changes or reads a game goes through
here: the server's actions and its cache misses, the computer's turn
(:func:`yahtzee.turn.play_turn`), self-play, the review and the storage.

A seat is an **index** (0..n-1, the playing order of :attr:`Start.seats`). Events are
small frozen values; each prints itself with ``to_json()`` (the stored ``data`` object;
its ``kind`` is the class's :attr:`kind`) and :func:`from_json` reads one back, raising
:class:`~yahtzee.errors.CorruptLogError` naming the bad value for anything malformed.

=================  ================================================================
kind               ``data``
=================  ================================================================
``start``          ``{"mode", "seats": [{"kind", "name"?, "difficulty"?}], "date"?}``
``roll``           ``{"seat", "hold": [bool x5], "faces": [one per unheld die], "proxy"?}``
``score``          ``{"seat", "category", "proxy"?}``
``hint``           ``{"seat", "hold": [bool x5]|null, "category": str|null}``
``undo``           ``{"seat"}``: seat took back the box it had just written (撤销)
``abandon``        ``{}`` (a new game replaced this one, 重新开始)
``restart_turn``   ``{}``, **legacy** (see :class:`RestartTurn`)
=================  ================================================================

Logs written before this module (commit 339df8a and older) read as they always did: a
``start`` with ``{"mode", "difficulty"}`` has the mode's seats (the person at 0, in a vs
game the computer at 1 with that level); a seat written ``"human"``/``"computer"`` is
seat 0/1; a ``hint`` without a seat is seat 0's; the informational ``dice`` of a roll and
``points``/``yahtzee_bonus``/``dice`` of a score are ignored (replay derives them).

``proxy`` (K2) names the computer level that made a person's roll or box for them while
they were away (托管, O5): the move is the seat's, the decision the computer's, and the
review says so.

The rules bound a log (F1): at most :func:`max_events` events, growing with the seats.

An ``undo`` (issue 21) follows the ``score`` it takes back at once (a roll of anyone makes a
box final), so a log read from its start always knows which boxes stand: the review
(:mod:`yahtzee.review.analysis`) drops each undone score with its undo and counts them.

Room for what comes next, without a new shape: a table of 2-6 seats (issue 17) is one
more :class:`~yahtzee.game.Mode` whose seats :class:`Start` accepts (named people,
computers at levels: :class:`Seat` has both already; today :data:`~yahtzee.game.SEATS_OF`
fixes solo and vs); a day's challenge (issue 20) fills :attr:`Start.date`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from yahtzee.errors import CorruptLogError, IllegalMoveError
from yahtzee.game import (
    HINTS_PER_GAME,
    MAX_SEATS,
    ROLLS_PER_TURN,
    ROUNDS,
    SEATS_OF,
    UNDO_MODES,
    Game,
    Hold,
    Mode,
    SeatKind,
    check_seats,
)
from yahtzee.rules import NUM_DICE, Category

__all__ = [
    "Abandon",
    "CorruptLogError",
    "Event",
    "Hint",
    "RestartTurn",
    "Roll",
    "Score",
    "Seat",
    "Start",
    "Undo",
    "apply",
    "from_json",
    "max_events",
    "replay",
]

# A seat in logs written before seats were indices (solo and vs games only).
_LEGACY_SEATS: Final = {"human": 0, "computer": 1}

# The fields each kind's data may have, the legacy ones included (see the module docstring).
_LEGACY_START: Final = frozenset({"mode", "difficulty"})
_START: Final = frozenset({"mode", "seats", "date"})
_ROLL: Final = frozenset({"seat", "hold", "faces", "dice", "proxy"})
_SCORE: Final = frozenset({"seat", "category", "points", "yahtzee_bonus", "dice", "proxy"})
_HINT: Final = frozenset({"seat", "hold", "category"})
_UNDO: Final = frozenset({"seat"})
_EMPTY: Final[frozenset[str]] = frozenset()


def _seat_index(seat: object) -> int:
    if type(seat) is not int or not 0 <= seat < MAX_SEATS:
        raise IllegalMoveError(f"a seat is an index 0..{MAX_SEATS - 1}, got {seat!r}")
    return seat


def _hold(hold: object) -> Hold:
    # (One chained comparison, no loop: every replayed roll passes here.)
    if not (
        type(hold) is tuple
        and len(hold) == NUM_DICE
        and type(hold[0])
        is type(hold[1])
        is type(hold[2])
        is type(hold[3])
        is type(hold[4])
        is bool
    ):
        raise IllegalMoveError(f"hold must be five booleans, got {hold!r}")
    return hold  # type: ignore[return-value,unused-ignore]  # checked just above


def _proxy(proxy: object) -> str | None:
    if proxy is not None and (type(proxy) is not str or not proxy):
        raise IllegalMoveError(f"a proxy is a computer level's id, got {proxy!r}")
    return proxy


def _check_faces(faces: object) -> None:
    if type(faces) is not tuple:
        raise IllegalMoveError(f"faces must be a tuple of dice faces, got {faces!r}")
    for face in faces:
        if type(face) is not int or not 0 < face < 7:
            raise IllegalMoveError(f"faces must be dice faces 1..6, got {faces!r}")


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits at one index of a game: a person (optionally named) or a computer level.

    ``difficulty`` is a computer level's id (:class:`yahtzee.players.Difficulty` value),
    required for a computer and absent for a person; ``name`` is what people typed (shown
    as text, never markup). Names are checked where people type them, not here.
    """

    kind: SeatKind
    name: str | None = None
    difficulty: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, SeatKind):
            raise IllegalMoveError(f"a seat's kind is human or computer, got {self.kind!r}")
        if self.name is not None and (type(self.name) is not str or not self.name):
            raise IllegalMoveError(f"a seat's name is a non-empty string, got {self.name!r}")
        computer = self.kind is SeatKind.COMPUTER
        if computer and (type(self.difficulty) is not str or not self.difficulty):
            raise IllegalMoveError(f"a computer seat needs a level, got {self.difficulty!r}")
        if not computer and self.difficulty is not None:
            raise IllegalMoveError(f"a person's seat has no level, got {self.difficulty!r}")

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "name"?, "difficulty"?}`` (absent fields are ``None``)."""
        out: dict[str, Any] = {"kind": self.kind.value}
        if self.name is not None:
            out["name"] = self.name
        if self.difficulty is not None:
            out["difficulty"] = self.difficulty
        return out

    @classmethod
    def from_json(cls, data: object) -> Seat:
        """The seat of a ``start`` event's ``seats`` list."""
        if not isinstance(data, Mapping) or not data.keys() <= {"kind", "name", "difficulty"}:
            raise IllegalMoveError(f"a seat is {{kind, name?, difficulty?}}, got {data!r}")
        try:
            kind = SeatKind(data.get("kind"))
        except ValueError:
            raise IllegalMoveError(f"unknown seat kind {data.get('kind')!r}") from None
        return cls(kind, data.get("name"), data.get("difficulty"))


@dataclass(frozen=True, slots=True)
class Start:
    """The first event of every log: the mode, the seats in playing order, and the date
    of a game played on a day's dice (a kind of game whose rules say its start carries
    one, K2). Solo is one person; vs is a person then a computer."""

    kind: ClassVar[str] = "start"
    mode: Mode
    seats: tuple[Seat, ...]
    date: dt.date | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.mode, Mode):
            raise IllegalMoveError(f"unknown mode {self.mode!r}")
        if type(self.seats) is not tuple or not all(isinstance(s, Seat) for s in self.seats):
            raise IllegalMoveError(f"seats must be a tuple of Seat, got {self.seats!r}")
        check_seats(self.mode, tuple(s.kind for s in self.seats))
        if self.date is not None and type(self.date) is not dt.date:
            raise IllegalMoveError(f"a start's date is a date, got {self.date!r}")

    @classmethod
    def of(cls, mode: Mode, difficulty: str | None = None) -> Start:
        """The start of a solo game, or of a vs game against the level ``difficulty``."""
        seats = tuple(
            Seat(kind, difficulty=difficulty if kind is SeatKind.COMPUTER else None)
            for kind in SEATS_OF[mode]
        )
        return cls(mode, seats)

    @property
    def difficulty(self) -> str | None:
        """The level of the first computer seat (a vs game's opponent), else ``None``."""
        return next((s.difficulty for s in self.seats if s.kind is SeatKind.COMPUTER), None)

    def game(self) -> Game:
        """The position this event creates: empty cards, seat 0 to roll."""
        return Game.new(self.mode, tuple(s.kind for s in self.seats))

    def to_json(self) -> dict[str, Any]:
        """``{"mode", "seats": [...], "date"?}``."""
        out: dict[str, Any] = {"mode": self.mode.value, "seats": [s.to_json() for s in self.seats]}
        if self.date is not None:
            out["date"] = self.date.isoformat()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Start:
        """Read a ``start``'s data; a legacy ``{"mode", "difficulty"}`` has the mode's seats."""
        try:
            mode = Mode.parse(data.get("mode"))
        except ValueError:
            raise IllegalMoveError(f"unknown mode {data.get('mode')!r}") from None
        if "seats" not in data:  # written before seats were stored (339df8a and older)
            _keys(data, _LEGACY_START)
            return cls.of(mode, data.get("difficulty"))
        _keys(data, _START)
        seats = data["seats"]
        if not isinstance(seats, list):
            raise IllegalMoveError(f"seats must be a list, got {seats!r}")
        date = data.get("date")
        if date is not None:
            try:
                date = dt.date.fromisoformat(date)
            except (TypeError, ValueError):
                raise IllegalMoveError(f"a start's date is YYYY-MM-DD, got {date!r}") from None
        return cls(mode, tuple(Seat.from_json(s) for s in seats), date)


@dataclass(frozen=True, slots=True)
class Roll:
    """Seat ``seat`` rolled the dice not held in ``hold`` and they came up ``faces`` (one
    per unheld die, in order; all five on a turn's first roll); ``proxy``: the computer
    level that chose the hold for the away person (托管, K2)."""

    kind: ClassVar[str] = "roll"
    seat: int
    hold: Hold
    faces: tuple[int, ...]
    proxy: str | None = None

    def __post_init__(self) -> None:
        _seat_index(self.seat)
        _hold(self.hold)
        _check_faces(self.faces)
        _proxy(self.proxy)

    def to_json(self) -> dict[str, Any]:
        """``{"seat", "hold", "faces", "proxy"?}``."""
        out: dict[str, Any] = {
            "seat": self.seat,
            "hold": list(self.hold),
            "faces": list(self.faces),
        }
        if self.proxy is not None:
            out["proxy"] = self.proxy
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Roll:
        """Read a ``roll``'s data (a legacy seat name and ``dice`` are accepted)."""
        _keys(data, _ROLL)
        return cls(
            _stored_seat(data),
            _tuple(data, "hold"),
            _tuple(data, "faces"),
            _proxy(data.get("proxy")),
        )


@dataclass(frozen=True, slots=True)
class Score:
    """Seat ``seat`` wrote the dice on the table in ``category`` (its turn ends);
    ``proxy``: the computer level that chose the box for the away person (托管, K2)."""

    kind: ClassVar[str] = "score"
    seat: int
    category: Category
    proxy: str | None = None

    def __post_init__(self) -> None:
        _seat_index(self.seat)
        if not isinstance(self.category, Category):
            raise IllegalMoveError(f"unknown category {self.category!r}")
        _proxy(self.proxy)

    def to_json(self) -> dict[str, Any]:
        """``{"seat", "category", "proxy"?}``."""
        out: dict[str, Any] = {"seat": self.seat, "category": self.category.value}
        if self.proxy is not None:
            out["proxy"] = self.proxy
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Score:
        """Read a ``score``'s data (legacy ``points``/``yahtzee_bonus``/``dice`` ignored)."""
        _keys(data, _SCORE)
        return cls(_stored_seat(data), _category(data.get("category")), _proxy(data.get("proxy")))


@dataclass(frozen=True, slots=True)
class Hint:
    """Seat ``seat`` (a person) spent a hint; the expert advised holding ``hold`` and
    rolling on, or writing ``category`` (the other is ``None``)."""

    kind: ClassVar[str] = "hint"
    seat: int
    hold: Hold | None = None
    category: Category | None = None

    def __post_init__(self) -> None:
        _seat_index(self.seat)
        if self.hold is not None:
            _hold(self.hold)
        if self.category is not None and not isinstance(self.category, Category):
            raise IllegalMoveError(f"unknown category {self.category!r}")

    def to_json(self) -> dict[str, Any]:
        """``{"seat", "hold", "category"}``."""
        return {
            "seat": self.seat,
            "hold": list(self.hold) if self.hold is not None else None,
            "category": self.category.value if self.category is not None else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hint:
        """Read a ``hint``'s data (a legacy hint has no seat: seat 0's)."""
        _keys(data, _HINT)
        seat = _stored_seat(data) if "seat" in data else 0
        hold = _tuple(data, "hold") if data.get("hold") is not None else None
        category = data.get("category")
        return cls(seat, hold, _category(category) if category is not None else None)


@dataclass(frozen=True, slots=True)
class Undo:
    """Seat ``seat`` took back the box it had just written (撤销, issue 21): the position
    goes back to just before that ``score``, the same dice and rolls left; the turn's next
    box is final. Only right after the score (:meth:`yahtzee.game.Game.check_undo`)."""

    kind: ClassVar[str] = "undo"
    seat: int

    def __post_init__(self) -> None:
        _seat_index(self.seat)

    def to_json(self) -> dict[str, Any]:
        """``{"seat"}``."""
        return {"seat": self.seat}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Undo:
        """Read an ``undo``'s data."""
        _keys(data, _UNDO)
        if "seat" not in data:
            raise IllegalMoveError("an undo names its seat")
        return cls(_seat_index(data["seat"]))


@dataclass(frozen=True, slots=True)
class Abandon:
    """A newer game replaced this one (重新开始). The position does not change; the game's
    stored header records the status."""

    kind: ClassVar[str] = "abandon"

    def to_json(self) -> dict[str, Any]:
        """``{}``."""
        return {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Abandon:
        """Read an ``abandon``'s (empty) data."""
        _keys(data, _EMPTY)
        return cls()


@dataclass(frozen=True, slots=True)
class RestartTurn:
    """**Legacy**: the current turn started over (dice gone, three rolls), scores kept.

    Older versions wrote one each time a game was continued from the lobby (``POST
    /resume``: a fourth roll at will). Stored logs that hold it still replay exactly as
    before (:func:`replay`, ``apply(..., stored=True)``), so old databases keep every
    game; :func:`apply` refuses it as a new event, so it can never be written again (F1).
    """

    kind: ClassVar[str] = "restart_turn"

    def to_json(self) -> dict[str, Any]:
        """``{}``."""
        return {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RestartTurn:
        """Read a ``restart_turn``'s (empty) data."""
        _keys(data, _EMPTY)
        return cls()


Event = Start | Roll | Score | Hint | Undo | Abandon | RestartTurn
"""One entry of a game's log."""

_KINDS: Final[dict[str, type[Event]]] = {
    c.kind: c for c in (Start, Roll, Score, Hint, Undo, Abandon, RestartTurn)
}


def from_json(kind: str, data: object) -> Event:
    """The event stored as ``kind`` with the JSON object ``data`` (already decoded).

    Raises :class:`CorruptLogError` naming the kind and the bad value if it is malformed.
    """
    cls = _KINDS.get(kind)
    if cls is None:
        raise CorruptLogError(f"unknown event kind {kind!r} in a stored log")
    if type(data) is not dict and not isinstance(data, Mapping):  # (dict: the fast check)
        raise CorruptLogError(f"a stored {kind} event's data is an object, got {data!r}")
    try:
        return cls.from_json(data)
    except IllegalMoveError as exc:
        raise CorruptLogError(f"stored {kind} event {dict(data)!r}: {exc}") from None


def _keys(data: Mapping[str, Any], allowed: frozenset[str]) -> None:
    if not allowed.issuperset(data):
        raise IllegalMoveError(f"unexpected field(s) {sorted(data.keys() - allowed)}")


def _stored_seat(data: Mapping[str, Any]) -> int:
    seat = data.get("seat")
    if type(seat) is str and seat in _LEGACY_SEATS:
        return _LEGACY_SEATS[seat]
    return _seat_index(seat)


def _tuple(data: Mapping[str, Any], key: str) -> tuple[Any, ...]:
    value = data.get(key)
    if type(value) is not list:
        raise IllegalMoveError(f"{key} must be a list, got {value!r}")
    return tuple(value)


def _category(value: object) -> Category:
    try:
        return Category(value)
    except ValueError:
        raise IllegalMoveError(f"unknown category {value!r}") from None


# -- the one apply ---------------------------------------------------------------------


def apply(game: Game, event: Event, *, stored: bool = False) -> Game:
    """The position after ``event``, checked once by the rules engine.

    Raises the :class:`~yahtzee.errors.IllegalMoveError` the rules say (wrong seat, fourth
    roll, used box, no hints left, ...). A ``start`` cannot follow anything, and a legacy
    :class:`RestartTurn` is a :class:`CorruptLogError` unless ``stored`` (replaying a
    log that already holds it).
    """
    if type(event) is Roll:
        return game.apply_roll(event.hold, event.faces, by=event.seat)
    if type(event) is Score:
        return game.score(event.category, by=event.seat)
    if type(event) is Hint:
        return game.use_hint(by=event.seat)
    if type(event) is Undo:
        return game.undo(by=event.seat)
    if type(event) is Abandon:
        return game
    if type(event) is RestartTurn:
        if stored:
            return game.restart_turn()
        raise CorruptLogError("restart_turn is a legacy event: it is never applied anew")
    raise CorruptLogError(f"unexpected {event.kind!r} event in the middle of a log")


def replay(events: Iterable[Event]) -> Game:
    """The position of a whole stored log (first event :class:`Start`)."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, Start):
        raise CorruptLogError("a game log must begin with a start event")
    game = first.game()
    for event in it:
        game = apply(game, event, stored=True)
    return game


def max_events(seats: Sequence[SeatKind], mode: Mode) -> int:
    """The longest log a ``mode`` game with these seats can have under the rules (F1).

    One ``start``; per seat 13 turns of at most 3 rolls and 1 score; 3 hints per person;
    in the modes with 撤销 (:data:`~yahtzee.game.UNDO_MODES`) one ``undo`` and the box
    written again per turn of a person (never the game's last box); one ``abandon``:
    1 + 13 x 4 + 3 + 1 = 57 (a vs game: 1 + 2 x 13 x 4 + 3 + 1 = 109), solo with its undos
    57 + 2 x 12 = 81, and 332 + 6 x 13 x 2 - 2 = 486 for a table of six people. (A finished
    game has no ``abandon``: one shorter.) Only a legacy log (``restart_turn`` events) can
    be longer.
    """
    people = sum(1 for kind in seats if kind is SeatKind.HUMAN)
    bound = 1 + len(seats) * ROUNDS * (ROLLS_PER_TURN + 1) + people * HINTS_PER_GAME + 1
    if mode in UNDO_MODES and people:
        bound += 2 * (people * ROUNDS - 1)  # an undo and a new score; the game's last is final
    return bound
