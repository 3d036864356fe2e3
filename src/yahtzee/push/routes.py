"""``/api/push``: this device's reminders (W4) — its subscription and the player's quiet
hours. Same-origin strict JSON for every write (F3, the middleware's); every route reads its
device from the database, not the process's memory (F23), and is in the work budget."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr

from yahtzee.push.service import PushService
from yahtzee.server.jsonbody import JsonBody, JsonBodyRoute, StrictBody
from yahtzee.server.middleware import device_of
from yahtzee.server.routers._common import BaseUrl, ClientAddress, cost, errors

router = APIRouter(prefix="/api/push", tags=["push"], route_class=JsonBodyRoute)

#: The work budget's units (issue 22): a read, a write or two.
COST = 1


def push(request: Request) -> PushService:
    """The process-wide reminders' service."""
    value: PushService = request.app.state.push
    return value


async def this_device(request: Request) -> tuple[str, str]:
    """The request's (player id, device id) as the database has them now (F23)."""
    return await device_of(request.scope, fresh=True)


Push = Annotated[PushService, Depends(push)]
ThisDevice = Annotated[tuple[str, str], Depends(this_device)]


# -- bodies -----------------------------------------------------------------------------


class KeysIn(StrictBody):
    """The subscription's keys, base64url: the browser's P-256 public key and its 16-byte
    authentication secret (RFC 8291)."""

    p256dh: StrictStr = Field(max_length=200)
    auth: StrictStr = Field(max_length=100)


class PushSubscriptionIn(StrictBody):
    """The standard ``PushSubscription.toJSON()`` of the browser."""

    endpoint: StrictStr = Field(max_length=2048)
    expirationTime: StrictInt | StrictFloat | None = None  # noqa: N815 (the Push API's name)
    keys: KeysIn


class SubscribeIn(StrictBody):
    """``POST /api/push/subscriptions``: the browser's subscription and its time zone."""

    subscription: PushSubscriptionIn
    time_zone: StrictStr = Field(max_length=64, description="an IANA name: Asia/Shanghai")


class QuietIn(StrictBody):
    """Quiet hours, ``HH:MM`` each, in each device's time zone (from > to: past midnight)."""

    from_: StrictStr = Field(alias="from", max_length=5)
    to: StrictStr = Field(max_length=5)


class QuietBodyIn(StrictBody):
    """``PUT /api/push/quiet``: the player's quiet hours, ``null`` for none."""

    quiet: QuietIn | None


# -- responses --------------------------------------------------------------------------


class QuietOut(BaseModel):
    """Quiet hours, ``HH:MM``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: str = Field(alias="from")
    to: str


class PushOut(BaseModel):
    """This device's reminders and the player's quiet hours."""

    model_config = ConfigDict(extra="forbid")

    public_key: str = Field(
        description="the server's VAPID public key (base64url, 65 bytes): the "
        "applicationServerKey to subscribe with"
    )
    device: str = Field(
        description="a tag of this device (another when the browser becomes "
        "another device: its page then stops the earlier one's reminders)"
    )
    subscribed: bool = Field(description="this device takes reminders")
    endpoint: str | None = Field(description="its subscription's endpoint")
    time_zone: str | None = Field(description="its time zone (IANA)")
    quiet: QuietOut | None = Field(
        description="the player's quiet hours (every device, each in its time zone); null: none"
    )


# -- routes -----------------------------------------------------------------------------


@router.get(
    "",
    response_model=PushOut,
    responses=errors(429, 503),
    summary="This device's reminders",
    dependencies=[cost(COST)],
)
async def status(me: ThisDevice, svc: Push) -> JSONResponse:
    """W4: the key to subscribe with, whether this device takes reminders, the player's
    quiet hours (22:00-08:00 until chosen)."""
    player, device = me
    return JSONResponse(await svc.status(player, device))


@router.post(
    "/subscriptions",
    response_model=PushOut,
    responses=errors(403, 409, 413, 415, 422, 429, 503),
    summary="This device takes reminders",
    dependencies=[cost(COST)],
)
async def subscribe(
    body: JsonBody[SubscribeIn],
    me: ThisDevice,
    svc: Push,
    base: BaseUrl,
    address: ClientAddress,
) -> JSONResponse:
    """W4: this device's push subscription (replacing its earlier one). 422 for an endpoint
    that is not an https address of a push service the browsers use (nor one of
    ``--push-endpoints``), keys that are not a P-256 point and a 16-byte secret, a time
    zone that is no IANA name; 409 ``too_many_subscriptions`` past the player's devices
    (``--max-push-subscriptions``); 429 past the address group's new subscriptions an
    hour."""
    player, device = me
    sub = body.subscription
    out: dict[str, Any] = await svc.subscribe(
        player,
        device,
        endpoint=sub.endpoint,
        p256dh=sub.keys.p256dh,
        auth=sub.keys.auth,
        time_zone=body.time_zone,
        origin=base,
        address=address,
    )
    return JSONResponse(out)


@router.delete(
    "/subscriptions",
    response_model=PushOut,
    responses=errors(403, 429, 503),
    summary="This device takes no more reminders",
    dependencies=[cost(COST)],
)
async def unsubscribe(me: ThisDevice, svc: Push) -> JSONResponse:
    """W4: this device's subscription deleted, and what waited for it (nothing to do if it
    had none)."""
    player, device = me
    return JSONResponse(await svc.unsubscribe(player, device))


@router.put(
    "/quiet",
    response_model=PushOut,
    responses=errors(403, 413, 415, 422, 429, 503),
    summary="The player's quiet hours",
    dependencies=[cost(COST)],
)
async def quiet(body: JsonBody[QuietBodyIn], me: ThisDevice, svc: Push) -> JSONResponse:
    """W4: no reminder between ``from`` and ``to`` (``HH:MM``, each device's time zone;
    ``{"quiet": null}``: none), for every device of the player."""
    player, device = me
    hours = None if body.quiet is None else (body.quiet.from_, body.quiet.to)
    return JSONResponse(await svc.set_quiet(player, device, hours))
