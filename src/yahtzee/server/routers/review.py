"""``/api/games/{id}/review`` (复盘, L1-L4) and ``/api/games/{id}/meter`` (the live meter)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from yahtzee.review.live import live_meter
from yahtzee.server.review_views import MeterOut, ReviewOut
from yahtzee.server.routers._common import PlayerId, Reviews, Service, errors

router = APIRouter(prefix="/api/games", tags=["review"])


@router.get(
    "/{game_id}/review",
    response_model=ReviewOut,
    responses=errors(404, 409, 422),
    summary="Review a finished game (复盘)",
)
async def review(
    game_id: str,
    player: PlayerId,
    reviews: Reviews,
    seat: Annotated[int | None, Query(ge=0, le=5, description="a person's seat (T6)")] = None,
) -> JSONResponse:
    """Every decision of a finished game with the expert's best, the loss and its mark;
    luck, skill loss, accuracy and the timeline. ``seat`` picks the person reviewed in a
    table game (by default the first person; 422 ``invalid_seats`` for a computer's seat).
    409 ``illegal_action`` while the game is in progress or after it was abandoned. (The
    first review of a vs or table game takes a while: the analysis runs in a thread, never
    on the event loop.)"""
    return JSONResponse(await reviews.review(player, game_id, seat))


@router.get(
    "/{game_id}/meter",
    response_model=MeterOut,
    responses=errors(404),
    summary="The live meter: expected final score, chance to win (L4)",
)
async def meter(game_id: str, player: PlayerId, svc: Service) -> JSONResponse:
    """The human's expected final score now and, in a vs game, the chance to win, by the
    review's models; in a table game every seat's chance of first place (T5) and the
    figures of the person on turn. Asked by the page after each roll and score (only while
    the meter is shown), never part of the actions themselves. The models run in the
    thread pool."""
    loaded = await svc.load(player, game_id)
    difficulty = loaded.record.difficulty
    level = difficulty.value if difficulty is not None else None
    models = [s.difficulty or "expert" for s in loaded.seats]  # a person: as the expert
    return JSONResponse(await run_in_threadpool(live_meter, loaded.game, level, None, models))
