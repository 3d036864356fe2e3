"""``/api/games/{id}/review``: a finished game judged by the expert (复盘, L1-L4)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from yahtzee.server.review_views import ReviewOut
from yahtzee.server.reviews import ReviewService
from yahtzee.server.routers._common import errors, player_id

router = APIRouter(prefix="/api/games", tags=["review"])


def reviews(request: Request) -> ReviewService:
    """The process-wide review service."""
    svc: ReviewService = request.app.state.reviews
    return svc


@router.get(
    "/{game_id}/review",
    response_model=ReviewOut,
    responses=errors(404, 409),
    summary="Review a finished game (复盘)",
)
def review(game_id: str, request: Request) -> JSONResponse:
    """Every decision of a finished game with the expert's best, the loss and its mark;
    luck, skill loss, accuracy and the timeline. 409 ``illegal_action`` while the game is
    in progress or after it was abandoned. (A plain ``def``: the first review of a vs game
    takes a while, so it runs in the thread pool, never on the event loop.)"""
    return JSONResponse(reviews(request).review(player_id(request), game_id))
