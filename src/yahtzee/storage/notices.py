"""A process's one ``LISTEN`` connection to PostgreSQL: the channels its parts listen to.

A writer announces a change to every process with ``pg_notify(channel, payload)`` in the
transaction that makes it (a room's event, devices revoked), so the notice is delivered at
commit, in commit order, and never for a transaction that rolled back. Each process hears
them on one connection, opened by the games' storage (``storage.listen(channel, ...)``,
before :meth:`Listener.start`; :class:`~yahtzee.storage.postgres.PostgresStorage` starts it
when it opens and stops it when it closes), whatever the number of channels: no part
opens a connection of its own (A3). SQLite has no notices: its one process delivers what
it writes itself.

The connection waits in a thread of its own (psycopg's blocking ``notifies``), and hands
each notification to its channel's handler on the event loop. A lost connection is
reopened after ``retry`` seconds; each channel's ``on_reconnect`` then runs (on the loop),
so that its part reads what it may have missed. :meth:`Listener.stop` wakes the thread at
once through a channel only it listens to, rather than waiting out its poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("yahtzee.storage")

#: Seconds the listener waits for a notification before it looks at its stop flag again.
LISTEN_POLL = 2.0


@dataclass(frozen=True, slots=True)
class Channel:
    """A channel's handlers: ``on_notice(payload)`` for each notification, ``on_reconnect()``
    after the connection was lost and made again (notices may have been missed)."""

    name: str
    on_notice: Callable[[str], None]
    on_reconnect: Callable[[], None] | None = None


class Listener:
    """The process's ``LISTEN`` connection (see the module docstring)."""

    def __init__(self, url: str, *, retry: float = 1.0) -> None:
        self.url = url
        self.retry = retry
        self.channels: dict[str, Channel] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.listening = threading.Event()  # set while the LISTEN connection is up
        # A channel only this listener hears: stop() notifies it, so the thread leaves its
        # wait at once instead of at the next poll (an app's shutdown, every test's).
        self._wake_channel = f"yahtzee_stop_{os.getpid()}_{id(self)}"

    def listen(
        self,
        channel: str,
        on_notice: Callable[[str], None],
        on_reconnect: Callable[[], None] | None = None,
    ) -> None:
        """Hand ``channel``'s notifications to ``on_notice`` (on the event loop), from
        :meth:`start` on."""
        if self._thread is not None:
            raise RuntimeError(f"listen to {channel!r} before the listener starts")
        if not channel.isidentifier():
            raise ValueError(f"a channel is a plain name, not {channel!r}")
        self.channels[channel] = Channel(channel, on_notice, on_reconnect)

    def start(self) -> None:
        """Start listening, if any channel was asked for (from the event loop that runs
        the handlers)."""
        if not self.channels or self._thread is not None:
            return
        self._stop.clear()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="listener", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Stop listening and wait for the thread (at once; at most :data:`LISTEN_POLL`
        seconds while the database cannot be reached)."""
        thread = self._thread
        if thread is None:
            return
        self._stop.set()
        await asyncio.to_thread(self._wake)
        await asyncio.to_thread(thread.join, LISTEN_POLL + 3.0)
        self._thread = None

    def _wake(self) -> None:
        if not self.listening.is_set():
            return
        import psycopg

        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=2) as conn:
                conn.execute("SELECT pg_notify(%s, '')", (self._wake_channel,))
        except psycopg.Error as exc:  # the thread still sees the stop at its next poll
            log.info("listener: could not wake it to stop: %s", exc)

    def _call(self, fn: Callable[..., None], *args: object) -> None:
        loop = self._loop
        assert loop is not None
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(_safely, fn, *args)

    def _run(self) -> None:
        import psycopg

        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    for name in self.channels:
                        conn.execute(f'LISTEN "{name}"')
                    conn.execute(f'LISTEN "{self._wake_channel}"')
                    self.listening.set()
                    if not first:
                        for channel in self.channels.values():
                            if channel.on_reconnect is not None:
                                self._call(channel.on_reconnect)
                    first = False
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=LISTEN_POLL):
                            if note.channel == self._wake_channel:
                                break
                            heard = self.channels.get(note.channel)
                            if heard is not None:
                                self._call(heard.on_notice, note.payload)
            except psycopg.Error as exc:
                self.listening.clear()
                log.warning("listener: %s; reconnecting", exc)
                self._stop.wait(self.retry)
        self.listening.clear()


def _safely(fn: Callable[..., None], *args: object) -> None:
    """A handler on the loop: its failure is logged, the listener goes on."""
    try:
        fn(*args)
    except Exception:
        log.exception("a notice's handler failed")
