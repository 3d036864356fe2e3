"""One pure-ASGI middleware for what every response needs.

* the anonymous, signed device cookie (U9, F4, I3; see :mod:`yahtzee.server.identity`):
  the request's player is resolved on first use (:func:`player_of`) from its device, and
  a new, migrated or re-signed device cookie is sent back in ``Set-Cookie``,
  ``Secure`` when the request came over https (F17);
* same-origin JSON only for anything that can change state (F3): a POST, PUT, PATCH or
  DELETE whose ``Origin`` is not this server's own, or whose ``Sec-Fetch-Site`` is
  ``cross-site``, gets 403 ``forbidden``; a POST, PUT or PATCH whose body is not
  ``application/json`` gets 415 ``unsupported_media_type``. Together they refuse every
  request a page on another site can make (an HTML form can only send
  ``application/x-www-form-urlencoded``, ``multipart/form-data`` or ``text/plain``, and a
  script's cross-origin ``fetch`` carries its ``Origin``);
* the 64 KB body limit (413, checked on ``Content-Length`` and on the bytes actually read,
  so a chunked upload cannot slip past);
* ``HEAD`` wherever ``GET`` works: the application answers a ``GET`` and the body is
  dropped, so status and headers are the same;
* the security headers (a strict CSP without inline script, nosniff, no referrer leaks,
  no framing).

Pure ASGI rather than ``BaseHTTPMiddleware``: it costs a few microseconds per request
instead of an extra task and a response copy.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from yahtzee.i18n import DEFAULT, Lang, msg
from yahtzee.server.addresses import address_group
from yahtzee.server.errors import (
    ApiError,
    log_disconnect,
    mappings_of,
    request_language,
    to_api_error,
)
from yahtzee.server.identity import PlayerIds

log = logging.getLogger("yahtzee.server")

COOKIE_NAME = "yahtzee_player"
COOKIE_MAX_AGE = 365 * 24 * 3600
#: Why this browser's device ended (U20: removed, erased, expired, signed_out), for the
#: page to say once and clear: readable by the page's script (it holds no secret).
NOTICE_COOKIE = "yahtzee_notice"
NOTICE_MAX_AGE = 30 * 24 * 3600
PLAYER_SCOPE_KEY = "yahtzee.visitor"

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


def _cookie_value(header: bytes) -> str | None:
    """Our cookie's raw value from a ``Cookie`` header (checked later, when needed).

    A plain split rather than :class:`http.cookies.SimpleCookie`: our value is URL-safe
    base64 and a dot (no quoting to undo) and this runs on every request.
    """
    for part in header.decode("latin-1").split(";"):
        name, sep, value = part.strip().partition("=")
        if sep and name == COOKIE_NAME:
            return value
    return None


class Visitor:
    """The player behind one request, resolved from its cookie on first use (so a request
    that needs no player, a static file or ``/api/health``, mints no id)."""

    __slots__ = (
        "_address",
        "_cookie",
        "_fresh",
        "_ids",
        "_user_agent",
        "cleared",
        "device_id",
        "issue",
        "notice",
        "player_id",
    )

    def __init__(
        self, ids: PlayerIds, cookie: str | None, address: str, user_agent: str = ""
    ) -> None:
        self._ids = ids
        self._cookie = cookie
        self._address = address
        self._user_agent = user_agent
        self.player_id: str | None = None
        self.device_id: str | None = None
        self.issue: str | None = None  # the cookie value to send back, if any
        self.notice: str | None = None  # why the cookie's device ended (U20), if it did
        self.cleared = False  # the device signed out: the cookie goes
        self._fresh = False

    def sign_out(self, notice: str) -> None:
        """This browser's device ended at its own request (「退出这台设备」): its cookie
        is cleared by the answer, which says why (``notice``)."""
        self.issue = None
        self.cleared = True
        self.notice = notice

    async def resolve(self, *, fresh: bool = False) -> str:
        """The player id (minted, F5-limited, on first call when the cookie is not valid).
        ``fresh``: the device as the database has it now (F23: what could lock an owner
        out, or write under a deleted player, does not trust this process's memory)."""
        if self.player_id is None or (fresh and not self._fresh):
            resolved = await self._ids.resolve(
                self._cookie, self._address, self._user_agent, fresh=fresh
            )
            self.player_id, self.device_id = resolved.player_id, resolved.device_id
            self._fresh = fresh
            if resolved.cookie is not None:
                # (a second, fresh, look reads the device just issued, never mints again)
                self.issue = self._cookie = resolved.cookie
            if resolved.notice is not None:
                self.notice = resolved.notice
        return self.player_id

    @property
    def user_agent(self) -> str:
        """The request's ``User-Agent`` (a new device's name is made from it)."""
        return self._user_agent

    @property
    def key(self) -> str:
        """Whom a cost budget charges (issue 22): the player (or its device's id, ``~``
        first, until this process has looked the device up), or without a cookie the
        client address (``@`` + address: never an id); mints nothing."""
        player = self.player_id or self._ids.known(self._cookie)
        return player if player is not None else f"@{self._address}"


async def player_of(scope: Scope, *, fresh: bool = False) -> str:
    """The request's player id (see :class:`Visitor`)."""
    visitor: Visitor = scope[PLAYER_SCOPE_KEY]
    return await visitor.resolve(fresh=fresh)


async def device_of(scope: Scope, *, fresh: bool = False) -> tuple[str, str]:
    """The request's ``(player id, device id)`` (see :class:`Visitor`)."""
    visitor: Visitor = scope[PLAYER_SCOPE_KEY]
    player = await visitor.resolve(fresh=fresh)
    assert visitor.device_id is not None  # (set with the player)
    return player, visitor.device_id


def visitor_of(scope: Scope) -> Visitor:
    """The request's :class:`Visitor`."""
    visitor: Visitor = scope[PLAYER_SCOPE_KEY]
    return visitor


def requester_of(scope: Scope) -> str:
    """The request's budget key (see :attr:`Visitor.key`)."""
    visitor: Visitor = scope[PLAYER_SCOPE_KEY]
    return visitor.key


def client_address(scope: Scope) -> str:
    """The client's address group, the key of every per-address limit (F18: an IPv6
    address's /64, an IPv4 address itself; :func:`~yahtzee.server.addresses.
    address_group`), from its address as the server sees it (behind a trusted proxy,
    uvicorn puts the forwarded address there)."""
    client = scope.get("client")
    return address_group(str(client[0])) if client else "unknown"


# Methods that may change state: they must come from our own pages, as JSON (F3).
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _host_port(value: str, scheme: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``Host`` header value (``example.org:8000``, ``[::1]:80``)."""
    host, port = value, ""
    if value.startswith("["):  # an IPv6 address
        close = value.find("]")
        host, rest = value[: close + 1], value[close + 1 :]
        if close < 0 or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
    elif ":" in value:
        host, _, port = value.partition(":")
    if not port:
        port = str(_DEFAULT_PORTS.get(scheme, 0))
    if not host or not port.isdigit():
        return None
    return host.lower(), int(port)


def same_origin(origin: str, scheme: str, host: str) -> bool:
    """Whether an ``Origin`` header names this server: scheme, host and port all equal
    to the request's own (its scheme and ``Host`` header). ``null`` never matches."""
    parts = urlsplit(origin)
    try:
        origin_port = parts.port
    except ValueError:
        return False
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path or parts.query:
        return False
    if origin_port is None:
        origin_port = _DEFAULT_PORTS[parts.scheme]
    own = _host_port(host, scheme)
    hostname = parts.hostname.lower()
    if ":" in hostname:  # urlsplit strips an IPv6 address's brackets
        hostname = f"[{hostname}]"
    return own is not None and (parts.scheme, hostname, origin_port) == (scheme, *own)


def is_json(content_type: str) -> bool:
    """``application/json``, optionally with ``charset=utf-8`` (JSON is UTF-8, RFC 8259)."""
    media, _, params = content_type.partition(";")
    if media.strip().lower() != "application/json":
        return False
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() != "utf-8":
            return False
    return True


class ForbiddenError(ApiError):
    """A state-changing request from another site (F3)."""

    def __init__(self) -> None:
        super().__init__(403, "forbidden", msg("error.forbidden.cross_site"))


class UnsupportedMediaTypeError(ApiError):
    """A state-changing request whose body is not JSON (F3)."""

    def __init__(self) -> None:
        super().__init__(415, "unsupported_media_type", msg("error.body.not_json_type"))


def check_request(scope: Scope, headers: dict[bytes, bytes]) -> ApiError | None:
    """The F3 refusal of a request, if any (403 before 415: a foreign page learns nothing
    about what else it would have needed)."""
    if scope["method"] not in UNSAFE_METHODS:
        return None
    origin = headers.get(b"origin")
    if headers.get(b"sec-fetch-site", b"").lower() == b"cross-site":
        return ForbiddenError()
    if origin is not None:
        host = headers.get(b"host")
        if host is None:
            server = scope.get("server") or ("", 0)
            host = f"{server[0]}:{server[1]}".encode()
        if not same_origin(origin.decode("latin-1"), scope["scheme"], host.decode("latin-1")):
            return ForbiddenError()
    if scope["method"] not in BODY_METHODS:
        return None  # DELETE: no body to check (and no such route: the app answers 405)
    if not is_json(headers.get(b"content-type", b"").decode("latin-1")):
        return UnsupportedMediaTypeError()
    return None


class ServerMiddleware:
    """Player cookie, same-origin JSON, body size limit, HEAD and security headers (see the
    module docstring)."""

    def __init__(self, app: ASGIApp, players: PlayerIds, max_body_bytes: int = 64 * 1024) -> None:
        self.app = app
        self.players = players
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookie: str | None = None
        length: int | None = None
        user_agent = ""
        checked: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            if name == b"cookie" and cookie is None:
                cookie = _cookie_value(value)
            elif name == b"user-agent":
                user_agent = value[:512].decode("latin-1")
            elif name == b"content-length":
                checked[name] = value
                try:
                    length = int(value)
                except ValueError:
                    length = None
            elif name in _CHECKED_HEADERS:
                checked.setdefault(name, value)
        head = scope["method"] == "HEAD"
        if head:
            # The application answers a GET; its body is dropped below (same headers).
            scope = {**scope, "method": "GET"}
        # Re-issued on each new game too, so that the year's expiry slides while a
        # browser keeps playing and its records are not lost after a year (U9).
        renew = scope["method"] == "POST" and scope["path"] == "/api/games"
        visitor = Visitor(self.players, cookie, client_address(scope), user_agent)
        scope[PLAYER_SCOPE_KEY] = visitor
        players = self.players
        api = scope["path"].startswith("/api/")
        # F17: over https (TLS, or a trusted proxy's X-Forwarded-Proto, which uvicorn
        # believes only from --forwarded-allow-ips) the cookie never travels in clear.
        secure = "; Secure" if scope.get("scheme") == "https" else ""

        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                headers.extend(SECURITY_HEADERS)
                if api:
                    headers.append(_NO_STORE)
                elif not any(name == b"cache-control" for name, _ in headers):
                    # Static assets: revalidate (ETag) so a new release is picked up at once.
                    headers.append(_NO_CACHE)
                issued = visitor.issue
                if issued is None and renew and visitor.device_id is not None:
                    issued = players.device_cookie(visitor.device_id)
                if issued is not None:
                    value = (
                        f"{COOKIE_NAME}={issued}; Max-Age={COOKIE_MAX_AGE}; "
                        f"Path=/; HttpOnly; SameSite=Lax{secure}"
                    )
                    headers.append((b"set-cookie", value.encode()))
                elif visitor.cleared:
                    value = f"{COOKIE_NAME}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax{secure}"
                    headers.append((b"set-cookie", value.encode()))
                if visitor.notice is not None:
                    value = (
                        f"{NOTICE_COOKIE}={visitor.notice}; Max-Age={NOTICE_MAX_AGE}; "
                        f"Path=/; SameSite=Lax{secure}"
                    )
                    headers.append((b"set-cookie", value.encode()))
                message = {**message, "headers": headers}
            elif head and message["type"] == "http.response.body" and message.get("body"):
                message = {**message, "body": b""}
            await send(message)

        refusal = check_request(scope, checked)
        if refusal is not None:
            await send_error(send_with_headers, refusal, lang=request_language(scope))
            return
        limit = self.max_body_bytes
        if length is not None and length > limit:
            too_large = to_api_error(HTTPException(413))
            await send_error(send_with_headers, too_large, close=True, lang=request_language(scope))
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

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except Exception as exc:
            # What the application did not answer: Starlette's outermost error middleware
            # would send a bare 500 outside this one, without the security headers. Answer
            # here instead, in the error shape, with every header (503 for storage faults).
            if started:
                raise
            error = to_api_error(exc, mappings_of(scope.get("app")))
            if isinstance(exc, ClientDisconnect):
                log_disconnect(scope["method"], scope["path"])
            elif error.code not in ("storage_unavailable", "busy"):  # (refusals: no bug)
                log.error("unhandled error on %s %s", scope["method"], scope["path"], exc_info=exc)
            await send_error(send_with_headers, error, lang=request_language(scope))


_CHECKED_HEADERS = frozenset({b"origin", b"sec-fetch-site", b"content-type", b"host"})


async def send_error(
    send: Send, error: ApiError, *, close: bool = False, lang: Lang = DEFAULT
) -> None:
    """Answer with ``error`` in the one error shape (when the application has not), its
    message in ``lang``."""
    body = json.dumps(
        {"error": {"code": error.code, "message": error.message_in(lang)}}, ensure_ascii=False
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    for name, value in (error.headers or {}).items():
        headers.append((name.encode("latin-1"), value.encode("latin-1")))
    if close:
        # The unread body of a too-large request must not be taken for the next request.
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
