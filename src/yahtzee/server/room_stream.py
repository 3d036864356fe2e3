"""The rooms' live event streams (O4): fan-out in a process, and across processes.

Every room event is first written to the room's log (:mod:`yahtzee.storage.rooms`), which
gives it its id. Then it reaches the streams three ways, and each stream takes each id
exactly once, in order:

* **replay** — a stream that starts (``Last-Event-ID: n`` or none) first subscribes, then
  reads the log after ``n`` and sends it; what arrives live meanwhile is queued;
* **in the process** — the process that wrote an event hands it to its :class:`RoomHub`
  right after the commit, which puts it on the queue of each of the room's streams there;
* **across processes** — on PostgreSQL the event's transaction also ran ``pg_notify``;
  each process's :class:`PgListener` (one connection, ``LISTEN``, in a thread of its own)
  hands every notification to its hub. With SQLite there is one process, and the first
  way is all there is.

A stream keeps the id of the last event it sent. An id at or below it is a duplicate (the
writer's own notification, a replayed event arriving live too) and is skipped; an id
beyond the next one means something was missed (a listener that reconnected, a queue that
overflowed) and the gap is read from the log before going on. So the log is the truth and
the notifications only say "there is more": nothing is lost or sent twice even when
notifications are.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from typing import Any

from yahtzee.storage.rooms import NOTIFY_CHANNEL, RoomEvent, RoomStore

log = logging.getLogger("yahtzee.server")

#: Events queued for one stream before it is switched to reading the log (a slow client).
QUEUE_MAX = 256
#: Seconds without an event after which a stream sends a comment (keeps proxies from
#: closing it; nginx gives a stream 60 s).
KEEPALIVE = 15.0


class Subscription:
    """One stream's queue of live events of one room: a deque and at most one waiting
    future (an idle stream costs a few hundred bytes here, O9's memory target)."""

    __slots__ = ("_items", "_waiter", "lagged", "room_id")

    def __init__(self, room_id: str) -> None:
        self.room_id = room_id
        self._items: deque[RoomEvent] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self.lagged = False  # the queue overflowed: read the log instead

    def put(self, event: RoomEvent) -> None:
        """Queue ``event`` (an overflowing queue is dropped for one "read the log")."""
        if len(self._items) >= QUEUE_MAX:
            self._items.clear()
            self.lagged = True
        else:
            self._items.append(event)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self, timeout: float) -> RoomEvent | None:
        """The next live event; ``None`` when the queue overflowed (read the log).
        Raises :class:`TimeoutError` after ``timeout`` seconds without one."""
        while not self._items and not self.lagged:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait_for(self._waiter, timeout)
            finally:
                self._waiter = None
        if self.lagged:
            self.lagged = False
            self._items.clear()
            return None
        return self._items.popleft()


class RoomHub:
    """The process's streams by room, and the one entry of live events (:meth:`deliver`)."""

    def __init__(self, store: RoomStore) -> None:
        self.store = store
        self._rooms: dict[str, set[Subscription]] = {}
        self._last: dict[str, int] = {}  # the highest id seen per room with streams here

    def streams(self, room_id: str) -> int:
        """How many streams of ``room_id`` this process holds."""
        return len(self._rooms.get(room_id, ()))

    @property
    def total(self) -> int:
        """Every stream this process holds."""
        return sum(len(s) for s in self._rooms.values())

    @contextlib.contextmanager
    def subscribe(self, room_id: str) -> Iterator[Subscription]:
        """A queue of the room's live events while the ``with`` lasts."""
        sub = Subscription(room_id)
        self._rooms.setdefault(room_id, set()).add(sub)
        try:
            yield sub
        finally:
            subs = self._rooms.get(room_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._rooms[room_id]
                    self._last.pop(room_id, None)

    def deliver(self, event: RoomEvent) -> None:
        """An event written here or notified by another process (on the event loop)."""
        subs = self._rooms.get(event.room_id)
        if not subs:
            return
        if event.seq > self._last.get(event.room_id, 0):
            self._last[event.room_id] = event.seq
        for sub in subs:
            sub.put(event)

    def notified(self, payload: str) -> None:
        """A notification's payload: the event, or only its room and id (too long to
        send: read it from the log). A payload that is neither is logged and dropped."""
        try:
            raw = json.loads(payload)
            if "k" in raw:
                self.deliver(RoomEvent.from_json(payload))
                return
            room_id, seq = str(raw["r"]), int(raw["s"])
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("room notification dropped: %s", exc)
            return
        if room_id in self._rooms:
            task = asyncio.get_running_loop().create_task(self._fetch(room_id, seq - 1))
            task.add_done_callback(_log_failure)

    async def _fetch(self, room_id: str, after: int) -> None:
        for event in await self.store.events(room_id, after, limit=1):
            self.deliver(event)

    async def resync(self) -> None:
        """Read what the log has beyond each room's last id here (after notifications
        may have been missed: a listener that reconnected)."""
        for room_id in list(self._rooms):
            for event in await self.store.events(room_id, self._last.get(room_id, 0)):
                self.deliver(event)

    async def events(
        self, room_id: str, after: int, keepalive: float = KEEPALIVE
    ) -> AsyncGenerator[RoomEvent | None, None]:
        """The room's events after id ``after``: the log's, then live ones, each once and in
        order (see the module docstring); ``None`` after ``keepalive`` seconds without
        one (the stream's keep-alive comment). Runs until the consumer stops iterating."""
        with self.subscribe(room_id) as sub:
            last = after
            async for logged in self._from_log(room_id, last):
                yield logged
                last = logged.seq
            while True:
                try:
                    live = await sub.get(keepalive)
                except TimeoutError:
                    yield None
                    continue
                if live is None or live.seq > last + 1:  # overflowed, or missed some
                    async for missed in self._from_log(room_id, last):
                        yield missed
                        last = missed.seq
                if live is None or live.seq <= last:
                    continue
                yield live
                last = live.seq

    async def _from_log(self, room_id: str, after: int) -> AsyncIterator[RoomEvent]:
        while True:
            batch = await self.store.events(room_id, after, limit=500)
            for event in batch:
                yield event
                after = event.seq
            if len(batch) < 500:
                return


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("reading a room event failed: %s", task.exception())


class PgListener:
    """``LISTEN`` on the rooms' channel in a thread of its own, handing each notification
    to the hub on the event loop. A lost connection is reopened (after ``retry`` seconds)
    and the hub then reads what it may have missed (:meth:`RoomHub.resync`)."""

    def __init__(self, url: str, hub: RoomHub, *, retry: float = 1.0) -> None:
        self.url = url
        self.hub = hub
        self.retry = retry
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.listening = threading.Event()  # set while a LISTEN connection is up

    def start(self) -> None:
        """Start listening (from the event loop that will receive the notifications)."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="room-listener", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Stop and wait for the thread (at most a second or so)."""
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5.0)

    def _call(self, fn: Callable[..., Any], *args: Any) -> None:
        loop = self._loop
        assert loop is not None
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(fn, *args)

    def _resync(self) -> None:
        task = asyncio.get_running_loop().create_task(self.hub.resync())
        task.add_done_callback(_log_failure)

    def _run(self) -> None:
        import psycopg

        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.listening.set()
                    if not first:
                        self._call(self._resync)
                    first = False
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self._call(self.hub.notified, note.payload)
            except psycopg.Error as exc:
                self.listening.clear()
                log.warning("room listener: %s; reconnecting", exc)
                self._stop.wait(self.retry)
        self.listening.clear()
