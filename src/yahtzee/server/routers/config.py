"""``/api/config``: the names, limits and defaults of the game (what the page is given)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from yahtzee.server.config import page_config
from yahtzee.server.views import ConfigOut

router = APIRouter(prefix="/api", tags=["config"])


@router.get("/config", response_model=ConfigOut, summary="Names, limits and defaults")
async def config(request: Request) -> JSONResponse:
    """The boxes with their Chinese names, the computer levels, the default level, the
    Chinese names of modes and results and the game's limits — the same object the page
    finds embedded in ``index.html``."""
    return JSONResponse(page_config(request.app.state.config_sections))
