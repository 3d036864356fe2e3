"""``/api/records``: this browser's records (U9)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from yahtzee.errors import GameNotFoundError
from yahtzee.game import Mode
from yahtzee.server.routers._common import Cpu, PlayerId, Reviews, Service
from yahtzee.server.views import RecordsOut, records_json

router = APIRouter(prefix="/api", tags=["records"])


@router.get("/records", response_model=RecordsOut, summary="Records of this browser")
async def records(player: PlayerId, svc: Service, reviews: Reviews, cpu: Cpu) -> JSONResponse:
    """Best score, wins/losses/draws and games played over finished games, with the 10 most
    recent finished games (newest first). Abandoned games do not count.

    ``current_game`` is the unfinished game, if any: the lobby needs both, and a lobby that
    probed ``GET /api/games/current`` would log a failed request whenever none is saved.
    """
    try:
        current = await svc.current(player)
    except GameNotFoundError:
        current = None
    records = await svc.records(player)
    tables: dict[str, tuple[int, int]] = {}
    for game in records.recent:
        if game.mode is Mode.TABLE:  # 「多人 · 4 人 · 第 2 名」 (T6), read once per process
            summary = await reviews.summary(game.id, cpu)
            if summary.seats is not None and summary.best_place is not None:
                tables[game.id] = (summary.seats, summary.best_place)
    return JSONResponse(records_json(records, current, tables))
