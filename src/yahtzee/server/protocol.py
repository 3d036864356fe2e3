"""The bare app's sockets (issue 22 item 9): uvicorn's HTTP/1.1 protocol with limits.

A public server runs behind nginx (``deploy/``, S2), which holds slow clients off the app.
But ``yahtzee serve`` alone must not fall over either. Attacked on loopback, uvicorn kept
3,000 sockets that never finished their request head and 200 that never sent a byte open
for as long as they liked (its keep-alive timer only starts after a response, and every
byte received stops it); at the 20,000-fd limit a normal request timed out for ~25 s and
asyncio logged 331,478 "accept() out of system resource" tracebacks (134 MB in 30 s).
:class:`GuardedHttpToolsProtocol` (the default) is uvicorn's httptools protocol, and
:class:`GuardedH11Protocol` its h11 one, with:

* a **request deadline**: a request's head and body must arrive within
  ``request_timeout`` seconds of its first byte (of the connection, for the first
  request: a silent socket counts too), or the connection is closed without an answer,
  as nginx's ``client_header_timeout`` does. Idle keep-alive connections are closed after
  ``keep_alive_timeout`` (uvicorn's own timer);
* a **connection cap**: at most ``max_connections`` open connections, so file descriptors
  stay far below the process's limit and the listening socket keeps accepting. A new
  connection past the cap **takes the place of the connection that has waited longest
  without a request for the application** (one still sending its request head or body,
  or an idle keep-alive one; issue 28): that one is closed. Only when every connection
  holds a request the application is working on (a room's stream, say) is the new one
  answered 503 ``busy`` at once and closed (the answer carries the security headers).
  Before, slow half-sent requests filled the cap and held it: 1,050 of them, each
  reconnecting when closed, made half the health probes 503
  (``benchmarks/slow_requests_bench.py``); now they only push each other out;
* uvicorn's own **400 for a malformed request** in the API's error shape, with the
  security headers (uvicorn's is plain text without them).
* (httptools) a **request head cap** of :data:`MAX_HEAD_BYTES`, h11's own limit, which
  the C parser does not have; and each answer's **head written with its body**, one
  ``send()`` instead of two (issue 31 item 2: the C parser and the one write take some
  about an eighth off a room action's app CPU, docs/benchmarks.md).

:func:`install_log_limits` rate-limits the log lines an attacker can make the server write
per request or per connection (asyncio's accept failures, uvicorn's malformed-request
warning): the first one, then at most one every :data:`LOG_EVERY` seconds, which says how
many were left out.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

import h11
import httptools
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from yahtzee.i18n import DEFAULT, msg, text
from yahtzee.server.errors import CLIENT_DISCONNECTED
from yahtzee.server.middleware import SECURITY_HEADERS
from yahtzee.server.settings import Connections

#: The protocol class as uvicorn's ``--http`` option names it.
PROTOCOL = "yahtzee.server.protocol:GuardedHttpToolsProtocol"
#: The longest request head (request line and headers) accepted, as h11's default.
MAX_HEAD_BYTES = 16 * 1024
#: At most one line per this many seconds for each rate-limited log message.
LOG_EVERY = 10.0


#: File descriptors kept for the server itself (database, logs, pipes of the CPU pool).
FD_RESERVE = 64
#: The listening socket's backlog when the open-file limit allows it. asyncio also accepts
#: up to this many connections in one go, before any of them is looked at.
BACKLOG = 128
#: How many of asyncio's accept batches can be open before the first batch's evictions
#: free their descriptors: a batch is accepted in one turn of the event loop, its
#: transports are made in the next, their ``connection_made`` (which evicts) runs in the
#: one after, and the evicted sockets close in the fourth; the listening socket may be
#: read in each of the first three turns.
ACCEPT_BATCHES = 3


@dataclass(frozen=True)
class SocketBudget:
    """How many connections the server keeps open, and its listen backlog (which is also
    asyncio's accept batch)."""

    max_connections: int
    backlog: int


def socket_budget(wanted: int, open_files: int | None) -> SocketBudget:
    """The connection cap and backlog for ``wanted`` connections (``--max-connections``)
    under an open-file limit of ``open_files`` (``None``: no limit).

    The descriptors left after :data:`FD_RESERVE` must hold the cap plus
    :data:`ACCEPT_BATCHES` whole accept batches, so that ``accept()`` never runs out of
    them while connections past the cap are still being evicted. A low limit shrinks the
    backlog (to a quarter of what is left, when that is less than :data:`BACKLOG`) rather
    than leave no room for connections."""
    if open_files is None:
        return SocketBudget(wanted, BACKLOG)
    spare = open_files - FD_RESERVE
    backlog = max(1, min(BACKLOG, spare // (ACCEPT_BATCHES + 1)))
    return SocketBudget(max(1, min(wanted, spare - ACCEPT_BATCHES * backlog)), backlog)


def open_file_limit() -> int | None:
    """This process's open-file limit after raising the soft limit to the hard one
    (``None``: unlimited, or not on a system that has one)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard != resource.RLIM_INFINITY and soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    except (ImportError, ValueError, OSError):  # not on Linux, or not allowed: keep it
        return None
    return None if soft == resource.RLIM_INFINITY else soft


class ServeConfig(uvicorn.Config):
    """uvicorn's configuration plus the socket limits (picklable: ``--workers`` hands it
    to each worker process)."""

    def __init__(self, app: Any, *, connections: Connections, **kwargs: Any) -> None:
        budget = socket_budget(connections.max_connections, open_file_limit())
        super().__init__(
            app,
            http=PROTOCOL,
            timeout_keep_alive=max(1, round(connections.keep_alive_timeout)),
            backlog=budget.backlog,
            proxy_headers=connections.forwarded_allow_ips is not None,
            forwarded_allow_ips=connections.forwarded_allow_ips,
            **kwargs,
        )
        self.connections = replace(connections, max_connections=budget.max_connections)


def _error_response(status: int, reason: str, code: str, message: str) -> bytes:
    """A complete HTTP/1.1 error response in the API's shape, closing the connection."""
    body = json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False).encode()
    head = [
        f"HTTP/1.1 {status} {reason}".encode(),
        b"content-type: application/json",
        b"content-length: " + str(len(body)).encode(),
        b"cache-control: no-store",
        b"connection: close",
        *(name + b": " + value for name, value in SECURITY_HEADERS),
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


# These answer a connection before any request of it was read, so no Accept-Language
# says whose language: the product's (as a request without the header gets, G3). Made on
# first use (the catalogs are read then).


@functools.cache
def _bad_request() -> bytes:
    detail = msg("error.http.not_http")
    message = text(DEFAULT, "error.request_invalid", detail=detail)
    return _error_response(400, "Bad Request", "invalid_request", message)


@functools.cache
def _busy() -> bytes:
    return _error_response(503, "Service Unavailable", "busy", text(DEFAULT, "error.busy"))


class _Guard:
    """The request deadline and the connection cap of the module docstring, shared by the
    protocols below; a protocol calls :meth:`_request_arriving` when a request head or body
    is under way after its bytes were read, and :meth:`_request_in` when it is in."""

    # (provided by uvicorn's protocol classes)
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    connections: set[Any]
    server_state: Any

    def _guard_init(self, config: uvicorn.Config) -> None:
        # (ServeConfig has fitted the cap to the open-file limit)
        self.limits: Connections = getattr(config, "connections", None) or Connections()
        self.max_connections = self.limits.max_connections
        self._deadline: asyncio.TimerHandle | None = None
        # The connections of this server that hold no request for the application (see
        # _wait), longest-waiting first: whom a new connection past the cap replaces.
        waiting = getattr(self.server_state, "yahtzee_waiting", None)
        if waiting is None:
            waiting = {}
            self.server_state.yahtzee_waiting = waiting
        # (a dict keeps insertion order: a queue that also drops any member in O(1))
        self._waiting: dict[_Guard, None] = waiting

    def _guard_connection_made(self) -> None:
        if len(self.connections) > self.max_connections and not self._evict_one():
            self.transport.write(_busy())
            self.transport.close()
            return
        self._wait()
        self._arm()

    def _request_arriving(self) -> None:
        """A request head or body under way: it has until the deadline to arrive."""
        if self.transport.is_closing():
            self._request_in()
        elif self._deadline is None:
            self._arm()

    def _request_in(self) -> None:
        """The request is in (or the connection closing): the application's time is not
        the client's."""
        self._disarm()
        self._waiting.pop(self, None)

    def _guard_response_complete(self) -> None:
        if not self.transport.is_closing():
            self._wait()  # idle keep-alive until the next request is in

    def _wait(self) -> None:
        """From now on this connection holds no request for the application (it was just
        opened, or its response is complete): it is the newest of the waiting."""
        self._waiting.pop(self, None)
        self._waiting[self] = None

    def _evict_one(self) -> bool:
        """Close the connection that has waited longest without a request for the
        application, to make room for this new one; ``False`` when there is none (every
        other connection holds a request being answered)."""
        while self._waiting:
            oldest = next(iter(self._waiting))
            del self._waiting[oldest]
            if oldest is self or oldest.transport.is_closing():
                continue
            oldest._disarm()
            # abort, not close: an unsent answer to a client that is not reading would
            # keep the descriptor until it was flushed
            oldest.transport.abort()
            return True
        return False

    def _send_400(self) -> None:
        """The answer to a request the parser rejects, in the API's error shape."""
        self._disarm()
        self.transport.write(_bad_request())
        self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.limits.request_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


class _HeadWithBody:
    """A response's transport for uvicorn's request cycle that writes the response head
    together with the first piece of its body: one ``send()`` per plain answer instead of
    two. The head waits at most until the event loop's next turn (an event stream's head
    goes out alone then, before its first frame)."""

    __slots__ = ("_first", "_head", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._head: bytes | None = None
        self._first = True

    def write(self, data: bytes) -> None:
        """Hold the first write (the head); send the next with it."""
        if self._first:
            self._first = False
            self._head = data
            self._loop.call_soon(self.flush)
            return
        if self._head is not None:
            data = self._head + data
            self._head = None
        self._transport.write(data)

    def flush(self) -> None:
        """Send a head still held."""
        if self._head is not None:
            head, self._head = self._head, None
            self._transport.write(head)

    def close(self) -> None:
        """Close the connection after whatever is held."""
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):
    """uvicorn's httptools protocol (a C parser, chunked framing without per-event Python
    work) with the guard of the module docstring, plus a cap on a request head's size
    (h11 refuses heads past 16 KiB; llhttp has no limit of its own), and each answer's
    head sent with its body (:class:`_HeadWithBody`). The default."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self._guard_init(config)
        self._complete = False
        self._head_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._guard_connection_made()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._complete or self.transport.is_closing():
            self._request_in()
        else:
            self._request_arriving()

    def on_message_begin(self) -> None:
        self._complete = False
        self._head_bytes = 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._count_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not None and self.cycle is not before:
            # (the cycle's task has not run yet: it writes nothing before this)
            self.cycle.transport = _HeadWithBody(self.transport, self.loop)  # type: ignore[assignment]

    def on_message_complete(self) -> None:
        self._complete = True
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._guard_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._request_in()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:  # noqa: ARG002 (uvicorn's text)
        """uvicorn's answer to a request the parser rejects, in the API's error shape."""
        self._send_400()

    def _count_head(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD_BYTES:
            # (raised inside the parser's callback: uvicorn's data_received answers 400)
            raise httptools.HttpParserError("request head too large")


class GuardedH11Protocol(_Guard, H11Protocol):
    """uvicorn's h11 protocol with the guard of the module docstring (``--http`` may still
    name it; :class:`GuardedHttpToolsProtocol` is the default)."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self._guard_init(config)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._guard_connection_made()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self._request_arriving()
        else:
            self._request_in()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._guard_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._request_in()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:  # noqa: ARG002 (uvicorn's text)
        """uvicorn's answer to a request h11 cannot parse, in the API's error shape."""
        self._send_400()


class RateLimitedLog(logging.Filter):
    """Lets each of ``messages`` (the start of a log message) through once every ``every``
    seconds; the next one that passes says how many were left out, without a traceback."""

    def __init__(self, messages: tuple[str, ...], every: float = LOG_EVERY) -> None:
        super().__init__()
        self.messages = messages
        self.every = every
        self._last: dict[str, float] = {}
        self._dropped: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` is logged (see the class docstring)."""
        text = record.getMessage()
        kind = next((m for m in self.messages if text.startswith(m)), None)
        if kind is None:
            return True
        now = time.monotonic()
        last = self._last.get(kind, now - self.every)
        if now - last < self.every:
            self._dropped[kind] = self._dropped.get(kind, 0) + 1
            return False
        self._last[kind] = now
        dropped = self._dropped.pop(kind, 0)
        if dropped:
            record.msg = f"{text} ({dropped} more in the last {now - last:.0f} s not logged)"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


# What a client can make the server log over and over (asyncio's and uvicorn's words).
_FLOODABLE = {
    "asyncio": ("socket.accept() out of system resource",),
    "uvicorn.error": ("Invalid HTTP request received.",),
    "yahtzee.server": (CLIENT_DISCONNECTED,),
}


def install_log_limits() -> None:
    """Rate-limit the floodable log lines (once per process; see the module docstring)."""
    for name, messages in _FLOODABLE.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, RateLimitedLog) for f in logger.filters):
            logger.addFilter(RateLimitedLog(messages))
