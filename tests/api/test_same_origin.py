"""F3: only same-origin JSON can change anything; types are strict; HEAD works like GET."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee.server.middleware import SECURITY_HEADERS, same_origin

from .helpers import NO_HOLD, Api, error_code

OWN = "http://testserver"  # TestClient's base URL: the server's own origin here


def _raw(api: Api, path: str, body: Any, **headers: str) -> Any:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return api.client.post(path, content=data, headers=headers)


def _roll_path(game: dict[str, Any]) -> str:
    return f"/api/games/{game['id']}/roll"


def assert_security_headers(response: Any) -> None:
    """Every security header of the middleware is on ``response``."""
    for name, value in SECURITY_HEADERS:
        assert response.headers.get(name.decode()) == value.decode(), name


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin-1",
        "application/jsonx",
    ],
)
def test_f3_a_body_that_is_not_json_is_415_on_every_post(
    api: Api, content_type: str | None
) -> None:
    game = api.new()
    headers = {} if content_type is None else {"content-type": content_type}
    body = {"version": game["version"], "hold": NO_HOLD}
    for path, payload in ((_roll_path(game), body), ("/api/games", {"mode": "solo"})):
        r = _raw(api, path, payload, **headers)
        assert (r.status_code, error_code(r)) == (415, "unsupported_media_type"), path
        assert (
            r.json()["error"]["message"]
            == "请求内容必须是 JSON（Content-Type: application/json）。"
        )
        assert_security_headers(r)
    assert api.get(game["id"])["version"] == game["version"]  # nothing happened
    assert api.client.get("/api/games/current").json()["id"] == game["id"]


@pytest.mark.parametrize("content_type", ["application/json", "Application/JSON; charset=utf-8"])
def test_f3_json_content_types_are_accepted(api: Api, content_type: str) -> None:
    game = api.new()
    r = _raw(api, _roll_path(game), {"version": game["version"]}, **{"content-type": content_type})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example"},
        {"origin": "http://testserver:8080"},  # another port
        {"origin": "https://testserver"},  # another scheme
        {"origin": "null"},  # a sandboxed frame, a file: page
        {"origin": "http://testserver.evil.example"},
        {"sec-fetch-site": "cross-site"},
        {"origin": OWN, "sec-fetch-site": "cross-site"},
    ],
)
def test_f3_a_cross_site_request_is_403_even_with_a_json_body(
    api: Api, headers: dict[str, str]
) -> None:
    game = api.new()
    for path, payload in (
        (_roll_path(game), {"version": game["version"], "hold": NO_HOLD}),
        ("/api/games", {"mode": "solo"}),
    ):
        r = _raw(api, path, payload, **{"content-type": "application/json", **headers})
        assert (r.status_code, error_code(r)) == (403, "forbidden"), path
        assert_security_headers(r)
        # A cross-site text/plain form post: still 403 (checked before the content type).
        r = _raw(api, path, payload, **{"content-type": "text/plain", **headers})
        assert (r.status_code, error_code(r)) == (403, "forbidden"), path
    assert api.get(game["id"])["version"] == game["version"]


def test_f3_the_issue_attack_text_plain_duplicate_key_from_evil_origin_is_refused(
    api: Api,
) -> None:
    """The request the issue showed being accepted: text/plain, a key twice, evil Origin."""
    game = api.new()
    raw = f'{{"version": "x", "version": {game["version"]}, "hold": {json.dumps(NO_HOLD)}}}'
    headers = {"content-type": "text/plain", "origin": "http://evil.example"}
    assert _raw(api, _roll_path(game), raw.encode(), **headers).status_code == 403
    del headers["origin"]
    assert _raw(api, _roll_path(game), raw.encode(), **headers).status_code == 415
    headers["content-type"] = "application/json"
    r = _raw(api, _roll_path(game), raw.encode(), **headers)
    assert (r.status_code, error_code(r)) == (422, "invalid_request")
    assert "'version'" in r.json()["error"]["message"]
    assert "不止一次" in r.json()["error"]["message"]
    assert api.get(game["id"])["version"] == game["version"]


@pytest.mark.parametrize(
    "headers",
    [
        {},  # curl, scripts, the tests: no Origin at all
        {"origin": OWN},
        {"origin": OWN, "sec-fetch-site": "same-origin"},
        {"sec-fetch-site": "same-origin"},
        {"sec-fetch-site": "none"},  # typed in the address bar
    ],
)
def test_f3_same_origin_and_originless_requests_are_allowed(
    api: Api, headers: dict[str, str]
) -> None:
    game = api.new()
    r = _raw(
        api,
        _roll_path(game),
        {"version": game["version"], "hold": NO_HOLD},
        **{"content-type": "application/json", **headers},
    )
    assert r.status_code == 200, r.text


def test_f3_reads_are_not_refused_for_their_origin(api: Api) -> None:
    """A GET changes nothing; without CORS headers a foreign page cannot read it anyway."""
    r = api.client.get("/api/health", headers={"origin": "http://evil.example"})
    assert r.status_code == 200
    assert "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize(
    ("origin", "scheme", "host", "same"),
    [
        ("http://a.example", "http", "a.example", True),
        ("http://a.example:80", "http", "a.example", True),
        ("http://a.example", "http", "a.example:80", True),
        ("https://a.example", "https", "A.example:443", True),
        ("http://127.0.0.1:8000", "http", "127.0.0.1:8000", True),
        ("http://[::1]:8000", "http", "[::1]:8000", True),
        ("http://[::1]:8000", "http", "[::1]:8001", False),
        ("http://a.example", "https", "a.example", False),
        ("http://a.example:8000", "http", "a.example", False),
        ("http://a.example/path", "http", "a.example", False),
        ("http://a.example:99999", "http", "a.example", False),
        ("null", "http", "a.example", False),
        ("", "http", "a.example", False),
        ("ftp://a.example", "http", "a.example", False),
    ],
)
def test_f3_origin_comparison(origin: str, scheme: str, host: str, same: bool) -> None:
    assert same_origin(origin, scheme, host) is same


@pytest.mark.parametrize(
    ("action", "body", "field"),
    [
        ("roll", {"version": "2"}, "version"),
        ("roll", {"version": True}, "version"),
        ("roll", {"version": 1.0}, "version"),
        ("roll", {"version": 1, "hold": [1, 0, 0, 0, 0]}, "hold.0"),
        ("roll", {"version": 1, "hold": ["true", False, False, False, False]}, "hold.0"),
        ("hint", {"version": "1"}, "version"),
        ("score", {"version": 1, "category": "chance", "confirm_zero": 1}, "confirm_zero"),
        ("score", {"version": 1, "category": "chance", "confirm_zero": "true"}, "confirm_zero"),
    ],
)
def test_f3_types_are_strict_and_the_message_names_the_field(
    api: Api, action: str, body: dict[str, Any], field: str
) -> None:
    game = api.new()
    if action == "score":
        game = api.roll(game)
        body = {**body, "version": game["version"]}
    r = api.client.post(f"/api/games/{game['id']}/{action}", json=body)
    assert (r.status_code, error_code(r)) == (422, "invalid_request"), r.text
    assert f"字段 {field} " in r.json()["error"]["message"]
    assert_security_headers(r)
    assert api.get(game["id"])["version"] == game["version"]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"mode": "solo", "mode": "vs_computer"}',
        b'{"mode": 1}',
        b'{"mode": "solo", "difficulty": true}',
        b'{"mode": NaN}',
        b"[]",
    ],
)
def test_f3_new_game_body_is_strict_too(api: Api, raw: bytes) -> None:
    r = api.client.post("/api/games", content=raw, headers={"content-type": "application/json"})
    assert (r.status_code, error_code(r)) == (422, "invalid_request"), r.text
    assert api.client.get("/api/games/current").status_code == 404


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: t.encode("utf-16"),  # with its BOM
        lambda t: t.encode("utf-16-le"),  # json.loads guessed these from the NULs
        lambda t: t.encode("utf-16-be"),
        lambda t: t.encode("utf-32"),
        lambda t: t.encode("utf-32-le"),
        lambda t: t.encode("utf-8-sig"),  # UTF-8, but with a BOM
        lambda t: t.encode("utf-8") + b"\xff",  # not UTF-8 at all
    ],
    ids=["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-8-bom", "not-utf-8"],
)
def test_f3_a_body_not_in_utf8_is_415_on_every_post(api: Api, encode: Any) -> None:
    """Issue 22 item 10: json.loads would have read UTF-16/32 and a BOM; the API takes UTF-8
    only, as documented, so another encoding is refused before any parsing."""
    game = api.new()
    roll = json.dumps({"version": game["version"], "hold": NO_HOLD})
    for path, text in ((_roll_path(game), roll), ("/api/games", '{"mode": "solo"}')):
        r = _raw(api, path, encode(text), **{"content-type": "application/json"})
        assert (r.status_code, error_code(r)) == (415, "unsupported_media_type"), (path, r.text)
        assert "UTF-8" in r.json()["error"]["message"]
        assert_security_headers(r)
    assert api.get(game["id"])["version"] == game["version"]  # nothing happened


def test_f3_utf8_text_outside_ascii_is_still_json(api: Api) -> None:
    """Only the encoding is checked: UTF-8 beyond ASCII parses (and is then judged)."""
    r = _raw(api, "/api/games", '{"mode": "单人"}'.encode(), **{"content-type": "application/json"})
    assert (r.status_code, error_code(r)) == (422, "invalid_request")


def test_f3_a_duplicate_key_in_a_nested_object_is_refused(api: Api) -> None:
    game = api.new()
    raw = b'{"version": 1, "hold": [false, false, false, false, false], "hold": []}'
    r = _raw(api, _roll_path(game), raw, **{"content-type": "application/json"})
    assert (r.status_code, error_code(r)) == (422, "invalid_request")
    assert "'hold'" in r.json()["error"]["message"]


# -- HEAD -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/lobby",
        "/rules",
        "/js/main.js",
        "/css/app.css",
        "/favicon.svg",
        "/api/health",
        "/api/records",
        "/api/games/current",
        "/api/games/nope",
        "/api/advice?dice=13356",
        "/docs",
        "/openapi.json",
        "/no/such/file",
    ],
)
def test_head_answers_as_get_without_a_body(client: TestClient, path: str) -> None:
    client.get("/api/records")  # the cookie first, so both requests are the same player's
    get = client.get(path)
    head = client.head(path)
    assert head.status_code == get.status_code
    assert head.content == b""
    varying = {"date", "content-length", "set-cookie"}
    assert {k: v for k, v in head.headers.items() if k not in varying} == {
        k: v for k, v in get.headers.items() if k not in varying
    }
    assert head.headers.get("content-length") == get.headers.get("content-length")
    assert_security_headers(head)


def test_head_of_a_page_is_200_not_404(client: TestClient) -> None:
    """The issue's finding: ``HEAD /`` and ``HEAD /api/health`` answered 404."""
    assert client.head("/").status_code == 200
    assert client.head("/api/health").status_code == 200
