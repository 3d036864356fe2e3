"""P6: the page and its files, compressed, cached for long under content-hashed URLs."""

from __future__ import annotations

import functools
import hashlib
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee.server.assets import StaticAssets, _accepts, _asset
from yahtzee.server.settings import STATIC_DIR
from yahtzee.web.app import SPA_PATHS

GZIP = {"Accept-Encoding": "gzip"}
IDENTITY = {"Accept-Encoding": "identity"}


def _prefix(client: TestClient) -> str:
    match = re.search(r'href="(/v/[0-9a-f]{12})/css/app\.css"', client.get("/").text)
    assert match, "the page links its stylesheet under a release prefix"
    return match.group(1)


def test_p6_page_links_its_files_under_a_release_prefix_and_preloads_what_it_imports(
    client: TestClient,
) -> None:
    """The modules the page imports statically are preloaded (the browser fetches them at
    once), those it loads with import() when wanted are not: the lazy views and the board
    (A1: its code loads once the page is up)."""
    page = client.get("/")
    prefix = _prefix(client)
    assert f'src="{prefix}/js/main.js"' in page.text
    preloaded = set(re.findall(r'<link rel="modulepreload" href="[^"]*?(/js/[^"]+)">', page.text))
    static = Path(__file__).resolve().parents[2] / "src" / "yahtzee" / "static" / "js"
    imported = re.compile(r'^\s*(?:import|export)\s[^";(]*"\./([^"]+)"', re.M)
    todo, closure = ["main.js"], set()
    while todo:  # main.js's static imports, read here independently of the server
        name = todo.pop()
        if name not in closure:
            closure.add(name)
            todo += imported.findall((static / name).read_text(encoding="utf-8"))
    assert preloaded == {f"/js/{name}" for name in closure}
    assert {"/js/render.js", "/js/solo.js", "/js/dom.js"} <= preloaded
    assert not {"/js/board/board.js", "/js/board/draw.js", "/js/keyboard.js"} & preloaded
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["etag"]


def test_p6_versioned_files_are_immutable_and_gzip_compressed(client: TestClient) -> None:
    prefix = _prefix(client)
    for path, media in (("/css/app.css", "text/css"), ("/js/render.js", "text/javascript")):
        plain = client.get(path, headers=IDENTITY)
        assert plain.headers["cache-control"] == "no-cache"
        assert "content-encoding" not in plain.headers
        packed = client.get(prefix + path, headers=GZIP)
        assert packed.status_code == 200
        assert packed.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.headers["vary"] == "Accept-Encoding"
        assert packed.headers["content-type"].startswith(media)
        assert packed.content == plain.content  # httpx undid the gzip
        sent = int(packed.headers["content-length"])
        assert sent < len(plain.content) / 2, f"{path}: {sent} of {len(plain.content)} bytes"
        assert packed.headers["etag"] != plain.headers["etag"]  # one tag per representation
        # Security headers still apply to the files.
        assert packed.headers["x-content-type-options"] == "nosniff"


def test_p6_etag_revalidation_answers_304(client: TestClient) -> None:
    for path in ("/", "/js/main.js", _prefix(client) + "/css/app.css"):
        first = client.get(path, headers=GZIP)
        again = client.get(path, headers={**GZIP, "If-None-Match": first.headers["etag"]})
        assert again.status_code == 304, path
        assert again.content == b""
        assert again.headers["etag"] == first.headers["etag"]
        other = client.get(path, headers={**GZIP, "If-None-Match": '"stale"'})
        assert other.status_code == 200


def test_p6_a_release_changes_the_prefix_and_old_urls_still_answer(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    static = tmp_path / "static"
    (static / "css").mkdir(parents=True)
    (static / "index.html").write_text(
        '<html><head><link rel="stylesheet" href="/css/app.css"></head></html>', "utf-8"
    )
    (static / "css" / "app.css").write_text("body { color: red }\n")
    old = make_client(static_dir=static)
    old_prefix = _prefix(old)
    (static / "css" / "app.css").write_text("body { color: blue }\n")
    new = make_client(static_dir=static, db=tmp_path / "other.db")
    new_prefix = _prefix(new)
    assert new_prefix != old_prefix
    # A page of the old release asking for its stylesheet gets today's, revalidated.
    stale = new.get(old_prefix + "/css/app.css")
    assert stale.status_code == 200
    assert "blue" in stale.text
    assert stale.headers["cache-control"] == "no-cache"
    assert new.get(new_prefix + "/css/missing.css").status_code == 404
    assert new.post("/css/app.css", json={}).status_code == 405


def test_p6_first_load_is_at_most_40_kb_sent(client: TestClient) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        from first_load import TARGET, first_load
    finally:
        sys.path.pop(0)
    rows = first_load(client)
    paths = [p for p, _, _ in rows]
    assert paths[0] == "/"
    assert any(p.endswith("/css/app.css") for p in paths)
    assert any(p.endswith("/js/main.js") for p in paths)
    sent = sum(s for _, _, s in rows)
    raw = sum(r for _, r, _ in rows)
    assert sent <= TARGET, f"first load {sent} bytes sent"
    assert sent < raw / 2
    assert client.get("/", headers=GZIP).headers["content-encoding"] == "gzip"


def test_p6_comments_are_left_out_line_numbers_kept() -> None:
    from yahtzee.server.assets import compacted

    js = (
        "// a file comment\n"
        "/** A doc comment\n"
        " * over lines. */\n"
        'const url = "http://x"; // kept: not a whole line\n'
        "/* one line */\n"
        "export const a = `//${url}`;\n"
    )
    out = compacted("/js/m.js", js.encode()).decode()
    assert out.split("\n") == [
        "",
        "",
        "",
        'const url = "http://x"; // kept: not a whole line',
        "",
        "export const a = `//${url}`;",
        "",
    ]
    # Indentation goes, but not inside a template literal over lines (it is the string's).
    js = "function f() {\n  return `a\n  // b\n    c`;\n  }\n"
    out = compacted("/js/m.js", js.encode()).decode()
    assert out == "function f() {\nreturn `a\n  // b\n    c`;\n}\n"
    css = (
        '/* head\n   more */\n.a { content: "/* not a comment */"; }\n'
        "  .b {\n    color: red;\n  }\n"
    )
    assert compacted("/css/a.css", css.encode()).decode() == (
        '\n\n.a { content: "/* not a comment */"; }\n.b {\ncolor: red;\n}\n'
    )
    html = "<p>a</p>\n<!-- note\n  two -->\n  <p>b</p><!-- x -->\n"
    assert compacted("/index.html", html.encode()).decode() == "<p>a</p>\n\n\n<p>b</p>\n"
    manifest = b'{\n  "name": "\xe5\xbf\xab",\n  "icons": [ 1, 2 ]\n}\n'
    compact = '{"name":"快","icons":[1,2]}'.encode()
    assert compacted("/manifest.webmanifest", manifest) == compact
    pre = "<pre>\n  kept\n</pre>\n"
    assert compacted("/rules.html", pre.encode()).decode() == pre
    svg = b"<svg><!-- kept --></svg>"
    assert compacted("/favicon.svg", svg) == svg


# -- Accept-Encoding, parsed leniently (issue 22 item 1) -------------------------------------

# Values a client may send: codings, ``*``, weights that are and are not numbers.
_CODING = st.sampled_from(["gzip", "GZIP", "*", "identity", "br", "deflate", "x-gzip", ""])
_Q = st.one_of(
    st.sampled_from(["0", "0.0", "0.000", "1", "1.0", "0.5", "x", "0x1", "nan", "inf", "-1", ""]),
    st.text(alphabet="0123456789.xeE+-_ ", max_size=6),
)
_ENTRY = st.tuples(_CODING, st.one_of(st.none(), _Q)).map(
    lambda e: e[0] if e[1] is None else f"{e[0]};q={e[1]}"
)
_HEADER = st.lists(_ENTRY, max_size=4).map(", ".join)


def test_p6_a_malformed_weight_is_ignored_not_a_500(client: TestClient) -> None:
    """The attack: ``q=x`` and ``*;q=0x1`` made float() raise, a 500 with a traceback."""
    for header in ("gzip;q=x", "*;q=0x1", "gzip;q=", "gzip;q=nan", "gzip ; q = 0x1"):
        answer = client.get("/stats", headers={"Accept-Encoding": header})
        assert answer.status_code == 200, header
        # An unparsable weight counts as absent (q=1): the page comes compressed (``*``
        # allows brotli too, which is preferred).
        expected = "br" if header.startswith("*") else "gzip"
        assert answer.headers["content-encoding"] == expected, header
    for header in ("gzip;q=0", "identity", "*;q=0"):
        answer = client.get("/stats", headers={"Accept-Encoding": header})
        assert answer.status_code == 200, header
        assert "content-encoding" not in answer.headers, header
    # gzip refused, anything else welcome: brotli.
    answer = client.get("/stats", headers={"Accept-Encoding": "gzip;q=0.000, *;q=1"})
    assert answer.headers["content-encoding"] == "br"


@given(st.binary(max_size=200))
def test_p6_any_accept_encoding_bytes_get_an_answer(header: bytes) -> None:
    assert _accepts(header) in (True, False)


@given(_HEADER)
def test_p6_accept_encoding_follows_the_weights(header: str) -> None:
    """gzip is used exactly when gzip (else ``*``) is listed, first, with a weight above 0;
    a weight that is not one (``x``, ``nan``, ``-1``) counts as 1."""
    listed: dict[str, str | None] = {}
    for entry in header.lower().split(","):
        name, _, q = entry.partition(";")
        listed.setdefault(name.strip(), q.strip().removeprefix("q=") if q else None)

    def weight(q: str | None) -> float:
        if q is None:
            return 1.0
        try:
            value = float(q)
        except ValueError:
            return 1.0
        ok = 0 <= value <= 1 and re.fullmatch(r"0(\.\d{0,3})?|1(\.0{0,3})?", q.strip())
        return value if ok else 1.0

    for coding in ("gzip", "br"):
        chosen = listed[coding] if coding in listed else listed.get("*", "absent")
        expected = chosen != "absent" and weight(chosen) > 0
        assert _accepts(header.encode("latin-1"), coding) is expected, header


@functools.cache
def _assets_client() -> TestClient:
    """The page's files alone (the ASGI app the attack reached), built once."""
    return TestClient(StaticAssets(STATIC_DIR, SPA_PATHS))


@settings(max_examples=60)
@given(_HEADER)
def test_p6_the_files_are_served_whatever_the_accept_encoding(header: str) -> None:
    client = _assets_client()
    for path in ("/", "/css/app.css"):
        answer = client.get(path, headers={"Accept-Encoding": header})
        assert answer.status_code == 200
        raw = header.encode("latin-1")
        expected = "br" if _accepts(raw, "br") else "gzip" if _accepts(raw) else None
        assert answer.headers.get("content-encoding") == expected, header


def test_p6_a_browser_gets_brotli_smaller_than_gzip_and_a_restart_reuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser (``gzip, deflate, br``) gets brotli: the same bytes, fewer of them, with
    an ETag of its own; the bodies are made once and read back by the next start (the
    store's files are the ones served, and a damaged file is made again)."""
    import brotli

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    client = TestClient(StaticAssets(STATIC_DIR, SPA_PATHS))
    for path in ("/", "/css/app.css", "/js/render.js"):
        packed = client.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})
        gz = client.get(path, headers=GZIP)
        assert packed.headers["content-encoding"] == "br"
        assert packed.content == gz.content  # httpx undid both
        assert int(packed.headers["content-length"]) < int(gz.headers["content-length"])
        assert packed.headers["etag"] != gz.headers["etag"]
        assert packed.headers["etag"].endswith('-br"')
    stored = sorted((tmp_path / "static-br").glob("*.br"))
    assert stored
    damaged = stored[0]
    damaged.write_bytes(b"not brotli")
    _asset.cache_clear()  # a restart: a new process, nothing made in its memory yet
    again = StaticAssets(STATIC_DIR, SPA_PATHS)
    for asset in [again.page, *again.files.values()]:
        if asset.brotli is not None:  # served: the stored body of those bytes
            named = tmp_path / "static-br" / (hashlib.sha256(asset.body).hexdigest() + ".br")
            assert named.read_bytes() == asset.brotli
    assert brotli.decompress(damaged.read_bytes())  # made again
