"""``/api/config``: the names, limits and defaults of the game (what the page is given)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from yahtzee.server.config import Sections, page_config
from yahtzee.server.views import ConfigOut

router = APIRouter(prefix="/api", tags=["config"])


def config_sections(request: Request) -> Sections:
    """The features' sections of the configuration (``app.state.config_sections``)."""
    sections: Sections = request.app.state.config_sections
    return sections


@router.get("/config", response_model=ConfigOut, summary="Names, limits and defaults")
async def config(
    sections: Annotated[Sections, Depends(config_sections)],
) -> JSONResponse:
    """The boxes with their Chinese names, the computer levels, the default level, the
    Chinese names of modes and results and the game's limits — the same object the page
    finds embedded in ``index.html``."""
    return JSONResponse(page_config(sections))
