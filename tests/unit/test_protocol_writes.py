"""Issue 31 item 2: what the bare server's protocol writes per answer (S3: a room action's
CPU). The server's protocol (``PROTOCOL``) driven with a recording transport: an answer is
one write (head and body together), an event stream's head still goes out before its first
frame, and a request head past the cap gets the API's 400 (h11 had that limit; the C parser
has none of its own). Behaviour on real sockets: ``tests/api/test_sockets.py``."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.importer import import_from_string
from uvicorn.server import ServerState

from yahtzee.server.protocol import PROTOCOL
from yahtzee.storage import run_coroutine


class RecordingTransport(asyncio.Transport):
    """A transport that keeps what is written."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 8000) if name in ("sockname", "peername") else default

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _serve(app: Any, request: bytes, turns: int = 20) -> list[bytes]:
    config = uvicorn.Config(app, http=PROTOCOL, log_level="warning")
    config.load()
    protocol = import_from_string(PROTOCOL)(
        config=config, server_state=ServerState(), app_state={}, _loop=asyncio.get_running_loop()
    )
    transport = RecordingTransport()
    protocol.connection_made(transport)
    protocol.data_received(request)
    for _ in range(turns):
        await asyncio.sleep(0)
    writes = list(transport.writes)
    protocol.connection_lost(None)
    return writes


GET = b"GET /api/health HTTP/1.1\r\nhost: localhost\r\n\r\n"


def test_an_answer_is_one_write_head_and_body_together() -> None:
    """S3: each answer was two socket writes (head, then body)."""

    async def app(_scope: Any, _receive: Any, send: Any) -> None:
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]}
        )
        await send({"type": "http.response.body", "body": b"ok"})

    writes = run_coroutine(_serve(app, GET))
    assert len(writes) == 1, writes
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert writes[0].endswith(b"\r\n\r\nok")


def test_a_stream_s_head_goes_out_before_its_first_frame() -> None:
    """An event stream's head is not held until its first frame (which may be seconds)."""
    never = asyncio.Event()

    async def app(_scope: Any, _receive: Any, send: Any) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await never.wait()

    async def run() -> list[bytes]:
        writes = await _serve(app, GET)
        never.set()
        return writes

    writes = run_coroutine(run())
    assert len(writes) == 1, writes
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"transfer-encoding: chunked" in writes[0]


def test_a_request_head_past_the_cap_gets_the_api_s_400() -> None:
    """h11 refused heads past 16 KiB; the C parser would keep reading them."""
    called = []

    async def app(scope: Any, _receive: Any, _send: Any) -> None:
        called.append(scope)

    big = b"GET / HTTP/1.1\r\nhost: localhost\r\nx-pad: " + b"a" * 20_000 + b"\r\n\r\n"
    writes = run_coroutine(_serve(app, big))
    assert not called
    assert len(writes) == 1, writes
    assert writes[0].startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert b'"code": "invalid_request"' in writes[0]
