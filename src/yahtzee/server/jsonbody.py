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

A route names its body as a parameter ``body: JsonBody[GroupIn]``: a dependency that reads
it with :func:`parse_body` (FastAPI's own body parsing never runs), and which
:class:`JsonBodyRoute`, the routers' route class, documents as the operation's
``requestBody`` in ``/openapi.json``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict

from yahtzee.i18n import msg
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
            msg("error.body.not_utf8"),
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
        detail = msg("error.body.duplicate_key", field=shown)
        raise ApiError(
            422, "invalid_request", msg("error.request_invalid", detail=detail)
        ) from None
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        detail = msg("error.body.not_json")
        raise ApiError(
            422, "invalid_request", msg("error.request_invalid", detail=detail)
        ) from None


def parse_body(model: type[M], raw: bytes) -> M:
    """``raw`` validated as ``model`` (strictly); raises :class:`ApiError` or
    :class:`pydantic.ValidationError` (both 422 ``invalid_request`` naming the field)."""
    return model.model_validate(parse_json(raw))


def json_body(model: type[M]) -> Callable[[Request], Awaitable[M]]:
    """A FastAPI dependency reading the request body as ``model`` with :func:`parse_body`."""

    async def dependency(request: Request) -> M:
        return parse_body(model, await request.body())

    dependency.body_model = model  # type: ignore[attr-defined]  # (read by JsonBodyRoute)
    return dependency


class EmptyIn(StrictBody):
    """No fields (``{}``): the body of an action that needs nothing more than its path."""


if TYPE_CHECKING:
    #: ``body: JsonBody[Model]``: the request body read strictly as ``Model`` (see above).
    JsonBody = Annotated[M, "the request body"]
else:

    class JsonBody:
        """``JsonBody[Model]``: ``Annotated[Model, Depends(json_body(Model))]``."""

        def __class_getitem__(cls, model: type[BaseModel]) -> Any:
            return Annotated[model, Depends(json_body(model))]


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$defs`` put in place of their references: a self-contained
    schema (a ``#/$defs/...`` reference would point at the OpenAPI document's root)."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return resolve(defs[ref.removeprefix("#/$defs/")])
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    inlined: dict[str, Any] = resolve(schema)
    return inlined


def body_doc(model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` of a route that reads its body as ``model`` itself."""
    schema = _inline(model.model_json_schema())
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": schema}},
        }
    }


def _body_model(dependant: Dependant) -> type[BaseModel] | None:
    for sub in dependant.dependencies:
        model: type[BaseModel] | None = getattr(sub.call, "body_model", None)
        if model is None:
            model = _body_model(sub)
        if model is not None:
            return model
    return None


class JsonBodyRoute(APIRoute):
    """The routers' route class: a route with a :data:`JsonBody` (or
    :func:`json_body`) dependency gets that model as its ``requestBody`` in the OpenAPI
    schema, which FastAPI cannot see (it documents only the bodies it parses itself)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        model = _body_model(self.dependant)
        if model is not None and "requestBody" not in (self.openapi_extra or {}):
            self.openapi_extra = {**(self.openapi_extra or {}), **body_doc(model)}
