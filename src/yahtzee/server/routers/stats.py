"""``/api/stats``: this browser's games summed up beside the expert (统计, L5)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from yahtzee.server.review_views import StatsOut
from yahtzee.server.reviews import STATS_GAMES
from yahtzee.server.routers._common import Cpu, Played, PlayerId, Reviews, cost, errors

router = APIRouter(prefix="/api", tags=["stats"])

STATS_COST = 4  # the work budget's units (issue 22; docs/api.md)


@router.get(
    "/stats",
    response_model=StatsOut,
    responses=errors(429, 503),
    summary="Stats of this browser (统计)",
    dependencies=[cost(STATS_COST)],
)
async def stats(player: PlayerId, reviews: Reviews, elsewhere: Played, cpu: Cpu) -> Response:
    """Solo totals (histogram over the expert's distribution, rates, accuracy per game,
    oldest first), vs results per level, and each box's mean beside the expert's, over
    the player's most recent finished games (at most ``STATS_GAMES``, docs/api.md). Each
    game is analysed once per process, in the CPU pool (not on the event loop). The games
    of the rooms this browser played in count as table games (O7)."""
    played = [
        game for game, _name in (await elsewhere.finished_games_of(player, STATS_GAMES)).recent
    ]
    return Response(await reviews.stats(player, cpu, played), media_type="application/json")
