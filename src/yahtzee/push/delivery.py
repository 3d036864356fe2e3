"""One reminder to one device's push service, in a worker thread (W4).

pywebpush does the protocol: the message encrypted with ``aes128gcm`` for the
subscription's keys (RFC 8291, through http-ece), the ``TTL``, and the VAPID
``Authorization`` header (RFC 8292, signed by py-vapid: :class:`~yahtzee.push.vapid.
VapidKey`). It is synchronous (``requests``), so it runs in a small pool of threads, each
with a session of its own (its connections to a push service kept alive), never on the
event loop. A redirect is never followed (the endpoint was checked, its redirect was not),
and every request has a timeout.

:func:`send` says what came of it (:class:`Result`), the service acts on that: delivered,
the subscription gone (404, 410: removed), try again later (429, 5xx, no answer), or failed
(any other answer: dropped, logged).
"""

from __future__ import annotations

import email.utils
import hashlib
import logging
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import requests

from yahtzee.push.vapid import VapidKey, b64url

log = logging.getLogger("yahtzee.server")

#: Seconds to connect, and to wait for the answer.
TIMEOUT = (5.0, 10.0)
#: How long a push service keeps a reminder for a device that is offline: an hour, the
#: same as the one-an-hour limit (a reminder older than that is stale; the next one comes).
TTL_SECONDS = 3600


class Kind(StrEnum):
    """What came of one send."""

    DELIVERED = "delivered"  # 201 (or another 2xx): the push service took it
    GONE = "gone"  # 404, 410: the subscription no longer exists
    RETRY = "retry"  # 429, 5xx, a timeout, no connection: try again later
    FAILED = "failed"  # anything else (400, 401, 403, 413): dropped and logged


@dataclass(frozen=True, slots=True)
class Message:
    """One reminder for one device: where, with which keys, what."""

    endpoint: str
    audience: str  # the endpoint's origin
    p256dh: str
    auth: str
    contact: str  # the VAPID subject
    body: bytes
    topic: str  # replaces a reminder about the same thing still waiting at the service


@dataclass(frozen=True, slots=True)
class Result:
    """What came of one send: its kind, the HTTP status (if there was an answer) and, for a
    retry, the seconds the push service asked to wait (``Retry-After``)."""

    kind: Kind
    status: int | None = None
    retry_after: float | None = None


def topic_of(about: str) -> str:
    """The ``Topic`` header of reminders about ``about``: at most 32 base64url characters
    (RFC 8030 §5.4), the same for the same thing, saying nothing of it."""
    return b64url(hashlib.sha256(about.encode()).digest())[:32]


class _NoRedirects(requests.Session):
    """A session that never follows a redirect: the server calls only checked endpoints."""

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs["allow_redirects"] = False
        return super().request(method, url, *args, **kwargs)


def _retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` value (seconds or an HTTP date) in seconds, or ``None``."""
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Sender:
    """Sends messages (in the calling thread: the service's pool runs it)."""

    def __init__(self, key: VapidKey) -> None:
        self.key = key
        self._local = threading.local()

    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = _NoRedirects()
        return session

    def send(self, message: Message) -> Result:
        """POST ``message`` to its push service; what came of it."""
        headers = {
            **self.key.headers(message.audience, message.contact),
            "Topic": message.topic,
            "Urgency": "normal",
        }
        subscription = {
            "endpoint": message.endpoint,
            "keys": {"p256dh": message.p256dh, "auth": message.auth},
        }
        # Imported on the first send, not with the server: pywebpush brings aiohttp with
        # it, a tenth of a process's start, and most processes never send a reminder.
        from pywebpush import WebPusher

        try:
            response = WebPusher(subscription, requests_session=self._session()).send(
                message.body,
                headers,
                ttl=TTL_SECONDS,
                content_encoding="aes128gcm",
                timeout=TIMEOUT,
            )
        except requests.RequestException as exc:
            log.info("reminder to %s not sent: %s", message.audience, type(exc).__name__)
            return Result(Kind.RETRY)
        status = int(response.status_code)
        if 200 <= status < 300:
            return Result(Kind.DELIVERED, status)
        if status in (404, 410):
            return Result(Kind.GONE, status)
        if status == 429 or status >= 500:
            wait = _retry_after(response.headers.get("Retry-After"))
            return Result(Kind.RETRY, status, wait)
        log.warning("reminder refused by %s: %s %s", message.audience, status, response.text[:200])
        return Result(Kind.FAILED, status)
