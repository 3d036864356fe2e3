"""The page's side of the catalogs (G1, G3): its per-language modules and its HTML.

* :func:`modules`: each page chunk of each language as one small ES module,
  ``/i18n/<lang>/<chunk>.js``, exporting ``messages`` (key → text, a plural entry's forms
  by CLDR category) and ``plural`` (the language's CLDR rule as a function, written by
  Babel's :func:`babel.plural.to_javascript`): module code, so the page evaluates nothing
  (the Content Security Policy keeps ``script-src 'self'``). The server serves them with
  the page's other files under the release prefix, whose hash they are part of.
* :func:`localized`: ``index.html`` in one language. An element whose words come from the
  catalog is written empty with ``data-i18n="key"`` (its text), and any element may carry
  ``data-i18n-attr="title=key aria-label=key"`` (attributes): the server fills both in
  here, so the first view is drawn in its language with no request more, and the page's
  ``js/i18n.js`` fills them again when the player changes the language.
* :func:`rules_path`: where the rules view's body (``rules.html``, made by :func:`localized`
  like the page) is in each language.
* :func:`manifest`: the web app manifest in one language (its name, short name,
  description and ``lang``), ``/i18n/<lang>/manifest.webmanifest``, which that language's
  page links to: a phone installs the game under its name in the reader's language.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable

from yahtzee.i18n.catalog import N_, Catalogs
from yahtzee.i18n.extract import attr_pairs
from yahtzee.i18n.lang import Lang

_ELEMENT = re.compile(
    r'<(?P<tag>[a-z][a-z0-9]*)\b(?P<attrs>[^>]*?\sdata-i18n="(?P<key>[^"]+)"[^>]*)>'
    r"(?P<inner>[^<]*)</(?P=tag)>"
)
_ATTRS = re.compile(r'<[a-z][a-z0-9]*\b[^>]*?\sdata-i18n-attr="(?P<pairs>[^"]+)"[^>]*>')
_HTML_LANG = re.compile(r"<html\b[^>]*>")
#: The manifest's words (a server chunk: never compiled for the page, which has its own).
MANIFEST_WORDS = {
    "name": N_("server.manifest.name"),
    "short_name": N_("server.manifest.short_name"),
    "description": N_("server.manifest.description"),
}
#: Where the page's source links its manifest (``index.html``); each language's page
#: links its own (:func:`manifest_path`).
MANIFEST = "/manifest.webmanifest"


def localized(page: str, catalogs: Catalogs, lang: Lang, *, chosen: bool = False) -> str:
    """``page`` (the page's HTML) in ``lang``: ``<html lang>``, its ``data-i18n`` elements'
    text and its ``data-i18n-attr`` attributes from the catalog; ``chosen`` marks a
    language the player chose (``data-lang-chosen``: the page keeps it over the one this
    browser remembers, see js/i18n.js)."""

    def element(match: re.Match[str]) -> str:
        if match.group("inner").strip():
            raise ValueError(f"a data-i18n element must be empty in the source: {match.group(0)}")
        words = html.escape(catalogs.text(lang, match.group("key")), quote=False)
        return f"<{match.group('tag')}{match.group('attrs')}>{words}</{match.group('tag')}>"

    def attributes(match: re.Match[str]) -> str:
        tag = match.group(0)
        for name, key in attr_pairs(match.group("pairs")):
            tag = re.sub(rf'\s{re.escape(name)}="[^"]*"', "", tag)
            value = html.escape(catalogs.text(lang, key), quote=True)
            tag = tag[:-1] + f' {name}="{value}">'
        return tag

    def root(match: re.Match[str]) -> str:
        tag = re.sub(r'\s(lang|data-lang-chosen)(="[^"]*")?', "", match.group(0))
        return tag[:-1] + f' lang="{lang}"' + (" data-lang-chosen" if chosen else "") + ">"

    page = _ELEMENT.sub(element, page)
    page = _ATTRS.sub(attributes, page)
    return _HTML_LANG.sub(root, page, count=1)


def chunk_module(catalogs: Catalogs, lang: Lang, name: str) -> bytes:
    """The ES module of chunk ``name`` in ``lang`` (see the module docstring)."""
    from babel import Locale
    from babel.plural import to_javascript

    rule = to_javascript(Locale.parse(lang.babel).plural_form)
    messages = json.dumps(
        catalogs.chunk(lang, name), ensure_ascii=False, separators=(",", ":"), sort_keys=True
    )
    return f"export const plural = {rule};\nexport const messages = {messages};\n".encode()


def module_path(lang: Lang, name: str) -> str:
    """Where the page finds chunk ``name`` of ``lang``, under the static files' root."""
    return f"/i18n/{lang}/{name}.js"


def modules(catalogs: Catalogs, langs: Iterable[Lang]) -> dict[str, bytes]:
    """Every page chunk of every language in ``langs``, by path (:func:`module_path`)."""
    return {
        module_path(lang, name): chunk_module(catalogs, lang, name)
        for lang in langs
        for name in sorted(catalogs.chunks())
    }


def rules_path(lang: Lang) -> str:
    """Where the rules view's body in ``lang`` is (``static/rules.html`` made per language
    by :func:`localized`), under the static files' root."""
    return f"/i18n/{lang}/rules.html"


def manifest_path(lang: Lang) -> str:
    """Where ``lang``'s web app manifest is, under the static files' root."""
    return f"/i18n/{lang}{MANIFEST}"


def manifest(template: bytes, catalogs: Catalogs, lang: Lang) -> bytes:
    """The web app manifest ``template`` (static/manifest.webmanifest: everything but its
    words) in ``lang``: its :data:`MANIFEST_WORDS` from the catalog and ``lang``, ``dir``.
    The ``id`` stays the template's, so the app installed is the same app in any language."""
    body = json.loads(template)
    for field, key in MANIFEST_WORDS.items():
        body[field] = catalogs.text(lang, key)
    body["lang"] = str(lang)
    body["dir"] = "ltr"
    return json.dumps(body, ensure_ascii=False, indent=2).encode() + b"\n"
