"""``/api/devices`` and ``/api/me``: 我的设备 (I1–I4). Same-origin JSON for every POST
(F3, the middleware's), every route in the work budget (docs/api.md lists the costs)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from yahtzee.devices.errors import ConfirmationNeededError
from yahtzee.devices.service import DeviceService, data_url
from yahtzee.server.jsonbody import JsonBody, JsonBodyRoute, StrictBody
from yahtzee.server.middleware import device_of
from yahtzee.server.qr import qr_svg
from yahtzee.server.routers._common import BaseUrl, ClientAddress, Cpu, cost, errors
from yahtzee.server.views import dump_json

router = APIRouter(prefix="/api", tags=["devices"], route_class=JsonBodyRoute)

# The work budget's units (issue 22): a list is a read; a code, a link or a removal a
# write or two; the QR code ~5 ms of CPU; the export reads every row of the player; the
# deletion writes them all.
LIST_COST = 1
CODE_COST = 3
LINK_COST = 2
EXPORT_COST = 10
ERASE_COST = 10
#: The page's address that a link code's QR code opens (the code in the fragment, which
#: browsers never send: no log or Referer has it).
LINK_PATH = "/devices#code="

DeviceId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{22}$", description="a device's id")]


def devices(request: Request) -> DeviceService:
    """The process-wide devices service."""
    value: DeviceService = request.app.state.devices
    return value


async def this_device(request: Request) -> tuple[str, str]:
    """The request's (player id, device id), a stranger's newly issued."""
    return await device_of(request.scope)


Devices = Annotated[DeviceService, Depends(devices)]
ThisDevice = Annotated[tuple[str, str], Depends(this_device)]


# -- bodies -----------------------------------------------------------------------------


class CodeIn(StrictBody):
    """A code as typed (any case; spaces and hyphens ignored) and, when this device's
    player keeps games of its own, whether to merge them into the code's player."""

    code: StrictStr
    merge: StrictBool = False


class ConfirmIn(StrictBody):
    """``{"confirm": true}``: the page asked twice."""

    confirm: StrictBool = False


# -- responses --------------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DeviceOut(_Out):
    """One live device of the player."""

    id: str
    name: str = Field(description="from its User-Agent: 「手机 · Chrome」")
    created_at: float = Field(description="seconds since the epoch")
    seen_at: float = Field(description="last request (to within 5 minutes)")
    this: bool = Field(description="the device of this request")


class RecoveryMadeOut(_Out):
    """When the player's recovery code was made (the code itself is never shown again)."""

    created_at: float


class DevicesOut(_Out):
    """``GET /api/devices``."""

    devices: list[DeviceOut]
    recovery_code: RecoveryMadeOut | None


class LinkCodeOut(_Out):
    """A new one-time link code (I1)."""

    code: str = Field(description="8 letters as ABCD-EFGH (no 0/O/1/I/L)")
    expires_at: float
    seconds: int = Field(description="its life")
    url: str = Field(description="the link the QR code holds (the code in the fragment)")
    qr: str = Field(description="the QR code of url, a data: URL of an SVG image")


class RecoveryCodeOut(_Out):
    """A new recovery code (I2): shown this once; the old one stops working."""

    code: str = Field(description="20 letters as ABCD-EFGH-JKMN-PQRS-TUVW")
    created_at: float
    qr: str = Field(description="the code as a QR code (to save as a picture)")


class LinkedOut(_Out):
    """A redeemed code: this device is now the code's player's."""

    linked: bool
    merged: bool = Field(description="this device's own games moved into the player")
    devices: int = Field(description="how many devices moved (every one of the old player)")


class ErasedOut(_Out):
    """Everything of the player deleted."""

    erased: bool
    devices: int = Field(description="devices that are strangers from now on")


class ExportOut(_Out):
    """``GET /api/me/export``: everything kept about the player (docs/api.md)."""

    format: str
    player_id: str
    exported_at: float
    games: list[dict[str, Any]]
    daily: dict[str, Any]
    practice: dict[str, Any]
    rooms: dict[str, Any]
    settings: dict[str, Any] = Field(description="the language chosen (G3), if any")
    devices: list[dict[str, Any]]
    recovery_code: dict[str, Any] | None
    link_codes: list[dict[str, Any]]


# -- routes -----------------------------------------------------------------------------


@router.get(
    "/devices",
    response_model=DevicesOut,
    responses=errors(429, 503),
    summary="This player's devices",
    dependencies=[cost(LIST_COST)],
)
async def list_devices(me: ThisDevice, svc: Devices) -> JSONResponse:
    """I3: every live device of the player (this one marked ``this``), most recently seen
    first, and when its recovery code was made."""
    player, device = me
    return JSONResponse(await svc.overview(player, device))


@router.post(
    "/devices/code",
    status_code=201,
    response_model=LinkCodeOut,
    responses=errors(403, 413, 415, 422, 429, 503),
    summary="A new one-time link code",
    dependencies=[cost(CODE_COST)],
)
async def new_link_code(
    _body: JsonBody[ConfirmIn], me: ThisDevice, svc: Devices, cpu: Cpu, base: BaseUrl
) -> JSONResponse:
    """I1: a code another device types (or its QR code's link) to become this player;
    single use, good for ``link_code_minutes``; the player's earlier code ends. 429 past
    ``max_link_codes_per_hour``."""
    player, _ = me
    code, expires = await svc.new_link_code(player)
    url = base + LINK_PATH + code
    svg = await cpu(qr_svg, url, "连接设备二维码")
    seconds = round(60 * svc.limits.link_code_minutes)
    body = {"code": code, "expires_at": expires, "seconds": seconds, "url": url}
    return JSONResponse({**body, "qr": data_url(svg)}, status_code=201)


async def _redeem(
    body: CodeIn, me: tuple[str, str], svc: DeviceService, address: str, *, recovery: bool
) -> JSONResponse:
    player, device = me
    linked = await svc.redeem(
        player,
        device,
        body.code,
        recovery=recovery,
        merge=body.merge,
        address=address,
    )
    return JSONResponse({"linked": True, "merged": body.merge, "devices": len(linked.devices)})


@router.post(
    "/devices/link",
    response_model=LinkedOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Link this device by a code",
    dependencies=[cost(LINK_COST)],
)
async def link(
    body: JsonBody[CodeIn], me: ThisDevice, svc: Devices, address: ClientAddress
) -> JSONResponse:
    """I1: this device (and every device of its player) becomes the code's player. 404
    ``invalid_code`` (unknown, used, expired: one answer); 409 ``choose_merge`` when this
    device's player keeps games of its own (nothing changes; again with ``merge: true``
    to move them into the code's player), ``both_unfinished``, ``already_linked``. Each
    try takes a token of ``max_code_tries_per_hour`` per player and per address (429)."""
    return await _redeem(body, me, svc, address, recovery=False)


@router.post(
    "/devices/recovery",
    status_code=201,
    response_model=RecoveryCodeOut,
    responses=errors(403, 413, 415, 422, 429, 503),
    summary="A new recovery code",
    dependencies=[cost(CODE_COST)],
)
async def new_recovery_code(
    _body: JsonBody[ConfirmIn], me: ThisDevice, svc: Devices, cpu: Cpu
) -> JSONResponse:
    """I2: a new recovery code, shown this once (and as a QR code to save); the old one
    stops working. Stored as a keyed digest only."""
    player, _ = me
    code, made = await svc.new_recovery_code(player)
    svg = await cpu(qr_svg, code, "恢复码")
    return JSONResponse({"code": code, "created_at": made, "qr": data_url(svg)}, status_code=201)


@router.post(
    "/devices/recover",
    response_model=LinkedOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Restore the player of a recovery code on this device",
    dependencies=[cost(LINK_COST)],
)
async def recover(
    body: JsonBody[CodeIn], me: ThisDevice, svc: Devices, address: ClientAddress
) -> JSONResponse:
    """I2: as a link, with the recovery code (which stays good until replaced)."""
    return await _redeem(body, me, svc, address, recovery=True)


@router.post(
    "/devices/{device_id}/remove",
    response_model=DevicesOut,
    responses=errors(403, 404, 409, 413, 415, 422, 429, 503),
    summary="Remove a device",
    dependencies=[cost(LINK_COST)],
)
async def remove_device(
    _body: JsonBody[ConfirmIn], device_id: DeviceId, me: ThisDevice, svc: Devices
) -> JSONResponse:
    """I3: the device is a stranger from its next request (on another server process
    within ``device_cache_seconds``). 409 ``this_device`` for the device asking."""
    player, device = me
    await svc.remove(player, device, device_id)
    return JSONResponse(await svc.overview(player, device))


@router.get(
    "/me/export",
    response_model=ExportOut,
    responses=errors(429, 503),
    summary="Everything kept about this player (a JSON file)",
    dependencies=[cost(EXPORT_COST)],
)
async def export(me: ThisDevice, svc: Devices) -> Response:
    """I4: one JSON document of every row kept about the player (docs/api.md), as a
    download (``Content-Disposition: attachment``)."""
    player, _ = me
    data = await svc.export(player)
    body = dump_json({"format": "yahtzee-export-v1", **data})
    return Response(
        body,
        media_type="application/json",
        headers={"content-disposition": 'attachment; filename="yahtzee-data.json"'},
    )


@router.post(
    "/me/delete",
    response_model=ErasedOut,
    responses=errors(403, 413, 415, 422, 429, 503),
    summary="Delete everything kept about this player",
    dependencies=[cost(ERASE_COST)],
)
async def erase(body: JsonBody[ConfirmIn], me: ThisDevice, svc: Devices) -> JSONResponse:
    """I4: with ``{"confirm": true}``, every row of the player goes from every table;
    others' room games keep its seat, nameless; a group it created goes to its oldest
    member (closed when none is left). Every device of the player is a stranger from its
    next request."""
    if not body.confirm:
        raise ConfirmationNeededError()
    player, _ = me
    count = await svc.erase(player)
    return JSONResponse({"erased": True, "devices": count})
