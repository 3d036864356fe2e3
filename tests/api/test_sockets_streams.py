"""The bare server's connection cap when every connection is being answered (issue 28):
a new connection is then 503 ``busy`` (a stream's connection is never replaced).

Kept apart from test_sockets.py: run before that module's descriptor test in one process,
this test made it see asyncio's "accept() out of system resource" (not understood yet;
see the branch's report)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from server_process import EventStream, RawClient, ServerProcess

from .test_sockets import _connect, _health, _read_all, _split


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    # (every connection may hold a stream: F18's share of the connections off)
    args = ["--max-connections", "3", "--stream-share", "1"]
    with ServerProcess(tmp_path / "s.db", args=args) as started:
        yield started


async def _open_streams(server: ServerProcess, n: int) -> list[EventStream]:
    """``n`` live room streams, each of a room of its own (a cookie each): connections
    that hold a request the application is answering."""
    streams = []
    for _ in range(n):
        host = RawClient("127.0.0.1", server.port)
        seats = [{"kind": "human", "name": "房主"}, {"kind": "human"}]
        room = (await host.request("POST", "/api/rooms", {"seats": seats}))["room"]
        await host.close()
        stream = EventStream(
            "127.0.0.1", server.port, f"/api/rooms/{room['id']}/events", cookie=host.cookie
        )
        assert await stream.open() == 200
        streams.append(stream)
    return streams


def _busy_answer(server: ServerProcess) -> tuple[int, dict[str, str], bytes]:
    with _connect(server) as extra:
        extra.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        return _split(_read_all(extra))


def test_past_the_cap_with_every_connection_answered_a_new_connection_is_503_busy(
    server: ServerProcess,
) -> None:

    async def attack() -> tuple[int, dict[str, str], bytes]:
        streams = await _open_streams(server, 3)  # (a stream's connection is never replaced)
        await asyncio.sleep(0.2)
        answer = await asyncio.to_thread(_busy_answer, server)
        for stream in streams:
            await stream.close()
        return answer

    status, headers, body = asyncio.run(attack())
    assert status == 503
    assert json.loads(body)["error"]["code"] == "busy"
    assert headers["x-content-type-options"] == "nosniff"
    time.sleep(0.2)
    assert _health(server) == 200
