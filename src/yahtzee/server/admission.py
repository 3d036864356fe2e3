"""Admission control (S4, F18, F19): past what a process can answer in time, a clear
refusal at once, and never of cheap work because of costly work.

A process serves its requests on one event loop. Offered more than it can carry, it used
to take them all: each waited behind the others (in the loop's queue, for the database's
threads), a click took seconds, and nginx's read timeout turned the slowest into 504s.
:class:`Admission` sorts each request into one of three classes, each with its own bound,
and answers a request past its class's bound at once with 503 ``busy`` and
``Retry-After``, in the error shape, before any work: nothing was done, so the page may
send it again (docs/api.md).

* **cheap** — everything that is neither of the others: game actions, reads of one's own
  game, a new game, the rooms' and groups' actions. Refused when ``--max-in-flight`` cheap
  requests are being served **and** the oldest of them has been served for
  ``--admission-wait`` seconds (the process is behind, not merely hit by a burst it will
  clear at once: 20 rolls sent together are all answered within milliseconds and must all
  be judged, one done and the rest stale). Served time grows with what is in flight
  (Little's law), so the bound is also a bound on an admitted request's wait; the defaults
  (64 in flight, 0.5 s) refuse nothing a quiet process answers in time and keep a starved
  one to about a second's queue rather than minutes. Only cheap requests count here (F19):
  a meter waiting its turn in the CPU pool (:mod:`yahtzee.server.cpu`) is not a sign that
  a roll would wait. Before, 64 meters in flight, the oldest 0.5 s old, had every request
  refused, plain game actions included (issue 35 item 2: ~70 cookies looping
  ``/api/games/{id}/meter`` within their budgets locked the other players out).
* **costly** — the routes that declare a cost in the work budget (meters, reviews, stats,
  advice, export, 练习's grading, the boards: :func:`yahtzee.server.routers._common.cost`,
  listed by :func:`~yahtzee.server.routers._common.costly_routes`). At most
  ``--max-costly-in-flight`` of them at once from one client address group
  (:mod:`yahtzee.server.addresses`), **shared fairly** when several ask: a group may hold
  at most its share of the slots (the slots / the groups holding one, this one counted),
  and inside a group each requester (cookie, or the address of a request without one) its
  share of the group's. A group under its share is admitted at once even while others
  still hold more than theirs (they get nothing more until they are under it), up to
  twice the slots in all: a newcomer never waits for the greedy to finish, and never
  more than twice the slots are in flight. Costly requests are refused first: whenever the
  cheap class is behind, and past these shares; such a refusal is answered after a pause
  of :data:`COSTLY_PAUSE` (a client that never backs off gets one refusal a connection
  per pause, instead of keeping the loop busy with refusals, as the cost budget's 429s).
* **long-lived** — the requests that last as long as their client wants, which the
  features name (``Feature.long_lived``: a room's event stream lasts a game). At most
  ``max_long_lived`` at once (``--stream-share`` of the connection cap, F18): the rest of
  the connections stay for the other classes, so that ``/api/health``, a new game and the
  game actions are answered while the streams' share is full (issue 35 item 1: 1,000
  streams from 11 addresses filled the bare server's connection cap, and every other
  request was refused or reset). A stream past it is refused with ``Retry-After: 5``
  (:class:`StreamsFullError`); it replaces nobody's connection.

``/api/health`` is always admitted and never counted (a probe must see a busy process
alive). A request with a body is counted from the moment its body is in, so a client that
sends a body slowly holds no slot (the request deadline of :mod:`yahtzee.server.protocol`
bounds it instead).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Iterable, Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from yahtzee.i18n import msg
from yahtzee.server.errors import ApiError
from yahtzee.server.middleware import BODY_METHODS, client_address, requester_of, send_error

log = logging.getLogger("yahtzee.server")

#: Requests never refused or counted here: the health probe.
ALWAYS_ADMITTED = (r"/api/health",)
#: At most one warning a this many seconds while requests are refused.
LOG_EVERY = 10.0
#: Seconds a refused costly request waits for its answer (see the module docstring).
COSTLY_PAUSE = 0.5
#: The seconds a refused stream is told to wait (its page tries again then).
STREAM_RETRY = 5


class OverloadedError(ApiError):
    """503 ``busy``: the process is behind (see :class:`Admission`); nothing was done."""

    def __init__(self) -> None:
        super().__init__(
            503,
            "busy",
            msg("error.busy.overloaded"),
            headers={"retry-after": "1"},
        )


class StreamsFullError(ApiError):
    """503 ``busy``: the process holds its share of long-lived requests (F18)."""

    def __init__(self) -> None:
        super().__init__(
            503,
            "busy",
            msg("error.busy.streams"),
            headers={"retry-after": str(STREAM_RETRY)},
        )


def _alternation(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """One regular expression matching any of ``patterns`` whole (``None`` for none)."""
    patterns = list(patterns)
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


class Admission:
    """The three classes of requests and their bounds (see the module docstring).

    ``max_in_flight`` and ``wait`` bound the cheap ones (``max_in_flight`` 0: no bound);
    ``long_lived`` are regular expressions of the long-lived paths (whole path), at most
    ``max_long_lived`` at once (0: no bound); ``costly`` are ``(method, path regular
    expression)`` pairs, at most ``max_costly`` at once, shared fairly (0: no bound)."""

    def __init__(
        self,
        app: ASGIApp,
        max_in_flight: int,
        wait: float = 0.5,
        *,
        long_lived: Sequence[str] = (),
        max_long_lived: int = 0,
        costly: Sequence[tuple[str, str]] = (),
        max_costly: int = 0,
    ) -> None:
        self.app = app
        self._always = re.compile("|".join(ALWAYS_ADMITTED))
        self._long_lived = _alternation(long_lived)
        methods = {method for method, _ in costly}
        self._costly = {
            method: _alternation(p for m, p in costly if m == method) for method in methods
        }
        self.max_in_flight = max_in_flight
        self.wait = wait
        self.max_long_lived = max_long_lived
        self.max_costly = max_costly
        # When each cheap request in flight was admitted, oldest first (a dict keeps the
        # order).
        self._admitted: dict[int, float] = {}
        self._serial = 0
        self.long_lived = 0  # long-lived requests in flight
        # Costly requests in flight: per address group, per requester in it, and in all.
        self._groups: dict[str, dict[str, int]] = {}
        self._group_totals: dict[str, int] = {}
        self.costly = 0
        self.refused = 0  # since the last warning
        self._warned = float("-inf")

    @property
    def in_flight(self) -> int:
        """The cheap requests being served now."""
        return len(self._admitted)

    def _behind(self) -> bool:
        if not self.max_in_flight or len(self._admitted) < self.max_in_flight:
            return False
        oldest = next(iter(self._admitted.values()))
        return time.monotonic() - oldest >= self.wait

    def _count(self) -> int:
        self._serial += 1
        self._admitted[self._serial] = time.monotonic()
        return self._serial

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if self._always.fullmatch(path) is not None:
            await self.app(scope, receive, send)
        elif self._long_lived is not None and self._long_lived.fullmatch(path) is not None:
            await self._serve_long_lived(scope, receive, send)
        elif (costly := self._costly.get(scope["method"])) is not None and costly.fullmatch(
            path
        ) is not None:
            await self._serve_costly(scope, receive, send)
        else:
            await self._serve_cheap(scope, receive, send)

    async def _serve_cheap(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.max_in_flight:
            await self.app(scope, receive, send)
            return
        if self._behind():
            self._refuse("cheap")
            await send_error(send, OverloadedError())
            return
        key = self._count() if scope["method"] not in BODY_METHODS else 0

        async def receive_counted() -> Message:
            nonlocal key
            message = await receive()
            if not key and message["type"] == "http.request" and not message.get("more_body"):
                key = self._count()
            return message

        try:
            await self.app(scope, receive_counted, send)
        finally:
            if key:
                del self._admitted[key]

    async def _serve_long_lived(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.max_long_lived and self.long_lived >= self.max_long_lived:
            self._refuse("long-lived")
            await send_error(send, StreamsFullError())
            return
        self.long_lived += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.long_lived -= 1

    def _costly_admits(self, group: str, requester: str) -> bool:
        """Whether a costly request of ``requester`` in ``group`` gets a slot (see the
        module docstring): its group under its share of the slots, and the requester under
        its share of the group's."""
        slots = self.max_costly
        held = self._group_totals.get(group, 0)
        groups = len(self._group_totals) + (0 if held else 1)
        share = max(1, slots // groups)
        if held >= share or self.costly >= 2 * slots:
            return False
        mine = self._groups.get(group, {})
        held_by_me = mine.get(requester, 0)
        requesters = len(mine) + (0 if held_by_me else 1)
        return held_by_me < max(1, share // requesters)

    async def _serve_costly(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.max_costly:
            if self._behind():
                await self._refuse_costly(send)
                return
            await self.app(scope, receive, send)
            return
        group = client_address(scope)
        requester = requester_of(scope)
        if self._behind() or not self._costly_admits(group, requester):
            await self._refuse_costly(send)
            return
        mine = self._groups.setdefault(group, {})
        mine[requester] = mine.get(requester, 0) + 1
        self._group_totals[group] = self._group_totals.get(group, 0) + 1
        self.costly += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.costly -= 1
            _less(self._group_totals, group)
            _less(mine, requester)
            if not mine:
                self._groups.pop(group, None)

    async def _refuse_costly(self, send: Send) -> None:
        self._refuse("costly")
        await asyncio.sleep(COSTLY_PAUSE)
        await send_error(send, OverloadedError())

    def _refuse(self, kind: str) -> None:
        self.refused += 1
        now = time.monotonic()
        if now - self._warned >= LOG_EVERY:
            log.warning(
                "busy (%d cheap, %d costly, %d long-lived requests in flight): %d refused "
                "with 503 busy, the last one %s",
                len(self._admitted),
                self.costly,
                self.long_lived,
                self.refused,
                kind,
            )
            self.refused = 0
            self._warned = now


def _less(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)
