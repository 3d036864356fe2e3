"""F11: what a hostile client sends costs one log line, and an impossible date is a 422.

Issue 28 item 4: each POST whose client went away mid-body logged "unhandled error" with a
~50-line ``ClientDisconnect`` traceback (14.8 MB of log in 10 s from one client), and
``GET /api/daily/9999-12-31/leaderboard?period=week`` was a 500 (``OverflowError`` in
the week's arithmetic), a traceback each time. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message

from yahtzee.server.protocol import RateLimitedLog, install_log_limits

from .helpers import Api, error_code, on_app_loop

# 2026-12-01 10:00 in Shanghai (as test_daily.py): the service's today.
NOON = datetime(2026, 12, 1, 2, 0, tzinfo=UTC).timestamp()


async def _send_half_a_body(client: TestClient, method: str, path: str) -> list[Message]:
    """One request whose client sends part of its body and hangs up; what the app sent."""
    app: Any = client.app
    cookie = client.cookies.get("yahtzee_player")
    headers = [
        (b"host", b"testserver"),
        (b"content-type", b"application/json"),
        (b"content-length", b"100"),
    ]
    if cookie:
        headers.append((b"cookie", f"yahtzee_player={cookie}".encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    incoming: list[Message] = [
        {"type": "http.request", "body": b'{"version": ', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


def _server_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("yahtzee")]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/games"),  # a router's body read
        ("PUT", "/api/daily/name"),
        ("POST", "/api/games/{game}/roll"),  # the fast path's own body read
    ],
)
def test_f11_a_client_gone_mid_body_is_one_log_line_without_a_traceback(
    api: Api, caplog: pytest.LogCaptureFixture, method: str, path: str
) -> None:
    game = api.new()
    caplog.clear()
    with caplog.at_level(logging.INFO):
        on_app_loop(api.client, _send_half_a_body, api.client, method, path.format(game=game["id"]))
    records = _server_records(caplog)
    assert len(records) == 1, [r.getMessage() for r in records]
    (record,) = records
    assert record.exc_info is None
    assert "disconnected" in record.getMessage()
    assert "unhandled" not in record.getMessage()
    assert record.levelno < logging.ERROR
    # The game was not touched.
    assert api.client.get(f"/api/games/{game['id']}").json()["version"] == game["version"]


def test_f11_a_flood_of_disconnects_is_one_line_per_interval(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    logger = logging.getLogger("yahtzee.server")
    install_log_limits()  # what `yahtzee serve` installs
    try:
        caplog.clear()
        with caplog.at_level(logging.INFO):
            for _ in range(30):
                on_app_loop(api.client, _send_half_a_body, api.client, "POST", "/api/games")
        assert len(_server_records(caplog)) == 1
    finally:  # (the other tests of this process count every line)
        for limit in [f for f in logger.filters if isinstance(f, RateLimitedLog)]:
            logger.removeFilter(limit)


@pytest.mark.parametrize(
    "day",
    ["9999-12-31", "0001-01-01", "1999-12-31", "2026-12-09", "3000-01-01"],
)
@pytest.mark.parametrize("period", ["day", "week"])
def test_f11_a_board_outside_the_service_dates_is_422(
    make_client: Callable[..., TestClient], day: str, period: str
) -> None:
    client = make_client(clock=lambda: NOON)
    reply = client.get(f"/api/daily/{day}/leaderboard", params={"period": period})
    assert reply.status_code == 422, reply.text
    assert error_code(reply) == "date_out_of_range"
    message = reply.json()["error"]["message"]
    assert day in message
    assert "2026-01-01" in message  # the range is named
    assert "2026-12-08" in message


@pytest.mark.parametrize("day", ["2026-01-01", "2026-12-01", "2026-12-08"])
def test_f11_the_range_itself_is_served(make_client: Callable[..., TestClient], day: str) -> None:
    client = make_client(clock=lambda: NOON)
    for period in ("day", "week"):
        reply = client.get(f"/api/daily/{day}/leaderboard", params={"period": period})
        assert reply.status_code == 200, reply.text


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("电脑（高手）", "电脑"),
        ("电脑3（普通）", "电脑"),
        ("小\n明", "U+000A"),
        ("小明\t", "U+0009"),
        ("\u3164", "不能为空"),  # a filler: removed (F25), nothing is left
        ("\u2800\u2800", "U+2800"),
        ("Z\u0351\u0352\u0353\u0354\u0355\u0356\u0357\u0358\u0359\u035a\u035b", "组合符号"),
    ],
)
def test_f16_every_name_field_refuses_invisible_and_computer_names(
    make_client: Callable[..., TestClient], name: str, words: str
) -> None:
    """The board name, a group's names and a table's seats: one rule, one clear message."""
    client = make_client(clock=lambda: NOON)
    replies = [
        client.put("/api/daily/name", json={"name": name}),
        client.post("/api/groups", json={"name": name, "your_name": "老师"}),
        client.post("/api/groups", json={"name": "三年二班", "your_name": name}),
    ]
    for reply in replies:
        assert reply.status_code == 422, reply.text
        assert error_code(reply) == "invalid_name"
        assert words in reply.json()["error"]["message"]
    seats = [{"kind": "human", "name": "小红"}, {"kind": "human", "name": name}]
    table = client.post("/api/games", json={"mode": "table", "seats": seats})
    assert table.status_code == 422
    assert error_code(table) == "invalid_seats"
    assert table.json()["error"]["message"].startswith("第 2 位的名字")
    assert words in table.json()["error"]["message"]
