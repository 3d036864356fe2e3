"""The tests' own HTTP client (tests/server_process.py ``RawClient``) behaves as a browser
does when a kept-alive connection was closed by the server while idle: it sends the request
once more on a new connection. Under load a server's keep-alive timeout can end an idle
connection just as the next request goes out; a client that fails then fails a test for
something no person would ever see."""

from __future__ import annotations

import asyncio

import pytest

from server_process import RawClient
from yahtzee.storage import run_coroutine


def _answer(n: int) -> bytes:
    body = b'{"n": %d}' % n
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


async def _serve_one_per_connection() -> tuple[asyncio.Server, list[int], asyncio.Event]:
    """A server that answers one request per connection, then closes it without saying
    so (no ``Connection: close``), as an idle keep-alive connection is closed."""
    served: list[int] = []
    closed = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        served.append(len(served) + 1)
        writer.write(_answer(served[-1]))
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        closed.set()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, served, closed


def test_a_request_on_a_connection_the_server_closed_is_sent_again() -> None:
    async def main() -> list[object]:
        server, served, closed = await _serve_one_per_connection()
        port = server.sockets[0].getsockname()[1]
        client = RawClient("127.0.0.1", port)
        try:
            first = await client.request("GET", "/a")
            await closed.wait()  # the server has closed the idle connection
            second = await client.request("GET", "/b")
        finally:
            await client.close()
            server.close()
            await server.wait_closed()
        return [first, second, len(served)]

    assert run_coroutine(main()) == [{"n": 1}, {"n": 2}, 2]


def test_a_fresh_connection_closed_before_any_answer_is_an_error() -> None:
    async def main() -> None:
        async def hang_up(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.close()

        server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
        client = RawClient("127.0.0.1", server.sockets[0].getsockname()[1])
        try:
            with pytest.raises(ConnectionError):
                await client.request("GET", "/a")
        finally:
            await client.close()
            server.close()
            await server.wait_closed()

    run_coroutine(main())
