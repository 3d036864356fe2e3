"""Devices revoked: the platform's one notice that some devices no longer name their
player (removed, signed out, expired, or their player's data deleted), heard by every
process at once (F23).

The devices feature ends the devices in its transactions; in the same transaction it
calls :func:`notify_in`, which on PostgreSQL runs ``pg_notify`` on :data:`CHANNEL`, so the
notice reaches every server process when (and only if) the change commits, as the rooms'
events do. Each process's :class:`Revocations` hears it (on the storage's one ``LISTEN`` connection,
:meth:`Revocations.listen_on`) and hands it to every hook that subscribed:
the features' :attr:`~yahtzee.server.feature.Parts.revoked` (好友房间 ends those devices'
open streams) and the devices feature's own cache. The process that made the change also
delivers it at once itself (:meth:`Revocations.deliver`): with SQLite there is one process
and that is all there is. A hook must be cheap and must not raise (it runs on the event
loop); a notice delivered twice (its writer's own, heard back) must be harmless.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from yahtzee.storage.base import Storage
from yahtzee.storage.feature_db import Tx

log = logging.getLogger("yahtzee.server")

#: The PostgreSQL channel of the notices.
CHANNEL = "yahtzee_revoked"
#: Device ids in one notification (a payload stays far below PostgreSQL's 8,000 bytes).
CHUNK = 200


@dataclass(frozen=True, slots=True)
class Revoked:
    """``devices`` no longer name their player; ``player``, when given, was deleted whole
    (whatever of it is still open anywhere ends too)."""

    devices: tuple[str, ...] = ()
    player: str | None = None

    def to_json(self) -> str:
        """The notification's payload."""
        return json.dumps({"d": list(self.devices), "p": self.player}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Revoked | None:
        """A payload back (``None``, logged, for one that is not)."""
        try:
            raw = json.loads(text)
            devices = tuple(str(d) for d in raw["d"])
            player = raw.get("p")
            return cls(devices, None if player is None else str(player))
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("revocation notice dropped: %s", exc)
            return None

    def chunks(self) -> Iterator[Revoked]:
        """This notice in parts of at most :data:`CHUNK` devices (the player in each)."""
        if len(self.devices) <= CHUNK:
            yield self
            return
        for start in range(0, len(self.devices), CHUNK):
            yield Revoked(self.devices[start : start + CHUNK], self.player)


async def notify_in(tx: Tx, revoked: Revoked) -> None:
    """Announce ``revoked`` to every process when ``tx`` commits (PostgreSQL's
    ``pg_notify``; nothing on SQLite, whose one process delivers it itself)."""
    if tx.dialect != "postgresql" or not (revoked.devices or revoked.player):
        return
    for part in revoked.chunks():
        await tx.one(
            "SELECT pg_notify(:channel, :payload)", {"channel": CHANNEL, "payload": part.to_json()}
        )


class Revocations:
    """The process's hooks for :class:`Revoked` notices and, on PostgreSQL, its listener
    (see the module docstring)."""

    def __init__(self) -> None:
        self._hooks: list[Callable[[Revoked], None]] = []

    def subscribe(self, hook: Callable[[Revoked], None]) -> None:
        """Call ``hook`` with every notice from now on (on the event loop)."""
        self._hooks.append(hook)

    def deliver(self, revoked: Revoked) -> None:
        """Hand ``revoked`` to every hook (a failing hook is logged; the others still run)."""
        for hook in self._hooks:
            try:
                hook(revoked)
            except Exception:
                log.exception("a revocation hook failed")

    def _notified(self, payload: str) -> None:
        revoked = Revoked.from_json(payload)
        if revoked is not None:
            self.deliver(revoked)

    def listen_on(self, storage: Storage) -> None:
        """Hear the other processes' notices on ``storage``'s LISTEN connection
        (PostgreSQL; nothing to hear on SQLite). Before the storage opens."""
        storage.listen(CHANNEL, self._notified)
