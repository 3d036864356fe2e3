"""The ONE place where failures become HTTP responses.

The errors themselves are the domain's (:mod:`yahtzee.errors`); this module only gives each
one its status, stable ``code`` and message: a catalog key with its values
(:func:`yahtzee.i18n.msg`, the ``error.*`` keys), said in the request's language when the
answer is written (:func:`error_response`, G1: the page sends its language as
``Accept-Language``). A feature package's own errors are mapped by the feature (its
``errors.py``), which the app hands to :func:`to_api_error` through
:func:`install_error_handlers`: this module imports no feature.

Every error leaves the server as ``{"error": {"code": ..., "message": ...}}`` with a
message fit to show a player; never a stack trace, never a 500 for bad input.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from yahtzee import errors as domain
from yahtzee.i18n import DEFAULT, N_, Lang, Msg, msg, negotiate
from yahtzee.players import LEVELS, Difficulty
from yahtzee.server.cpu import BusyError
from yahtzee.server.kinds import KindRefusalError
from yahtzee.storage import StorageUnavailableError
from yahtzee.storage.base import OwnerGoneError

log = logging.getLogger("yahtzee.server")


class ApiError(Exception):
    """An error with its HTTP status, stable ``code`` and message: a :class:`~yahtzee.i18n.
    Msg`, a catalog key with its values, said in the reader's language (:meth:`message_in`;
    G5: never a sentence, so every error reads in every language)."""

    def __init__(
        self, status: int, code: str, message: Msg, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(status, code)
        self.status = status
        self.code = code
        self.said = message
        self.headers = headers  # extra response headers (``Retry-After`` of a 429)

    def message_in(self, lang: Lang) -> str:
        """The message in ``lang``."""
        return self.said.render(lang)

    @property
    def message(self) -> str:
        """The message in the product's language (zh-Hans): logs, and tests."""
        return self.message_in(DEFAULT)

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"


class RateLimitedError(ApiError):
    """Over a limit: 429 ``rate_limited`` with the seconds to wait (``Retry-After``)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            429,
            "rate_limited",
            msg("error.rate_limited", seconds=retry_after),
            headers={"retry-after": str(retry_after)},
        )
        self.retry_after = retry_after


class InvalidInputError(ApiError):
    """A query the domain refused as malformed or impossible (``/api/advice``)."""

    def __init__(self, cause: Exception) -> None:
        error = to_api_error(cause)
        if error.status != 422:
            error = ApiError(422, "invalid_request", msg("error.advice.impossible"))
        super().__init__(422, "invalid_request", error.said)


# Most specific first: the first isinstance match wins.
_ILLEGAL_MESSAGES: tuple[tuple[type[domain.IllegalMoveError], str, str], ...] = (
    (
        domain.ZeroNeedsConfirmationError,
        "zero_needs_confirmation",
        N_("error.zero_needs_confirmation"),
    ),
    (domain.AbandonedGameError, "illegal_action", N_("error.illegal.abandoned")),
    (domain.NotReviewableError, "illegal_action", N_("error.illegal.not_reviewable")),
    (domain.GameOverError, "illegal_action", N_("error.illegal.game_over")),
    (domain.RollLimitError, "illegal_action", N_("error.illegal.roll_limit")),
    (domain.NotRolledError, "illegal_action", N_("error.illegal.not_rolled")),
    (domain.CategoryUsedError, "illegal_action", N_("error.illegal.category_used")),
    (domain.JokerRuleError, "illegal_action", N_("error.illegal.joker")),
    (domain.NoHintsLeftError, "illegal_action", N_("error.illegal.no_hints_left")),
    (domain.NothingToUndoError, "nothing_to_undo", N_("error.nothing_to_undo")),
    (domain.UndoNotAllowedError, "undo_not_allowed", N_("error.undo_not_allowed")),
    (domain.WrongPlayerError, "illegal_action", N_("error.illegal.wrong_player")),
    (domain.IllegalMoveError, "illegal_action", N_("error.illegal.move")),
)

_HTTP_CODES = {
    400: ("invalid_request", N_("error.http.bad_request")),
    404: ("not_found", N_("error.http.not_found")),
    405: ("method_not_allowed", N_("error.http.method_not_allowed")),
    413: ("payload_too_large", N_("error.http.too_large")),
    422: ("invalid_request", N_("error.http.bad_request")),
}


#: U13: what a malformed id in the address means to the person who followed the link.
LINK_BROKEN = msg("error.link_broken")

# The wording of pydantic's error types; ``{field}`` and ``{value}`` name the culprit.
_VALIDATION_TEMPLATES = {
    "missing": N_("error.field.missing"),
    "extra_forbidden": N_("error.field.unknown"),
    "literal_error": N_("error.field.not_allowed"),
    "enum": N_("error.field.not_allowed"),
    "bool_type": N_("error.field.bool"),
    "int_type": N_("error.field.int"),
    "int_parsing": N_("error.field.int"),
    "greater_than_equal": N_("error.field.too_small"),
    "less_than_equal": N_("error.field.too_big"),
    "too_short": N_("error.field.length"),
    "too_long": N_("error.field.length"),
    "list_type": N_("error.field.list"),
    "string_too_long": N_("error.field.string_too_long"),
    "json_invalid": N_("error.body.not_json"),
    "model_type": N_("error.body.not_object"),
    "model_attributes_type": N_("error.body.not_object"),
}


def validation_message(exc: RequestValidationError | ValidationError) -> Msg:
    """A sentence naming the first invalid field and value (for API clients)."""
    errors = exc.errors()
    if not errors:
        return msg(_HTTP_CODES[422][1])
    first = errors[0]
    if tuple(first.get("loc", ()))[:1] == ("path",):
        # U13: an id in the address comes from a link a person followed (or typed): say so,
        # in their words, rather than name a field they never saw.
        return LINK_BROKEN
    loc = [str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path")]
    field = ".".join(loc) if loc else msg("error.field.body")
    value = first.get("input")
    shown = value if isinstance(value, int | float | bool | str) else type(value).__name__
    template = _VALIDATION_TEMPLATES.get(first.get("type", ""), N_("error.field.invalid"))
    detail = msg(template, field=field, value=repr(shown)[:60])
    return msg("error.request_invalid", detail=detail)


def _level_name(level: str | None) -> Msg:
    """A computer level's name, read from the levels themselves (K4); the strongest one's
    for an unknown id."""
    try:
        difficulty = Difficulty(level)
    except ValueError:
        difficulty = Difficulty.EXPERT
    return msg(LEVELS[difficulty].name_key)


def _game_in_progress_message(exc: domain.GameInProgressError) -> Msg:
    """F2: name what the saved game is (its kind's name), its level and round, so the
    player knows what is at stake (人机对战（高手，第 5 回合）)."""
    where = (
        msg("error.game_in_progress.round", round=exc.round)
        if exc.round is not None
        else msg("error.game_in_progress.ongoing")
    )
    if exc.what is None:
        what = msg("error.game_in_progress.game")
    elif exc.difficulty is not None:
        what = msg(
            "error.game_in_progress.kind_level",
            kind=msg(exc.what),
            level=_level_name(exc.difficulty),
            where=where,
        )
    else:
        what = msg("error.game_in_progress.kind", kind=msg(exc.what), where=where)
    return msg("error.game_in_progress", what=what)


def _name_message(exc: domain.InvalidNameError) -> Msg:
    """Why a typed name was refused (yahtzee.names, F16), in words a child understands."""
    from yahtzee.names import name_problem

    return name_problem(exc, msg("error.name.who"))


class ResumeRemovedError(ApiError):  # (raised by a route, so an ApiError of its own)
    """410 ``gone``: ``POST /api/games/{id}/resume`` was removed (F1, U6 changed)."""

    def __init__(self) -> None:
        super().__init__(410, "gone", msg("error.resume_removed"))


#: A feature's mapping of its own domain errors (``None``: not one of them), given to the
#: app through its :class:`~yahtzee.server.feature.Feature`.
ErrorMapping = Callable[[Exception], ApiError | None]


def to_api_error(exc: Exception, features: Sequence[ErrorMapping] = ()) -> ApiError:
    """Map any exception to the :class:`ApiError` the client sees; ``features`` are the
    features' mappings of their own errors (:func:`mappings_of` an app's)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ClientDisconnect):  # (nobody reads it: the connection is gone)
        return ApiError(400, "invalid_request", msg("error.disconnected"))
    if isinstance(exc, domain.StaleVersionError):
        return ApiError(409, "stale_version", msg("error.stale_version"))
    if isinstance(exc, domain.GameNotFoundError):
        return ApiError(404, "not_found", msg("error.game_not_found"))
    if isinstance(exc, BusyError):  # (the CPU pool's queue is full: no bug, nothing done)
        return ApiError(503, "busy", msg("error.busy"), headers={"retry-after": "1"})
    if isinstance(exc, StorageUnavailableError):
        return ApiError(
            503,
            "storage_unavailable",
            msg("error.storage_unavailable"),
            headers={"retry-after": "30"},
        )
    if isinstance(exc, domain.GameInProgressError):
        return ApiError(409, "game_in_progress", _game_in_progress_message(exc))
    if isinstance(exc, OwnerGoneError):  # (deleted while this request ran: nothing written)
        return ApiError(409, "player_gone", msg("error.player_gone"))
    if isinstance(exc, domain.RateLimitExceededError):  # a limit kept in the database
        return RateLimitedError(exc.retry_after)
    if isinstance(exc, KindRefusalError):  # (what the game's kind says, K2)
        return ApiError(409, exc.refusal.code, exc.refusal.message)
    if isinstance(exc, domain.IllegalMoveError):
        for cls, code, message in _ILLEGAL_MESSAGES:
            if isinstance(exc, cls):
                return ApiError(409, code, msg(message))
    for mapping in features:
        error = mapping(exc)
        if error is not None:
            return error
    if isinstance(exc, domain.InvalidNameError):
        return ApiError(422, "invalid_name", _name_message(exc))
    if isinstance(exc, domain.InvalidSeatsError):
        return ApiError(422, "invalid_seats", exc.said)
    if isinstance(exc, domain.InvalidDiceError):
        return ApiError(422, "invalid_request", msg("error.invalid_dice", detail=str(exc)))
    if isinstance(exc, domain.InvalidScorecardError):
        return ApiError(422, "invalid_request", msg("error.invalid_scorecard", detail=str(exc)))
    if isinstance(exc, domain.YahtzeeError):
        return ApiError(422, "invalid_request", msg("error.invalid_input", detail=str(exc)))
    if isinstance(exc, RequestValidationError | ValidationError):
        return ApiError(422, "invalid_request", validation_message(exc))
    if isinstance(exc, StarletteHTTPException):
        code, key = _HTTP_CODES.get(exc.status_code, ("http_error", N_("error.http.other")))
        return ApiError(exc.status_code, code, msg(key))
    return ApiError(500, "internal_error", msg("error.internal"))


def error_response(error: ApiError, lang: Lang = DEFAULT) -> JSONResponse:
    """The JSON body of an error, its message in ``lang``."""
    body = {"error": {"code": error.code, "message": error.message_in(lang)}}
    return JSONResponse(body, status_code=error.status, headers=error.headers)


def pseudo_enabled(app: Any) -> bool:
    """Whether ``app`` (an ASGI scope's ``"app"``) serves the pseudo-language (a setting
    for tests, :attr:`~yahtzee.server.settings.Settings.pseudo_language`)."""
    settings = getattr(getattr(app, "state", None), "settings", None)
    return bool(getattr(settings, "pseudo_language", False))


def request_language(scope: Any) -> Lang:
    """The language to answer a request in (G1, G3): its ``Accept-Language``, which the
    page sets to the language it shows, the player's choice (js/api.js)."""
    header = None
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            header = value[:256].decode("latin-1")
            break
    return negotiate(header, pseudo=pseudo_enabled(scope.get("app")))


def log_disconnect(method: str, path: str) -> None:
    """The one line a client that hung up before its request arrived is worth (F11): no
    traceback, nothing an error; ``yahtzee serve`` rate-limits it
    (:func:`yahtzee.server.protocol.install_log_limits`)."""
    log.warning("%s %s %s (the request was not read)", CLIENT_DISCONNECTED, method, path)


#: The start of the disconnect's log line (the log limits recognise it by it).
CLIENT_DISCONNECTED = "client disconnected mid-request:"


async def handle_error(request: Request, exc: Exception) -> JSONResponse:
    """The exception handler: the error response of ``exc`` (500s are logged)."""
    error = to_api_error(exc, mappings_of(request.app))
    if isinstance(exc, ClientDisconnect):
        log_disconnect(request.method, request.url.path)
    elif error.code == "storage_unavailable":
        log.warning("storage unavailable on %s %s: %s", request.method, request.url.path, exc)
    elif error.status >= 500 and error.code != "busy":  # (a full CPU queue is no bug)
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(error, request_language(request.scope))


# The exceptions answered where they are raised (Starlette's ExceptionMiddleware); any
# other one reaches the outermost ServerErrorMiddleware (a 500, logged, then re-raised).
HANDLED: tuple[type[Exception], ...] = (
    ApiError,
    BusyError,  # (F26: a refusal, answered and counted by the pool, never a traceback)
    OwnerGoneError,
    ClientDisconnect,
    domain.YahtzeeError,
    StorageUnavailableError,
    RequestValidationError,
    ValidationError,
    StarletteHTTPException,
)


def mappings_of(app: Any) -> tuple[ErrorMapping, ...]:
    """The features' error mappings of ``app`` (an ASGI scope's ``"app"``): none for an
    app without them."""
    mappings: tuple[ErrorMapping, ...] = getattr(getattr(app, "state", None), "errors", ())
    return mappings


def install_error_handlers(app: FastAPI, features: Sequence[ErrorMapping] = ()) -> None:
    """Route every exception through :func:`to_api_error`, with the features' mappings."""
    app.state.errors = tuple(features)
    for cls in (*HANDLED, Exception):
        app.add_exception_handler(cls, handle_error)
