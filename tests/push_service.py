"""A push service on 127.0.0.1 that checks every message as a browser vendor's does, and a
browser's side of a subscription (W4; the tests and ``benchmarks/push_bench.py``).

A test helper, not part of the package. :class:`LocalPushService` runs a small Starlette
app in a thread of the test process (uvicorn). Like Firebase Cloud Messaging, Mozilla's
autopush or Apple's service it takes ``POST <endpoint>`` and, before accepting a message
(201), checks:

* ``Authorization: vapid t=<JWT>, k=<key>`` (RFC 8292): ``k`` is the key the subscription
  was made with (its ``applicationServerKey``), the JWT's ES256 signature verifies with it
  (py-vapid), its ``aud`` is the endpoint's origin, its ``exp`` in the future and within 24
  hours, its ``sub`` a ``mailto:`` or ``https:`` URI;
* ``Content-Encoding: aes128gcm`` and a ``TTL`` header (RFC 8030);
* the body decrypts (RFC 8291, http-ece) with the subscription's private key and auth
  secret — what only the browser holds (:class:`Browser`) — and is at most 4,096 bytes.

A message that fails a check is refused as the services do (400, 401, 403, 413) and listed
in :attr:`LocalPushService.refused` (tests expect it empty). One that passes is recorded,
decrypted, in :attr:`LocalPushService.messages`. ``answer(endpoint, 404)`` makes the next
message to an endpoint get that status instead (404, 410, 429 with ``Retry-After``, 500),
as a service does for a subscription that expired or under load.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import secrets
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

import http_ece
import uvicorn
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server_process import free_port

MAX_BODY = 4096


def b64url(data: bytes) -> str:
    """Base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    """Base64url, padding optional."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """A browser's side of one subscription: its endpoint on the service, its key pair and
    auth secret, and the server key it subscribed with."""

    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    server_key: str

    @property
    def p256dh(self) -> str:
        """The public key, as the Push API gives it."""
        point = self.private_key.public_key().public_bytes(
            Encoding.X962, PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def to_json(self) -> dict[str, Any]:
        """``PushSubscription.toJSON()``."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }


@dataclass(frozen=True)
class Received:
    """A message the service accepted: to which endpoint, its decrypted JSON, its headers,
    and when it arrived (``time.time()``)."""

    endpoint: str
    payload: dict[str, Any]
    headers: dict[str, str]
    at: float
    claims: dict[str, Any]


@dataclass
class LocalPushService:
    """See the module docstring."""

    port: int = field(default_factory=free_port)
    messages: list[Received] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    _browsers: dict[str, Browser] = field(default_factory=dict)
    _answers: dict[str, deque[int]] = field(default_factory=lambda: defaultdict(deque))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``: the VAPID audience of its endpoints."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def prefix(self) -> str:
        """What ``--push-endpoints`` must name for the server to send here."""
        return f"{self.origin}/push/"

    def subscribe(self, server_key: str) -> Browser:
        """A new subscription (as ``PushManager.subscribe`` makes one) for a page whose
        ``applicationServerKey`` is ``server_key``."""
        browser = Browser(
            f"{self.prefix}{secrets.token_urlsafe(24)}",
            ec.generate_private_key(ec.SECP256R1()),
            os.urandom(16),
            server_key,
        )
        with self._lock:
            self._browsers[browser.endpoint] = browser
        return browser

    def forget(self, browser: Browser) -> None:
        """The subscription expired at the service: its endpoint answers 410 from now on."""
        with self._lock:
            self._browsers.pop(browser.endpoint, None)

    def answer(self, browser: Browser, *statuses: int) -> None:
        """The next messages to ``browser`` get these statuses (in order) instead."""
        with self._lock:
            self._answers[browser.endpoint].extend(statuses)

    def to(self, browser: Browser) -> list[Received]:
        """The messages ``browser`` received so far."""
        with self._lock:
            return [m for m in self.messages if m.endpoint == browser.endpoint]

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Received]:
        """The messages once there are at least ``count`` (waits for the condition)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if len(self.messages) >= count:
                    return list(self.messages)
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.messages)} messages, not {count}: {self.refused}")
            time.sleep(0.02)

    # -- the service ---------------------------------------------------------------------

    def _refuse(self, endpoint: str, status: int, why: str) -> Response:
        with self._lock:
            self.refused.append((endpoint, why))
        return Response(json.dumps({"reason": why}), status, media_type="application/json")

    async def _push(self, request: Request) -> Response:
        endpoint = f"{self.origin}{request.url.path}"
        body = await request.body()
        with self._lock:
            browser = self._browsers.get(endpoint)
            forced = self._answers[endpoint].popleft() if self._answers[endpoint] else None
        if forced is not None:
            headers = {"Retry-After": "1"} if forced == 429 else {}
            return Response(status_code=forced, headers=headers)
        if browser is None:
            return Response(status_code=410)  # (an expired subscription)
        auth = request.headers.get("authorization", "")
        m = re.fullmatch(r"vapid t=([\w.-]+), ?k=([\w-]+)", auth)
        if m is None:
            return self._refuse(endpoint, 401, f"no VAPID header: {auth[:40]!r}")
        token, key = m[1], m[2]
        if key != browser.server_key:
            return self._refuse(endpoint, 403, "the key is not the subscription's")
        if not Vapid02.verify(auth):
            return self._refuse(endpoint, 401, "the JWT's signature does not verify")
        claims = json.loads(unb64url(token.split(".")[1]))
        now = time.time()
        if claims.get("aud") != self.origin:
            return self._refuse(endpoint, 403, f"aud {claims.get('aud')!r}")
        if not now < float(claims.get("exp", 0)) <= now + 24 * 3600:
            return self._refuse(endpoint, 403, f"exp {claims.get('exp')!r}")
        if not re.match(r"(mailto:.+@.+|https://.+)$", str(claims.get("sub", ""))):
            return self._refuse(endpoint, 403, f"sub {claims.get('sub')!r}")
        if request.headers.get("content-encoding") != "aes128gcm":
            return self._refuse(endpoint, 400, "Content-Encoding is not aes128gcm")
        if not request.headers.get("ttl", "").isdigit():
            return self._refuse(endpoint, 400, "no TTL")
        if len(body) > MAX_BODY:
            return self._refuse(endpoint, 413, f"{len(body)} bytes")
        try:
            plain = http_ece.decrypt(
                body, private_key=browser.private_key, auth_secret=browser.auth
            )
            payload = json.loads(plain)
        except Exception as exc:
            return self._refuse(endpoint, 400, f"does not decrypt: {exc}")
        received = Received(endpoint, payload, dict(request.headers), now, claims)
        with self._lock:
            self.messages.append(received)
        return Response(status_code=201)

    async def _stats(self, request: Request) -> Response:
        """``GET /_stats``: what was accepted and refused, for a benchmark that runs the
        service in a process of its own: the count, the refusals and each accepted
        message's link and arrival time (``time.time()``)."""
        del request
        with self._lock:
            body = {
                "messages": len(self.messages),
                "refused": self.refused,
                "received": [[m.payload.get("link"), m.at] for m in self.messages],
            }
        return Response(json.dumps(body), media_type="application/json")

    def start(self) -> LocalPushService:
        """Serve in a thread until :meth:`stop`."""
        app = Starlette(
            routes=[
                Route("/push/{token}", self._push, methods=["POST"]),
                Route("/_stats", self._stats, methods=["GET"]),
            ]
        )
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", access_log=False
        )
        server = uvicorn.Server(config)
        self._server = server
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            task = loop.create_task(server.serve())
            while not server.started and not task.done():
                loop.run_until_complete(asyncio.sleep(0.01))
            ready.set()
            loop.run_until_complete(task)
            loop.close()

        self._thread = threading.Thread(target=serve, name="push-service", daemon=True)
        self._thread.start()
        if not ready.wait(20) or not server.started:
            raise RuntimeError("the local push service did not start")
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> LocalPushService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
