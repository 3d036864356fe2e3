"""A room's pace (W1): live, a turn that waits hours or days, or no clock at all.

A room is made with one pace, kept by its rematches: ``live`` (a turn of ``turn_seconds``,
10–300, O5), or a waiting pace — a turn waits ``1h``, ``12h``, ``1d``, ``3d`` or ``7d``, or
``none`` (no clock: a family game). :class:`Pace` is the value with its parse/print pair
(:meth:`Pace.parse`, :meth:`Pace.id`); the rest of this module is what follows from a pace:
a turn's deadline, the points at which a player whose turn it is may be reminded (80 % of
the time, and one hour before), and a time left said as a person reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from yahtzee.i18n import Msg, msg, msg_n
from yahtzee.rooms.errors import InvalidPaceError

LIVE = "live"
NO_CLOCK = "none"
#: The waiting paces, each with a turn's seconds (``None``: no clock), in the order offered.
WAITING: dict[str, int | None] = {
    "1h": 3600,
    "12h": 12 * 3600,
    "1d": 24 * 3600,
    "3d": 3 * 24 * 3600,
    "7d": 7 * 24 * 3600,
    NO_CLOCK: None,
}
#: Every pace id, in the order offered (the live one first).
IDS: tuple[str, ...] = (LIVE, *WAITING)
MIN_TURN_SECONDS, MAX_TURN_SECONDS, DEFAULT_TURN_SECONDS = 10, 300, 60
#: The turns in a row that 托管 plays for a person before their seat is marked away: at
#: once in a live room (O5), after three in a waiting one (W1: a turn missed overnight is
#: no reason to hand the game over).
AWAY_AFTER_LIVE, AWAY_AFTER_WAITING = 1, 3
#: A waiting room in which no person has acted this long is finished as it stands (W1).
IDLE_DAYS = 14
#: The share of a turn's time after which its player may be reminded (W4's first point).
REMIND_SHARE = 0.8
#: The second reminder point: this long before the deadline.
REMIND_BEFORE = 3600.0


@dataclass(frozen=True, slots=True)
class Pace:
    """A room's pace: ``name`` (one of :data:`IDS`) and a turn's ``seconds`` (``None``:
    no clock)."""

    name: str
    seconds: int | None

    @property
    def waits(self) -> bool:
        """A waiting pace (any but live): turns over hours or days (W1)."""
        return self.name != LIVE

    @property
    def away_after(self) -> int:
        """Turns in a row 托管 plays for a person before their seat is marked away."""
        return AWAY_AFTER_WAITING if self.waits else AWAY_AFTER_LIVE

    def id(self) -> str:
        """The pace's id, as the API and the database say it (:meth:`parse`'s input)."""
        return self.name

    @classmethod
    def stored(cls, name: str, turn_seconds: int) -> Pace:
        """The pace of a stored room (its ``pace`` and ``turn_seconds`` columns)."""
        if name == LIVE:
            return cls(LIVE, turn_seconds)
        return cls(name, WAITING.get(name))

    @classmethod
    def parse(cls, raw: object, turn_seconds: object = None) -> Pace:
        """The pace of a new room from its body: ``pace`` (absent: live) and, for a live
        room only, ``turn_seconds`` (a whole number 10–300; absent: 60). Anything else is
        :class:`InvalidPaceError` naming the value."""
        if raw is None or raw == LIVE:
            return cls(LIVE, _turn_seconds(turn_seconds))
        if not isinstance(raw, str) or raw not in WAITING:
            shown = repr(raw)[:40]
            raise InvalidPaceError(
                f"pace must be one of {', '.join(IDS)}, got {shown}",
                msg("error.room.invalid_pace", value=shown, choices=", ".join(IDS)),
            )
        if turn_seconds is not None:
            raise InvalidPaceError(
                f"turn_seconds is a live room's, not a {raw} pace's",
                msg("error.room.turn_seconds_not_live"),
            )
        return cls(raw, WAITING[raw])

    def deadline(self, now: float) -> float | None:
        """When a turn that comes up ``now`` goes to 托管 (``None``: no clock)."""
        return None if self.seconds is None else now + self.seconds

    def reminders(self, deadline: float | None) -> tuple[float, ...]:
        """The points of a turn that ends at ``deadline`` at which its player may be
        reminded (W4: when 80 % of the time has passed, and one hour before), in order;
        none for a live room, a turn without a clock, or a point at the turn's start."""
        if not self.waits or self.seconds is None or deadline is None:
            return ()
        begun = deadline - self.seconds
        points = {begun + REMIND_SHARE * self.seconds, deadline - REMIND_BEFORE}
        return tuple(sorted(p for p in points if begun < p < deadline))

    def next_reminder(self, deadline: float | None, after: float) -> float | None:
        """The first of :meth:`reminders` later than ``after`` (``None``: no more)."""
        return next((p for p in self.reminders(deadline) if p > after), None)


def _turn_seconds(raw: object) -> int:
    """A live room's ``turn_seconds``: a whole number of seconds, 10 to 300 (O5)."""
    if raw is None:
        return DEFAULT_TURN_SECONDS
    if type(raw) is not int or not MIN_TURN_SECONDS <= raw <= MAX_TURN_SECONDS:
        shown = repr(raw)[:40]
        raise InvalidPaceError(
            f"turn_seconds must be {MIN_TURN_SECONDS}-{MAX_TURN_SECONDS}, got {shown}",
            msg(
                "error.room.invalid_turn_seconds",
                value=shown,
                min=MIN_TURN_SECONDS,
                max=MAX_TURN_SECONDS,
            ),
        )
    return raw


def time_left(seconds: float) -> Msg:
    """``seconds`` left as a person says it, in the largest whole unit: 「还剩 2 天」,
    「还剩 5 小时」, 「还剩 3 分钟」 (rounded down; under a minute, 「不到 1 分钟」)."""
    if seconds >= 24 * 3600:
        days = int(seconds // (24 * 3600))
        return msg_n("server.room.left.days", days, n=days)
    if seconds >= 3600:
        hours = int(seconds // 3600)
        return msg_n("server.room.left.hours", hours, n=hours)
    if seconds >= 60:
        minutes = int(seconds // 60)
        return msg_n("server.room.left.minutes", minutes, n=minutes)
    return msg("server.room.left.under_a_minute")
