"""``/api/stats``: this browser's games summed up beside the expert (统计, L5)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel

from yahtzee.server.reviews import STATS_GAMES
from yahtzee.server.routers._common import Cpu, Played, PlayerId, Reviews, cost, errors

STATS_COST = 4  # the work budget's units (issue 22; docs/api.md)


def router_for(model: type[BaseModel]) -> APIRouter:
    """The route, its response ``model`` the platform's sections and each kind's own
    (:func:`~yahtzee.server.review_views.stats_out`)."""
    router = APIRouter(prefix="/api", tags=["stats"])

    @router.get(
        "/stats",
        response_model=model,
        responses=errors(429, 503),
        summary="Statistics of this browser",
        dependencies=[cost(STATS_COST)],
    )
    async def stats(player: PlayerId, reviews: Reviews, elsewhere: Played, cpu: Cpu) -> Response:
        """Solo totals (histogram over the expert's distribution, rates, accuracy per game,
        oldest first), vs results per level, each box's mean beside the expert's, the
        table games and each kind's own section, over the player's most recent finished
        games (at most ``STATS_GAMES``, docs/api.md): each game counts where its kind's
        rules say (K2). Each game is analysed once per process, in the CPU pool (not on
        the event loop). The games this browser played without owning them (a room's,
        O7) count too."""
        played = [
            game for game, _name in (await elsewhere.finished_games_of(player, STATS_GAMES)).recent
        ]
        return Response(await reviews.stats(player, cpu, played), media_type="application/json")

    return router
