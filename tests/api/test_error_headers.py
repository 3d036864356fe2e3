"""Every refusal of issue 7 carries every security header (F3, F5, F6)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from yahtzee.server.settings import Limits

from .helpers import NO_HOLD, Api, error_code
from .test_same_origin import assert_security_headers
from .test_storage_faults import read_only


# SQLite only: the 503 comes from a read-only SQLite file (PostgreSQL's 503: test_storage.py).
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_415_403_422_429_503_all_carry_the_security_headers(
    make_client: Callable[..., TestClient],
) -> None:
    limits = Limits(new_games_per_minute=1)
    api = Api(make_client(limits=limits))
    game = api.new()
    url = f"/api/games/{game['id']}/roll"
    body = b'{"version": 1}'
    responses = {
        415: api.client.post(url, content=body, headers={"content-type": "text/plain"}),
        403: api.client.post(
            url,
            content=body,
            headers={"content-type": "application/json", "origin": "http://evil.example"},
        ),
        422: api.client.post(url, json={"version": "1", "hold": NO_HOLD}),
        429: api.client.post("/api/games", json={"mode": "solo", "replace": True}),
    }
    with read_only(api.client):
        responses[503] = api.post(game, "roll", hold=NO_HOLD)
    codes = {
        415: "unsupported_media_type",
        403: "forbidden",
        422: "invalid_request",
        429: "rate_limited",
        503: "storage_unavailable",
    }
    for status, response in responses.items():
        assert (response.status_code, error_code(response)) == (status, codes[status])
        assert_security_headers(response)
        assert response.headers["cache-control"] == "no-store"
