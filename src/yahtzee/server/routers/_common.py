"""Helpers shared by the routers."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from yahtzee.server.middleware import PLAYER_SCOPE_KEY
from yahtzee.server.service import GameService
from yahtzee.server.views import ErrorOut


def player_id(request: Request) -> str:
    """The anonymous player id the middleware put in the scope (from the cookie)."""
    value: str = request.scope[PLAYER_SCOPE_KEY]
    return value


def service(request: Request) -> GameService:
    """The process-wide game service."""
    svc: GameService = request.app.state.service
    return svc


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error responses an endpoint can give."""
    text = {
        404: "`not_found`: no such game for this player",
        409: "`stale_version`, `illegal_action`, `zero_needs_confirmation` or (new game) "
        "`game_in_progress`",
        413: "`payload_too_large`: body over 64 KB",
        422: "`invalid_request`: malformed input",
    }
    return {s: {"model": ErrorOut, "description": text[s]} for s in statuses}
