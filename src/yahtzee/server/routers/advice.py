"""``/api/advice``: the expert's ranking for any position (B2), as ``yahtzee advise --json``."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from yahtzee.errors import YahtzeeError
from yahtzee.review import jobs
from yahtzee.rules import Dice, Scorecard
from yahtzee.server.errors import InvalidInputError
from yahtzee.server.routers._common import Cpu, cost, errors
from yahtzee.server.views import AdviceOut

router = APIRouter(prefix="/api", tags=["advice"])

ADVICE_COST = 1  # the work budget's units (issue 22; docs/api.md)


@router.get(
    "/advice",
    response_model=AdviceOut,
    responses=errors(422, 429, 503),
    summary="What would the expert do here?",
    dependencies=[cost(ADVICE_COST)],
)
async def advice(
    cpu: Cpu,
    scores: Annotated[
        str, Query(description="filled boxes, e.g. `ones=3,twos=6,yahtzee=50`", max_length=400)
    ] = "",
    dice: Annotated[
        str | None, Query(description="five digits 1-6, e.g. `13356`; omit before a roll")
    ] = None,
    rolls_left: Annotated[
        int, Query(ge=0, le=2, description="rolls left after these dice: 0, 1 or 2")
    ] = 2,
) -> Response:
    """The expert's ranking of every option (holds or boxes) with its expected value; the
    same JSON as ``yahtzee advise --json``. Charged to the requester's work budget (its
    player id if its cookie is valid, else its address: no id is minted); computed in the
    CPU pool, after the page's own reads (a background job)."""
    try:
        card = Scorecard.parse(scores)
        parsed = Dice.parse(dice) if dice is not None else None
        # A background job: the open API's queries never hold up what the page asks.
        result: Any = await cpu.background(jobs.advice, card, parsed, rolls_left)
    except YahtzeeError as exc:  # here every refusal is about the query, not a game move
        raise InvalidInputError(exc) from exc
    if isinstance(result, str):
        json.loads(result)  # it must be JSON; fail loudly here rather than in the browser
        return Response(result, media_type="application/json")
    return JSONResponse(result)
