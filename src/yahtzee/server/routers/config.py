"""``/api/config``: the names, limits and defaults of the game (what the page is given)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from yahtzee.server.config import KindNames, Sections, page_config
from yahtzee.server.routers._common import Languages


def config_sections(request: Request) -> Sections:
    """The features' sections of the configuration (``app.state.config_sections``)."""
    sections: Sections = request.app.state.config_sections
    return sections


def config_kinds(request: Request) -> KindNames:
    """The names of every kind of game the app knows (``app.state.config_kinds``)."""
    kinds: KindNames = request.app.state.config_kinds
    return kinds


def router_for(model: type[BaseModel]) -> APIRouter:
    """The route, its response ``model`` the platform's fields and the features' sections
    (:func:`~yahtzee.server.views.config_out` of each feature's ``config_model``)."""
    router = APIRouter(prefix="/api", tags=["config"])

    @router.get("/config", response_model=model, summary="Names, limits and defaults")
    async def config(
        sections: Annotated[Sections, Depends(config_sections)],
        kinds: Annotated[KindNames, Depends(config_kinds)],
        served: Languages,
    ) -> JSONResponse:
        """The boxes with their Chinese names, the computer levels, the default level, the
        Chinese names of the games to start, of every kind of game and of the results,
        the game's limits and the features' sections — the same object the page finds
        embedded in ``index.html``; the languages a player may choose, each named in
        itself, and the catalog keys of the levels' names."""
        return JSONResponse(page_config(sections, served, kinds))

    return router
