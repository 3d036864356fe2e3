"""``/api/stats``: this browser's games summed up beside the expert (统计, L5)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from yahtzee.server.review_views import StatsOut
from yahtzee.server.routers._common import PlayerId, Reviews

router = APIRouter(prefix="/api", tags=["stats"])


@router.get("/stats", response_model=StatsOut, summary="Stats of this browser (统计)")
async def stats(player: PlayerId, reviews: Reviews) -> JSONResponse:
    """Solo totals (histogram over the expert's distribution, rates, accuracy per game,
    oldest first), vs results per level, and each box's mean beside the expert's. Each
    game is analysed once per process, in a thread (not on the event loop)."""
    return JSONResponse(await reviews.stats(player))
