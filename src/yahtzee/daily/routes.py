"""``/api/daily`` and ``/api/groups``: the daily challenge (每日挑战) and groups (小组), D2-D6."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from yahtzee.daily.errors import GroupNotFoundError
from yahtzee.daily.service import DailyService
from yahtzee.daily.store import Board, Entry
from yahtzee.i18n import text
from yahtzee.server.jsonbody import EmptyIn, JsonBody, JsonBodyRoute, StrictBody
from yahtzee.server.qr import qr_svg
from yahtzee.server.routers._common import (
    Acting,
    BaseUrl,
    ClientAddress,
    Cpu,
    PlayerId,
    Reader,
    StartingPlayer,
    cost,
    errors,
)
from yahtzee.server.views import GameOut, game_json

router = APIRouter(prefix="/api", tags=["daily"], route_class=JsonBodyRoute)

MAX_LIMIT = 200
# The work budget's units of the costly reads (issue 22; docs/api.md lists them): the
# boards rank every entry of a day or a week, a group's page also each member's trend.
STATUS_COST = 1
BOARD_COST = 2
GROUP_PAGE_COST = 4
QR_COST = 2
GroupId = Annotated[str, Path(pattern=r"^[0-9a-f]{16}$", description="a group's id")]


def daily_service(request: Request) -> DailyService:
    """The process-wide daily service (``app.state.daily``, :data:`FEATURE`)."""
    value: DailyService = request.app.state.daily
    return value


#: The daily service (每日挑战, 小组).
Daily = Annotated[DailyService, Depends(daily_service)]


# -- bodies ----------------------------------------------------------------------------------


class DailyIn(StrictBody):
    """Start today's game. ``name`` sets this browser's board name (needed once);
    ``replace: true`` abandons an unfinished ordinary game (F2)."""

    name: StrictStr | None = None
    replace: StrictBool = False


class NameIn(StrictBody):
    """A display name (1-12 characters, see docs/api.md "Names")."""

    name: StrictStr


class GroupIn(StrictBody):
    """A new group: its ``name`` and the creator's own name in it (default: the board
    name)."""

    name: StrictStr
    your_name: StrictStr | None = None


class TokenIn(StrictBody):
    """An invite link's token, and for a join the name to appear under."""

    token: StrictStr
    name: StrictStr | None = None


# -- responses -------------------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DailyResultOut(_Out):
    """D3: the finished daily game."""

    score: int
    skill_loss: float = Field(description="expected points lost by the choices (L2)")
    accuracy: float = Field(description="0-100 (L3)")
    luck: float
    expert_score: int = Field(description="the expert's own game on the same dice")
    expert_skill_loss: int = Field(description="0 by definition")
    rank: int | None = Field(
        description="on today's board of everyone (equal entries share a place); where it "
        "would stand while the board does not list this browser yet"
    )
    listed: bool = Field(
        description="whether the board of everyone lists this browser's entry (F13: it needs "
        "finished challenges on --board-min-days earlier days)"
    )
    players: int
    board_min_days: int = Field(
        description="the earlier days a browser needs to be listed (--board-min-days): the "
        "page says it while ``listed`` is false (U18)"
    )
    marks: list[Literal["best", "inaccuracy", "mistake", "blunder"]] = Field(
        description="each round's worst mark, 13 of them (D5)"
    )
    mark_names: dict[str, str] = Field(description="each mark's name, in the request's language")
    share: str = Field(description="the spoiler-free text to share (D5)")
    share_squares: dict[str, str] = Field(
        description="mark id -> the square the share text draws for it (the page's legend)"
    )


class DailyOut(_Out):
    """D2: today's challenge for this browser."""

    date: str
    game_id: str | None
    status: Literal["not_started", "in_progress", "finished", "abandoned"]
    result: DailyResultOut | None
    name: str | None = Field(description="this browser's board name (asked once)")


class NameOut(_Out):
    """The canonical name as stored."""

    name: str


class LeaderboardOut(_Out):
    """``GET /api/daily/{date}/leaderboard``: a :class:`~yahtzee.daily.store.Board`
    (``entries``: the top ``limit``; ``you``: this browser's entry even outside them;
    ``players``) with the date, the period and the group it is of."""

    date: str
    period: Literal["day", "week"]
    group: str | None
    entries: list[Entry]
    you: Entry | None
    players: int


class GroupOut(_Out):
    """A group's header as this browser sees it."""

    id: str
    name: str
    members: int
    closed: bool
    creator: bool
    member: bool
    your_name: str | None
    max_members: int


class GroupCreatedOut(_Out):
    """A new group, its invite link and QR code."""

    group: GroupOut
    invite_url: str
    qr_url: str


class GroupsOut(_Out):
    """The browser's groups, newest first."""

    groups: list[GroupOut]


class OneGroupOut(_Out):
    """One group's header."""

    group: GroupOut


class MemberRemovedOut(_Out):
    """A member removed: the group's header and its new invite link (F27; none for a
    closed group), which replaces the old one: share it."""

    group: GroupOut
    invite_url: str | None = None
    qr_url: str | None = None


class MemberOut(_Out):
    """A member; ``member_id`` only for the creator (to remove one)."""

    name: str
    creator: bool
    you: bool
    played_today: bool = Field(description="finished today's challenge")
    member_id: str | None = None


class TrendDayOut(_Out):
    """A day's accuracy."""

    date: str
    accuracy: float


class TrendOut(_Out):
    """One member's accuracy by day (the creator's view)."""

    member_id: str
    name: str
    days: list[TrendDayOut]


class GroupPageOut(_Out):
    """D6: the group page."""

    group: GroupOut
    date: str
    members: list[MemberOut]
    today: Board
    week: Board
    trends: list[TrendOut] | None
    invite_url: str | None = None
    qr_url: str | None = None


# -- the day's game ----------------------------------------------------------------------------


@router.get(
    "/daily",
    response_model=DailyOut,
    responses=errors(429, 503),
    summary="Today's challenge for this browser",
    dependencies=[cost(STATUS_COST)],
)
async def get_daily(player: Acting, daily: Daily, lang: Reader) -> JSONResponse:
    """The date (Asia/Shanghai), this browser's game of the day and its status, and once
    finished the result: score, skill loss, accuracy, luck, the expert's score on the same
    dice, the rank and the text to share (D2, D3, D5), said in the request's language
    (G5)."""
    return JSONResponse(await daily.status(player, lang=lang))


@router.post(
    "/daily",
    status_code=201,
    response_model=GameOut,
    responses={
        200: {"model": GameOut, "description": "the game in progress, continued"},
        **errors(403, 409, 413, 415, 422, 429, 503),
    },
    summary="Start (or continue) today's challenge",
)
async def start_daily(
    body: JsonBody[DailyIn], starting: StartingPlayer, daily: Daily
) -> JSONResponse:
    """A solo game on today's dice, one attempt per browser and day (D2): 201 with the new
    game, 200 with the game in progress; 409 ``already_played`` once finished or abandoned,
    ``name_required`` before the browser has a name, ``game_in_progress`` while an ordinary
    game is unfinished (``replace: true`` abandons it, F2). Hints are off (D3)."""
    player, charges = starting
    view, created = await daily.start(player, name=body.name, replace=body.replace, charges=charges)
    return JSONResponse(game_json(view), status_code=201 if created else 200)


@router.put(
    "/daily/name",
    response_model=NameOut,
    responses=errors(403, 413, 415, 422, 429, 503),
    summary="Set this browser's board name",
)
async def set_name(body: JsonBody[NameIn], player: Acting, daily: Daily) -> JSONResponse:
    """The name shown on the boards (1-12 characters; 422 ``invalid_name``)."""
    return JSONResponse({"name": await daily.set_name(player, body.name)})


@router.get(
    "/daily/{day}/leaderboard",
    response_model=LeaderboardOut,
    responses=errors(404, 422, 429),
    summary="A day's (or its week's) board",
    dependencies=[cost(BOARD_COST)],
)
async def leaderboard(
    player: Acting,
    daily: Daily,
    day: date,
    group: Annotated[str | None, Query(pattern=r"^[0-9a-f]{16}$")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 20,
    period: Literal["day", "week"] = "day",
) -> JSONResponse:
    """D4: entries ordered by skill loss (lowest first), then by score; equal entries
    share a place (F13). ``you`` is this browser's entry and rank even outside the top
    ``limit`` (``listed: false`` while the board of everyone does not list it yet: it
    needs finished challenges on ``--board-min-days`` earlier days, F13). ``period=week``:
    the day's week (Monday-Sunday), ranked by mean accuracy over the days played.
    ``group``: its members only, all of them (404 unless this browser is one)."""
    content = await daily.board(player, day, limit=limit, group_id=group, period=period)
    return JSONResponse(content)


# -- groups ------------------------------------------------------------------------------------


async def _creator(player: PlayerId, daily: Daily, address: ClientAddress) -> str:
    """The player creating a group, charged its own token and its client address's in the
    shared table (F5, F14: groups make the database grow; each limit a setting, K4)."""
    await daily.charge_new_group(player, address)
    return player


async def _joiner(player: PlayerId, daily: Daily) -> str:
    """The player joining a group, charged a token of its joins (F5; a setting, K4)."""
    await daily.charge_join(player)
    return player


#: The player creating a group (``--max-groups-per-hour``, ``-per-address``).
Creator = Annotated[str, Depends(_creator)]
#: The player joining a group (``--max-group-joins-per-hour``).
Joiner = Annotated[str, Depends(_joiner)]


def _invite_url(base: str, token: str) -> str:
    # The token rides in the fragment: browsers never send it, so no log or Referer has it.
    return f"{base}/groups/join#{token}"


@router.post(
    "/groups",
    status_code=201,
    response_model=GroupCreatedOut,
    responses=errors(403, 409, 413, 415, 422, 429, 503),
    summary="Create a group",
)
async def create_group(
    body: JsonBody[GroupIn], player: Creator, svc: Daily, base: BaseUrl
) -> JSONResponse:
    """D6: a group whose creator is its first member; returns the invite link (an
    unguessable token) and the URL of its QR code. 409 ``too_many_groups`` over
    ``--max-open-groups`` open groups, ``name_required`` without a name; 429 over
    ``--max-groups-per-hour`` (per player) or ``--max-groups-per-hour-per-address``."""
    group_id = await svc.create_group(player, body.name, body.your_name)
    return JSONResponse(await _created(base, svc, group_id, player), status_code=201)


async def _created(base: str, svc: DailyService, group_id: str, player: str) -> dict[str, Any]:
    group = await svc.store.group(group_id, player)
    token = await svc.invite_token(group_id, player)
    assert group is not None
    assert token is not None
    return {
        "group": svc.group_json(group),
        "invite_url": _invite_url(base, token),
        "qr_url": f"/api/groups/{group_id}/qr.svg",
    }


@router.get("/groups", response_model=GroupsOut, summary="This browser's groups")
async def my_groups(player: Acting, daily: Daily) -> JSONResponse:
    """The groups this browser created or joined, newest first."""
    return JSONResponse({"groups": await daily.groups(player)})


@router.post(
    "/groups/lookup",
    response_model=OneGroupOut,
    responses=errors(403, 404, 413, 415, 422, 429),
    summary="What an invite link opens",
)
async def lookup(body: JsonBody[TokenIn], player: Acting, daily: Daily) -> JSONResponse:
    """The group of an invite token, before joining (404 for a dead or unknown token)."""
    return JSONResponse({"group": await daily.lookup(body.token, player)})


@router.post(
    "/groups/join",
    response_model=OneGroupOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Join a group by its invite token",
)
async def join(body: JsonBody[TokenIn], player: Joiner, daily: Daily) -> JSONResponse:
    """Join under ``name`` (default: the board name); joining again changes the name.
    409 ``group_full`` (``--max-group-members``), ``group_closed``, ``name_taken``
    (another member's name as people see it, F25); 404 for a dead token; 429 over
    ``--max-group-joins-per-hour``."""
    return JSONResponse({"group": await daily.join(body.token, player, body.name)})


@router.get(
    "/groups/{group_id}",
    response_model=GroupPageOut,
    responses=errors(404, 422, 429),
    summary="A group's page",
    dependencies=[cost(GROUP_PAGE_COST)],
)
async def group_page(group_id: GroupId, player: Acting, svc: Daily, base: BaseUrl) -> JSONResponse:
    """Members, today's and this week's boards of the members and, for the creator, each
    member's accuracy by day over four weeks and the invite link (404 for non-members)."""
    content = await svc.group_page(group_id, player)
    if content["group"]["creator"] and not content["group"]["closed"]:
        token = await svc.invite_token(group_id, player)
        if token is not None:
            content["invite_url"] = _invite_url(base, token)
            content["qr_url"] = f"/api/groups/{group_id}/qr.svg"
    return JSONResponse(content)


@router.get(
    "/groups/{group_id}/qr.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}, **errors(403, 404, 429)},
    summary="The invite link as a QR code (SVG)",
    dependencies=[cost(QR_COST)],
)
async def group_qr(
    group_id: GroupId, cpu: Cpu, player: Acting, svc: Daily, base: BaseUrl, lang: Reader
) -> Response:
    """The creator's invite link as a QR code (segno), for a class to scan."""
    token = await svc.invite_token(group_id, player)
    if token is None:
        raise GroupNotFoundError(group_id)
    return Response(
        await cpu(qr_svg, _invite_url(base, token), text(lang, "server.qr.group_invite")),
        media_type="image/svg+xml",
        headers={"cache-control": "private, no-store"},
    )


@router.post(
    "/groups/{group_id}/invite",
    response_model=GroupCreatedOut,
    responses=errors(403, 404, 409, 413, 415, 429, 503),
    summary="A new invite link (the old one stops)",
)
async def new_invite(
    group_id: GroupId, _: JsonBody[EmptyIn], player: Acting, svc: Daily, base: BaseUrl
) -> JSONResponse:
    """The creator replaces a leaked link; the old token is revoked at once."""
    await svc.new_invite(group_id, player)
    return JSONResponse(await _created(base, svc, group_id, player))


@router.post(
    "/groups/{group_id}/leave",
    response_model=OneGroupOut,
    responses=errors(403, 404, 409, 413, 415, 429, 503),
    summary="Leave a group (your entries leave its boards)",
)
async def leave(
    group_id: GroupId, _: JsonBody[EmptyIn], player: Acting, daily: Daily
) -> JSONResponse:
    """A member leaves; the creator closes the group instead (409)."""
    return JSONResponse({"group": await daily.leave(group_id, player)})


@router.post(
    "/groups/{group_id}/close",
    response_model=OneGroupOut,
    responses=errors(403, 404, 413, 415, 429, 503),
    summary="Close a group (creator)",
)
async def close(
    group_id: GroupId, _: JsonBody[EmptyIn], player: Acting, daily: Daily
) -> JSONResponse:
    """No more joins; the invite link stops. The boards stay for the members."""
    return JSONResponse({"group": await daily.close(group_id, player)})


@router.delete(
    "/groups/{group_id}/members/{member_id}",
    response_model=MemberRemovedOut,
    responses=errors(403, 404, 429, 503),
    summary="Remove a member (creator)",
)
async def remove_member(
    group_id: GroupId,
    member_id: Annotated[str, Path(pattern=r"^[0-9a-f]{16}$")],
    player: Acting,
    daily: Daily,
    base: BaseUrl,
) -> JSONResponse:
    """The creator removes a member (their entries leave the group's boards). The invite
    link is renewed with it (F27: the removed browser's fresh cookie cannot come back
    with the old one; the others stay): the answer carries the new one to share."""
    content: dict[str, Any] = {"group": await daily.remove(group_id, player, member_id)}
    token = await daily.invite_token(group_id, player)
    if token is not None:
        content["invite_url"] = _invite_url(base, token)
        content["qr_url"] = f"/api/groups/{group_id}/qr.svg"
    return JSONResponse(content)
