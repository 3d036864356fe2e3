"""Helpers shared by the API tests."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel

from yahtzee.daily.settings import DailySettings
from yahtzee.practice.settings import PracticeSettings
from yahtzee.rooms.settings import RoomSettings
from yahtzee.rules import Category
from yahtzee.server.settings import Limits
from yahtzee.server.views import ErrorOut

NO_HOLD = [False] * 5
# The rate limits off (F5), for tests that play at machine speed (see conftest.py): the
# platform's and the features' (each its section), as ``Settings(sections=...)`` takes them.
NO_LIMITS: tuple[object, ...] = (
    Limits(
        new_games_per_minute=0,
        new_players_per_minute=0,
        actions_per_second=0,
        new_games_per_minute_per_address=0,
        work_per_second=0,
    ),
    DailySettings(
        groups_per_hour=0, groups_per_hour_per_address=0, group_joins_per_hour=0, board_min_days=0
    ),
    PracticeSettings(servings_per_hour=0, servings_per_hour_per_address=0),
    RoomSettings(holds_per_second=0),
)


def no_limits_but(**changes: Any) -> tuple[object, ...]:
    """:data:`NO_LIMITS` with ``changes`` (each a field of one of its sections)."""
    out = []
    left = dict(changes)
    for section in NO_LIMITS:
        names = {f.name for f in dataclasses.fields(section)}  # type: ignore[arg-type]
        mine = {k: v for k, v in left.items() if k in names}
        out.append(dataclasses.replace(section, **mine) if mine else section)  # type: ignore[type-var]
        for k in mine:
            del left[k]
    assert not left, f"no limit is named {sorted(left)}"
    return tuple(out)


# The cookie secret of the PostgreSQL runs (S1: it comes from the configuration there).
TEST_SECRET = "test-secret-" + "0123456789abcdef" * 2
ALL_CATEGORIES = tuple(c.value for c in Category)


class NotJson(BaseModel):
    """Marks a documented response that is not JSON (its media type says what it is)."""


_Routes = list[tuple[re.Pattern[str], str, dict[str, type[BaseModel] | None]]]
_routes_seen: dict[tuple[tuple[str, str], ...], _Routes] = {}


def _documented_routes(app: FastAPI) -> _Routes:
    """Each documented path's pattern, method and model per status. Building the OpenAPI
    schema costs ~0.3 s and every test builds an app: apps with the same routes (all of
    them, in practice) share one reading of it."""
    key = tuple(
        sorted(
            (getattr(r, "path", ""), ",".join(sorted(getattr(r, "methods", None) or ())))
            for r in app.routes
        )
    )
    found = _routes_seen.get(key)
    if found is not None:
        return found
    schema = app.openapi()
    models = _response_models()
    routes: _Routes = []
    # Literal paths before templated ones (/api/games/current before /{game_id}).
    for path in sorted(schema["paths"], key=lambda p: p.count("{")):
        pattern = re.compile(re.sub(r"\{[^/]+\}", "[^/]+", path))
        for method, operation in schema["paths"][path].items():
            documented: dict[str, type[BaseModel] | None] = {}
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                if content and "application/json" not in content:
                    documented[status] = NotJson  # e.g. an SVG image: its own type
                    continue
                ref = content.get("application/json", {})
                name = ref.get("schema", {}).get("$ref", "").rpartition("/")[2]
                documented[status] = models.get(name)
            routes.append((pattern, method.upper(), documented))
    _routes_seen[key] = routes
    return routes


class DocumentedResponses:
    """Checks every JSON response of the API against what ``/openapi.json`` documents.

    Installed on every test client (an httpx response hook): the documented schema of the
    path, method and status names a model (``$ref``), and the body must validate as that
    pydantic model; an error status a route does not list must still be an
    :class:`ErrorOut`. The models forbid undocumented fields, so a field added to a
    response but not to its model (and so to the OpenAPI page) fails the API tests.
    """

    def __init__(self, app: FastAPI) -> None:
        self.routes = _documented_routes(app)
        self.checked = 0

    def model_for(self, method: str, path: str, status: int) -> type[BaseModel] | None:
        """The documented model of this response, ``None`` outside the documented API."""
        for pattern, route_method, documented in self.routes:
            if route_method == method and pattern.fullmatch(path):
                model = documented.get(str(status))
                if model is None and status >= 400:
                    return ErrorOut
                assert model is not None, f"{method} {path}: status {status} is not documented"
                return model
        return ErrorOut if status >= 400 and path.startswith("/api/") else None

    def __call__(self, response: httpx.Response) -> None:
        response.read()
        request = response.request
        if request.method == "HEAD" or not response.content:
            return
        path = request.url.path
        model = self.model_for(request.method, path, response.status_code)
        if model is None:
            return
        if model is NotJson:
            assert not response.headers["content-type"].startswith("application/json"), path
            return
        assert response.headers["content-type"].startswith("application/json"), path
        model.model_validate_json(response.content)  # raises, naming the field, if not
        self.checked += 1


def _response_models() -> dict[str, type[BaseModel]]:
    """The package's pydantic models by name (the names OpenAPI's ``$ref``s use)."""
    found: dict[str, type[BaseModel]] = {}
    stack = list(BaseModel.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("yahtzee."):
            found.setdefault(cls.__name__, cls)
    return found


class Api:
    """A browser: one TestClient (one cookie jar) with helpers for the game endpoints."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def new(
        self, mode: str = "solo", difficulty: str | None = None, *, replace: bool = False
    ) -> dict[str, Any]:
        """Start a game (``replace``: abandon the unfinished one, F2)."""
        body: dict[str, Any] = {"mode": mode}
        if difficulty is not None:
            body["difficulty"] = difficulty
        if replace:
            body["replace"] = True
        r = self.client.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        game: dict[str, Any] = r.json()
        return game

    def post(self, game: dict[str, Any], action: str, **body: Any) -> Any:
        body.setdefault("version", game["version"])
        return self.client.post(f"/api/games/{game['id']}/{action}", json=body)

    def ok(self, game: dict[str, Any], action: str, **body: Any) -> dict[str, Any]:
        r = self.post(game, action, **body)
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def roll(self, game: dict[str, Any], hold: list[bool] | None = None) -> dict[str, Any]:
        return self.ok(game, "roll", hold=hold or NO_HOLD)

    def score(self, game: dict[str, Any], category: str) -> dict[str, Any]:
        return self.ok(game, "score", category=category, confirm_zero=True)

    def get(self, game_id: str) -> dict[str, Any]:
        r = self.client.get(f"/api/games/{game_id}")
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def play_turn(self, game: dict[str, Any]) -> dict[str, Any]:
        """Roll once and write the dice in the first allowed box."""
        game = self.roll(game)
        allowed = [c for c, o in game["preview"].items() if o["allowed"]]
        return self.score(game, allowed[0])

    def play_to_end(self, game: dict[str, Any]) -> dict[str, Any]:
        while game["status"] == "in_progress":
            game = self.play_turn(game)
        return game


def error_code(response: Any) -> str:
    """The ``code`` of an error response, after checking the one error shape."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["message"], body
    code: str = body["error"]["code"]
    return code


T = TypeVar("T")


def on_app_loop(client: TestClient, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Await ``fn(*args)`` on the app's event loop, where its database pool lives.

    (A PostgreSQL pool belongs to the loop that opened it; the TestClient runs the app's
    loop in a thread of its own.)
    """
    portal = client.portal
    assert portal is not None, "the client must be entered (lifespan started)"
    return portal.call(fn, *args)


def player_of(client: TestClient) -> str:
    """The player id of ``client``'s cookie (I3: the cookie names a device, the devices
    table its player), as its app resolved it (after at least one request of it)."""
    from yahtzee.server.identity import DeviceSigner

    devices = client.app.state.devices  # type: ignore[attr-defined]
    signer: DeviceSigner = devices.signer
    device = signer.verify(client.cookies.get("yahtzee_player") or "")
    player = None if device is None else devices.cached(device)
    assert player is not None, "no player resolved for this client yet"
    return str(player)
