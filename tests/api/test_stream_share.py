"""F18: long-lived streams hold only their share of a process's connections, and a room's
invite link is no way around its watchers' cap (issue 35 item 1).

The attacks, on a real server (its connection cap small, so that the test is quick):

* streams opened until the connection cap, each under every per-browser, per-address and
  per-room cap: every other request was then refused 503 (or its connection reset). Now
  the streams past ``--stream-share`` of the connections are refused 503 ``busy`` with
  ``Retry-After``, in the error shape, and health, a new game and a game action are
  answered on new connections meanwhile;
* any number of cookies opening a room's stream with its invite link, which was not
  counted against the room's watchers' cap: now it is, and the invited friend gets theirs
  once seated.

The new settings are given through the environment (``YAHTZEE_…``), which an older server
ignores: run against the old code, these tests fail on what they check, not on a flag.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_process import NO_LIMIT_ARGS, EventStream, RawClient, ServerProcess

CONNECTIONS = 24
SHARE = 0.5  # of the connections: 12 streams
SEATS = [{"kind": "human", "name": "房主"}, {"kind": "human"}]


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerProcess]:
    monkeypatch.setenv("YAHTZEE_STREAM_SHARE", str(SHARE))
    monkeypatch.setenv("YAHTZEE_MAX_ROOM_STREAMS", "2")
    args = [
        *NO_LIMIT_ARGS,
        "--max-connections",
        str(CONNECTIONS),
        "--max-rooms-per-hour-per-address",
        "0",
        "--max-open-rooms",
        "0",
    ]
    with ServerProcess(tmp_path / "share.db", args=args) as started:
        yield started


async def _refusal(stream: EventStream) -> tuple[dict[str, Any], str]:
    """The error of a refused stream's answer, and its ``Retry-After``."""
    assert stream._reader is not None
    head_and_body = await asyncio.wait_for(stream._reader.read(4096), 10)
    error: dict[str, Any] = json.loads(head_and_body.decode())["error"]
    return error, stream.response_headers.get("retry-after", "")


def test_f18_streams_past_their_share_are_refused_and_the_rest_of_the_server_answers(
    server: ServerProcess,
) -> None:
    port = server.port

    async def main() -> None:
        opened: list[EventStream] = []
        statuses = []
        # four browsers, each the host of its own room, each stream within every cap
        for _ in range(4):
            host = RawClient("127.0.0.1", port)
            room = (await host.request("POST", "/api/rooms", {"seats": SEATS}))["room"]
            await host.close()
            for _ in range(6):  # (--max-streams-per-player: 6 a browser)
                stream = EventStream(
                    "127.0.0.1", port, f"/api/rooms/{room['id']}/events", cookie=host.cookie
                )
                statuses.append(await stream.open())
                if stream.status == 200:
                    opened.append(stream)
                else:
                    error, retry_after = await _refusal(stream)
                    assert (stream.status, error["code"]) == (503, "busy")
                    assert error["message"]
                    assert retry_after == "5"
                    await stream.close()
        share = int(CONNECTIONS * SHARE)
        assert statuses == [200] * share + [503] * (24 - share)
        # the streams' share is full: everything else is answered, on new connections
        bystander = RawClient("127.0.0.1", port)
        assert (await bystander.request("GET", "/api/health"))["status"] == "ok"
        game = await bystander.request("POST", "/api/games", {"mode": "solo"})
        rolled = await bystander.request(
            "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
        )
        assert rolled["version"] == game["version"] + 1
        await bystander.close()
        # a stream that ends gives its place back (once the server has seen it go)
        gone = opened.pop()
        await gone.close()
        for _ in range(100):
            again = EventStream("127.0.0.1", port, gone.path, cookie=gone.cookie)
            if await again.open() == 200:
                break
            await again.close()
            await asyncio.sleep(0.05)
        assert again.status == 200
        opened.append(again)
        for stream in opened:
            await stream.close()

    asyncio.run(main())


def test_f18_invite_holders_count_against_the_rooms_watchers_cap(server: ServerProcess) -> None:
    port = server.port

    async def main() -> None:
        host = RawClient("127.0.0.1", port)
        room = (await host.request("POST", "/api/rooms", {"seats": SEATS}))["room"]
        invite = room["invite_url"].partition("#t=")[2]
        path = f"/api/rooms/{room['id']}/events"
        opened: list[EventStream] = []
        statuses = []
        for _ in range(4):  # fresh cookies, each holding the invite link
            someone = RawClient("127.0.0.1", port)
            await someone.request("GET", f"/api/rooms/{room['id']}?token={invite}")
            await someone.close()
            stream = EventStream("127.0.0.1", port, f"{path}?token={invite}", cookie=someone.cookie)
            statuses.append(await stream.open())
            if stream.status == 200:
                opened.append(stream)
            else:
                error, retry_after = await _refusal(stream)
                assert error["code"] == "too_many_streams"
                assert "入座以后就能看到" in error["message"]  # (a seat is the way in)
                assert retry_after == "5"
                await stream.close()
        assert statuses == [200, 200, 429, 429]  # --max-room-streams 2
        # a seat holder always gets theirs; the invited friend too, once seated
        mine = EventStream("127.0.0.1", port, path, cookie=host.cookie)
        assert await mine.open() == 200
        opened.append(mine)
        friend = RawClient("127.0.0.1", port)
        await friend.request(
            "POST", f"/api/rooms/{room['id']}/join", {"token": invite, "name": "小明"}
        )
        seated = EventStream("127.0.0.1", port, path, cookie=friend.cookie)
        assert await seated.open() == 200
        opened.append(seated)
        for stream in opened:
            await stream.close()
        for client in (host, friend):
            await client.close()

    asyncio.run(main())
