"""Reminders that reach a player's devices (W4): the platform's one way for any feature to
ask for one, delivered by whichever feature provides it (Web Push: :mod:`yahtzee.push`).

A feature that wants a player reminded calls, from its built service,
``await platform.reminders.send(player_id, topic, payload, about=...)``:

* ``topic`` is what happened (:data:`TOPICS`: ``turn``, a turn came to the player;
  ``deadline``, a deadline is near); each device says it in its own language (the page's
  catalog);
* ``payload`` (:class:`ReminderPayload`) is everything the reminder carries — the seats'
  names, the round, the link to open, the deadline — and nothing else: it is checked here
  (a malformed one, or one over :data:`MAX_PAYLOAD_BYTES` once encoded, raises
  :class:`ReminderError`: a caller's mistake, never sent);
* ``about`` names what the reminder is about (a room's id, say): a player is reminded at
  most once an hour about the same thing, however many processes or callers ask.

:meth:`Reminders.send` returns once the reminder is decided and, if it goes, committed to
the deliverer's queue (:class:`Sent`: how many devices it goes to, or why it does not go:
too soon, quiet hours, nothing subscribed, no deliverer). Delivery itself happens later, off the
event loop. Whether the player has the thing open right now (a room on screen) is the
caller's to know: it simply does not ask then.

This module belongs to the platform: it names no feature, and the features reach each other
only through it (``Platform.reminders``; the deliverer gives its :class:`ReminderSender` as
``Parts.reminders``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

#: What a reminder can say (each device words it from its catalog: ``push.notify.<topic>``).
TOPICS = frozenset({"turn", "deadline"})
#: The encoded payload's size limit: a Web Push message carries at most 4,096 bytes, of
#: which the encryption takes 103 (RFC 8291); a reminder stays well under it.
MAX_PAYLOAD_BYTES = 2048
#: What one reminder's ``about`` may be (a feature's id of the thing, a room's say).
MAX_ABOUT_CHARS = 100
#: Seats a reminder may name, and a name's length.
MAX_SEATS = 8
MAX_NAME_CHARS = 32
#: A link is a path of this server (never another site: the notification opens it).
_LINK = re.compile(r"/(?!/)[A-Za-z0-9._~/?=&#%-]{0,255}")


class ReminderError(ValueError):
    """A reminder that cannot be sent as asked (a caller's mistake: never sent)."""


@dataclass(frozen=True, slots=True)
class ReminderPayload:
    """What a reminder carries to the player's devices, and nothing more.

    ``seats`` are the names of the seats as the players typed them (an empty name is a
    computer's seat, which each device words in its language); ``round`` is the round the
    game is in (1-13); ``link`` the path of this server the notification opens (``/rooms/
    <id>``); ``due``, if any, when the deadline falls (UNIX seconds), which the device shows
    as a time in its own time zone.
    """

    seats: tuple[str, ...]
    round: int
    link: str
    due: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.seats, tuple) or not 1 <= len(self.seats) <= MAX_SEATS:
            raise ReminderError(f"seats must be a tuple of 1 to {MAX_SEATS} names: {self.seats!r}")
        for name in self.seats:
            if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
                raise ReminderError(f"a seat's name must be text of <= {MAX_NAME_CHARS}: {name!r}")
        if isinstance(self.round, bool) or not isinstance(self.round, int):
            raise ReminderError(f"round must be an int: {self.round!r}")
        if not 1 <= self.round <= 13:
            raise ReminderError(f"round must be 1-13: {self.round}")
        if not isinstance(self.link, str) or not _LINK.fullmatch(self.link):
            raise ReminderError(f"link must be a path of this server: {self.link!r}")
        if self.due is not None and (
            isinstance(self.due, bool)
            or not isinstance(self.due, int | float)
            or not math.isfinite(self.due)
        ):
            raise ReminderError(f"due must be UNIX seconds: {self.due!r}")

    def encode(self, topic: str) -> bytes:
        """The message the devices receive (JSON, UTF-8): the topic and these values."""
        if topic not in TOPICS:
            raise ReminderError(f"unknown topic {topic!r}: one of {sorted(TOPICS)}")
        body: dict[str, object] = {
            "topic": topic,
            "seats": list(self.seats),
            "round": self.round,
            "link": self.link,
        }
        if self.due is not None:
            body["due"] = round(float(self.due))
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        if len(data) > MAX_PAYLOAD_BYTES:
            raise ReminderError(f"the payload is {len(data)} bytes, over {MAX_PAYLOAD_BYTES}")
        return data


class Outcome(StrEnum):
    """What became of a reminder asked for (:class:`Sent`)."""

    QUEUED = "queued"  # committed to the queue of at least one device
    TOO_SOON = "too_soon"  # the player was reminded about the same thing within the hour
    QUIET = "quiet"  # every device of the player is in its quiet hours now
    UNSUBSCRIBED = "unsubscribed"  # nothing of the player takes reminders
    OFF = "off"  # nothing delivers reminders on this server


@dataclass(frozen=True, slots=True)
class Sent:
    """The answer of :meth:`Reminders.send`: the outcome and how many sends it queued (one
    to each of the player's devices that takes reminders now)."""

    outcome: Outcome
    sends: int = 0


@dataclass(frozen=True, slots=True)
class Reminder:
    """One reminder as the deliverer receives it (checked, encoded)."""

    player_id: str
    topic: str
    body: bytes
    about: str


class ReminderSender(Protocol):
    """What delivers reminders (one feature gives it, as ``Parts.reminders``)."""

    async def deliver(self, reminder: Reminder) -> Sent:
        """Decide ``reminder`` (the hour's limit, quiet hours, the devices) and queue it."""
        ...


class Reminders:
    """The platform's reminders (``Platform.reminders``): features ask here, the deliverer
    the app factory registered answers (:meth:`provide`); without one, nothing is sent."""

    def __init__(self) -> None:
        self._sender: ReminderSender | None = None

    def provide(self, sender: ReminderSender) -> None:
        """Deliver every reminder through ``sender`` (one feature gives it)."""
        if self._sender is not None:
            raise RuntimeError("two features deliver reminders")
        self._sender = sender

    @property
    def available(self) -> bool:
        """Whether anything delivers reminders here."""
        return self._sender is not None

    async def send(
        self, player_id: str, topic: str, payload: ReminderPayload, *, about: str
    ) -> Sent:
        """Remind ``player_id`` of ``topic`` with ``payload``, at most once an hour
        ``about`` the same thing (see the module docstring). Raises
        :class:`ReminderError` for a topic, payload or ``about`` that cannot be sent."""
        if not isinstance(about, str) or not 1 <= len(about) <= MAX_ABOUT_CHARS:
            raise ReminderError(f"about must be 1-{MAX_ABOUT_CHARS} characters: {about!r}")
        body = payload.encode(topic)
        if self._sender is None:
            return Sent(Outcome.OFF)
        return await self._sender.deliver(Reminder(player_id, topic, body, about))


def seats_of(names: Sequence[str | None]) -> tuple[str, ...]:
    """A payload's ``seats`` from a game's seat names (``None``, a computer's: empty)."""
    return tuple(name or "" for name in names)
