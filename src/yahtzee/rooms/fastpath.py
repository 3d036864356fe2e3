"""``GET /api/rooms/{id}/events`` served directly, like the game actions' fast path
(:class:`yahtzee.server.fastpath.ActionFastPath`): the rooms' middleware (its feature's
``middleware``, :data:`yahtzee.rooms.FEATURE`)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from yahtzee.i18n import msg
from yahtzee.rooms.routes import event_stream, last_event_id
from yahtzee.rooms.service import RoomService
from yahtzee.server.errors import HANDLED, ApiError, handle_error
from yahtzee.server.middleware import client_address, device_of

_EVENTS_PATH = re.compile(r"/api/rooms/([0-9a-f]{16})/events")


class RoomStreamPath:
    """``GET /api/rooms/{id}/events`` served directly (O4, O9): a stream lives as long as
    the game, and through FastAPI it would hold the route's frames, exit stacks and
    exception wrappers all that time, about a third of an idle stream's memory. The same
    checks and the same response as the route (:func:`~yahtzee.rooms.routes.
    event_stream`), the same error mapping; anything else goes on to the application."""

    def __init__(self, app: ASGIApp, rooms: RoomService) -> None:
        self.app = app
        self.rooms = rooms

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and not scope.get("root_path"):
            match = _EVENTS_PATH.fullmatch(scope["path"])
            if match is not None:
                await self._stream(scope, receive, send, match[1])
                return
        await self.app(scope, receive, send)

    async def _stream(self, scope: Scope, receive: Receive, send: Send, room_id: str) -> None:
        try:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            token = query.get("token", [None])[-1]
            raw_after = query.get("after", [None])[-1]
            if (token is not None and len(token) > 64) or (
                raw_after is not None and (not raw_after.isdigit() or len(raw_after) > 12)
            ):
                raise ApiError(422, "invalid_request", msg("error.room.stream_query"))
            header = next(
                (v.decode("latin-1") for k, v in scope["headers"] if k == b"last-event-id"), None
            )
            start = last_event_id(header, int(raw_after) if raw_after is not None else None)
            player, device = await device_of(scope)
            address = client_address(scope)
            response: Response = await event_stream(
                self.rooms, room_id, player, address, token, start, device
            )
        except HANDLED as exc:
            response = await handle_error(Request(scope, receive), exc)
        await response(scope, receive, send)
