"""The ONE place where failures become HTTP responses.

The errors themselves are the domain's (:mod:`yahtzee.errors`); this module only gives each
one its status, stable ``code`` and Chinese message. A feature package's own errors are
mapped by the feature (its ``errors.py``), which the app hands to :func:`to_api_error`
through :func:`install_error_handlers`: this module imports no feature.

Every error leaves the server as ``{"error": {"code": ..., "message": ...}}`` with a
Chinese message fit to show a player; never a stack trace, never a 500 for bad input.
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
from yahtzee.players import Difficulty
from yahtzee.server.cpu import BusyError
from yahtzee.storage import StorageUnavailableError

log = logging.getLogger("yahtzee.server")


class ApiError(Exception):
    """An error with its HTTP status, stable ``code`` and Chinese ``message``."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers  # extra response headers (``Retry-After`` of a 429)


class RateLimitedError(ApiError):
    """Over a limit: 429 ``rate_limited`` with the seconds to wait (``Retry-After``)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            429,
            "rate_limited",
            f"操作太频繁了，请 {retry_after} 秒后再试。",
            headers={"retry-after": str(retry_after)},
        )
        self.retry_after = retry_after


class InvalidInputError(ApiError):
    """A query the domain refused as malformed or impossible (``/api/advice``)."""

    def __init__(self, cause: Exception) -> None:
        error = to_api_error(cause)
        if error.status != 422:
            error = ApiError(
                422, "invalid_request", "这个局面不成立，请检查计分表、骰子和剩余次数。"
            )
        super().__init__(422, "invalid_request", error.message)


# Most specific first: the first isinstance match wins.
_ILLEGAL_MESSAGES: tuple[tuple[type[domain.IllegalMoveError], str, str], ...] = (
    (
        domain.ZeroNeedsConfirmationError,
        "zero_needs_confirmation",
        "这一项会记 0 分，而别的项还能得分。确定要记 0 分吗？",
    ),
    (domain.AbandonedGameError, "illegal_action", "这局已经放弃了，请开始新的一局。"),
    (domain.NotReviewableError, "illegal_action", "这局还没有结束，下完才能复盘。"),
    (domain.GameOverError, "illegal_action", "这局已经结束了。"),
    (domain.RollLimitError, "illegal_action", "这一回合已经掷满三次了，请选择一项登记。"),
    (domain.NotRolledError, "illegal_action", "请先掷骰子。"),
    (domain.CategoryUsedError, "illegal_action", "这一项已经登记过了，不能更改。"),
    (domain.JokerRuleError, "illegal_action", "百搭规则：这手快艇不能登记在这一项。"),
    (domain.NoHintsLeftError, "illegal_action", "这局的 3 次提示已经用完了。"),
    (
        domain.NoHintsInDailyError,
        "no_hints_in_daily",
        "每日挑战不能用提示：排名只看你自己的每一步。",
    ),
    (
        domain.NothingToUndoError,
        "nothing_to_undo",
        "没有可以撤销的一项：掷骰之后、或这一回合已经撤销过一次，登记就不能再改了。",
    ),
    (
        domain.UndoNotAllowedError,
        "undo_not_allowed",
        "这种对局不能撤销：人机对战、新手教程、每日挑战和好友房间里，登记了就不能改。",
    ),
    (domain.WrongPlayerError, "illegal_action", "现在不是你的回合。"),
    (domain.IllegalMoveError, "illegal_action", "这一步不符合规则。"),
)

_HTTP_CODES = {
    400: ("invalid_request", "请求格式不正确。"),
    404: ("not_found", "找不到这个地址。"),
    405: ("method_not_allowed", "不支持这种请求方式。"),
    413: ("payload_too_large", "请求内容太大了（上限 64 KB）。"),
    422: ("invalid_request", "请求格式不正确。"),
}


#: U13: what a malformed id in the address means to the person who followed the link.
LINK_BROKEN = "这个链接不完整或已失效。"

# Chinese wording of pydantic's error types; ``{field}`` and ``{value}`` name the culprit.
_VALIDATION_TEMPLATES = {
    "missing": "缺少字段 {field}",
    "extra_forbidden": "不认识的字段 {field}",
    "literal_error": "字段 {field} 的值 {value} 不在允许的范围内",
    "enum": "字段 {field} 的值 {value} 不在允许的范围内",
    "bool_type": "字段 {field} 应为 true 或 false，收到 {value}",
    "int_type": "字段 {field} 应为整数，收到 {value}",
    "int_parsing": "字段 {field} 应为整数，收到 {value}",
    "greater_than_equal": "字段 {field} 的值 {value} 太小",
    "less_than_equal": "字段 {field} 的值 {value} 太大",
    "too_short": "字段 {field} 的元素个数不对",
    "too_long": "字段 {field} 的元素个数不对",
    "list_type": "字段 {field} 应为列表，收到 {value}",
    "string_too_long": "字段 {field} 太长",
    "json_invalid": "请求内容不是合法的 JSON",
    "model_type": "请求内容应是一个 JSON 对象",
    "model_attributes_type": "请求内容应是一个 JSON 对象",
}


def validation_message(exc: RequestValidationError | ValidationError) -> str:
    """A Chinese sentence naming the first invalid field and value (for API clients)."""
    errors = exc.errors()
    if not errors:
        return _HTTP_CODES[422][1]
    first = errors[0]
    if tuple(first.get("loc", ()))[:1] == ("path",):
        # U13: an id in the address comes from a link a person followed (or typed): say so,
        # in their words, rather than name a field they never saw.
        return LINK_BROKEN
    loc = [str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path")]
    field = ".".join(loc) or "（请求体）"
    value = first.get("input")
    shown = value if isinstance(value, int | float | bool | str) else type(value).__name__
    template = _VALIDATION_TEMPLATES.get(first.get("type", ""), "字段 {field} 无效")
    detail = template.format(field=field, value=repr(shown)[:60])
    return f"请求格式不正确：{detail}。"


def _level_name(level: str | None) -> str:
    """A computer level's Chinese name, read from the levels themselves (K4); the
    strongest one's for an unknown id."""
    try:
        return Difficulty(level).zh
    except ValueError:
        return Difficulty.EXPERT.zh


def _game_in_progress_message(exc: domain.GameInProgressError) -> str:
    """F2: name the saved game's mode, level and round, so the player knows what is at stake."""
    where = f"第 {exc.round} 回合" if exc.round is not None else "还在进行中"
    if exc.mode == "vs_computer":
        what = f"人机对战（{_level_name(exc.difficulty)}，{where}）"
    elif exc.mode == "solo":
        what = f"单人挑战（{where}）"
    elif exc.mode == "table":
        what = f"多人同屏（{where}）"
    else:
        what = "游戏"
    return (
        f"你有一局{what}还没下完。开始新游戏会放弃那一局；"
        "要继续它请回大厅点「继续游戏」，确定放弃请再确认一次。"
    )


def _name_message(exc: domain.InvalidNameError) -> str:
    """Why a typed name was refused (yahtzee.names, F16), in words a child understands."""
    from yahtzee.names import name_problem_zh

    return "名字" + name_problem_zh(exc)


class ResumeRemovedError(ApiError):  # (raised by a route, so an ApiError of its own)
    """410 ``gone``: ``POST /api/games/{id}/resume`` was removed (F1, U6 changed)."""

    def __init__(self) -> None:
        super().__init__(
            410,
            "gone",
            "「继续游戏」不再重开当前回合，这个请求已经取消。存档原样保存在服务器上："
            "用 GET /api/games/current 取回，骰子和剩余次数都不变。",
        )


#: A feature's mapping of its own domain errors (``None``: not one of them), given to the
#: app through its :class:`~yahtzee.server.feature.Feature`.
ErrorMapping = Callable[[Exception], ApiError | None]


def to_api_error(exc: Exception, features: Sequence[ErrorMapping] = ()) -> ApiError:
    """Map any exception to the :class:`ApiError` the client sees; ``features`` are the
    features' mappings of their own errors (:func:`mappings_of` an app's)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ClientDisconnect):  # (nobody reads it: the connection is gone)
        return ApiError(400, "invalid_request", "请求没有完整送达：连接在途中断开了。")
    if isinstance(exc, domain.StaleVersionError):
        return ApiError(409, "stale_version", "这一步已经过期，请刷新后再试。")
    if isinstance(exc, domain.GameNotFoundError):
        return ApiError(404, "not_found", "找不到这局游戏。")
    if isinstance(exc, BusyError):  # (the CPU pool's queue is full: no bug, nothing done)
        return ApiError(503, "busy", "服务器正忙，请稍后再试。", headers={"retry-after": "1"})
    if isinstance(exc, StorageUnavailableError):
        return ApiError(
            503,
            "storage_unavailable",
            "服务器暂时无法保存游戏（存储空间已满、不可写或数据库暂不可用），这一步没有生效，请稍后再试。",
            headers={"retry-after": "30"},
        )
    if isinstance(exc, domain.GameInProgressError):
        return ApiError(409, "game_in_progress", _game_in_progress_message(exc))
    if isinstance(exc, domain.RateLimitExceededError):  # a limit kept in the database
        return RateLimitedError(exc.retry_after)
    if isinstance(exc, domain.IllegalMoveError):
        for cls, code, message in _ILLEGAL_MESSAGES:
            if isinstance(exc, cls):
                return ApiError(409, code, message)
    for mapping in features:
        error = mapping(exc)
        if error is not None:
            return error
    if isinstance(exc, domain.InvalidNameError):
        return ApiError(422, "invalid_name", _name_message(exc))
    if isinstance(exc, domain.InvalidSeatsError):
        return ApiError(422, "invalid_seats", exc.zh)
    if isinstance(exc, domain.InvalidDiceError):
        return ApiError(
            422, "invalid_request", f"骰子应是五个 1 到 6 的数字，例如 13356（{exc}）。"
        )
    if isinstance(exc, domain.InvalidScorecardError):
        return ApiError(422, "invalid_request", f"计分表不成立，格式如 ones=3,twos=6（{exc}）。")
    if isinstance(exc, domain.YahtzeeError):
        return ApiError(422, "invalid_request", f"请求内容不正确（{exc}）。")
    if isinstance(exc, RequestValidationError | ValidationError):
        return ApiError(422, "invalid_request", validation_message(exc))
    if isinstance(exc, StarletteHTTPException):
        code, message = _HTTP_CODES.get(exc.status_code, ("http_error", "请求无法完成。"))
        return ApiError(exc.status_code, code, message)
    return ApiError(500, "internal_error", "服务器出错了，请稍后再试。")


def error_response(error: ApiError) -> JSONResponse:
    """The JSON body of an error."""
    body = {"error": {"code": error.code, "message": error.message}}
    return JSONResponse(body, status_code=error.status, headers=error.headers)


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
    return error_response(error)


# The exceptions answered where they are raised (Starlette's ExceptionMiddleware); any
# other one reaches the outermost ServerErrorMiddleware (a 500, logged, then re-raised).
HANDLED: tuple[type[Exception], ...] = (
    ApiError,
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
