"""``/api/games``: start, fetch and play games."""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, PlainValidator, StrictBool, WithJsonSchema
from pydantic_core import PydanticCustomError

from yahtzee.errors import InvalidSeatsError
from yahtzee.game import Mode
from yahtzee.i18n import msg
from yahtzee.players import DEFAULT_DIFFICULTY, Difficulty
from yahtzee.rules import Category
from yahtzee.server.errors import ResumeRemovedError
from yahtzee.server.jsonbody import JsonBody, JsonBodyRoute, StrictBody, body_doc, parse_body
from yahtzee.server.kinds import PLATFORM_KINDS, KindRules
from yahtzee.server.routers._common import (
    PlayerId,
    Service,
    StartingPlayer,
    acting_player,
    errors,
    service,
)
from yahtzee.server.service import GameService
from yahtzee.server.views import GameOut, HintOut, game_json, hint_json
from yahtzee.table import parse_seats

router = APIRouter(prefix="/api/games", tags=["games"], route_class=JsonBodyRoute)

# Ids of the enums, by value: lax only here (the bodies are strict, and a strict enum field
# would accept nothing but a Python enum member).
AnEnum = TypeVar("AnEnum", bound=enum.Enum)
ById = Annotated[AnEnum, Field(strict=False)]
Version = Annotated[int, Field(ge=0, description="the game's current `version`")]

#: The games this endpoint starts, by the name its body gives them (``mode``): the
#: platform's kinds (a feature starts its own through its routes).
_STARTS = {rules.kind.value: rules for rules in PLATFORM_KINDS}


def _start(value: object) -> KindRules:
    rules = _STARTS.get(value) if isinstance(value, str) else None
    if rules is None:  # (the message of an enum's: the same 422 as any unknown id)
        expected = ", ".join(repr(name) for name in _STARTS)
        raise PydanticCustomError("enum", "Input should be {expected}", {"expected": expected})
    return rules


StartOf = Annotated[
    KindRules,
    PlainValidator(_start),
    WithJsonSchema({"type": "string", "enum": list(_STARTS)}),
]


class _Body(StrictBody):
    """Unknown fields and lax types (``"2"``, ``3.0`` or ``true`` for an int) are refused."""


class NewGameIn(_Body):
    """Which game to start. ``difficulty`` applies to vs games only, ``seats`` to table
    games only (T1: 2–6 of ``{"kind": "human", "name"}`` or ``{"kind": "computer",
    "difficulty"}`` in playing order, at least one person, names unique; else 422
    ``invalid_seats``); ``replace: true`` abandons the player's unfinished game (without
    it, 409 ``game_in_progress``, F2)."""

    mode: StartOf = Field(description="the game to start: solo, vs_computer, table, tutorial")
    difficulty: ById[Difficulty] | None = None
    seats: list[dict[str, Any]] | None = None
    replace: StrictBool = False


class RollIn(_Body):
    """Roll: ``hold`` marks the dice to keep (all false on a turn's first roll)."""

    version: Version
    hold: Annotated[list[StrictBool], Field(min_length=5, max_length=5)] = Field(
        default_factory=lambda: [False] * 5
    )


class ScoreIn(_Body):
    """Write the dice in ``category``; ``confirm_zero`` confirms a 0 (U2)."""

    version: Version
    category: ById[Category]
    confirm_zero: StrictBool = False


class VersionIn(_Body):
    """An action that needs only the game's version."""

    version: Version


def _action_doc(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI ``requestBody`` and ``game_id`` parameter of a game action, whose endpoint
    reads its request itself (see :data:`ACTIONS`)."""
    game_id = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}
    return {**body_doc(model), "parameters": [game_id]}


@router.post(
    "",
    status_code=201,
    response_model=GameOut,
    responses=errors(403, 409, 413, 415, 422, 429, 503),
    summary="Start a game (replace: true abandons the unfinished one: a new game)",
)
async def create_game(
    body: JsonBody[NewGameIn],
    starting: StartingPlayer,
    svc: Service,
) -> JSONResponse:
    """Start a solo, vs-computer, table (多人同屏) or tutorial (新手教程, L10: the
    tutorial's fixed dice) game.

    While the player has an unfinished game this is refused with 409 ``game_in_progress``
    (its message names the saved game's mode and round) unless ``replace`` is true, which
    abandons that game (F2). ``difficulty`` defaults to ``expert`` in vs games and is
    ignored (null) in solo, table and tutorial games. A table needs ``seats`` (422
    ``invalid_seats`` when they break T1); its computers seated before the first person
    play at once. An unfinished *tutorial* is replaced without asking (L10).
    """
    kind, mode = body.mode.kind, body.mode.mode
    difficulty = (body.difficulty or DEFAULT_DIFFICULTY) if mode is Mode.VS_COMPUTER else None
    seats = None
    if mode is Mode.TABLE:
        seats = parse_seats(body.seats)
    elif body.seats is not None:
        raise InvalidSeatsError(
            f"seats are for table games, not {kind.value}", msg("error.seats.not_table")
        )
    player, charges = starting
    loaded = await svc.new_game(
        player, kind, difficulty, seats=seats, replace=body.replace, charges=charges
    )
    return JSONResponse(game_json(loaded), status_code=201)


@router.get(
    "/current",
    response_model=GameOut,
    responses=errors(404),
    summary="The player's unfinished game (Continue)",
)
async def current_game(player: PlayerId, svc: Service) -> JSONResponse:
    """The player's unfinished game, or 404 ``not_found`` when there is none."""
    return JSONResponse(game_json(await svc.current(player)))


@router.get("/{game_id}", response_model=GameOut, responses=errors(404), summary="A game")
async def get_game(game_id: str, player: PlayerId, svc: Service) -> JSONResponse:
    """One of the player's games (another player's game is reported as not found)."""
    return JSONResponse(game_json(await svc.load(player, game_id)))


async def _roll(svc: GameService, player: str, game_id: str, body: RollIn) -> Any:
    return game_json(await svc.roll(player, game_id, body.version, body.hold))


async def _score(svc: GameService, player: str, game_id: str, body: ScoreIn) -> Any:
    loaded = await svc.score(player, game_id, body.version, body.category, body.confirm_zero)
    return game_json(loaded)


async def _abandon(svc: GameService, player: str, game_id: str, body: VersionIn) -> Any:
    return game_json(await svc.abandon(player, game_id, body.version))


async def _undo(svc: GameService, player: str, game_id: str, body: VersionIn) -> Any:
    return game_json(await svc.undo(player, game_id, body.version))


async def _hint(svc: GameService, player: str, game_id: str, body: VersionIn) -> Any:
    advice, loaded = await svc.hint(player, game_id, body.version)
    return hint_json(advice, loaded)


B = TypeVar("B", bound=StrictBody)
ACTION_ERRORS = (403, 404, 409, 413, 415, 422, 429, 503)


@dataclass(frozen=True, slots=True)
class GameAction(Generic[B]):
    """One game action, ``POST /api/games/{game_id}/<name>``: its body model, handler,
    response model, OpenAPI summary and description, and the error statuses it documents.

    Calling it runs the action from the raw body: the body is validated here
    (:func:`~yahtzee.server.jsonbody.parse_body`: strict types, no duplicate keys), not
    declared as a FastAPI parameter, whose dependency solving costs about as much as a
    whole game action's domain work. Errors are 422 ``invalid_request``.
    """

    name: str
    body: type[B]
    handler: Callable[[GameService, str, str, B], Awaitable[Any]]
    response: type[BaseModel]
    summary: str
    description: str
    errors: tuple[int, ...] = ACTION_ERRORS

    async def __call__(self, svc: GameService, player: str, game_id: str, raw: bytes) -> Any:
        """The response content of the action on ``game_id`` for ``player``."""
        return await self.handler(svc, player, game_id, parse_body(self.body, raw))


# The one table of game actions: the routes below and their OpenAPI entries are generated
# from it, and the fast path (:class:`yahtzee.server.fastpath.ActionFastPath`) dispatches
# through it.
ACTIONS: dict[str, GameAction[Any]] = {
    action.name: action
    for action in (
        GameAction(
            "roll",
            RollIn,
            _roll,
            GameOut,
            "Roll the dice",
            "Roll all five (first roll of a turn) or reroll the dice not held (R1).",
        ),
        GameAction(
            "score",
            ScoreIn,
            _score,
            GameOut,
            "Write the dice in a box",
            "Write the dice in ``category``.\n\nA 0 while another open box would score more is "
            "refused with ``zero_needs_confirmation`` unless ``confirm_zero`` is true (U2; the "
            "preview marks such boxes ``needs_confirmation``). In a vs game the computer then "
            "plays its whole turn; its steps are in ``computer_turn`` (U8).",
        ),
        GameAction(
            "hint",
            VersionIn,
            _hint,
            HintOut,
            "Ask the expert (3 hints per game)",
            "The expert's advice for the current dice: ``hold`` while rolling on is best, "
            "else ``category``. Spends one of the game's 3 hints; refused (nothing spent) at "
            "0 hints or before the first roll (U4).",
        ),
        GameAction(
            "undo",
            VersionIn,
            _undo,
            GameOut,
            "Take back the box just written (undo)",
            "The seat that wrote the last box plays on from just before it: the same dice and "
            "rolls left (an ``undo`` event). Until the next roll of anyone, once a turn (its "
            "next box is final), never the game's last box; the game's ``undo`` field names "
            "the box. Solo and table games: 409 ``undo_not_allowed`` in vs and in a kind of "
            "game that refuses it (the tutorial's, a feature's: its rules, K2); 409 "
            "``nothing_to_undo`` when there is no box to take back.",
        ),
        GameAction(
            "abandon",
            VersionIn,
            _abandon,
            GameOut,
            "Give the game up (skip the tutorial)",
            "The game becomes ``abandoned`` (an ``abandon`` event), as when a new game "
            "replaces it; the page uses it when a tutorial is skipped (L10). A finished game "
            "is refused with ``illegal_action``.",
        ),
    )
}


def _endpoint(action: GameAction[Any]) -> Callable[[Request], Awaitable[JSONResponse]]:
    async def endpoint(request: Request) -> JSONResponse:
        game_id: str = request.path_params["game_id"]
        player = await acting_player(request)  # F5: charged before any work
        content = await action(service(request), player, game_id, await request.body())
        return JSONResponse(content)

    return endpoint


for _action in ACTIONS.values():
    router.add_api_route(
        f"/{{game_id}}/{_action.name}",
        _endpoint(_action),
        methods=["POST"],
        name=_action.name,
        response_model=_action.response,
        responses=errors(*_action.errors),
        summary=_action.summary,
        description=_action.description,
        openapi_extra=_action_doc(_action.body),
    )


@router.post(
    "/{game_id}/resume",
    deprecated=True,
    status_code=410,
    response_model=None,
    responses=errors(403, 410, 413, 415, 429),
    summary="Removed: answers 410 gone (continue with GET /api/games/current)",
)
async def resume_removed(game_id: str) -> JSONResponse:  # noqa: ARG001 (the path's id)
    """Removed (F1, U6 changed): it started the turn over, a fourth roll at will. A saved game
    is continued exactly as it stands with ``GET /api/games/current``; this answers 410
    ``gone`` and changes nothing, so that an old client learns why (not a bare 404)."""
    raise ResumeRemovedError()
