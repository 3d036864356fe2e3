"""Request bodies: strict JSON into the body models (F3).

Every JSON body of the API goes through :func:`parse_body`, on the FastAPI routes and on
the direct action route alike. Two things pydantic's own JSON parsing would let through:

* a key given twice (``{"version": 1, "version": 2}``) silently keeps the last value, so
  what a proxy or a log saw need not be what the server did: refused, naming the key;
* lax types (``"2"`` or ``3.0`` or ``true`` for an integer, ``1`` for a boolean) are
  coerced: the body models are strict (:class:`StrictBody`), so these are refused too.

* a body that is not UTF-8: :func:`json.loads` given bytes guesses UTF-16 and UTF-32 (with
  or without a byte-order mark) and skips a UTF-8 BOM, so what a proxy or a log read as
  bytes need not be what the server parsed. The API takes UTF-8 only (RFC 8259 8.1), no
  BOM: anything else is 415 ``unsupported_media_type``.

The standard library's parser with a pairs hook costs a few microseconds per body, next to
the hundreds an action takes.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import Request
from pydantic import BaseModel, ConfigDict

from yahtzee.server.errors import ApiError

M = TypeVar("M", bound=BaseModel)


class StrictBody(BaseModel):
    """Base of the request bodies: unknown fields and lax types are refused."""

    model_config = ConfigDict(extra="forbid", strict=True)


class _DuplicateKeyError(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKeyError(key)
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: Python's extension, not JSON


class NotUtf8Error(ApiError):
    """A body in another encoding than UTF-8, or with a byte-order mark (415)."""

    def __init__(self) -> None:
        super().__init__(
            415,
            "unsupported_media_type",
            "请求内容必须是 UTF-8 编码的 JSON（不带 BOM）。",
        )


def _utf8_text(raw: bytes) -> str:
    """``raw`` as UTF-8 text, or :class:`NotUtf8Error`. A NUL byte is refused too: JSON
    never holds one raw (only as ``\\u0000``), and UTF-16/32 text of ASCII is full of them."""
    if b"\0" in raw:
        raise NotUtf8Error()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise NotUtf8Error() from None
    if text.startswith("\ufeff"):
        raise NotUtf8Error()
    return text


def parse_json(raw: bytes) -> Any:
    """The JSON value of ``raw``; 415 ``unsupported_media_type`` unless it is UTF-8 without
    a BOM, 422 ``invalid_request`` for malformed JSON or a key given twice in one object."""
    text = _utf8_text(raw)
    try:
        return json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
    except _DuplicateKeyError as exc:
        shown = repr(exc.key)[:60]
        raise ApiError(
            422, "invalid_request", f"请求格式不正确：字段 {shown} 出现了不止一次。"
        ) from None
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        message = "请求格式不正确：请求内容不是合法的 JSON。"
        raise ApiError(422, "invalid_request", message) from None


def parse_body(model: type[M], raw: bytes) -> M:
    """``raw`` validated as ``model`` (strictly); raises :class:`ApiError` or
    :class:`pydantic.ValidationError` (both 422 ``invalid_request`` naming the field)."""
    return model.model_validate(parse_json(raw))


def json_body(model: type[M]) -> Callable[[Request], Awaitable[M]]:
    """A FastAPI dependency reading the request body as ``model`` with :func:`parse_body`."""

    async def dependency(request: Request) -> M:
        return parse_body(model, await request.body())

    return dependency
