"""多人同屏: a table's seats as the players give them (T1).

:func:`parse_seats` is the parse of the seats a new table game is started with (the JSON
of ``POST /api/games``, the same shape a ``start`` event stores,
:meth:`yahtzee.log.Seat.to_json` being the print): 2 to 6 seats in playing order, each a
person with a name (:func:`yahtzee.names.parse_name`; unique in the game, compared as
people see them, :func:`yahtzee.names.name_key`) or a computer at one of the levels, at
least one person. Anything else is one :class:`~yahtzee.errors.InvalidSeatsError` naming
the seat and what is wrong with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from yahtzee.errors import InvalidNameError, InvalidSeatsError
from yahtzee.game import MAX_SEATS, MIN_TABLE_SEATS, SeatKind
from yahtzee.i18n import msg
from yahtzee.log import Seat
from yahtzee.names import name_key, name_problem, parse_name
from yahtzee.players import Difficulty, level_choices

_FIELDS = frozenset({"kind", "name", "difficulty"})


_refuse = InvalidSeatsError


def parse_seats(raw: object) -> tuple[Seat, ...]:
    """The seats of a new table game, checked (T1); see the module docstring."""
    if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
        raise _refuse(f"seats must be a list, got {raw!r}", msg("error.seats.not_list"))
    if not MIN_TABLE_SEATS <= len(raw) <= MAX_SEATS:
        raise _refuse(
            f"a table seats {MIN_TABLE_SEATS} to {MAX_SEATS}, not {len(raw)}",
            msg("error.seats.count", min=MIN_TABLE_SEATS, max=MAX_SEATS, n=len(raw)),
        )
    seats = tuple(_seat(i, item) for i, item in enumerate(raw))
    if all(s.kind is SeatKind.COMPUTER for s in seats):
        raise _refuse("a table needs at least one person", msg("error.seats.no_person"))
    seen: dict[str, int] = {}
    for i, s in enumerate(seats):
        if s.name is None:
            continue
        key = name_key(s.name)
        if key in seen:
            raise _refuse(
                f"seats {seen[key] + 1} and {i + 1} are both named {s.name!r}",
                msg("error.seats.same_name", first=seen[key] + 1, second=i + 1, name=s.name),
            )
        seen[key] = i
    return seats


def _seat(i: int, item: object) -> Seat:
    n = i + 1
    if not isinstance(item, Mapping) or not set(item) <= _FIELDS:
        raise _refuse(
            f"seat {n} must be {{kind, name | difficulty}}, got {item!r}",
            msg("error.seats.malformed", n=n),
        )
    kind = item.get("kind")
    if kind == SeatKind.HUMAN.value:
        if item.get("difficulty") is not None:
            raise _refuse(
                f"seat {n} is a person: no difficulty", msg("error.seats.person_level", n=n)
            )
        try:
            name = parse_name(item.get("name"))
        except InvalidNameError as exc:
            who = msg("error.seats.name_who", n=n)
            raise _refuse(f"seat {n}: {exc}", name_problem(exc, who)) from None
        return Seat(SeatKind.HUMAN, name=name)
    if kind == SeatKind.COMPUTER.value:
        if item.get("name") is not None:
            raise _refuse(f"seat {n} is a computer: no name", msg("error.seats.computer_name", n=n))
        level = item.get("difficulty")
        if level not in {d.value for d in Difficulty}:
            raise _refuse(
                f"seat {n}: unknown difficulty {level!r}",
                msg("error.seats.level", n=n, levels=level_choices()),
            )
        assert isinstance(level, str)
        return Seat(SeatKind.COMPUTER, difficulty=level)
    raise _refuse(
        f"seat {n}: kind must be human or computer, got {kind!r}",
        msg("error.seats.kind", n=n),
    )
