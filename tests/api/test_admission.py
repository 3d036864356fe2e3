"""S4: past what a process can answer in time, a clear refusal at once.

A real server with a small in-flight bound (``--max-in-flight 2``). Another connection
holds SQLite's write lock, so two players' rolls wait in the server: the bound is full.
A third request is then answered at once with 503 ``busy``, ``Retry-After`` and the error
shape, instead of waiting behind them; the health probe is still answered; when the lock
goes, the two waiting rolls are served (nothing lost) and requests are admitted again.
Before, every request was taken and waited its turn, however long the queue.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from server_process import ServerProcess
from yahtzee.server.admission import Admission
from yahtzee.storage import run_coroutine
from yahtzee.web.app import FEATURES

from .test_event_loop import write_lock

# A refusal takes milliseconds; a generous bound for a busy shared machine, still far
# under the lock's hold that a queued request would wait out.
PROMPT_SECONDS = 1.0
HOLD_SECONDS = 3.0


def _request(
    port: int, method: str, path: str, body: Any = None, cookie: str = ""
) -> tuple[int, dict[str, str], Any, str, float]:
    """(status, headers, JSON body, cookie, seconds taken) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    began = time.perf_counter()
    conn.request(method, path, None if body is None else json.dumps(body), headers)
    response = conn.getresponse()
    data = json.loads(response.read())
    took = time.perf_counter() - began
    conn.close()
    got = {k.lower(): v for k, v in response.getheaders()}
    cookie = got.get("set-cookie", cookie).split(";", 1)[0]
    return response.status, got, data, cookie, took


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(
        tmp_path / "games.db", args=("--max-in-flight", "2", "--admission-wait", "0.2")
    ) as proc:
        yield proc


def test_s4_past_the_in_flight_bound_a_request_is_refused_at_once_with_retry_after(
    server: ServerProcess,
) -> None:
    port = server.port
    players = []
    for _ in range(3):
        status, _, game, cookie, _ = _request(port, "POST", "/api/games", {"mode": "solo"})
        assert status == 201
        players.append((cookie, game))
    assert isinstance(server.db, Path)
    rolled: list[int] = []

    def roll(cookie: str, game: dict[str, Any]) -> None:
        body = {"version": game["version"]}
        rolled.append(_request(port, "POST", f"/api/games/{game['id']}/roll", body, cookie)[0])

    with write_lock(server.db):
        rollers = [threading.Thread(target=roll, args=p) for p in players[:2]]
        for t in rollers:
            t.start()
        time.sleep(0.5)  # both rolls now wait for the lock in the server: 2 in flight
        cookie, game = players[2]
        status, headers, body, _, took = _request(
            port, "GET", f"/api/games/{game['id']}", None, cookie
        )
        assert status == 503
        assert body["error"]["code"] == "busy"
        assert body["error"]["message"]  # the Chinese sentence the page shows
        assert headers["retry-after"] == "1"
        assert headers["cache-control"] == "no-store"
        assert "content-security-policy" in headers  # every header of an error
        assert took < PROMPT_SECONDS
        # a game action too (the fast path), and nothing of it was done
        roll_body = {"version": game["version"]}
        path = f"/api/games/{game['id']}/roll"
        status, headers, body, _, took = _request(port, "POST", path, roll_body, cookie)
        assert (status, body["error"]["code"], headers["retry-after"]) == (503, "busy", "1")
        assert took < PROMPT_SECONDS
        # the health probe is never refused
        assert _request(port, "GET", "/api/health")[0] == 200
        assert rolled == []  # (the two rolls were waiting all along)
        time.sleep(HOLD_SECONDS)
    for t in rollers:
        t.join(timeout=30)
    assert rolled == [200, 200]  # the admitted ones were served: nothing lost
    # admitted again; the refused roll had done nothing: its version still holds
    status, _, after, _, _ = _request(port, "POST", path, roll_body, cookie)
    assert status == 200
    assert after["version"] == game["version"] + 1


def test_s4_a_features_long_lived_requests_are_neither_counted_nor_refused() -> None:
    """The platform names no feature's path (K1): the features declare their long-lived
    requests (a room's event stream) and admission exempts exactly those, besides the
    health probe; with the bound full, any other request is refused."""
    exempt = [path for feature in FEATURES for path in feature.long_lived]
    stream = "/api/rooms/0123456789abcdef/events"
    held = asyncio.Event()
    reached: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:  # noqa: ARG001
        reached.append(scope["path"])
        if scope["path"] == "/api/records":
            await held.wait()  # the one request in flight: the bound is full
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def call(admission: Admission, path: str) -> int:
        sent: list[Message] = []

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": path, "headers": []}
        await admission(scope, receive, send)
        status: int = sent[0]["status"]
        return status

    async def main() -> list[int]:
        admission = Admission(app, max_in_flight=1, wait=0.0, exempt=exempt)
        first = asyncio.ensure_future(call(admission, "/api/records"))
        await asyncio.sleep(0.01)
        assert admission.in_flight == 1
        statuses = [await call(admission, p) for p in (stream, "/api/health", "/api/config")]
        assert admission.in_flight == 1  # the stream was not counted
        held.set()
        return [*statuses, await first]

    assert run_coroutine(main()) == [200, 200, 503, 200]
    assert reached == ["/api/records", stream, "/api/health"]  # the refused one did nothing
