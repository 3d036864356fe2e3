"""What 好友房间 tells whoever delivers reminders (W4's seam).

The rooms service calls :class:`TurnNotices` when a turn of a waiting room comes to a
person (``turn``) and when such a turn passes a reminder point (``deadline_near``: 80 % of
its time, and one hour before its deadline; :meth:`yahtzee.rooms.pace.Pace.reminders`).
Each call is made once across every process: ``turn`` by the process that committed the
action that moved the turn on, ``deadline_near`` by the one whose sweep moved the room's
reminder point (a compare-and-set). A player who has the room open on this process (a
stream of it here: behind nginx a room's streams all go to its process) is not told.

:class:`ReminderNotices` hands them to the platform's reminders (``Platform.reminders``,
delivered by Web Push, :mod:`yahtzee.push`, which decides quiet hours, its hour's limit
and the devices): the topic ``turn`` or ``deadline``, a payload of the seats' names, the
round and the room's link (and, for ``deadline``, the deadline the words name), about the
room's id. :class:`NoNotices` drops them (a service built without the platform).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from yahtzee.server.reminders import ReminderPayload, Reminders, Sent, seats_of

log_ = logging.getLogger(__name__)


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


class ReminderNotices:
    """The notices as the platform's reminders (W4): one reminder for the notice's player,
    at most one an hour about the room (the deliverer keeps that limit across processes),
    none in the player's quiet hours or to a player with no device that takes them."""

    def __init__(self, reminders: Reminders) -> None:
        self.reminders = reminders

    async def turn(self, notice: TurnNotice) -> None:
        """A reminder ``turn``: the seats, the round, the link."""
        await self._send("turn", notice, due=None)

    async def deadline_near(self, notice: TurnNotice) -> None:
        """A reminder ``deadline``: the seats, the round, the link and the deadline (the
        device says it as a time of its own zone)."""
        await self._send("deadline", notice, due=notice.deadline)

    async def _send(self, topic: str, notice: TurnNotice, due: float | None) -> Sent:
        payload = ReminderPayload(seats_of(notice.seats), notice.round, notice.link, due)
        sent = await self.reminders.send(notice.player_id, topic, payload, about=notice.room_id)
        log_.debug("room %s: %s reminder %s", notice.room_id, topic, sent.outcome)
        return sent
