"""``/api/rooms``: 好友房间 — a table game played from several browsers, live (O1-O9)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from yahtzee.i18n import Lang, msg, text
from yahtzee.rooms.service import RoomService
from yahtzee.rooms.stream import RoomEventStream
from yahtzee.server.errors import ApiError, request_language
from yahtzee.server.jsonbody import EmptyIn, JsonBody, JsonBodyRoute, StrictBody
from yahtzee.server.qr import qr_svg
from yahtzee.server.routers._common import (
    Acting,
    BaseUrl,
    ClientAddress,
    Cpu,
    PlayerDevice,
    PlayerId,
    Reader,
    cost,
    errors,
)

router = APIRouter(prefix="/api/rooms", tags=["rooms"], route_class=JsonBodyRoute)

#: The QR code's share of the work budget (docs/api.md), as a group's QR code.
QR_COST = 2
# The reads a page can repeat (F14): a room, the browser's rooms.
ROOM_COST = 1
LIST_COST = 1

RoomId = Annotated[str, Path(pattern=r"^[0-9a-f]{16}$", description="a room's id")]
Token = Annotated[
    str | None,
    Query(max_length=64, description="the invite or watch link's token (not for seat holders)"),
]


def rooms(request: Request) -> RoomService:
    """The process-wide rooms service (``app.state.rooms``, :data:`FEATURE`)."""
    value: RoomService = request.app.state.rooms
    return value


#: The rooms service (好友房间).
Rooms = Annotated[RoomService, Depends(rooms)]


def answer_language(request: Request) -> Lang:
    """The language to answer in: the request's ``Accept-Language``, as its errors (G1)."""
    return request_language(request.scope)


#: The language of the answer's words (a nudge's message, W4).
AnswerLanguage = Annotated[Lang, Depends(answer_language)]


# -- bodies ----------------------------------------------------------------------------------


class NewRoomIn(StrictBody):
    """A new room: the seats as a table game's, the creator's person seat first (its
    ``name``, or ``name`` here), the other person seats open (``{"kind": "human"}``); its
    ``pace`` (W1: ``live``, the default, with ``turn_seconds``; or a turn that waits
    ``1h``, ``12h``, ``1d``, ``3d``, ``7d``, or ``none``: no clock); or, with ``race_days``
    (1, 3 or 7) and no pace, a race on the same dice (W5)."""

    seats: Any
    turn_seconds: StrictInt | None = None
    name: StrictStr | None = None
    pace: Any = None
    race_days: Any = None


class SeenIn(StrictBody):
    """The last event of the room this browser's seat has seen (W3)."""

    event_id: Annotated[int, Field(ge=0, strict=True)]


class JoinIn(StrictBody):
    """Take a seat: the invite link's ``token`` and the name to play under."""

    token: StrictStr
    name: Any = None


class SeatIn(StrictBody):
    """A seat's index (the creator removes its person)."""

    seat: Annotated[int, Field(ge=0, le=5, strict=True)]


class HoldIn(StrictBody):
    """The dice the seat on turn holds now (five booleans)."""

    hold: Annotated[list[StrictBool], Field(min_length=5, max_length=5)]


class ReactionIn(StrictBody):
    """One of the fixed quick reactions (``GET /api/config``'s ``rooms.reactions``)."""

    reaction: StrictStr


# -- responses -------------------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReactionOut(_Out):
    """A quick reaction of 好友房间 (O6): its id and the catalog key of what is shown."""

    id: str
    name_key: str = Field(description="its catalog key (G1): the page says it")


class TurnSecondsOut(_Out):
    """A room's turn time (O5)."""

    min: int
    max: int
    default: int


class PaceOut(_Out):
    """A room's pace (W1): its id and a turn's seconds (null: live, whose turn is
    ``turn_seconds``; or no clock, ``none``)."""

    id: str
    seconds: int | None


class RoomsConfigOut(_Out):
    """好友房间's fixed reactions, paces and turn times."""

    reactions: list[ReactionOut]
    paces: list[PaceOut] = Field(description="the paces a room is made with (W1), in order")
    idle_days: int = Field(description="a waiting room nobody plays this long is finished")
    turn_seconds: TurnSecondsOut
    countdown_seconds: int = Field(description="the countdown is shown in a turn's last seconds")
    away_grace_seconds: float = Field(description="an away (autoplay) seat's turn is played after")
    race_days: list[int] = Field(description="the lengths a race is made with, in days (W5)")


class RoomSeatOut(_Out):
    """A seat: who sits there (``name`` null while open), ``you`` for this browser's."""

    index: int
    kind: Literal["human", "computer"]
    name: str | None
    difficulty: str | None
    taken: bool
    you: bool
    away: bool = Field(description="autoplay: the computer plays this person's turns (O5)")


class RoomBodyOut(_Out):
    """O1's room object."""

    id: str
    invite_url: str | None = Field(description="the join link: for seat holders only (F7)")
    watch_url: str | None = Field(description="the watch link: for seat holders only (F7)")
    qr_url: str | None = Field(description="the invite's QR code: for seat holders only")
    status: Literal["waiting", "starting", "playing", "finished", "expired"]
    pace: str = Field(description="live, 1h, 12h, 1d, 3d, 7d or none (W1); race (W5)")
    turn_seconds: int | None = Field(description="a turn's seconds (null: no clock)")
    creator: bool
    your_seat: int | None
    seats: list[RoomSeatOut]
    game_id: str | None
    game: dict[str, Any] | None = Field(
        description="the game object, with every turn (an event's game has the last round's)"
    )
    deadline: float | None = Field(description="when the turn on comes to autoplay (epoch s)")
    now: float = Field(description="the server's clock, to count down against")
    last_event_id: int
    seen_event_id: int | None = Field(
        description="the last event this browser's seat saw (W3; null: no seat)"
    )
    rematch_id: str | None
    race: dict[str, Any] | None = Field(
        description="a race's (W5): its length, end, your game, each seat's progress and, "
        "once over, the ranking; null for any other room"
    )


class RoomOut(_Out):
    """``{"room": ...}``."""

    room: RoomBodyOut


class RoomRemovedOut(_Out):
    """A seat freed by the creator: the room, with its new links (F27)."""

    room: RoomBodyOut
    links_renewed: bool = Field(
        description="always true: the old invite and watch links open nothing any more "
        "(a removed browser's fresh cookie cannot rejoin with them); share the new ones"
    )


class RoomsOut(_Out):
    """The rooms this browser has a seat in."""

    rooms: list[dict[str, Any]]


class TurnSeatOut(_Out):
    """A seat of a room game in 「轮到你了」."""

    index: int
    kind: Literal["human", "computer"]
    name: str | None
    difficulty: str | None
    away: bool
    you: bool


class TurnGameOut(_Out):
    """A room game in play of this player (W2), or a race whose seat game it has not
    finished (W5)."""

    room_id: str
    game_id: str = Field(description="the room's game; a race's: this player's own")
    url: str = Field(description="the room's page, a race's /races/<id> (a path of this server)")
    pace: str
    round: int = Field(description="1-13 (a race's: this player's own)")
    turn: int = Field(description="the seat on turn (a race's: this player's)")
    your_seat: int
    your_turn: bool = Field(description="always true in a race: nobody waits for anybody")
    deadline: float | None = Field(
        description="when the turn on goes to autoplay (null: no clock); a race's end"
    )
    new_events: int = Field(description="events of the room since this seat last looked (W3)")
    kind: Literal["room", "race"]
    rounds: int | None = Field(description="a race's: the rounds this player played (0-12)")
    seats: list[TurnSeatOut]


class TurnsOut(_Out):
    """「轮到你了」 (W2): this player's room games in play, its own turns first, then the
    soonest deadline."""

    games: list[TurnGameOut]
    your_turns: int = Field(description="how many wait for this player (the badge's number)")
    now: float = Field(description="the server's clock, to count down against")


class SeenOut(_Out):
    """The seat's marker after the request (it only moves forward)."""

    seen_event_id: int


class NudgeOut(_Out):
    """「提醒他」 (W4): a message for any messenger, with the room's address."""

    seat: int
    name: str | None
    url: str = Field(description="the room's page; its seat holder opens it as it is")
    text: str = Field(description="the message to share, in the request's language")
    deadline: float | None
    next_nudge_at: float = Field(description="when this seat may be nudged again")


def _absolute(base: str, content: dict[str, Any]) -> dict[str, Any]:
    """The room's links as absolute URLs of this server (``base``); the tokens ride in
    the fragment, which browsers never send (no log or Referer has them). Only a seat
    holder's room has links (F7): anyone else's stay null, the QR code's too."""
    seated = content["invite_url"] is not None
    if seated:
        content["invite_url"] = base + content["invite_url"]
        content["watch_url"] = base + content["watch_url"]
    content["qr_url"] = f"/api/rooms/{content['id']}/qr.svg" if seated else None
    return {"room": content}


@router.post(
    "",
    status_code=201,
    response_model=RoomOut,
    responses=errors(403, 409, 413, 415, 422, 429, 503),
    summary="Open a friends' room",
)
async def create_room(
    svc: Rooms, player: Acting, body: JsonBody[NewRoomIn], address: ClientAddress, base: BaseUrl
) -> JSONResponse:
    """O1: a room of a table game's seats, the creator in the first, at its pace (W1);
    409 ``too_many_rooms`` at 5 open live rooms, ``too_many_waiting_rooms`` in 20 waiting
    ones, 429 over 30 rooms an hour per address, 422 ``invalid_seats`` / ``invalid_name``
    / ``invalid_pace``."""
    content = await svc.create(
        player, address, body.seats, body.turn_seconds, body.name, body.pace, body.race_days
    )
    return JSONResponse(_absolute(base, content), status_code=201)


@router.get(
    "",
    response_model=RoomsOut,
    responses=errors(429),
    summary="This browser's rooms",
    dependencies=[cost(LIST_COST)],
)
async def my_rooms(svc: Rooms, player: PlayerId) -> JSONResponse:
    """The rooms this browser has a seat in, newest first (a read a page can repeat: it
    has a cost in the work budget, F14)."""
    return JSONResponse({"rooms": await svc.rooms_of(player)})


@router.get(
    "/turns",
    response_model=TurnsOut,
    responses=errors(429),
    summary="Your turns: this player's room games in play",
    dependencies=[cost(LIST_COST)],
)
async def my_turns(svc: Rooms, player: PlayerId) -> JSONResponse:
    """W2: every room game in play this player holds a seat of (its linked devices are
    one player), its own turns first, then the soonest deadline; ``your_turns`` counts
    the games waiting for it. A read a page repeats: 1 unit of the work budget (F14)."""
    return JSONResponse(await svc.turns(player))


@router.get(
    "/{room_id}",
    response_model=RoomOut,
    responses=errors(403, 404, 429),
    summary="A room",
    dependencies=[cost(ROOM_COST)],
)
async def get_room(
    room_id: RoomId, svc: Rooms, player: PlayerId, base: BaseUrl, token: Token = None
) -> JSONResponse:
    """The room for a seat holder, or with its invite or watch token (404 otherwise; 403
    ``removed_from_room`` for a browser its creator removed). The links are shown to its
    seat holders only (F7)."""
    return JSONResponse(_absolute(base, await svc.room(room_id, player, token)))


@router.post(
    "/{room_id}/join",
    response_model=RoomOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Take a seat (the invite link)",
)
async def join_room(
    room_id: RoomId, svc: Rooms, player: Acting, body: JsonBody[JoinIn], base: BaseUrl
) -> JSONResponse:
    """O2: the first open person seat for this browser (the same seat again if it has
    one); 409 ``room_full``, ``already_started``, ``name_taken``; 404 for a wrong token."""
    content = await svc.join(room_id, player, body.token, body.name)
    return JSONResponse(_absolute(base, content))


@router.post(
    "/{room_id}/remove",
    response_model=RoomRemovedOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Free a seat before the start (the creator)",
)
async def remove_seat(
    room_id: RoomId, svc: Rooms, player: Acting, body: JsonBody[SeatIn], base: BaseUrl
) -> JSONResponse:
    """O2: the creator frees a person seat; 403 ``not_room_creator`` for anyone else. The
    room's links are renewed with it (F27): the answer's room has the new ones, and
    ``links_renewed`` says to share them (``leave`` and ``links`` events)."""
    content = _absolute(base, await svc.remove(room_id, player, body.seat))
    return JSONResponse({**content, "links_renewed": True})


@router.post(
    "/{room_id}/links",
    response_model=RoomOut,
    responses=errors(403, 404, 413, 415, 429, 503),
    summary="New invite and watch links (the creator)",
)
async def renew_links(
    room_id: RoomId, svc: Rooms, player: Acting, _: JsonBody[EmptyIn], base: BaseUrl
) -> JSONResponse:
    """F7: new tokens for both links; the old ones open nothing any more (a ``links``
    event, without tokens, tells the pages); 403 ``not_room_creator`` for anyone else."""
    return JSONResponse(_absolute(base, await svc.renew_links(room_id, player)))


@router.post(
    "/{room_id}/start",
    response_model=RoomOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Start the room's game (the creator)",
)
async def start_room(
    room_id: RoomId, svc: Rooms, player: Acting, _: JsonBody[EmptyIn], base: BaseUrl
) -> JSONResponse:
    """O2: the table game of the seats taken (open person seats are dropped); 403
    ``not_room_creator``, 409 ``already_started`` or ``room_not_ready``."""
    return JSONResponse(_absolute(base, await svc.start(room_id, player)))


@router.post(
    "/{room_id}/hold",
    status_code=204,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Show the dice held (the seat on turn)",
)
async def hold_dice(
    room_id: RoomId, svc: Rooms, player: Acting, body: JsonBody[HoldIn]
) -> Response:
    """O4: the others see which dice the seat on turn holds before it rolls. Each hold
    is an event sent to every stream of the room: at most ``--max-room-holds-per-second``
    per player (429 past it, nothing sent; the roll carries the dice held anyway)."""
    await svc.hold(room_id, player, body.hold)
    return Response(status_code=204)


@router.post(
    "/{room_id}/react",
    status_code=204,
    responses=errors(403, 404, 413, 415, 422, 429, 503),
    summary="A quick reaction (one of /api/config's rooms.reactions)",
)
async def react(
    room_id: RoomId, svc: Rooms, player: Acting, body: JsonBody[ReactionIn]
) -> Response:
    """O6: one of the fixed reactions, at most one a second per seat (429)."""
    await svc.react(room_id, player, body.reaction)
    return Response(status_code=204)


@router.post(
    "/{room_id}/back",
    status_code=204,
    responses=errors(403, 404, 413, 415, 429, 503),
    summary="I'm back: take the seat back from autoplay",
)
async def back(room_id: RoomId, svc: Rooms, player: Acting, _: JsonBody[EmptyIn]) -> Response:
    """O5: an away person plays their own turns again."""
    await svc.back(room_id, player)
    return Response(status_code=204)


@router.post(
    "/{room_id}/rematch",
    response_model=RoomOut,
    responses=errors(403, 404, 409, 413, 415, 429, 503),
    summary="Play again: a new room with the same seats",
)
async def rematch(
    room_id: RoomId,
    svc: Rooms,
    player: Acting,
    _: JsonBody[EmptyIn],
    address: ClientAddress,
    base: BaseUrl,
) -> JSONResponse:
    """O7: the same seats, every person already seated; once per room (everyone who
    asks gets the same new room, announced by a ``rematch`` event)."""
    content = await svc.rematch(room_id, player, address)
    return JSONResponse(_absolute(base, content))


@router.post(
    "/{room_id}/seen",
    response_model=SeenOut,
    responses=errors(403, 404, 413, 415, 422, 429, 503),
    summary="The last event this seat has seen (W3)",
)
async def seen(room_id: RoomId, svc: Rooms, player: Acting, body: JsonBody[SeenIn]) -> JSONResponse:
    """W3: what this browser's seat has seen of the room (after replaying what happened
    while it was away); the room's ``seen_event_id`` and the turns marked ``new`` follow
    it. It only moves forward, and never past the room's last event."""
    return JSONResponse({"seen_event_id": await svc.seen(room_id, player, body.event_id)})


@router.post(
    "/{room_id}/nudge",
    response_model=NudgeOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Nudge: a message for the friend whose turn it is",
)
async def nudge(
    room_id: RoomId,
    svc: Rooms,
    player: Acting,
    body: JsonBody[SeatIn],
    address: ClientAddress,
    base: BaseUrl,
    lang: AnswerLanguage,
) -> JSONResponse:
    """W4: a short message with the room's address for the person of ``seat``, whose
    turn it is, to send by any messenger (Web Share, copy or a QR code on the page); by a
    seat holder; at most once an hour per seat (429 ``nudge_too_soon`` with
    ``Retry-After``), ``--max-room-nudges-per-hour`` per player and
    ``--max-room-nudges-per-hour-per-address`` (429 ``rate_limited``); 409
    ``not_their_turn`` for a seat that is not a friend on turn."""
    out = await svc.nudge(room_id, player, body.seat, address, base)
    out["text"] = out["text"].render(lang)
    return JSONResponse(out)


@router.get(
    "/{room_id}/qr.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}, **errors(404, 429, 503)},
    summary="The invite link as a QR code (SVG)",
    dependencies=[cost(QR_COST)],
)
async def room_qr(
    room_id: RoomId, svc: Rooms, player: PlayerId, cpu: Cpu, base: BaseUrl, lang: Reader
) -> Response:
    """O8: the invite link as a QR code (segno), for a seat holder to show; made in the
    CPU pool, charged to the work budget (429 past it)."""
    content = await svc.room(room_id, player)
    url = _absolute(base, content)["room"]["invite_url"]
    return Response(
        await cpu(qr_svg, url, text(lang, "server.qr.room_invite")),
        media_type="image/svg+xml",
        headers={"cache-control": "private, no-store"},
    )


def last_event_id(header: str | None, after: int | None) -> int:
    """The last event the client has: ``Last-Event-ID`` (an EventSource's reconnection),
    else ``?after=``, else none (0)."""
    if header is not None and header.strip() != "":
        value = header.strip()
        if not value.isdigit() or len(value) > 12:
            raise ApiError(
                422, "invalid_request", msg("error.room.last_event_id", value=repr(value[:20]))
            )
        return int(value)
    return after or 0


async def event_stream(
    svc: RoomService,
    room_id: str,
    player: str,
    address: str,
    token: str | None,
    start: int,
    device: str = "",
) -> RoomEventStream:
    """The room's stream for this browser, after its checks (a seat or a token, the
    stream caps, F9): :class:`~yahtzee.rooms.stream.RoomEventStream`, one coroutine
    and one disconnection waiter a stream (O9's memory target); it ends when ``device``
    does (F23)."""
    sub = await svc.open_stream(room_id, player, address, token, device)
    return RoomEventStream(svc.hub, sub, start)


@router.get(
    "/{room_id}/events",
    response_class=Response,
    responses={200: {"content": {"text/event-stream": {}}}, **errors(403, 404, 422, 429)},
    summary="The room's live events (Server-Sent Events)",
)
async def room_events(
    room_id: RoomId,
    svc: Rooms,
    me: PlayerDevice,
    address: ClientAddress,
    token: Token = None,
    after: Annotated[
        int | None, Query(ge=0, description="the last event id the client has")
    ] = None,
    last_event: Annotated[
        str | None,
        Header(alias="last-event-id", description="an EventSource's reconnection"),
    ] = None,
) -> RoomEventStream:
    """O4: every change of the room as an event whose ``id`` orders the room; with
    ``Last-Event-ID`` (or ``?after=``) exactly the events after it, then the live ones.
    For seat holders and the holders of a link; 429 ``too_many_streams`` past a cap (F9:
    a room's watchers, a browser's or an address's streams); the server ends a stream
    after its lifetime (reconnect with ``Last-Event-ID``). (Served by
    :class:`~yahtzee.rooms.fastpath.RoomStreamPath`, with the same checks.)"""
    start = last_event_id(last_event, after)
    player, device = me
    return await event_stream(svc, room_id, player, address, token, start, device)
