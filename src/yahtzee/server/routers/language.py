"""``/api/settings/language``: the language the player chose in 设置 (G3), kept for every
device linked to them (the next page any of them opens is in it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from yahtzee.i18n import Lang, msg
from yahtzee.server.errors import ApiError
from yahtzee.server.jsonbody import JsonBody, JsonBodyRoute, StrictBody
from yahtzee.server.routers._common import Languages, PlayerId, cost, errors
from yahtzee.storage.player_settings import PlayerSettings

router = APIRouter(prefix="/api", tags=["settings"], route_class=JsonBodyRoute)

#: Its share of the work budget (one small write).
LANGUAGE_COST = 1


class LanguageIn(StrictBody):
    """The language chosen, by its tag (``/api/config``'s ``languages``)."""

    language: StrictStr = Field(examples=["zh-Hant"])


class LanguageOut(BaseModel):
    """The language now kept for the player."""

    model_config = ConfigDict(extra="forbid")

    language: str = Field(examples=["zh-Hant"])


def settings_store(request: Request) -> PlayerSettings:
    """The players' settings (``app.state.player_settings``)."""
    store: PlayerSettings = request.app.state.player_settings
    return store


Settings = Annotated[PlayerSettings, Depends(settings_store)]


@router.put(
    "/settings/language",
    response_model=LanguageOut,
    responses=errors(403, 413, 415, 422, 429, 503),
    summary="The language the player chose",
    dependencies=[cost(LANGUAGE_COST)],
)
async def set_language(
    body: JsonBody[LanguageIn], player: PlayerId, store: Settings, served: Languages
) -> JSONResponse:
    """G3: keep ``language`` (one of ``/api/config``'s ``languages``) for this player: the
    page of every device linked to them opens in it. 422 ``invalid_request`` for a
    language that is not one of them."""
    try:
        lang = Lang.parse(body.language)
    except ValueError:
        lang = None
    if lang is None or lang not in served:
        known = ", ".join(str(s) for s in served)
        raise ApiError(
            422,
            "invalid_request",
            msg("error.language.unknown", value=body.language[:20], known=known),
        )
    await store.set_language(player, lang)
    return JSONResponse({"language": str(lang)})
