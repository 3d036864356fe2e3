"""The rooms' live event streams (O4): fan-out in a process, and across processes.

Every room event is first written to the room's log (:mod:`yahtzee.rooms.store`), which
gives it its id. Then it reaches the streams three ways, and each stream takes each id
exactly once, in order:

* **replay** — a stream that starts (``Last-Event-ID: n`` or none) first subscribes, then
  reads the log after ``n`` and sends it; what arrives live meanwhile is queued;
* **in the process** — the process that wrote an event hands it to its :class:`RoomHub`
  right after the commit, which puts it on the queue of each of the room's streams there;
* **across processes** — on PostgreSQL the event's transaction also ran ``pg_notify``;
  each process hears the channel on its one ``LISTEN`` connection (the storage's,
  :mod:`yahtzee.storage.notices`), which hands every notification to its hub
  (:meth:`RoomHub.notified`; after a reconnection :meth:`RoomHub.resync_soon`). With
  SQLite there is one process, and the first way is all there is.

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
import random
import re
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from sse_starlette import ServerSentEvent
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from yahtzee.rooms.errors import TooManyStreamsError
from yahtzee.rooms.store import RoomEvent, RoomStore
from yahtzee.server.revocation import Revoked

log = logging.getLogger("yahtzee.server")

#: Events queued for one stream before it is switched to reading the log (a slow client).
QUEUE_MAX = 256
#: Seconds between two keep-alive comments on every stream (keeps proxies from closing
#: an idle one; nginx gives a stream 60 s). One timer for the process, not one a stream.
KEEPALIVE = 15.0
#: The keep-alives go out in this many slices of a process's streams (see
#: :meth:`RoomHub.run_keepalive`).
KEEPALIVE_SLICES = 15
#: The start of a notification's payload (:meth:`RoomEvent.to_json`'s form, as
#: :func:`yahtzee.rooms.store.append_in` writes it): the room and the id.
_NOTIFY_HEAD = re.compile(r'\{"r":"([0-9a-f]+)","s":([0-9]+)[,}]')
#: The keep-alive comment as sent.
PING = ServerSentEvent(comment="ping", sep="\n").encode()


def sse_frame(event: RoomEvent) -> bytes:
    """The event as the stream sends it: ``id: <seq>`` and one ``data:`` line of JSON
    (``{"id", "kind", ...data}``). Made once per event and process, whatever the number of
    the room's streams there; from the data's JSON as logged when the event has it (the
    same text as encoding the object again: compact, the keys in the same order)."""
    text = event.text
    if text is not None and text.startswith("{") and not {"id", "kind"} & event.data.keys():
        head = f'{{"id":{event.seq},"kind":{json.dumps(event.kind, ensure_ascii=False)}'
        data = head + ("}" if text == "{}" else "," + text[1:])
    else:
        data = json.dumps(
            {"id": event.seq, "kind": event.kind, **event.data},
            ensure_ascii=False,
            separators=(",", ":"),
        )
    return ServerSentEvent(data=data, id=str(event.seq), sep="\n").encode()


class Subscription:
    """One stream's queue of live events of one room: a deque of (event, frame) and at most
    one waiting future (an idle stream costs a few hundred bytes here, O9's memory
    target); the hub's keep-alive tick and the stream's end wake it too. It also says
    whose it is (the browser, its address, and whether it watches through a link rather
    than holding a seat), which the hub's stream caps count (F9)."""

    __slots__ = (
        "_items",
        "_waiter",
        "address",
        "closed",
        "device",
        "lagged",
        "pinged",
        "player",
        "room_id",
        "watcher",
    )

    def __init__(
        self,
        room_id: str,
        player: str = "",
        address: str = "",
        *,
        watcher: bool = False,
        device: str = "",
    ) -> None:
        self.room_id = room_id
        self.player = player
        self.device = device  # (its browser's device: a revoked one ends the stream, F23)
        self.address = address
        self.watcher = watcher
        self._items: deque[tuple[RoomEvent, bytes]] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self.lagged = False  # the queue overflowed: read the log instead
        self.pinged = False  # a keep-alive is due
        self.closed = False  # the client went away (or the server stops): end the stream

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def put(self, event: RoomEvent, frame: bytes) -> None:
        """Queue ``event`` (an overflowing queue is dropped for one "read the log")."""
        if len(self._items) >= QUEUE_MAX:
            self._items.clear()
            self.lagged = True
        else:
            self._items.append((event, frame))
        self._wake()

    def ping(self) -> None:
        """A keep-alive is due (the hub's tick)."""
        self.pinged = True
        self._wake()

    def close(self) -> None:
        """End the stream (its client disconnected)."""
        self.closed = True
        self._wake()

    async def get(self) -> tuple[RoomEvent, bytes] | None:
        """The next live event and its frame; ``None`` when the queue overflowed (read the
        log). Raises :class:`TimeoutError` for a keep-alive, :class:`EOFError` once closed."""
        while not self._items and not self.lagged:
            if self.closed:
                raise EOFError
            if self.pinged:
                self.pinged = False
                raise TimeoutError
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        if self.lagged:
            self.lagged = False
            self._items.clear()
            return None
        return self._items.popleft()


#: Events after which every stream of the room ends (once it has sent them): its browser
#: reconnects and is checked again (a removed seat's browser, F8; a renewed link's watchers,
#: F7), missing nothing (``Last-Event-ID``).
RECHECK = frozenset({"leave", "links"})


class RoomHub:
    """The process's streams by room, and the one entry of live events (:meth:`deliver`).

    It counts the streams it holds per browser, per client address and per room's watchers
    (:meth:`admit`, F9), and ends each stream after its lifetime (:meth:`lifetime`, less a
    random part of up to a tenth, ``jitter``: streams opened together, as after a
    restart, do not all end together)."""

    def __init__(
        self,
        store: RoomStore,
        *,
        stream_seconds: float = 1800.0,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.store = store
        self.stream_seconds = stream_seconds
        self._jitter = jitter
        self._rooms: dict[str, set[Subscription]] = {}
        self._last: dict[str, int] = {}  # the highest id seen per room with streams here
        self._players: dict[str, int] = {}  # streams per browser
        self._addresses: dict[str, int] = {}  # streams per client address
        self._watchers: dict[str, int] = {}  # streams of a room's watchers

    def streams(self, room_id: str) -> int:
        """How many streams of ``room_id`` this process holds."""
        return len(self._rooms.get(room_id, ()))

    def watchers(self, room_id: str) -> int:
        """How many of them watch through a link (hold no seat)."""
        return self._watchers.get(room_id, 0)

    def watching(self, room_id: str, player: str) -> bool:
        """Whether ``player`` has a stream of the room open here (W4: the room is on its
        screen, so it needs no reminder)."""
        return any(sub.player == player for sub in self._rooms.get(room_id, ()))

    def of_player(self, player: str) -> int:
        """How many streams this browser holds here."""
        return self._players.get(player, 0)

    def of_address(self, address: str) -> int:
        """How many streams this client address holds here."""
        return self._addresses.get(address, 0)

    @property
    def total(self) -> int:
        """Every stream this process holds."""
        return sum(len(s) for s in self._rooms.values())

    def lifetime(self) -> float:
        """Seconds the next stream may last (see the class docstring)."""
        return self.stream_seconds * (1.0 - 0.1 * self._jitter())

    def admit(
        self,
        room_id: str,
        player: str = "",
        address: str = "",
        *,
        watcher: bool = False,
        caps: tuple[int, int, int] = (0, 0, 0),
        device: str = "",
    ) -> Subscription:
        """A new stream's subscription, counted at once (so that racing requests cannot
        all pass the check, F9); :class:`~yahtzee.errors.TooManyStreamsError` if one of
        ``caps`` (per browser, per address, per room's watchers; 0 = none) is reached.
        The room's cap counts only its watchers: its seat holders always get a stream.
        :meth:`release` it when the stream ends."""
        per_player, per_address, per_room = caps
        if per_player > 0 and self._players.get(player, 0) >= per_player:
            raise TooManyStreamsError(
                f"{player} has {per_player} streams here", per_player, "player"
            )
        if per_address > 0 and self._addresses.get(address, 0) >= per_address:
            raise TooManyStreamsError(
                f"{address} has {per_address} streams here", per_address, "address"
            )
        if watcher and per_room > 0 and self._watchers.get(room_id, 0) >= per_room:
            raise TooManyStreamsError(f"room {room_id} has {per_room} watchers here", per_room)
        sub = Subscription(room_id, player, address, watcher=watcher, device=device)
        self._rooms.setdefault(room_id, set()).add(sub)
        self._players[player] = self._players.get(player, 0) + 1
        self._addresses[address] = self._addresses.get(address, 0) + 1
        if watcher:
            self._watchers[room_id] = self._watchers.get(room_id, 0) + 1
        return sub

    def release(self, sub: Subscription) -> None:
        """The stream of ``sub`` ended: it no longer counts (once, however often called)."""
        subs = self._rooms.get(sub.room_id)
        if subs is None or sub not in subs:
            return
        subs.discard(sub)
        if not subs:
            del self._rooms[sub.room_id]
            self._last.pop(sub.room_id, None)
        _less(self._players, sub.player)
        _less(self._addresses, sub.address)
        if sub.watcher:
            _less(self._watchers, sub.room_id)

    def revoke(self, revoked: Revoked) -> None:
        """Devices ended (removed, signed out, their player deleted; the platform's notice,
        heard on every process, F23): their streams here end now, not at their lifetime."""
        devices = set(revoked.devices)
        for subs in self._rooms.values():
            for sub in subs:
                if sub.device in devices or (
                    revoked.player is not None and sub.player == revoked.player
                ):
                    sub.close()

    @contextlib.contextmanager
    def subscribe(self, room_id: str) -> Iterator[Subscription]:
        """A queue of the room's live events while the ``with`` lasts (uncapped)."""
        sub = self.admit(room_id)
        try:
            yield sub
        finally:
            self.release(sub)

    def deliver(self, event: RoomEvent) -> None:
        """An event written here or notified by another process (on the event loop): its
        frame is made once, then queued for each of the room's streams here (which end
        after it if it is one of :data:`RECHECK`)."""
        subs = self._rooms.get(event.room_id)
        if not subs:
            return
        if event.seq > self._last.get(event.room_id, 0):
            self._last[event.room_id] = event.seq
        frame = sse_frame(event)
        for sub in subs:
            sub.put(event, frame)
            if event.kind in RECHECK:
                sub.close()

    def notified(self, payload: str) -> None:
        """A notification's payload: the event, or only its room and id (too long to
        send: read it from the log). A payload that is neither is logged and dropped.
        A room without streams here, or an event this process has already delivered (its
        own, most often), costs no more than reading the room and the id at its head."""
        head = _NOTIFY_HEAD.match(payload)
        if head is not None and (
            head[1] not in self._rooms or int(head[2]) <= self._last.get(head[1], 0)
        ):
            return
        try:
            raw = json.loads(payload)
            room_id = str(raw["r"])
            if room_id not in self._rooms:
                return
            if "k" in raw:
                # (the data's text as sent, for the frame: the payload ends with it)
                data = dict(raw["d"])
                start = payload.find(',"d":')
                text = payload[start + 5 : -1] if start > 0 and payload.endswith("}") else None
                if text is not None and not text.startswith("{"):
                    text = None
                self.deliver(RoomEvent(room_id, int(raw["s"]), str(raw["k"]), data, text))
                return
            seq = int(raw["s"])
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("room notification dropped: %s", exc)
            return
        task = asyncio.get_running_loop().create_task(self._fetch(room_id, seq - 1))
        task.add_done_callback(_log_failure)

    async def _fetch(self, room_id: str, after: int) -> None:
        for event in await self.store.events(room_id, after, limit=1):
            self.deliver(event)

    def resync_soon(self) -> None:
        """:meth:`resync` in a task of its own (the listener's reconnection, on the loop)."""
        task = asyncio.get_running_loop().create_task(self.resync())
        task.add_done_callback(_log_failure)

    async def resync(self, rooms: Iterable[str] | None = None) -> None:
        """Read what the log has beyond each room's last id here (after notifications
        may have been missed: a listener that reconnected), or only ``rooms``' (whose logs
        another part of the program wrote: a deletion's, F24)."""
        for room_id in (
            list(self._rooms) if rooms is None else [r for r in rooms if r in self._rooms]
        ):
            for event in await self.store.events(room_id, self._last.get(room_id, 0)):
                self.deliver(event)

    def ping_slice(self, index: int, slices: int = 1) -> None:
        """A keep-alive on the streams of slice ``index`` of ``slices``, by room (each
        room's streams are in one slice, the same one while the process lives): with
        ``slices=1``, every stream of the process."""
        for room_id, subs in self._rooms.items():
            if slices == 1 or hash(room_id) % slices == index:
                for sub in subs:
                    sub.ping()

    async def run_keepalive(self, every: float = KEEPALIVE, slices: int = KEEPALIVE_SLICES) -> None:
        """Until cancelled, one slice of the streams after another, ``every / slices``
        seconds apart: each stream gets its keep-alive every ``every`` seconds, and a
        process with thousands of streams never wakes them all in one turn of its loop
        (all at once, 800 streams held a process's loop for ~40 ms every 15 s)."""
        tick = 0
        while True:
            await asyncio.sleep(every / slices)
            self.ping_slice(tick % slices, slices)
            tick += 1

    async def frames(
        self, room_id: str, after: int, sub: Subscription
    ) -> AsyncGenerator[tuple[RoomEvent | None, bytes], None]:
        """The room's events after id ``after`` with their frames: the log's, then live
        ones from ``sub`` (subscribed by the caller before), each once and in order (see
        the module docstring); ``(None, PING)`` for a keep-alive. Ends when ``sub`` is
        closed."""
        last = after
        logged: RoomEvent | None = None
        async for logged in self._from_log(room_id, last):
            yield logged, sse_frame(logged)
            last = logged.seq
        # An idle stream keeps no event of its own: the log's were read and decoded for
        # this stream alone (a game's start is several KB of objects), the live ones are
        # shared by the process's streams (8 of an idle stream's 34 KB, issue 31).
        logged = None
        while True:
            try:
                item = await sub.get()
            except TimeoutError:
                yield None, PING
                continue
            except EOFError:
                return
            live = item[0] if item is not None else None
            if live is None or live.seq > last + 1:  # overflowed, or missed some
                missed: RoomEvent | None = None
                async for missed in self._from_log(room_id, last):
                    yield missed, sse_frame(missed)
                    last = missed.seq
                missed = None
            if item is None or item[0].seq <= last:
                continue
            yield item
            last = item[0].seq

    async def events(self, room_id: str, after: int) -> AsyncGenerator[RoomEvent | None, None]:
        """The room's events after id ``after`` (as :meth:`frames`, without the frames;
        ``None`` for a keep-alive). Runs until the consumer stops iterating."""
        with self.subscribe(room_id) as sub:
            async for event, _frame in self.frames(room_id, after, sub):
                yield event

    async def _from_log(self, room_id: str, after: int) -> AsyncIterator[RoomEvent]:
        while True:
            batch = await self.store.events(room_id, after, limit=500)
            for event in batch:
                yield event
                after = event.seq
            if len(batch) < 500:
                return


#: The stream's response head (nginx: no buffering; never cached).
_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
]


class RoomEventStream(Response):
    """A room's event stream as an ASGI response (O4, O9's memory per idle stream): one
    coroutine writes the frames as :meth:`RoomHub.frames` yields them, and one small task
    waits for the client's disconnection, which ends the stream, as does a timer at the
    stream's lifetime (F9: the page reconnects with ``Last-Event-ID``). The subscription,
    admitted by the hub before (:meth:`RoomHub.admit`), is released when it ends. (sse-starlette's
    ``EventSourceResponse`` runs an anyio task group of three tasks per stream and a
    timeout per write; its :class:`~sse_starlette.ServerSentEvent` still frames every
    event.) The server's shutdown ends the streams through uvicorn's graceful-shutdown
    timeout (``yahtzee serve``)."""

    media_type = "text/event-stream"

    def __init__(self, hub: RoomHub, sub: Subscription, after: int) -> None:
        super().__init__(status_code=200)
        self.hub = hub
        self.sub = sub
        self.room_id = sub.room_id
        self.after = after

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: ARG002
        sub = self.sub
        try:
            watcher = asyncio.ensure_future(_disconnection(receive))
            watcher.add_done_callback(lambda _task: sub.close())
            ends = asyncio.get_running_loop().call_later(self.hub.lifetime(), sub.close)
            frames = self.hub.frames(self.room_id, self.after, sub)
            try:
                await send({"type": "http.response.start", "status": 200, "headers": _HEADERS})
                async for _event, frame in frames:
                    await send({"type": "http.response.body", "body": frame, "more_body": True})
                    del _event, frame  # (not held while the next is awaited: see frames)
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            finally:
                ends.cancel()
                watcher.cancel()
                await frames.aclose()
        finally:
            self.hub.release(sub)


async def _disconnection(receive: Receive) -> None:
    """Return when the client has gone (``http.disconnect``)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _less(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("reading a room event failed: %s", task.exception())
