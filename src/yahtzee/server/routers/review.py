"""``/api/games/{id}/review`` (复盘, L1-L4) and ``/api/games/{id}/meter`` (the live meter)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from yahtzee.review import jobs
from yahtzee.server.review_views import MeterOut, ReviewOut
from yahtzee.server.routers._common import (
    Cpu,
    PlayerId,
    Reader,
    Reviews,
    Service,
    cost,
    errors,
)

router = APIRouter(prefix="/api/games", tags=["review"])

# The work budget's units of each route (issue 22; docs/api.md lists them).
REVIEW_COST = 4
METER_COST = 1


@router.get(
    "/{game_id}/review",
    response_model=ReviewOut,
    responses=errors(404, 409, 422, 429, 503),
    summary="Review a finished game",
    dependencies=[cost(REVIEW_COST)],
)
async def review(
    game_id: str,
    player: PlayerId,
    reviews: Reviews,
    cpu: Cpu,
    lang: Reader,
    seat: Annotated[int | None, Query(ge=0, le=5, description="a person's seat (T6)")] = None,
) -> Response:
    """Every decision of a finished game with the expert's best, the loss and its mark;
    luck, skill loss, accuracy and the timeline. ``seat`` picks the person reviewed in a
    table game (by default the first person; 422 ``invalid_seats`` for a computer's seat).
    409 ``illegal_action`` while the game is in progress or after it was abandoned. (The
    first review of a vs or table game takes a while: the analysis runs once, in the CPU
    pool, however many ask at the same time.) The ``why`` sentences are in the request's
    language."""
    body = await reviews.review(player, game_id, cpu, seat, lang)
    return Response(body, media_type="application/json")


@router.get(
    "/{game_id}/meter",
    response_model=MeterOut,
    responses=errors(404, 429, 503),
    summary="The live meter: expected final score, chance to win (L4)",
    dependencies=[cost(METER_COST)],
)
async def meter(game_id: str, player: PlayerId, svc: Service, cpu: Cpu) -> JSONResponse:
    """The human's expected final score now and, in a vs game, the chance to win, by the
    review's models; in a table game every seat's chance of first place (T5) and the
    figures of the person on turn. Asked by the page after each roll and score (only while
    the meter is shown), never part of the actions themselves. The models run in the CPU
    pool."""
    loaded = await svc.load(player, game_id)
    difficulty = loaded.record.difficulty
    level = difficulty.value if difficulty is not None else None
    models = [s.difficulty or "expert" for s in loaded.seats]  # a person: as the expert
    return JSONResponse(await cpu(jobs.meter, loaded.game, level, models))
