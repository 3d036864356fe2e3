"""``/api/tutorial``: the steps of the guided first game (新手教程, L10)."""

from __future__ import annotations

from functools import cache
from typing import Literal

import orjson
from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from yahtzee.i18n import Lang
from yahtzee.rules import Category
from yahtzee.server.routers._common import Reader
from yahtzee.tutorial import steps_json

router = APIRouter(prefix="/api", tags=["tutorial"])


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UntilOut(_Out):
    """When the step is done: one of these (``round`` with ``rolls_left``)."""

    next: Literal[True] | None = Field(None, description="the Next button pressed")
    round: int | None = Field(None, description="the game reached this round ...")
    rolls_left: int | None = Field(None, description="... with at most this many rolls left")
    hints_left: int | None = Field(None, description="at most this many hints left")
    box: Category | None = Field(None, description="this box is written")
    hold: list[bool] | None = Field(None, description="exactly these dice are held")
    declined: Category | None = Field(None, description="a 0 here was asked and declined")
    done: Literal[True] | None = Field(None, description="the last step")


class StepOut(_Out):
    """One step of the tutorial."""

    id: str
    text: str = Field(description="what to do, for a child, in the request's language")
    target: list[str] = Field(description="data-testid of the table's elements to highlight")
    until: UntilOut
    dice: list[int] | None = Field(description="the dice on the table as the step begins")


class TutorialOut(_Out):
    """``GET /api/tutorial``."""

    steps: list[StepOut]


@cache
def _body(lang: Lang) -> bytes:
    return orjson.dumps(steps_json(lang))


@router.get("/tutorial", response_model=TutorialOut, summary="The tutorial's steps")
async def tutorial(lang: Reader) -> Response:
    """The steps of the guided first game, in order, in the request's language. A tutorial
    is started with ``POST /api/games {"mode": "tutorial"}`` and played with the ordinary
    actions; its dice are the server's fixed ones, which the steps are written against
    (L10)."""
    return Response(_body(lang), media_type="application/json")
