"""``/api/records``: this browser's records (U9)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from yahtzee.errors import GameNotFoundError
from yahtzee.server.routers._common import PlayerId, Service
from yahtzee.server.views import RecordsOut, records_json

router = APIRouter(prefix="/api", tags=["records"])


@router.get("/records", response_model=RecordsOut, summary="Records of this browser")
async def records(player: PlayerId, svc: Service) -> JSONResponse:
    """Best score, wins/losses/draws and games played over finished games, with the 10 most
    recent finished games (newest first). Abandoned games do not count.

    ``current_game`` is the unfinished game, if any: the lobby needs both, and a lobby that
    probed ``GET /api/games/current`` would log a failed request whenever none is saved.
    """
    try:
        current = await svc.current(player)
    except GameNotFoundError:
        current = None
    return JSONResponse(records_json(await svc.records(player), current))
