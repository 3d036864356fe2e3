"""The browser game's files, served from memory, compressed and cached (P6).

At startup every file under the static directory is read once and compressed once, with
gzip (level 9) and with brotli (quality 11, some 15 % smaller than gzip; nothing is
compressed per request). Brotli at its best quality costs about 1.7 s for the whole page,
so its bodies are kept on disk beside the solver's table, one file per body named by the
body's digest: a server starts with them in milliseconds after the first start of a
release. The page's HTML refers to its CSS, scripts
and icon under a release prefix, ``/v/<release>/…``, where ``<release>`` is a hash of every
file's path and bytes: those URLs are cached for a year (``immutable``), and any change to
any file makes a new prefix, so a release is picked up on the next page load. The ES
modules import each other by relative paths, which resolve under the same prefix.

* ``/``, ``/lobby``, ``/game``, ``/rules`` answer the page itself, ``no-cache`` (always
  revalidated with its ``ETag``, so a new release shows at once): one of its variants (one
  per language, G3), made and compressed at startup, picked per request by ``choose_page``
  (``Vary: Accept-Language, Cookie`` besides ``Accept-Encoding``);
* ``/v/<release>/<file>`` answers the file, ``public, max-age=31536000, immutable``;
* ``/<file>`` (no prefix, and a prefix of an older release) answers the current file,
  ``no-cache`` with its ``ETag``;
* anything else is 404 ``not_found``, as before.

Responses honour ``If-None-Match`` (304) and ``Accept-Encoding`` (``br`` preferred, then
``gzip``; ``Vary``); a compressed body has its own strong ``ETag``. The security headers come from
:class:`~yahtzee.server.middleware.ServerMiddleware`, which leaves this ``Cache-Control``.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import json
import mimetypes
import os
import posixpath
import re
import tempfile
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import brotli
from starlette.exceptions import HTTPException
from starlette.types import Receive, Scope, Send

IMMUTABLE = b"public, max-age=31536000, immutable"
REVALIDATE = b"no-cache"
# Text worth compressing (SVG is XML text too); images already compressed are sent as is.
_COMPRESSIBLE = (
    "text/",
    "application/javascript",
    "application/json",
    "application/manifest+json",
    "image/svg+xml",
)
_ASSET_REF = re.compile(r'(href|src)="(/[^"#?]+)"')


@dataclass(frozen=True, slots=True)
class Asset:
    """One file: its bytes, its gzip and brotli bytes (``None`` when not worth it) and
    validators."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: bytes
    brotli: bytes | None = None

    @classmethod
    def of(cls, body: bytes, media_type: str, store: Path | None = None) -> Asset:
        """Hash and (for text) compress ``body`` once; ``store`` is the folder of brotli
        bodies already made (see :func:`brotli_of`), ``None`` to make them here.

        Made once a process for the same bytes (a pure function of them: gzip at level 9
        and the brotli store's check are most of an app's construction, which a process
        running many apps, the tests', repeated for every one)."""
        return _asset(body, media_type, store)

    @classmethod
    def _make(cls, body: bytes, media_type: str, store: Path | None) -> Asset:
        digest = hashlib.sha256(body).hexdigest()[:20]
        gzipped = smaller = None
        if media_type.startswith(_COMPRESSIBLE):
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            if len(packed) < len(body):
                gzipped = packed
            packed = brotli_of(body, store)
            if len(packed) < len(gzipped or body):
                smaller = packed
        return cls(body, gzipped, media_type, f'"{digest}"'.encode(), smaller)


def brotli_store() -> Path | None:
    """Where brotli bodies are kept between starts: ``static-br/`` in the solver table's
    cache directory (``YAHTZEE_CACHE_DIR``), or ``None`` when it cannot be made."""
    from yahtzee.solver.cache import cache_dir  # the one cache directory

    folder = cache_dir() / "static-br"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def _brotli(body: bytes) -> bytes:
    packed: bytes = brotli.compress(body, quality=11)  # (brotli has no type hints)
    return packed


@functools.lru_cache(maxsize=1024)
def _asset(body: bytes, media_type: str, store: Path | None) -> Asset:
    return Asset._make(body, media_type, store)


def brotli_of(body: bytes, store: Path | None) -> bytes:
    """``body`` compressed with brotli at quality 11, read from ``store`` when an earlier
    start (of any process) made it, else made and written there (atomically, so processes
    starting together never read half a file; a store that cannot be written only costs
    the time)."""
    if store is None:
        return _brotli(body)
    path = store / (hashlib.sha256(body).hexdigest() + ".br")
    with contextlib.suppress(OSError, brotli.error):
        packed = path.read_bytes()
        if brotli.decompress(packed) == body:  # a damaged file is made again
            return packed
    packed = _brotli(body)
    with contextlib.suppress(OSError):
        fd, tmp = tempfile.mkstemp(dir=store, suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(packed)
        os.replace(tmp, path)
    return packed


_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# A static import or re-export of a module of the page ("./x.js", "../x.js"), as the page
# writes them: a statement from its line's start (a dynamic import() is not one).
_STATIC_IMPORT = re.compile(r'^\s*(?:import|export)\s[^";(]*"(\.{1,2}/[^"]+\.js)"', re.M)


_BACKTICK = re.compile(r"(?<!\\)`")


@functools.lru_cache(maxsize=1024)  # (a pure function: once a process for the same file)
def compacted(name: str, body: bytes) -> bytes:
    """``body`` without its comments and indentation, line numbers kept (P6: the first load
    is smaller and a browser's error still points at the source line).

    Only whole-line comments go: in JavaScript a line that starts with ``//`` and a block
    that starts a line with ``/*`` and ends one with ``*/`` (the page has no multi-line
    string a line of which could start so); in CSS such blocks; in HTML every ``<!-- -->``.
    JSON (the web app manifest) is sent without its layout. Each kept line loses its leading
    white space, except a line inside a JavaScript template
    literal that spans lines (there the spaces belong to the string) and in HTML with ``<pre>``
    or ``<textarea>``.
    """
    suffix = name.rsplit(".", 1)[-1]
    if suffix in ("json", "webmanifest"):  # the same data without the layout
        return json.dumps(json.loads(body), ensure_ascii=False, separators=(",", ":")).encode()
    if suffix not in ("js", "css", "html"):
        return body
    text = body.decode("utf-8")
    if suffix == "html":
        text = _HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        if "<pre" not in text and "<textarea" not in text:
            # A line's indentation is white space after a line break, which HTML already
            # collapses into that one break: nothing on the page changes without it.
            text = "\n".join(line.lstrip() for line in text.split("\n"))
        return text.encode("utf-8")
    out = []
    in_block = False
    in_template = False
    for line in text.split("\n"):
        bare = line.strip()
        if in_block:
            in_block = not bare.endswith("*/")
            out.append("")
        elif bare.startswith("/*"):
            in_block = not bare.endswith("*/") or bare == "/*"
            out.append("")
        elif suffix == "js" and bare.startswith("//") and not in_template:
            out.append("")
        else:
            out.append(line if in_template else line.lstrip())
            if suffix == "js" and len(_BACKTICK.findall(line)) % 2:
                in_template = not in_template
    return "\n".join(out).encode("utf-8")


# A web app manifest (polish 10) is JSON of its own type; Python's table does not list it.
_MEDIA_TYPES = {".webmanifest": "application/manifest+json"}


def _media_type(path: Path) -> str:
    guessed = _MEDIA_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0]
    media = guessed or "application/octet-stream"
    if media.startswith("text/") or media in (
        "application/javascript",
        "image/svg+xml",
        "application/manifest+json",
    ):
        media += "; charset=utf-8"
    return media


# A weight as RFC 9110 (12.4.2) writes it: 0 to 1 with at most three decimals.
_QVALUE = re.compile(r"(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)")


def _weight(params: str) -> float:
    """The ``q`` of one ``Accept-Encoding`` entry's parameters: 1 when absent, and also
    when it is not a weight at all (``q=x``, ``q=0x1``, ``q=nan``): an unparsable
    parameter is ignored, never an error (a client's typo must not cost a 500)."""
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip() == "q":
            value = value.strip()
            return float(value) if _QVALUE.fullmatch(value) else 1.0
    return 1.0


def _accepts(header: bytes, coding: str = "gzip") -> bool:
    """Whether an ``Accept-Encoding`` value allows ``coding``: listed with a weight above
    0, or not listed while ``*`` is (an explicit ``gzip;q=0`` wins over ``*``). Lenient:
    any byte string gives an answer (see :func:`_weight`)."""
    coding_q: float | None = None
    star_q: float | None = None
    for part in header.decode("latin-1").lower().split(","):
        name, _, params = part.partition(";")
        name = name.strip()
        if name == coding and coding_q is None:
            coding_q = _weight(params)
        elif name == "*" and star_q is None:
            star_q = _weight(params)
    q = coding_q if coding_q is not None else star_q
    return q is not None and q > 0


def _etag_matches(header: bytes, etag: bytes) -> bool:
    tags = [t.strip().removeprefix(b"W/") for t in header.split(b",")]
    return b"*" in tags or etag in tags


class StaticAssets:
    """A pure ASGI app for the page and its files (see the module docstring)."""

    def __init__(
        self,
        directory: Path,
        page_paths: Iterable[str],
        prepare_page: Callable[[str], str | Mapping[str, str]] | None = None,
        *,
        extra_files: Mapping[str, bytes] | None = None,
        choose_page: Callable[[Scope], Awaitable[str]] | None = None,
    ) -> None:
        """Serve ``directory`` and ``extra_files`` (made files, by path: the catalogs'
        modules, part of the release); the page is ``index.html`` passed through
        ``prepare_page`` (the app embeds the game's configuration with it), which may give
        several variants by name, of which ``choose_page`` picks one per request (the
        first without it)."""
        files = sorted(p for p in directory.rglob("*") if p.is_file())
        raw = {
            name: compacted(name, p.read_bytes())
            for p in files
            for name in ["/" + p.relative_to(directory).as_posix()]
        }
        media = {name: _media_type(directory / name.lstrip("/")) for name in raw}
        for name, body in sorted((extra_files or {}).items()):
            raw[name] = compacted(name, body)
            media[name] = _media_type(Path(name))
        release = hashlib.sha256()
        for name, body in raw.items():
            release.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
        self.release = release.hexdigest()[:12]
        self.prefix = f"/v/{self.release}"
        store = brotli_store()
        self.files = {name: Asset.of(body, media[name], store) for name, body in raw.items()}
        # The page's modules as text (what they import decides what the page preloads).
        self.sources = {n: b.decode("utf-8") for n, b in raw.items() if n.endswith(".js")}
        index = raw.get("/index.html")
        if index is None:
            raise FileNotFoundError(f"the browser game is missing: {directory}/index.html")
        prepared = index.decode() if prepare_page is None else prepare_page(index.decode())
        variants = {"": prepared} if isinstance(prepared, str) else dict(prepared)
        self.pages = {
            name: Asset.of(self._versioned(html).encode(), "text/html; charset=utf-8", store)
            for name, html in variants.items()
        }
        self.page = next(iter(self.pages.values()))
        self.choose_page = choose_page
        paths = list(page_paths)
        self.page_paths = frozenset(p for p in paths if "{" not in p)
        # Templated pages ("/review/{game_id}"): one path segment per placeholder.
        self.page_patterns = tuple(
            re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(p)) + "$")
            for p in paths
            if "{" in p
        )

    def _versioned(self, html: str) -> str:
        """``html`` with its own files under the release prefix, and every module of the
        page preloaded (the browser fetches them at once instead of import by import)."""

        def swap(match: re.Match[str]) -> str:
            attr, path = match.groups()
            return f'{attr}="{self.prefix}{path}"' if path in self.files else match.group(0)

        entries = [path for _attr, path in _ASSET_REF.findall(html) if path.endswith(".js")]
        html = _ASSET_REF.sub(swap, html)
        # The modules the page's scripts import, statically (those loaded on first use by
        # import(): the lazy views, the board, the overlays, come when they are wanted).
        modules = sorted(self.static_imports(entries))
        preload = "".join(
            f'\n  <link rel="modulepreload" href="{self.prefix}{n}">' for n in modules
        )
        return html.replace("</head>", preload + "\n</head>", 1)

    def static_imports(self, entries: list[str]) -> set[str]:
        """The page's modules that ``entries`` (its scripts) import, directly or through
        each other, by static ``import``/``export … from`` (not ``import()``)."""
        seen: set[str] = set()
        todo = [e for e in entries if e in self.files]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            base = name.rsplit("/", 1)[0]
            for rel in _STATIC_IMPORT.findall(self.sources.get(name, "")):
                target = posixpath.normpath(f"{base}/{rel}")
                if target in self.files:
                    todo.append(target)
        return seen

    def is_page(self, path: str) -> bool:
        """Whether ``path`` answers the page."""
        return (
            path in self.page_paths
            or path == "/index.html"
            or any(p.match(path) for p in self.page_patterns)
        )

    def lookup(self, path: str, variant: str | None = None) -> tuple[Asset, bytes] | None:
        """The asset at ``path`` (the page's ``variant``: the first if ``None`` or unknown)
        and its ``Cache-Control``, or ``None``."""
        if self.is_page(path):
            page = self.pages.get(variant, self.page) if variant is not None else self.page
            return page, REVALIDATE
        if path.startswith(self.prefix + "/"):
            asset = self.files.get(path[len(self.prefix) :])
            return (asset, IMMUTABLE) if asset is not None else None
        if path.startswith("/v/"):  # a page of an older release: today's file, revalidated
            _, _, rest = path[3:].partition("/")
            path = "/" + rest
        asset = self.files.get(path)
        return (asset, REVALIDATE) if asset is not None else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: ARG002
        if scope["type"] != "http":
            raise HTTPException(404)
        if scope["method"] not in ("GET", "HEAD"):
            raise HTTPException(405)
        page = self.is_page(scope["path"])
        variant = await self.choose_page(scope) if page and self.choose_page else None
        found = self.lookup(scope["path"], variant)
        if found is None:
            raise HTTPException(404)
        asset, cache = found
        accept = b""
        if_none_match = None
        for name, value in scope["headers"]:
            if name == b"accept-encoding":
                accept = value
            elif name == b"if-none-match":
                if_none_match = value
        body, etag = asset.body, asset.etag
        headers = [(b"cache-control", cache)]
        if page and len(self.pages) > 1:
            headers.append((b"vary", b"Accept-Encoding, Accept-Language, Cookie"))
        if asset.gzipped is not None or asset.brotli is not None:
            if not (page and len(self.pages) > 1):
                headers.append((b"vary", b"Accept-Encoding"))
            if asset.brotli is not None and _accepts(accept, "br"):
                body, etag = asset.brotli, asset.etag[:-1] + b'-br"'
                headers.append((b"content-encoding", b"br"))
            elif asset.gzipped is not None and _accepts(accept, "gzip"):
                body, etag = asset.gzipped, asset.etag[:-1] + b'-gz"'
                headers.append((b"content-encoding", b"gzip"))
        headers.append((b"etag", etag))
        if if_none_match is not None and _etag_matches(if_none_match, etag):
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        headers += [
            (b"content-type", asset.media_type.encode()),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )
