"""Devices revoked: the platform's one notice that some devices no longer name their
player (removed, signed out, expired, or their player's data deleted), heard by every
process at once (F23).

The devices feature ends the devices in its transactions; in the same transaction it
calls :func:`notify_in`, which on PostgreSQL runs ``pg_notify`` on :data:`CHANNEL`, so the
notice reaches every server process when (and only if) the change commits, as the rooms'
events do. Each process's :class:`Revocations` hears it (a ``LISTEN`` connection in a
thread of its own, :meth:`Revocations.start`) and hands it to every hook that subscribed:
the features' :attr:`~yahtzee.server.feature.Parts.revoked` (好友房间 ends those devices'
open streams) and the devices feature's own cache. The process that made the change also
delivers it at once itself (:meth:`Revocations.deliver`): with SQLite there is one process
and that is all there is. A hook must be cheap and must not raise (it runs on the event
loop); a notice delivered twice (its writer's own, heard back) must be harmless.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from yahtzee.storage.feature_db import Tx

log = logging.getLogger("yahtzee.server")

#: The PostgreSQL channel of the notices.
CHANNEL = "yahtzee_revoked"
#: Device ids in one notification (a payload stays far below PostgreSQL's 8,000 bytes).
CHUNK = 200
#: Seconds the listener waits for a notification before it looks at its stop flag again.
LISTEN_POLL = 2.0


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


def notify_in(tx: Tx, revoked: Revoked) -> None:
    """Announce ``revoked`` to every process when ``tx`` commits (PostgreSQL's
    ``pg_notify``; nothing on SQLite, whose one process delivers it itself)."""
    if tx.dialect != "postgresql" or not (revoked.devices or revoked.player):
        return
    for part in revoked.chunks():
        tx.one(
            "SELECT pg_notify(:channel, :payload)", {"channel": CHANNEL, "payload": part.to_json()}
        )


class Revocations:
    """The process's hooks for :class:`Revoked` notices and, on PostgreSQL, its listener
    (see the module docstring)."""

    def __init__(self) -> None:
        self._hooks: list[Callable[[Revoked], None]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._url = ""
        self.listening = threading.Event()  # set while a LISTEN connection is up
        # A channel only this listener hears: stop() notifies it to leave its wait at once.
        self._wake_channel = f"{CHANNEL}_stop_{os.getpid()}_{id(self)}"

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

    # -- PostgreSQL: the listener ------------------------------------------------------------

    def start(self, url: str) -> None:
        """Listen for the other processes' notices on ``url`` (from the event loop that
        runs the hooks)."""
        self._url = url
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="revocations", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Stop listening and wait for the thread (at once; at most :data:`LISTEN_POLL`
        seconds while the database cannot be reached)."""
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._wake)
            await asyncio.to_thread(self._thread.join, LISTEN_POLL + 3.0)

    def _wake(self) -> None:
        if not self.listening.is_set():
            return
        import psycopg

        try:
            with psycopg.connect(self._url, autocommit=True, connect_timeout=2) as conn:
                conn.execute("SELECT pg_notify(%s, '')", (self._wake_channel,))
        except psycopg.Error as exc:  # the thread still sees the stop at its next poll
            log.info("revocation listener: could not wake it to stop: %s", exc)

    def _run(self) -> None:
        import psycopg

        loop = self._loop
        assert loop is not None
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    conn.execute(f'LISTEN "{self._wake_channel}"')
                    self.listening.set()
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=LISTEN_POLL):
                            if note.channel == self._wake_channel:
                                break
                            with contextlib.suppress(RuntimeError):  # the loop closed
                                loop.call_soon_threadsafe(self._notified, note.payload)
            except psycopg.Error as exc:
                # (a notice missed meanwhile costs what the caches' time to live says:
                # --device-cache-seconds; a stream then ends at its lifetime)
                self.listening.clear()
                log.warning("revocation listener: %s; reconnecting", exc)
                self._stop.wait(1.0)
        self.listening.clear()
