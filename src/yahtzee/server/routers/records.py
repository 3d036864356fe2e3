"""``/api/records``: this browser's records (U9)."""

from __future__ import annotations

import dataclasses

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from yahtzee.errors import GameNotFoundError
from yahtzee.game import Mode
from yahtzee.server.routers._common import Cpu, Played, PlayerId, Reviews, Service, cost, errors
from yahtzee.server.views import RecordsOut, records_json

router = APIRouter(prefix="/api", tags=["records"])

RECENT_GAMES = 10  # the lobby's recent games (as the storage's records give them)
RECENT_ELSEWHERE = 10  # the games played without owning them read for them (a room's)


#: Its share of the work budget (F14: a read a page can repeat; it reads the records, the
#: rooms' games and their summaries, analysed in the CPU pool when missing).
RECORDS_COST = 2


@router.get(
    "/records",
    response_model=RecordsOut,
    responses=errors(429, 503),
    summary="Records of this browser",
    dependencies=[cost(RECORDS_COST)],
)
async def records(
    player: PlayerId, svc: Service, reviews: Reviews, elsewhere: Played, cpu: Cpu
) -> JSONResponse:
    """Best score, wins/losses/draws and games played over finished games, with the 10 most
    recent finished games (newest first). Abandoned games do not count; the games of the
    rooms this browser played in do (O7), by its own seat's total and place.

    ``current_game`` is the unfinished game, if any: the lobby needs both, and a lobby that
    probed ``GET /api/games/current`` would log a failed request whenever none is saved.
    """
    try:
        current = await svc.current(player)
    except GameNotFoundError:
        current = None
    records = await svc.records(player)
    # O7: the games this browser played without owning them (a room's, by its own seat's
    # total and place; a race seat's own one-seat game, W5, as it is).
    others = await elsewhere.finished_games_of(player, RECENT_ELSEWHERE)
    table_games = [g for g in records.recent if g.mode is Mode.TABLE]
    shared = [(g, name) for g, name in others.recent if g.mode is Mode.TABLE]
    # Every summary the lobby needs in one call (the missing ones analysed in one batch).
    ids = [g.id for g in table_games] + [g.id for g, _name in shared]
    summary_of = dict(zip(ids, await reviews.summaries(ids, cpu), strict=True))
    tables: dict[str, tuple[int, int]] = {}
    for game in table_games:  # 「多人 · 4 人 · 第 2 名」 (T6)
        summary = summary_of[game.id]
        if summary.seats is not None and summary.best_place is not None:
            tables[game.id] = (summary.seats, summary.best_place)
    played = [g for g, _name in others.recent if g.mode is not Mode.TABLE]
    for game, name in shared:
        summary = summary_of[game.id]
        me = next((p for p in summary.people if p.name == name), None)
        if me is not None:
            tables[game.id] = (me.seats, me.place)
            played.append(dataclasses.replace(game, human_total=me.total))
    if others.total:
        recent = sorted([*records.recent, *played], key=lambda g: g.finished_at, reverse=True)
        records = dataclasses.replace(
            records,
            games_played=records.games_played + others.total,  # every room, not the shown
            recent=tuple(recent[:RECENT_GAMES]),
        )
    return JSONResponse(records_json(records, current, tables))
