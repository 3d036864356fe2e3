"""``/api/advice``: the expert's ranking for any position (B2), as ``yahtzee advise --json``."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from yahtzee.rules import Dice, Scorecard
from yahtzee.server.routers._common import errors

router = APIRouter(prefix="/api", tags=["advice"])


@router.get("/advice", responses=errors(422), summary="What would the expert do here?")
async def advice(
    scores: Annotated[
        str, Query(description="filled boxes, e.g. `ones=3,twos=6,yahtzee=50`", max_length=400)
    ] = "",
    dice: Annotated[
        str | None, Query(description="five digits 1-6, e.g. `13356`; omit before a roll")
    ] = None,
    rolls_left: Annotated[
        int | None,
        Query(ge=0, le=3, description="rolls left this turn (default 2 with dice, else 3)"),
    ] = None,
) -> Response:
    """The expert's ranking of every option (holds or boxes) with its expected value; the
    same JSON as ``yahtzee advise --json``."""
    from yahtzee.solver import advise  # imported here: the solver is loaded at startup

    card = Scorecard.parse(scores)
    parsed = Dice.parse(dice) if dice is not None else None
    left = rolls_left if rolls_left is not None else (2 if parsed is not None else 3)
    result: Any = advise(card, parsed, left).to_json()
    if isinstance(result, str):
        json.loads(result)  # it must be JSON; fail loudly here rather than in the browser
        return Response(result, media_type="application/json")
    return JSONResponse(result)
