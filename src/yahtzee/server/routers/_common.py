"""What the routers share: their typed dependencies and the OpenAPI error entries.

A handler names what it needs as a parameter of one of the ``Annotated`` types below
(``svc: Service, player: PlayerId``) and FastAPI provides it; the process-wide objects live
on ``app.state`` (set by :func:`yahtzee.web.app.create_app`) and nowhere else. The game
actions themselves (roll, score, hint) skip FastAPI's parameter solving, see
:class:`yahtzee.server.routers.games.GameAction`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from yahtzee.errors import RateLimitExceededError
from yahtzee.i18n import Lang, languages
from yahtzee.server.cpu import CpuJobs, CpuPool
from yahtzee.server.errors import pseudo_enabled, request_language
from yahtzee.server.feature import PlayedElsewhere
from yahtzee.server.limits import Guard
from yahtzee.server.middleware import (
    UNSAFE_METHODS,
    client_address,
    device_of,
    player_of,
    requester_of,
)
from yahtzee.server.reviews import ReviewService
from yahtzee.server.service import GameService
from yahtzee.server.views import ErrorOut
from yahtzee.storage.base import Charge


async def player_id(request: Request) -> str:
    """The request's anonymous player id (from its signed cookie, or newly issued). A
    request that may write reads its device from the database (F23: nothing is written
    under a player deleted on another process a moment ago); the game actions, which
    only write to a game that exists, keep the fast path's cached answer."""
    return await player_of(request.scope, fresh=request.method in UNSAFE_METHODS)


async def player_device(request: Request) -> tuple[str, str]:
    """The request's (player id, device id) (what a stream held for a device needs: it
    ends when the device does, F23)."""
    return await device_of(request.scope)


async def acting_player(request: Request) -> str:
    """The player of a game action, charged to its actions rate limit (F5)."""
    player = await player_of(request.scope)
    guard(request).actions.take(player)
    return player


async def starting_player(request: Request) -> tuple[str, list[Charge]]:
    """The player starting a game and the tokens the new game takes, in the transaction
    that stores it (F5): the player's and its client address's."""
    player = await player_of(request.scope, fresh=True)
    return player, guard(request).new_game_charges(player, client_address(request.scope))


def base_url(request: Request) -> str:
    """This server's address as the request reached it, without a trailing slash (the
    invite links' base)."""
    return str(request.base_url).rstrip("/")


def address(request: Request) -> str:
    """The request's client address (the per-address limits)."""
    return client_address(request.scope)


def requester(request: Request) -> str:
    """Whom a cost budget charges and whose CPU jobs take turns: the signed player id, or
    the client address of a request without one (no id is minted for it)."""
    return requester_of(request.scope)


#: The longest a request over its work budget waits for its 429 (see :func:`cost`).
MAX_REFUSAL_PAUSE = 1.0


def cost(units: int) -> Any:
    """A route's share of the work budget (issue 22), declared in one line::

        @router.get("/{game_id}/meter", dependencies=[cost(1)])

    Before any other work of the request, ``units`` are charged to the requester's budget
    of ``max_work_per_second`` units a second (:class:`~yahtzee.server.settings.Settings`):
    its signed player id, or its client address when it has none (no id is minted for it).
    Over the budget: 429 ``rate_limited`` with ``Retry-After``, nothing done. A unit is
    about 10 ms of CPU at most (the meter of a vs game costs 1); the costs of the routes
    are listed in docs/api.md. Run the work itself through :data:`Cpu`.

    A refused request is answered only after the time its units take to come back (at
    the budget's rate, at most :data:`MAX_REFUSAL_PAUSE`): a refusal costs the server
    about as much CPU as a small answer, so a client that never backs off, on many
    connections, would otherwise keep the event loop busy answering 429s, and every
    other player's request would wait in line behind them (issue 22's flood benchmark).
    Paused, each of its connections gets at most one refusal per pause; a client that
    honours ``Retry-After`` never notices.
    """

    async def spend(request: Request) -> None:
        work = guard(request).work
        try:
            work.take(requester(request), units)
        except RateLimitExceededError:
            await asyncio.sleep(min(MAX_REFUSAL_PAUSE, units / work.refill))
            raise

    setattr(spend, _COST_MARK, units)
    return Depends(spend)


#: The attribute by which a route's :func:`cost` dependency is recognised.
_COST_MARK = "yahtzee_cost_units"
# A route's path parameter as Starlette compiles it: ``(?P<game_id>[^/]+)``.
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


def costly_routes(routes: Iterable[BaseRoute]) -> list[tuple[str, str]]:
    """The ``(method, path regular expression)`` of every route of ``routes`` that declares
    a cost (:func:`cost`): the costly requests, which admission control bounds apart from
    the cheap ones and shares between the clients (:mod:`yahtzee.server.admission`, F19).
    The expressions match a whole path."""
    found: list[tuple[str, str]] = []
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:  # (FastAPI keeps an included router whole, as one route)
            prefix = re.escape(getattr(getattr(route, "include_context", None), "prefix", ""))
            found.extend((m, prefix + p) for m, p in costly_routes(included.routes))
            continue
        if not isinstance(route, APIRoute):
            continue
        if not any(hasattr(d.dependency, _COST_MARK) for d in route.dependencies):
            continue
        pattern = _NAMED_GROUP.sub("(?:", route.path_regex.pattern).removeprefix("^")
        found.extend((method, pattern.removesuffix("$")) for method in sorted(route.methods or ()))
    return found


def cpu_pool(request: Request) -> CpuPool:
    """The process-wide CPU pool."""
    pool: CpuPool = request.app.state.cpu
    return pool


def cpu_jobs(request: Request) -> CpuJobs:
    """The CPU pool, running this requester's jobs in turn with its others."""
    return cpu_pool(request).jobs_of(requester(request))


def guard(request: Request) -> Guard:
    """The process-wide rate limiters."""
    value: Guard = request.app.state.guard
    return value


def service(request: Request) -> GameService:
    """The process-wide game service."""
    svc: GameService = request.app.state.service
    return svc


def played_elsewhere(request: Request) -> PlayedElsewhere:
    """The features' games a browser played without owning them (the records, 统计)."""
    value: PlayedElsewhere = request.app.state.played
    return value


def reviews(request: Request) -> ReviewService:
    """The process-wide review service."""
    svc: ReviewService = request.app.state.reviews
    return svc


#: The finished games a browser played in that belong to a feature (a room's, O7).
Played = Annotated[PlayedElsewhere, Depends(played_elsewhere)]


def served_languages(request: Request) -> tuple[Lang, ...]:
    """The languages this server speaks (G3: en-XA too with ``--pseudo-language``)."""
    return languages(pseudo=pseudo_enabled(request.app))


#: The languages a player may choose (``/api/config``'s ``languages``).
Languages = Annotated[tuple[Lang, ...], Depends(served_languages)]


def reader_language(request: Request) -> Lang:
    """The language the request's reader reads (G1, G5): its ``Accept-Language``, which
    the page sets to the language it shows (js/api.js), as the errors are said in."""
    return request_language(request.scope)


#: The language an answer's words are said in: the request's reader's (a shared thing, a
#: room's event, a group's board, carries codes and values; its reader's words are said at
#: the edge, per request).
Reader = Annotated[Lang, Depends(reader_language)]
#: The request's anonymous player id (signed cookie, or newly issued).
PlayerId = Annotated[str, Depends(player_id)]
#: The request's (player id, device id).
PlayerDevice = Annotated[tuple[str, str], Depends(player_device)]
#: The player of an action, charged to the actions rate limit first (F5).
Acting = Annotated[str, Depends(acting_player)]
#: The rate limiters.
Limiters = Annotated[Guard, Depends(guard)]
#: This server's address as the request reached it (``http://host:port``, no slash).
BaseUrl = Annotated[str, Depends(base_url)]
#: The request's client address (the per-address limits).
ClientAddress = Annotated[str, Depends(address)]
#: A player starting a game, with the rate-limit tokens the new game takes (F5).
StartingPlayer = Annotated[tuple[str, list[Charge]], Depends(starting_player)]
#: The game service.
Service = Annotated[GameService, Depends(service)]
#: The review service (复盘, 统计).
Reviews = Annotated[ReviewService, Depends(reviews)]
#: The cost budget's key of the request: its signed player id, else ``@`` + its address.
Requester = Annotated[str, Depends(requester)]
#: The CPU pool for this requester's jobs: ``await cpu(fn, *args)`` runs ``fn`` in a worker
#: process, never on the event loop nor in the threads of the writes (issue 22).
Cpu = Annotated[CpuJobs, Depends(cpu_jobs)]


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error responses an endpoint can give."""
    text = {
        404: "`not_found`: no such game for this player",
        409: "`stale_version`, `illegal_action`, `zero_needs_confirmation` or (new game) "
        "`game_in_progress`",
        403: "`forbidden`: a request from another site (F3)",
        410: "`gone`: a removed endpoint (nothing is changed)",
        413: "`payload_too_large`: body over 64 KB",
        415: "`unsupported_media_type`: the body is not `application/json` (F3)",
        429: "`rate_limited`: too many requests; `Retry-After` says how many seconds to wait",
        503: "`storage_unavailable`: the database cannot be written (disk full, read-only); "
        "`busy`: past one of the process's bounds (its requests in flight, a costly read's "
        "share, the CPU queue), nothing done, `Retry-After`",
        422: "`invalid_request`: malformed input",
    }
    return {s: {"model": ErrorOut, "description": text[s]} for s in statuses}
