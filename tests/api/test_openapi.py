"""``/openapi.json`` is the machine-readable API (docs/api.md): every route that reads a
request body documents it, every schema it names resolves, and the routers take their
services as typed dependencies, never the bare request (issue 26, items 5)."""

from __future__ import annotations

import re
from typing import Any

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from .helpers import error_code

_WITH_BODY = ("post", "put", "patch", "delete")
# A value of every path parameter's pattern (the ids are 16 hex digits).
_SOME_ID = "0123456789abcdef"


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        for value in node.values():
            found.extend(_refs(value))
        return found
    if isinstance(node, list):
        return [ref for item in node for ref in _refs(item)]
    return []


def test_every_route_that_reads_a_body_documents_it(client: TestClient) -> None:
    """A route reads a body when a malformed one (``{``) is refused as invalid JSON; such
    a route must have a ``requestBody`` naming a schema (17 had none, ``/api/groups/join``
    among them), and a route with one must read it."""
    spec = client.get("/openapi.json").json()
    undocumented: list[str] = []
    probed = 0
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method not in _WITH_BODY:
                continue
            url = re.sub(r"\{[^/}]+\}", _SOME_ID, path)
            r = client.request(
                method.upper(), url, content=b"{", headers={"content-type": "application/json"}
            )
            reads_body = r.status_code == 422 and error_code(r) == "invalid_request"
            documented = "requestBody" in operation
            probed += 1
            if reads_body and not documented:
                undocumented.append(f"{method.upper()} {path}")
            if documented:
                assert reads_body, f"{method.upper()} {path} documents a body it never reads"
                schema = operation["requestBody"]["content"]["application/json"]["schema"]
                assert schema.get("$ref") or schema.get("properties") is not None, path
    assert probed >= 20
    assert undocumented == []


def test_every_schema_the_document_names_exists(client: TestClient) -> None:
    """Each ``$ref`` of ``/openapi.json`` resolves in its ``components`` (a body's schema
    with nested ``$defs`` must not point at a component that is not there)."""
    spec = client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    dangling = sorted(
        {
            ref
            for ref in _refs(spec["paths"]) + _refs(components)
            if ref.removeprefix("#/components/schemas/") not in components
        }
    )
    assert dangling == []


# The one route that reads the request itself: the game actions skip FastAPI's parameter
# solving for speed (docs/architecture.md, "Thin routers"), and their bodies are
# documented from the action table.
_RAW_ROUTES = {"roll", "score", "hint", "undo", "abandon"}


def _api_routes(routes: list[Any]) -> list[APIRoute]:
    """Every route of the app, the included routers' too (FastAPI keeps an included
    router whole, as one entry of ``app.routes``)."""
    found: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append(route)
        included = getattr(route, "original_router", None)
        if included is not None:
            found.extend(_api_routes(included.routes))
    return found


def test_routers_take_typed_dependencies_not_the_request(client: TestClient) -> None:
    """No handler takes ``request: Request`` to fetch a service from ``app.state`` by hand;
    they name what they need as ``Annotated`` dependencies (``_common.py``, each feature's
    own in its package)."""
    routes = _api_routes(client.app.routes)  # type: ignore[attr-defined]
    assert len(routes) >= 40
    assert {"roll", "join", "create_group"} <= {route.name for route in routes}
    raw = [
        f"{route.path} ({route.endpoint.__module__})"
        for route in routes
        if route.dependant.request_param_name is not None and route.name not in _RAW_ROUTES
    ]
    assert raw == []
