"""``/api/devices`` and ``/api/me``: 我的设备 (I1–I4, F20–F23). Same-origin JSON for every
POST (F3, the middleware's), every route in the work budget (docs/api.md lists the costs).
Every route reads its device from the database, not the process's memory (F23)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from yahtzee.devices.errors import ConfirmationNeededError
from yahtzee.devices.service import DeviceService, data_url
from yahtzee.devices.store import SIGNED_OUT
from yahtzee.devices.store import Request as WaitingRequest
from yahtzee.i18n import Lang, render, text
from yahtzee.server.jsonbody import JsonBody, JsonBodyRoute, StrictBody
from yahtzee.server.middleware import device_of, visitor_of
from yahtzee.server.qr import qr_svg
from yahtzee.server.routers._common import (
    BaseUrl,
    ClientAddress,
    Cpu,
    Reader,
    cost,
    errors,
    guard,
    requester,
)

router = APIRouter(prefix="/api", tags=["devices"], route_class=JsonBodyRoute)

# The work budget's units (issue 22): a list is a read; a code, a link or a removal a
# write or two; the QR code ~5 ms of CPU; the export reads every row of the player; the
# deletion writes them all.
LIST_COST = 1
CODE_COST = 3
LINK_COST = 2
EXPORT_COST = 10
ERASE_COST = 10
#: The export's charge by its size, once it is known (F22): a unit per this many bytes
#: of the file, the route's fixed cost covering the first ones (a 400-game player's
#: 2.3 MB: 23 units in all, about what it costs to build).
EXPORT_BYTES_PER_UNIT = 100_000
#: The page's address that a link code's QR code opens (the code in the fragment, which
#: browsers never send: no log or Referer has it).
LINK_PATH = "/devices#code="

DeviceId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{22}$", description="a device's id")]
RequestId = Annotated[str, Path(pattern=r"^[0-9a-f]{16}$", description="a waiting request's id")]


def devices(request: Request) -> DeviceService:
    """The process-wide devices service."""
    value: DeviceService = request.app.state.devices
    return value


async def this_device(request: Request) -> tuple[str, str]:
    """The request's (player id, device id) as the database has them now (F23: a device
    removed on another process a moment ago is a stranger here already), a stranger's
    newly issued."""
    return await device_of(request.scope, fresh=True)


def sign_out_hook(request: Request) -> Callable[[], None]:
    """Clears this browser's cookie in the answer (「退出这台设备」), saying why."""
    return lambda: visitor_of(request.scope).sign_out(SIGNED_OUT)


def owe_hook(request: Request) -> Callable[[int], None]:
    """Charges the requester's work budget for work already done (a cost by size)."""
    return lambda units: guard(request).work.owe(requester(request), units)


Devices = Annotated[DeviceService, Depends(devices)]
ThisDevice = Annotated[tuple[str, str], Depends(this_device)]
SignOut = Annotated[Callable[[], None], Depends(sign_out_hook)]
Owe = Annotated[Callable[[int], None], Depends(owe_hook)]


# -- bodies -----------------------------------------------------------------------------


class CodeIn(StrictBody):
    """A code as typed (any case; spaces and hyphens ignored) and, when this device's
    player keeps games of its own, whether to merge them into the code's player; when that
    player has a recovery code, it too (F20: moving a player needs it)."""

    code: StrictStr
    merge: StrictBool = False
    recovery_code: StrictStr | None = None


class ConfirmIn(StrictBody):
    """``{"confirm": true}``: the page asked twice."""

    confirm: StrictBool = False


class ProofIn(StrictBody):
    """The player's current recovery code, to act at once (F20); without it, what could
    lock the owner out waits 72 hours in view of every device of the player."""

    recovery_code: StrictStr | None = None


class EraseIn(StrictBody):
    """``{"confirm": true}`` (the page asked twice) and the proof of :class:`ProofIn`."""

    confirm: StrictBool = False
    recovery_code: StrictStr | None = None


# -- responses --------------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DeviceOut(_Out):
    """One live device of the player."""

    id: str
    name: str = Field(
        description="from its User-Agent (a phone's Chrome), in the request's language"
    )
    created_at: float = Field(description="seconds since the epoch")
    seen_at: float = Field(description="last request (to within 5 minutes)")
    this: bool = Field(description="the device of this request")
    via: str = Field(description="how it came to the player: new, link or recovery")
    joined_at: float = Field(description="when it came to the player")
    new: bool = Field(
        description="came in by a code in the last 7 days, not yet confirmed (the page asks: "
        "is this you?)"
    )
    at_once: bool = Field(description="this device removes it at once, without proof")


class RecoveryMadeOut(_Out):
    """When the player's recovery code was made (the code itself is never shown again)."""

    created_at: float


class RequestOut(_Out):
    """A request that waits (F20): carried out at ``due_at`` unless a device refuses it."""

    id: str
    kind: str = Field(description="remove_device, erase, recovery_new or recovery_remove")
    target: str | None = Field(description="the device to remove")
    target_name: str | None
    by_name: str | None = Field(description="the name of the device that asked")
    mine: bool = Field(description="asked by this device")
    created_at: float
    due_at: float


class DevicesOut(_Out):
    """``GET /api/devices``."""

    devices: list[DeviceOut]
    recovery_code: RecoveryMadeOut | None
    requests: list[RequestOut]
    new_days: int = Field(description="how long a device that came in by a code is new")
    wait_hours: int = Field(description="how long a request without the recovery code waits")
    pending: RequestOut | None = Field(
        default=None, description="the request this answer's action now waits as (202)"
    )


class PendingOut(_Out):
    """A protected action asked without the recovery code: it now waits."""

    pending: RequestOut


class LinkCodeOut(_Out):
    """A new one-time link code (I1)."""

    code: str = Field(description="10 letters as ABCDE-FGHJK (no 0/O/1/I/L)")
    expires_at: float
    seconds: int = Field(description="its life")
    url: str = Field(description="the link the QR code holds (the code in the fragment)")
    qr: str = Field(description="the QR code of url, a data: URL of an SVG image")


class RecoveryCodeOut(_Out):
    """A new recovery code (I2): shown this once; the old one stops working (or, asked
    without it, when the wait is over: ``pending``)."""

    code: str = Field(description="20 letters as ABCD-EFGH-JKMN-PQRS-TUVW")
    created_at: float
    qr: str = Field(description="the code as a QR code (to save as a picture)")
    pending: RequestOut | None = Field(description="it takes effect when this is carried out")


class LeftOutOut(_Out):
    """What a merge gave up to keep a per-player cap (F27)."""

    cap: Literal["open_rooms", "room_seat", "open_groups", "waiting_rooms"]
    done: Literal["room_closed", "seat_freed", "group_handed_over", "group_closed"]
    id: str = Field(description="the room's or the group's id")
    message: str = Field(description="what was done: one sentence, the request's language")


class LinkedOut(_Out):
    """A redeemed code: this device is now the code's player's."""

    linked: bool
    merged: bool = Field(description="this device's own games moved into the player")
    devices: int = Field(description="how many devices moved (every one of the old player)")
    left_out: list[LeftOutOut] = Field(
        description="what the merge gave up to keep the per-player caps (F27): empty "
        "unless the two players together were over one"
    )


class ErasedOut(_Out):
    """Everything of the player deleted (or, asked without the recovery code, waiting)."""

    erased: bool
    devices: int = Field(description="devices that are strangers from now on")
    pending: RequestOut | None = Field(default=None, description="the deletion that waits")


class SignedOutOut(_Out):
    """This device ended; the answer clears its cookie."""

    signed_out: bool


class SummaryOut(_Out):
    """The export's summary, for a parent to read."""

    games: int
    finished_games: int
    best_score: int | None
    groups: int
    devices: int
    room_games: int


class ExportOut(_Out):
    """``GET /api/me/export``: everything kept about the player (docs/api.md); every time
    ISO 8601 in UTC."""

    format: str
    player_id: str
    exported_at: str
    summary: SummaryOut
    games: list[dict[str, Any]]
    daily: dict[str, Any]
    practice: dict[str, Any]
    rooms: dict[str, Any]
    settings: dict[str, Any] = Field(description="the language chosen (G3), if any")
    push: dict[str, Any] = Field(
        description="reminders (W4): the devices' subscriptions, the quiet hours, when the "
        "player was last reminded about what"
    )
    devices: list[dict[str, Any]]
    recovery_code: dict[str, Any] | None
    link_codes: list[dict[str, Any]]
    requests: list[dict[str, Any]]


# -- routes -----------------------------------------------------------------------------


def _pending(svc_overview: dict[str, Any], request: WaitingRequest) -> dict[str, Any]:
    """The overview's entry of ``request`` (as :class:`RequestOut`)."""
    return next(r for r in svc_overview["requests"] if r["id"] == request.id)


async def _said_overview(svc: DeviceService, me: tuple[str, str], lang: Lang) -> dict[str, Any]:
    """The devices page's object, its devices' names said in ``lang`` (G2)."""
    player, device = me
    body: dict[str, Any] = render(await svc.overview(player, device), lang)
    return body


async def _overview(
    svc: DeviceService, me: tuple[str, str], lang: Lang, pending: WaitingRequest | None = None
) -> JSONResponse:
    """The devices page's object in ``lang``; 202 when ``pending`` now waits (it is among
    its ``requests``)."""
    body = await _said_overview(svc, me, lang)
    if pending is None:
        return JSONResponse(body)
    return JSONResponse({**body, "pending": _pending(body, pending)}, status_code=202)


@router.get(
    "/devices",
    response_model=DevicesOut,
    responses=errors(429, 503),
    summary="This player's devices",
    dependencies=[cost(LIST_COST)],
)
async def list_devices(me: ThisDevice, svc: Devices, lang: Reader) -> JSONResponse:
    """I3: every live device of the player (this one marked ``this``; ``new`` the
    newcomers of the last 7 days: 这是你吗？), most recently seen first, its waiting
    requests (F20; those whose wait is over are carried out first) and when its recovery
    code was made."""
    return await _overview(svc, me, lang)


@router.post(
    "/devices/code",
    status_code=201,
    response_model=LinkCodeOut,
    responses=errors(403, 413, 415, 422, 429, 503),
    summary="A new one-time link code",
    dependencies=[cost(CODE_COST)],
)
async def new_link_code(
    _body: JsonBody[ConfirmIn],
    me: ThisDevice,
    svc: Devices,
    cpu: Cpu,
    base: BaseUrl,
    lang: Reader,
) -> JSONResponse:
    """I1: a code another device types (or its QR code's link) to become this player;
    single use, good for ``link_code_minutes``; the player's earlier code ends. 429 past
    ``max_link_codes_per_hour``."""
    player, _ = me
    code, expires = await svc.new_link_code(player)
    url = base + LINK_PATH + code
    svg = await cpu(qr_svg, url, text(lang, "server.qr.device_link"))
    seconds = round(60 * svc.limits.link_code_minutes)
    body = {"code": code, "expires_at": expires, "seconds": seconds, "url": url}
    return JSONResponse({**body, "qr": data_url(svg)}, status_code=201)


async def _redeem(
    body: CodeIn,
    me: tuple[str, str],
    svc: DeviceService,
    address: str,
    lang: Lang,
    *,
    recovery: bool,
) -> JSONResponse:
    player, device = me
    linked = await svc.redeem(
        player,
        device,
        body.code,
        recovery=recovery,
        merge=body.merge,
        address=address,
        proof=body.recovery_code,
    )
    left_out = [
        {"cap": n.cap, "done": n.done, "id": n.id, "message": n.message.render(lang)}
        for n in linked.left_out
    ]
    return JSONResponse(
        {"linked": True, "merged": body.merge, "devices": len(linked.devices), "left_out": left_out}
    )


@router.post(
    "/devices/link",
    response_model=LinkedOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Link this device by a code",
    dependencies=[cost(LINK_COST)],
)
async def link(
    body: JsonBody[CodeIn],
    me: ThisDevice,
    svc: Devices,
    address: ClientAddress,
    lang: Reader,
) -> JSONResponse:
    """I1: this device becomes the code's player's, with its own player (its data with
    ``merge``, its other devices) when that cannot take the player from its owner (F20). 404
    ``invalid_code`` (unknown, used, expired: one answer); 409 ``choose_merge`` when this
    device's player keeps games of its own (nothing changes; again with ``merge: true``
    to move them into the code's player), ``both_unfinished``, ``already_linked``,
    ``other_devices``, ``merge_over_limit`` (F27: a cap nothing could be given up for;
    ``left_out`` lists what was given up for the others); 403 ``recovery_code_needed`` /
    ``wrong_recovery_code`` when this device's player has a recovery code. Each try takes a
    token of
    ``max_code_tries_per_hour`` per player and per address group, and of the service's
    ``max_link_tries_per_hour_service`` (429, F21)."""
    return await _redeem(body, me, svc, address, lang, recovery=False)


@router.post(
    "/devices/recovery",
    status_code=201,
    response_model=RecoveryCodeOut,
    responses={202: {"model": RecoveryCodeOut}, **errors(403, 413, 415, 422, 429, 503)},
    summary="A new recovery code",
    dependencies=[cost(CODE_COST)],
)
async def new_recovery_code(
    body: JsonBody[ProofIn],
    me: ThisDevice,
    svc: Devices,
    cpu: Cpu,
    address: ClientAddress,
    lang: Reader,
) -> JSONResponse:
    """I2: a new recovery code, shown this once (and as a QR code to save). It replaces
    the old one at once with the old one as ``recovery_code``, or when the player has
    neither a code nor another device; otherwise (202) it takes effect when its request,
    ``pending``, is carried out 72 hours later unless a device refuses it (F20). Stored as
    a keyed digest only."""
    player, device = me
    code, made, pending = await svc.new_recovery_code(player, device, body.recovery_code, address)
    svg = await cpu(qr_svg, code, text(lang, "server.qr.recovery_code"))
    waiting = None if pending is None else _pending(await _said_overview(svc, me, lang), pending)
    return JSONResponse(
        {"code": code, "created_at": made, "qr": data_url(svg), "pending": waiting},
        status_code=201 if pending is None else 202,
    )


@router.post(
    "/devices/recovery/remove",
    response_model=DevicesOut,
    responses={202: {"model": DevicesOut}, **errors(403, 404, 413, 415, 422, 429, 503)},
    summary="Remove the recovery code",
    dependencies=[cost(LINK_COST)],
)
async def remove_recovery_code(
    body: JsonBody[ProofIn], me: ThisDevice, svc: Devices, address: ClientAddress, lang: Reader
) -> JSONResponse:
    """F20: the recovery code stops working: at once with it as ``recovery_code``,
    otherwise (202) 72 hours later unless a device refuses. 404 ``not_found`` without one."""
    player, device = me
    pending = await svc.remove_recovery(player, device, body.recovery_code, address)
    return await _overview(svc, me, lang, pending)


@router.post(
    "/devices/recover",
    response_model=LinkedOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Restore the player of a recovery code on this device",
    dependencies=[cost(LINK_COST)],
)
async def recover(
    body: JsonBody[CodeIn],
    me: ThisDevice,
    svc: Devices,
    address: ClientAddress,
    lang: Reader,
) -> JSONResponse:
    """I2: as a link, with the recovery code, which stays good until replaced; the
    tries count against the service's ``max_recovery_tries_per_hour_service``."""
    return await _redeem(body, me, svc, address, lang, recovery=True)


@router.post(
    "/devices/signout",
    response_model=SignedOutOut,
    responses=errors(403, 409, 413, 415, 422, 429, 503),
    summary="Sign this device out",
    dependencies=[cost(LINK_COST)],
)
async def sign_out(
    _body: JsonBody[ConfirmIn], me: ThisDevice, svc: Devices, done: SignOut
) -> JSONResponse:
    """F20 「退出这台设备」: this device ends (its open streams too, F23) and the answer
    clears its cookie: the browser is a stranger from its next request. 409
    ``last_way_back`` for the player's only device when it has no recovery code."""
    player, device = me
    await svc.sign_out(player, device)
    done()
    return JSONResponse({"signed_out": True})


@router.post(
    "/devices/requests/{request_id}/refuse",
    response_model=DevicesOut,
    responses=errors(403, 404, 413, 415, 422, 429, 503),
    summary="Refuse a waiting request",
    dependencies=[cost(LINK_COST)],
)
async def refuse_request(
    _body: JsonBody[ConfirmIn], request_id: RequestId, me: ThisDevice, svc: Devices, lang: Reader
) -> JSONResponse:
    """F20: any device of the player refuses (its asker cancels) a waiting request: it is
    never carried out. 404 ``not_found`` for one done, refused or not this player's."""
    player, _ = me
    await svc.refuse(player, request_id)
    return await _overview(svc, me, lang)


@router.post(
    "/devices/{device_id}/confirm",
    response_model=DevicesOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="This is me: a new device is the player's own",
    dependencies=[cost(LINK_COST)],
)
async def confirm_device(
    _body: JsonBody[ConfirmIn], device_id: DeviceId, me: ThisDevice, svc: Devices, lang: Reader
) -> JSONResponse:
    """F20 「是我」: from another device, the newcomer ``device_id`` is no longer shown as
    「这是你吗？」. 409 ``this_device`` for the device asking."""
    player, device = me
    await svc.confirm(player, device, device_id)
    return await _overview(svc, me, lang)


@router.post(
    "/devices/{device_id}/remove",
    response_model=DevicesOut,
    responses={202: {"model": DevicesOut}, **errors(403, 404, 409, 413, 415, 422, 429, 503)},
    summary="Remove a device",
    dependencies=[cost(LINK_COST)],
)
async def remove_device(
    body: JsonBody[ProofIn],
    device_id: DeviceId,
    me: ThisDevice,
    svc: Devices,
    address: ClientAddress,
    lang: Reader,
) -> JSONResponse:
    """I3, F20: the device is a stranger from its next request, on every process at once
    (its open streams end). At once for a newcomer after this device (「这是你吗？」), or
    with the recovery code as ``recovery_code``, or for a player with neither a code nor
    a third device; otherwise (202) 72 hours later unless a device refuses. 403
    ``device_too_new`` for a device that came in by a link code less than 7 days ago
    removing an older one without the code; 409 ``this_device`` for the device asking."""
    player, device = me
    pending = await svc.remove(player, device, device_id, body.recovery_code, address)
    return await _overview(svc, me, lang, pending)


@router.get(
    "/me/export",
    response_model=ExportOut,
    responses=errors(429, 503),
    summary="Everything kept about this player (a JSON file)",
    dependencies=[cost(EXPORT_COST)],
)
async def export(me: ThisDevice, svc: Devices, owe: Owe) -> Response:
    """I4: one JSON document of every row kept about the player (docs/api.md), indented,
    every time ISO 8601 in UTC, its ``summary`` first, as a download
    (``Content-Disposition: attachment``). Built off the event loop and charged to the
    work budget by its size (F22: a unit per 100 KB, the route's 10 covering the first MB)."""
    player, _ = me
    body, _summary = await svc.export(player)
    owe(math.ceil(len(body) / EXPORT_BYTES_PER_UNIT) - EXPORT_COST)
    return Response(
        body,
        media_type="application/json",
        headers={"content-disposition": 'attachment; filename="yahtzee-data.json"'},
    )


@router.post(
    "/me/delete",
    response_model=ErasedOut,
    responses={202: {"model": ErasedOut}, **errors(403, 413, 415, 422, 429, 503)},
    summary="Delete everything kept about this player",
    dependencies=[cost(ERASE_COST)],
)
async def erase(
    body: JsonBody[EraseIn], me: ThisDevice, svc: Devices, address: ClientAddress, lang: Reader
) -> JSONResponse:
    """I4: with ``{"confirm": true}``, every row of the player goes from every table;
    others' room games keep its seat, nameless; a group it created goes to its oldest
    member (closed when none is left). Every device of the player is a stranger from its
    next request (its open streams end at once, F23). At once with the recovery code as
    ``recovery_code``, or for a player with neither a code nor another device; otherwise
    (202, ``erased: false``) 72 hours later unless a device refuses (F20)."""
    if not body.confirm:
        raise ConfirmationNeededError()
    player, device = me
    count, pending = await svc.erase(player, device, body.recovery_code, address)
    if pending is not None:
        waiting = _pending(await _said_overview(svc, me, lang), pending)
        return JSONResponse({"erased": False, "devices": 0, "pending": waiting}, status_code=202)
    return JSONResponse({"erased": True, "devices": count})
