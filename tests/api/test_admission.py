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
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from server_process import NO_LIMIT_ARGS, RawClient, ServerProcess
from yahtzee.server import admission as admission_module
from yahtzee.server.admission import Admission
from yahtzee.server.middleware import PLAYER_SCOPE_KEY, Visitor
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
        admission = Admission(app, max_in_flight=1, wait=0.0, long_lived=exempt)
        first = asyncio.ensure_future(call(admission, "/api/records"))
        await asyncio.sleep(0.01)
        assert admission.in_flight == 1
        statuses = [await call(admission, p) for p in (stream, "/api/health", "/api/config")]
        assert admission.in_flight == 1  # the stream was not counted
        held.set()
        return [*statuses, await first]

    assert run_coroutine(main()) == [200, 200, 503, 200]
    assert reached == ["/api/records", stream, "/api/health"]  # the refused one did nothing


# -- F19: the classes of requests ---------------------------------------------------------------

METER = r"/api/games/[^/]+/meter"


class _Ids:
    """What a :class:`Visitor` asks of the player ids here: a cookie names its player."""

    def known(self, cookie: str | None) -> str | None:
        return cookie


def _scope(path: str, address: str, cookie: str, method: str = "GET") -> dict[str, Any]:
    return {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [],
        "client": (address, 50000),
        PLAYER_SCOPE_KEY: Visitor(_Ids(), cookie, address),  # type: ignore[arg-type]
    }


class _HeldApp:
    """An application that holds every meter until :attr:`release` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: ARG002
        if scope["path"].endswith("/meter"):
            await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


async def _status(admission: Admission, scope: dict[str, Any]) -> int:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await admission(scope, receive, send)
    status: int = sent[0]["status"]
    return status


def test_f19_costly_requests_in_flight_never_refuse_a_cheap_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The attack (issue 35 item 2): meters of many cookies fill what the process serves at
    once, the oldest past the wait; a game action and a read of one's own game must still
    be admitted (before, every request was refused 503)."""
    monkeypatch.setattr(admission_module, "COSTLY_PAUSE", 0.0)
    app = _HeldApp()

    async def main() -> None:
        admission = Admission(
            app, max_in_flight=2, wait=0.0, costly=[("GET", METER)], max_costly=100
        )
        held = [
            asyncio.ensure_future(
                _status(admission, _scope(f"/api/games/g{i}/meter", "10.0.0.1", f"c{i}"))
            )
            for i in range(20)
        ]
        await asyncio.sleep(0.01)
        assert admission.costly == 20
        assert admission.in_flight == 0
        for scope in (
            _scope("/api/games/v/roll", "10.0.0.9", "victim", "POST"),
            _scope("/api/games/v", "10.0.0.9", "victim"),
        ):
            assert await _status(admission, scope) == 200
        app.release.set()
        assert await asyncio.gather(*held) == [200] * 20

    run_coroutine(main())


def test_f19_the_costly_slots_are_shared_between_address_groups_then_cookies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(admission_module, "COSTLY_PAUSE", 0.0)
    app = _HeldApp()

    async def main() -> None:
        admission = Admission(app, max_in_flight=64, costly=[("GET", METER)], max_costly=8)

        def meter(address: str, cookie: str) -> asyncio.Future[int]:
            scope = _scope(f"/api/games/{cookie}/meter", address, cookie)
            return asyncio.ensure_future(_status(admission, scope))

        async def answered(futures: list[asyncio.Future[int]]) -> list[int]:
            await asyncio.sleep(0.01)  # (every request has been admitted or refused by now)
            return [f.result() for f in futures if f.done()]

        # one address with many cookies: the slots, not more
        greedy = [meter("10.0.0.1", f"a{i}") for i in range(9)]
        assert await answered(greedy) == [503]
        assert admission.costly == 8
        # another group gets its share at once, 8 / 2, though the greedy one holds 8 (the
        # addresses of one /64 are one group)
        other = [meter(f"2001:db8:0:1::{i}", f"b{i}") for i in range(1, 6)]
        assert await answered(other) == [503]
        assert admission.costly == 12
        # the greedy one gets nothing more while it is over its share
        assert await meter("10.0.0.1", "a99") == 503
        app.release.set()
        results = await asyncio.gather(*greedy, *other)
        assert results.count(200) == 12
        assert admission.costly == 0
        assert not admission._groups

    async def cookies() -> None:
        app.release = asyncio.Event()
        admission = Admission(app, max_in_flight=64, costly=[("GET", METER)], max_costly=4)

        def meter(cookie: str) -> asyncio.Future[int]:
            scope = _scope(f"/api/games/{cookie}/meter", "10.0.0.7", cookie)
            return asyncio.ensure_future(_status(admission, scope))

        # inside a group, the cookies share its slots: the last one goes to the cookie
        # that holds fewer, not to the one that holds its share already
        x = [meter("x"), meter("x")]
        y = [meter("y")]
        await asyncio.sleep(0.01)
        assert admission.costly == 3
        assert await meter("x") == 503  # (2 of the group's 4, with 2 cookies: its share)
        y.append(meter("y"))
        await asyncio.sleep(0.01)
        assert admission.costly == 4
        app.release.set()
        assert await asyncio.gather(*x, *y) == [200] * 4

    run_coroutine(main())
    run_coroutine(cookies())


def test_f19_cookies_looping_the_meter_never_get_a_game_action_refused(tmp_path: Path) -> None:
    """Issue 35 item 2 on a real server, its bound small so that a few cookies fill it:
    20 cookies loop the live meter of their own game (one request at a time each) while
    another player plays. Before, once 8 meters were in flight, the oldest past 0.1 s in
    the CPU pool's queue, the player's actions were refused 503 too."""
    args = (*NO_LIMIT_ARGS, "--max-in-flight", "8", "--admission-wait", "0.1")

    async def main(port: int) -> tuple[list[int], int]:
        async def cookie() -> tuple[RawClient, str]:
            client = RawClient("127.0.0.1", port)
            game = await client.request(
                "POST", "/api/games", {"mode": "vs_computer", "difficulty": "expert"}
            )
            body = {"version": game["version"]}
            await client.request("POST", f"/api/games/{game['id']}/roll", body)
            return client, f"/api/games/{game['id']}/meter"

        flooders = [await cookie() for _ in range(20)]
        stop = asyncio.Event()
        meters = 0

        async def flood(client: RawClient, path: str) -> None:
            nonlocal meters
            while not stop.is_set():
                await client.raw("GET", path)
                meters += 1

        tasks = [asyncio.ensure_future(flood(c, p)) for c, p in flooders]
        player = RawClient("127.0.0.1", port)
        statuses = []
        while meters < 40:  # (the flood is under way)
            await asyncio.sleep(0.05)
        for _ in range(3):
            status, data = await player.raw("POST", "/api/games", {"mode": "solo", "replace": True})
            statuses.append(status)
            if status != 201:
                continue
            game = json.loads(data)
            for _ in range(12):
                body = {"version": game["version"]}
                status, data = await player.raw("POST", f"/api/games/{game['id']}/roll", body)
                statuses.append(status)
                if status != 200:
                    break
                game = json.loads(data)
                status, _ = await player.raw("GET", f"/api/games/{game['id']}")
                statuses.append(status)
                free = [c for c, o in game["preview"].items() if o["allowed"]]
                body = {"version": game["version"], "category": free[0], "confirm_zero": True}
                status, data = await player.raw("POST", f"/api/games/{game['id']}/score", body)
                statuses.append(status)
                if status != 200:
                    break
                game = json.loads(data)
        stop.set()
        await asyncio.gather(*tasks)
        for client, _ in flooders:
            await client.close()
        await player.close()
        return statuses, meters

    with ServerProcess(tmp_path / "meters.db", args=args) as server:
        statuses, meters = asyncio.run(main(server.port))
    assert meters > 40
    assert set(statuses) <= {200, 201}, Counter(statuses)
