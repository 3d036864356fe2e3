"""One pure-ASGI middleware for what every response needs.

* the anonymous player cookie (issued on the first request, U9);
* the 64 KB body limit (413, checked on ``Content-Length`` and on the bytes actually read,
  so a chunked upload cannot slip past);
* the security headers (a strict CSP without inline script, nosniff, no referrer leaks,
  no framing).

Pure ASGI rather than ``BaseHTTPMiddleware``: it costs a few microseconds per request
instead of an extra task and a response copy.
"""

from __future__ import annotations

import json
import re
import secrets

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from yahtzee.server.errors import to_api_error

COOKIE_NAME = "yahtzee_player"
COOKIE_MAX_AGE = 365 * 24 * 3600
PLAYER_SCOPE_KEY = "yahtzee.player_id"
_PLAYER_ID = re.compile(r"^[A-Za-z0-9_-]{22,64}$")

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
)
_NO_STORE = (b"cache-control", b"no-store")
_NO_CACHE = (b"cache-control", b"no-cache")


def new_player_id() -> str:
    """A fresh anonymous id: 192 random bits from the OS CSPRNG, URL-safe base64."""
    return secrets.token_urlsafe(24)


def _cookie_player(header: bytes) -> str | None:
    """Our id from a ``Cookie`` header; anything malformed counts as no cookie.

    A plain split rather than :class:`http.cookies.SimpleCookie`: our value is URL-safe
    base64 (no quoting to undo) and this runs on every request.
    """
    for part in header.decode("latin-1").split(";"):
        name, sep, value = part.strip().partition("=")
        if sep and name == COOKIE_NAME:
            return value if _PLAYER_ID.match(value) else None
    return None


class ServerMiddleware:
    """Player cookie, body size limit and security headers (see the module docstring)."""

    def __init__(self, app: ASGIApp, max_body_bytes: int = 64 * 1024) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        player_id: str | None = None
        length: int | None = None
        for name, value in scope["headers"]:
            if name == b"cookie" and player_id is None:
                player_id = _cookie_player(value)
            elif name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    length = None
        # Re-issued on each new game too, so that the year's expiry slides while a
        # browser keeps playing and its records are not lost after a year (U9).
        issue_cookie = player_id is None or (
            scope["method"] == "POST" and scope["path"] == "/api/games"
        )
        if player_id is None:
            player_id = new_player_id()
        scope[PLAYER_SCOPE_KEY] = player_id
        api = scope["path"].startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.extend(SECURITY_HEADERS)
                if api:
                    headers.append(_NO_STORE)
                elif not any(name == b"cache-control" for name, _ in headers):
                    # Static assets: revalidate (ETag) so a new release is picked up at once.
                    headers.append(_NO_CACHE)
                if issue_cookie:
                    cookie = (
                        f"{COOKIE_NAME}={player_id}; Max-Age={COOKIE_MAX_AGE}; Path=/; "
                        "HttpOnly; SameSite=Lax"
                    )
                    headers.append((b"set-cookie", cookie.encode()))
                message = {**message, "headers": headers}
            await send(message)

        limit = self.max_body_bytes
        if length is not None and length > limit:
            await _send_too_large(send_with_headers)
            return

        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    # Raised inside the app's body read; the error handlers turn it into 413.
                    raise HTTPException(413)
            return message

        await self.app(scope, limited_receive, send_with_headers)


async def _send_too_large(send: Send) -> None:
    error = to_api_error(HTTPException(413))
    body = json.dumps(
        {"error": {"code": error.code, "message": error.message}}, ensure_ascii=False
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
