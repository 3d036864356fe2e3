"""The direct route of the game actions answers exactly as the FastAPI routes would."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from fastapi.testclient import TestClient

from yahtzee.server.fastpath import ActionFastPath

from .helpers import NO_HOLD

# Headers that differ between two apps by construction (a new random cookie).
_VARYING = {"set-cookie", "date"}


def _without_fast_path(client: TestClient) -> TestClient:
    app: Any = client.app
    app.user_middleware = [m for m in app.user_middleware if m.cls is not ActionFastPath]
    app.middleware_stack = None  # rebuilt on the next request, without it
    return client


def _script(client: TestClient) -> Iterator[Any]:
    """A game with every kind of action and refusal; yields each response."""
    r = client.post("/api/games", json={"mode": "vs_computer", "difficulty": "expert"})
    yield r
    game = r.json()
    url = f"/api/games/{game['id']}"

    def post(action: str, body: Any, **kw: Any) -> Any:
        nonlocal game
        if isinstance(body, dict | list):
            r = client.post(f"{url}/{action}", json=body, **kw)
        else:
            kw.setdefault("headers", {"content-type": "application/json"})
            r = client.post(f"{url}/{action}", content=body, **kw)
        if r.status_code == 200:
            game = r.json()["game"] if action == "hint" else r.json()
        return r

    yield post("hint", {"version": game["version"]})  # before the first roll: 409
    yield post("roll", {"version": game["version"], "hold": [True] * 5})  # 409
    yield post("roll", {"version": game["version"]})  # hold defaults to none
    yield post("roll", {"version": game["version"] - 1, "hold": NO_HOLD})  # stale
    yield post("roll", {"version": game["version"], "hold": [1, 0, 0, 0, 0]})  # 422
    yield post("roll", {"version": game["version"], "hold": NO_HOLD, "x": 1})  # 422
    yield post("roll", b"{not json")
    yield post("roll", b'{"version": 1, "version": 2}')  # 422: a key given twice (F3)
    yield post("roll", {"version": str(game["version"])})  # 422: strict types (F3)
    text = {"content-type": "text/plain"}
    yield post("roll", json.dumps({"version": game["version"]}).encode(), headers=text)  # 415
    evil = {"origin": "http://evil.example", "content-type": "application/json"}
    yield post("roll", json.dumps({"version": game["version"]}).encode(), headers=evil)  # 403
    yield post("roll", b"x" * 70_000)  # 413 (Content-Length)
    yield post("roll", (b"x" * 1024 for _ in range(70)))  # 413 (counted while reading)
    yield post("hint", {"version": game["version"]})
    yield post("score", {"version": game["version"], "category": "nope"})  # 422
    for category in ("yahtzee", "chance"):
        if game["preview"][category]["points"] == 0:
            yield post("score", {"version": game["version"], "category": category})  # 409
        yield post(
            "score", {"version": game["version"], "category": category, "confirm_zero": True}
        )
        yield post("roll", {"version": game["version"], "hold": NO_HOLD})
    yield post("score", {"version": game["version"], "category": "chance"})  # used box
    yield post("resume", {"version": game["version"]})
    # Not actions: the application answers (the static files mount takes these).
    yield client.get(f"{url}/roll")
    yield client.post(f"{url}/roll/", json={"version": game["version"]}, follow_redirects=False)
    yield client.post("/api/games/nope/roll", json={"version": 1, "hold": NO_HOLD})  # 404
    yield client.post("/api/games/nope/jump", json={"version": 1})
    yield client.get(url)
    # Another player's game is not found.
    client.cookies.clear()
    yield client.post(f"{url}/resume", json={"version": game["version"]})


def _normal(response: Any, ids: dict[str, str]) -> tuple[Any, ...]:
    body = response.content
    for game_id, name in ids.items():
        body = body.replace(game_id.encode(), name.encode())
    headers = sorted((k, v) for k, v in response.headers.items() if k not in _VARYING)
    return response.status_code, headers, json.loads(body) if body else None


def test_same_responses_with_and_without_the_fast_path(
    make_client: Callable[..., TestClient],
) -> None:
    fast = make_client()  # two apps on one database (two players: their own cookies)
    slow = _without_fast_path(make_client())
    fast_responses, slow_responses = list(_script(fast)), list(_script(slow))
    assert len(fast_responses) == len(slow_responses)
    ids_fast = {fast_responses[0].json()["id"]: "GAME"}
    ids_slow = {slow_responses[0].json()["id"]: "GAME"}
    for a, b in zip(fast_responses, slow_responses, strict=True):
        assert _normal(a, ids_fast) == _normal(b, ids_slow), a.request.url
    statuses = [r.status_code for r in fast_responses]
    assert {200, 201, 403, 404, 405, 409, 413, 415, 422} <= set(statuses)


def test_b2_the_action_table_generates_the_routes_and_their_openapi_entries(
    client: TestClient,
) -> None:
    """Issue 11 §5: one declarative table; OpenAPI and the fast path both follow it."""
    from yahtzee.server.fastpath import _ACTION_PATH
    from yahtzee.server.routers.games import ACTIONS

    paths = client.get("/openapi.json").json()["paths"]
    documented = {p.rsplit("/", 1)[1] for p in paths if p.startswith("/api/games/{game_id}/")}
    assert set(ACTIONS) <= documented
    for name, action in ACTIONS.items():
        post = paths[f"/api/games/{{game_id}}/{name}"]["post"]
        assert post["summary"] == action.summary
        body = post["requestBody"]["content"]["application/json"]["schema"]
        assert body["title"] == action.body.__name__
        ok = post["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok["$ref"].endswith("/" + action.response.__name__)
        assert {int(s) for s in post["responses"] if s != "200"} >= set(action.errors)
        assert _ACTION_PATH.fullmatch(f"/api/games/abc/{name}")
