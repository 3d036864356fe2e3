"""What 好友房间 tells whoever delivers reminders (W4's seam).

The rooms service calls :class:`TurnNotices` when a turn of a waiting room comes to a
person (``turn``) and when such a turn passes a reminder point (``deadline_near``: 80 % of
its time, and one hour before its deadline; :meth:`yahtzee.rooms.pace.Pace.reminders`).
Each call is made once across every process: ``turn`` by the process that committed the
action that moved the turn on, ``deadline_near`` by the one whose sweep moved the room's
reminder point (a compare-and-set). A player who has the room open on this process (a
stream of it here: behind nginx a room's streams all go to its process) is not told.

Whoever delivers (Web Push, :mod:`yahtzee.push` once it is on the platform as
``Platform.reminders``) adapts these calls: the notice holds what a reminder may carry —
the seats' names, the round, the room's link, the deadline — and the room's id to limit
reminders per room. Until then :class:`NoNotices` drops them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class TurnNotice:
    """A turn of a waiting room for ``player_id``: the room, its seats' names in playing
    order (``None``: a computer's or a nameless seat), the round (1–13), the page's
    address of the room (a path of this server) and the turn's deadline (``None``: no
    clock)."""

    player_id: str
    room_id: str
    seats: tuple[str | None, ...]
    round: int
    link: str
    deadline: float | None


class TurnNotices(Protocol):
    """What the rooms service tells about turns (see the module docstring). A failure is
    logged by the caller and never fails the action that caused it."""

    async def turn(self, notice: TurnNotice) -> None:
        """A turn came to ``notice.player_id``."""
        ...

    async def deadline_near(self, notice: TurnNotice) -> None:
        """``notice.player_id``'s turn passed a reminder point (its deadline is near)."""
        ...


class NoNotices:
    """Nobody delivers reminders: every notice is dropped."""

    async def turn(self, notice: TurnNotice) -> None:
        """Dropped."""
        del notice

    async def deadline_near(self, notice: TurnNotice) -> None:
        """Dropped."""
        del notice
