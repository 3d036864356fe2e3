"""The page in the player's language (G3): its variants, its catalog modules, the choice.

The page (``index.html``) is made once per language at startup, its words from the
catalog and ``<html lang>`` set (:func:`yahtzee.i18n.page.localized`), with its first
view's chunk preloaded (``core``: the first view draws in its language with no request
more), and once more per language marked as the player's own choice. Each request gets
the variant of :class:`PageLanguage`: the language the player chose and stored (on any of
their linked devices), else the one ``Accept-Language`` asks for.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from starlette.types import Scope

from yahtzee.i18n import DEFAULT, Lang, catalogs, negotiate
from yahtzee.i18n.page import (
    MANIFEST,
    localized,
    manifest,
    manifest_path,
    module_path,
    modules,
    rules_path,
)
from yahtzee.server.middleware import COOKIE_NAME, player_of
from yahtzee.storage.player_settings import PlayerSettings

log = logging.getLogger("yahtzee.server")

#: The chunk the first view needs (the lobby, the table, 设置): preloaded by the page.
FIRST_CHUNK = "core"
_CHOSEN = "+chosen"


def variant_name(lang: Lang, chosen: bool) -> str:
    """The name of the page's variant in ``lang`` (``chosen``: the player's own choice)."""
    return str(lang) + (_CHOSEN if chosen else "")


def page_variants(
    prepare: Callable[[str], str], langs: Sequence[Lang]
) -> Callable[[str], dict[str, str]]:
    """``index.html`` → every variant of the page in ``langs`` (each after ``prepare``,
    which embeds the configuration), each linking its language's manifest: the first
    language's first."""

    def variants(index: str) -> dict[str, str]:
        cat = catalogs()
        out = {}
        for lang in langs:
            preload = f'  <link rel="modulepreload" href="{module_path(lang, FIRST_CHUNK)}">\n'
            page = prepare(index).replace("</head>", preload + "</head>", 1)
            page = page.replace(f'href="{MANIFEST}"', f'href="{manifest_path(lang)}"', 1)
            for chosen in (False, True):
                out[variant_name(lang, chosen)] = localized(page, cat, lang, chosen=chosen)
        return out

    return variants


def page_modules(langs: Sequence[Lang]) -> dict[str, bytes]:
    """The page's catalog modules of ``langs``, by path (served with its files)."""
    return modules(catalogs(), langs)


def page_rules(template: Path, langs: Sequence[Lang]) -> dict[str, bytes]:
    """The rules view's body (``static/rules.html``, its words ``rules.*`` keys) in each of
    ``langs``, by path (:func:`~yahtzee.i18n.page.rules_path`): the page loads its
    language's with the view (G2); none without a template."""
    if not template.is_file():
        return {}
    body = template.read_text(encoding="utf-8")
    cat = catalogs()
    return {rules_path(lang): localized(body, cat, lang).encode() for lang in langs}


def page_manifests(template: Path, langs: Sequence[Lang]) -> dict[str, bytes]:
    """The web app manifest of each of ``langs`` (its page links it) from ``template``,
    and at the template's own address the product's language's (a page of an older
    release, an app installed before, links that one); none without a template."""
    if not template.is_file():
        return {}
    body = template.read_bytes()
    cat = catalogs()
    out = {manifest_path(lang): manifest(body, cat, lang) for lang in langs}
    out[MANIFEST] = manifest(body, cat, DEFAULT)
    return out


def _has_cookie(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"cookie" and (COOKIE_NAME + "=").encode() in value:
            return True
    return False


class PageLanguage:
    """Which variant of the page a request gets (see the module docstring)."""

    def __init__(self, store: PlayerSettings, langs: Sequence[Lang]) -> None:
        self.store = store
        self.langs = tuple(langs)
        self.pseudo = Lang.PSEUDO in self.langs

    async def __call__(self, scope: Scope) -> str:
        """The variant's name for this request."""
        if _has_cookie(scope):  # (a stranger has chosen nothing: no id is minted for them)
            try:
                chosen = await self.store.language(await player_of(scope))
            except Exception:  # the page must load whatever the database does
                log.warning("the player's language could not be read", exc_info=True)
                chosen = None
            if chosen is not None and chosen in self.langs:
                return variant_name(chosen, True)
        header = None
        for name, value in scope.get("headers", ()):
            if name == b"accept-language":
                header = value[:256].decode("latin-1")
                break
        return variant_name(negotiate(header, pseudo=self.pseudo), False)
