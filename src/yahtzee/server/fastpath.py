"""A direct route for the game actions, ``POST /api/games/{game_id}/{action}``.

These five endpoints (the table :data:`~yahtzee.server.routers.games.ACTIONS`) are nearly
all of a game's traffic. Through FastAPI each request also pays for the route search, the
request/response objects, two exit stacks, the dependency solver and the telemetry hooks:
about as much CPU as the action itself. This
pure-ASGI middleware sits just inside :class:`~yahtzee.server.middleware.ServerMiddleware`
(so cookie, body limit and security headers are unchanged) and runs the very same code
as the routes (:data:`yahtzee.server.routers.games.ACTIONS`), with the same error
mapping. Everything else, and any request it does not recognise exactly, goes on to the
application, whose routes (generated from the same table) document these endpoints in the
OpenAPI page.
"""

from __future__ import annotations

import re

from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Receive, Scope, Send

from yahtzee.server.errors import HANDLED, handle_error
from yahtzee.server.limits import Guard
from yahtzee.server.middleware import player_of
from yahtzee.server.routers.games import ACTIONS
from yahtzee.server.service import GameService
from yahtzee.server.views import dump_json

# As Starlette matches ``/api/games/{game_id}/roll``: a ``str`` parameter is [^/]+; the
# actions are the table's.
_ACTION_PATH = re.compile(rf"/api/games/([^/]+)/({'|'.join(map(re.escape, ACTIONS))})")
_JSON = (b"content-type", b"application/json")


class ActionFastPath:
    """Serve the game actions directly (see the module docstring)."""

    def __init__(self, app: ASGIApp, service: GameService, guard: Guard) -> None:
        self.app = app
        self.service = service
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and not scope.get("root_path"):
            match = _ACTION_PATH.fullmatch(scope["path"])
            if match is not None:
                await self._action(scope, receive, send, match[1], match[2])
                return
        await self.app(scope, receive, send)

    async def _action(
        self, scope: Scope, receive: Receive, send: Send, game_id: str, name: str
    ) -> None:
        try:
            player = await player_of(scope)
            self.guard.actions.take(player)  # F5, before any work
            content = await ACTIONS[name](self.service, player, game_id, await _body(receive))
        except HANDLED as exc:  # the same answer as the application's exception handlers
            response = await handle_error(Request(scope, receive), exc)
            await response(scope, receive, send)
            return
        # Exactly what JSONResponse(content) sends.
        body = dump_json(content)
        headers = [(b"content-length", str(len(body)).encode()), _JSON]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def _body(receive: Receive) -> bytes:
    """The whole request body, as :meth:`starlette.requests.Request.body` reads it."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)
        elif message["type"] == "http.disconnect":
            raise ClientDisconnect()
