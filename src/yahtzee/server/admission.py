"""Admission control (S4): past what a process can answer in time, a clear refusal at once.

A process serves its requests on one event loop. Offered more than it can carry, it used
to take them all: each waited behind the others (in the loop's queue, for the database's
threads), a click took seconds, and nginx's read timeout turned the slowest into 504s.
:class:`Admission` refuses a request when ``--max-in-flight`` are being served **and** the
oldest of them has been served for ``--admission-wait`` seconds (the process is behind, not
merely hit by a burst it will clear at once: 20 rolls sent together are all answered within
milliseconds and must all be judged, one done and the rest stale); such a request is
answered at once with 503 ``busy`` and ``Retry-After: 1``, in the error shape, before any
work: nothing was done, so the page may send it again (docs/api.md).

Served time grows with what is in flight (Little's law: the wait is about the requests in
flight divided by the rate the process serves), so the bound is also a bound on the wait
of an admitted request; the wait of the oldest says directly that the process is behind.
The defaults (64 in flight, 0.5 s) refuse nothing a quiet process answers in time and
keep a starved one to about a second's queue rather than minutes.
Below capacity the bound is never reached (a request is answered in a few milliseconds,
so a few are in flight at most).

Not counted: the requests that last as long as their client wants, which the features
name (``Feature.long_lived``: a room's event stream lasts a game, and is bounded by the
connection cap) and ``/api/health`` (a probe must see a busy process alive). A request
with a body is counted from the moment its body is in, so a client that sends a body
slowly holds no slot (the request deadline of :mod:`yahtzee.server.protocol` bounds it instead).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from yahtzee.server.errors import ApiError
from yahtzee.server.middleware import BODY_METHODS, send_error

log = logging.getLogger("yahtzee.server")

#: Requests never refused here besides the features' long-lived ones: the health probe.
ALWAYS_ADMITTED = (r"/api/health",)
#: At most one warning a this many seconds while requests are refused.
LOG_EVERY = 10.0


class OverloadedError(ApiError):
    """503 ``busy``: the process is behind (see :class:`Admission`); nothing was done."""

    def __init__(self) -> None:
        super().__init__(
            503,
            "busy",
            "服务器正忙，这一步没有执行，请稍后再试。",
            headers={"retry-after": "1"},
        )


class Admission:
    """Refuse a request at once when ``max_in_flight`` are being served and the oldest of
    them for ``wait`` seconds (``max_in_flight`` 0: no bound). Paths matching one of
    ``exempt`` (regular expressions, whole path) and :data:`ALWAYS_ADMITTED` are neither
    counted nor refused."""

    def __init__(
        self, app: ASGIApp, max_in_flight: int, wait: float = 0.5, exempt: Sequence[str] = ()
    ) -> None:
        self.app = app
        self._exempt = re.compile("|".join((*ALWAYS_ADMITTED, *exempt)))
        self.max_in_flight = max_in_flight
        self.wait = wait
        # When each request in flight was admitted, oldest first (a dict keeps the order).
        self._admitted: dict[int, float] = {}
        self._serial = 0
        self.refused = 0  # since the last warning
        self._warned = 0.0

    @property
    def in_flight(self) -> int:
        """The requests being served now."""
        return len(self._admitted)

    def _behind(self) -> bool:
        if len(self._admitted) < self.max_in_flight:
            return False
        oldest = next(iter(self._admitted.values()))
        return time.monotonic() - oldest >= self.wait

    def _count(self) -> int:
        self._serial += 1
        self._admitted[self._serial] = time.monotonic()
        return self._serial

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or not self.max_in_flight
            or self._exempt.fullmatch(scope["path"]) is not None
        ):
            await self.app(scope, receive, send)
            return
        if self._behind():
            self._refuse()
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

    def _refuse(self) -> None:
        self.refused += 1
        now = time.monotonic()
        if now - self._warned >= LOG_EVERY:
            log.warning(
                "over --max-in-flight (%d requests in flight): %d refused with 503 busy",
                self.max_in_flight,
                self.refused,
            )
            self.refused = 0
            self._warned = now
