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
from yahtzee.log import Seat
from yahtzee.names import name_key, name_problem_zh, parse_name
from yahtzee.players import LEVEL_CHOICES, Difficulty

_FIELDS = frozenset({"kind", "name", "difficulty"})


_refuse = InvalidSeatsError


def parse_seats(raw: object) -> tuple[Seat, ...]:
    """The seats of a new table game, checked (T1); see the module docstring."""
    if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
        raise _refuse(f"seats must be a list, got {raw!r}", "座位应是一个列表。")
    if not MIN_TABLE_SEATS <= len(raw) <= MAX_SEATS:
        raise _refuse(
            f"a table seats {MIN_TABLE_SEATS} to {MAX_SEATS}, not {len(raw)}",
            f"一桌要有 {MIN_TABLE_SEATS} 到 {MAX_SEATS} 个座位（现在是 {len(raw)} 个）。",
        )
    seats = tuple(_seat(i, item) for i, item in enumerate(raw))
    if all(s.kind is SeatKind.COMPUTER for s in seats):
        raise _refuse("a table needs at least one person", "至少要有一位玩家（不能全是电脑）。")
    seen: dict[str, int] = {}
    for i, s in enumerate(seats):
        if s.name is None:
            continue
        key = name_key(s.name)
        if key in seen:
            raise _refuse(
                f"seats {seen[key] + 1} and {i + 1} are both named {s.name!r}",
                f"第 {seen[key] + 1} 位和第 {i + 1} 位重名（{s.name}），请换一个名字。",
            )
        seen[key] = i
    return seats


def _seat(i: int, item: object) -> Seat:
    n = i + 1
    if not isinstance(item, Mapping) or not set(item) <= _FIELDS:
        raise _refuse(
            f"seat {n} must be {{kind, name | difficulty}}, got {item!r}",
            f"第 {n} 个座位的格式不对。",
        )
    kind = item.get("kind")
    if kind == SeatKind.HUMAN.value:
        if item.get("difficulty") is not None:
            raise _refuse(f"seat {n} is a person: no difficulty", f"第 {n} 位是玩家，不需要难度。")
        try:
            name = parse_name(item.get("name"))
        except InvalidNameError as exc:
            raise _refuse(f"seat {n}: {exc}", f"第 {n} 位的名字{name_problem_zh(exc)}") from None
        return Seat(SeatKind.HUMAN, name=name)
    if kind == SeatKind.COMPUTER.value:
        if item.get("name") is not None:
            raise _refuse(f"seat {n} is a computer: no name", f"第 {n} 位是电脑，不需要名字。")
        level = item.get("difficulty")
        if level not in {d.value for d in Difficulty}:
            raise _refuse(
                f"seat {n}: unknown difficulty {level!r}",
                f"第 {n} 位电脑的难度不对（应是 {LEVEL_CHOICES}）。",
            )
        assert isinstance(level, str)
        return Seat(SeatKind.COMPUTER, difficulty=level)
    raise _refuse(
        f"seat {n}: kind must be human or computer, got {kind!r}",
        f"第 {n} 个座位要么是玩家，要么是电脑。",
    )
