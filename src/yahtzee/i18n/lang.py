"""The languages a player can read (G3) and the choice of one from ``Accept-Language``.

:class:`Lang` is a language's tag as the page writes it (``<html lang>``, BCP 47):
``zh-Hans`` (简体中文, today's text), ``zh-Hant`` (繁體中文, Taiwan usage), ``en`` and the
pseudo-language ``en-XA`` (accented, 40 % longer English, generated for tests: only when
a setting enables it). :meth:`Lang.parse` and ``str()`` are its parse/print pair, used
wherever a language is stored or sent (a player's choice, a request body, a catalog's
folder through :attr:`Lang.folder`).

Nothing here imports Babel: the core's modules may mark their keys without loading it.
"""

from __future__ import annotations

import enum
from functools import lru_cache


class Lang(enum.StrEnum):
    """A language of the catalogs (``str(lang)`` is its tag)."""

    ZH_HANS = "zh-Hans"
    ZH_HANT = "zh-Hant"
    EN = "en"
    PSEUDO = "en-XA"

    @classmethod
    def parse(cls, text: str) -> Lang:
        """The language of a tag, any case, ``-`` or ``_`` (``zh_hant``, ``EN``); raises
        :class:`ValueError` naming the value and the tags known."""
        wanted = text.strip().replace("_", "-").lower() if isinstance(text, str) else None
        for lang in cls:
            if lang.value.lower() == wanted:
                return lang
        known = ", ".join(lang.value for lang in cls)
        raise ValueError(f"unknown language {text!r}; expected one of: {known}")

    @property
    def folder(self) -> str:
        """The catalog's folder under ``locale/`` (gettext's spelling: ``zh_Hant``)."""
        return self.value.replace("-", "_")

    @property
    def babel(self) -> str:
        """The CLDR locale whose numbers, dates and plural rule the language uses (the
        pseudo-language writes English's)."""
        return "en" if self is Lang.PSEUDO else self.folder


#: The product's language: today's text, and the answer to a request that names none.
DEFAULT = Lang.ZH_HANS
#: The languages a player may choose (the pseudo-language only when enabled).
REAL: tuple[Lang, ...] = (Lang.ZH_HANS, Lang.ZH_HANT, Lang.EN)


def languages(*, pseudo: bool = False) -> tuple[Lang, ...]:
    """The languages served: the three, and ``en-XA`` when ``pseudo``."""
    return (*REAL, Lang.PSEUDO) if pseudo else REAL


# Chinese written in Traditional characters: Taiwan, Hong Kong, Macau (and a tag naming
# the script). Any other Chinese (zh, zh-CN, zh-SG, zh-MY, zh-Hans-*) reads Simplified.
_TRADITIONAL_REGIONS = frozenset({"tw", "hk", "mo"})


def _lang_of(tag: str, pseudo: bool) -> Lang | None:
    """The language served for one language range of ``Accept-Language`` (``None``: not
    one of ours)."""
    parts = tag.replace("_", "-").lower().split("-")
    if parts[0] == "zh":
        rest = set(parts[1:])
        if "hant" in rest or (rest & _TRADITIONAL_REGIONS and "hans" not in rest):
            return Lang.ZH_HANT
        return Lang.ZH_HANS
    if parts[0] == "en":
        return Lang.PSEUDO if pseudo and parts[1:2] == ["xa"] else Lang.EN
    return None


def _weight(params: list[str]) -> float:
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value.strip())
            except ValueError:
                return 1.0  # an unreadable weight is ignored, never an error
            return q if 0.0 <= q <= 1.0 else 1.0
    return 1.0


@lru_cache(maxsize=1024)
def negotiate(accept_language: str | None, *, pseudo: bool = False) -> Lang:
    """The language to answer a request in, from its ``Accept-Language`` (G3).

    The ranges are taken by weight (``q``, highest first, then in order; ``q=0`` refuses);
    the first one of ours wins: Traditional Chinese for ``zh-TW``, ``zh-HK``, ``zh-MO`` and
    ``zh-Hant``, Simplified for any other Chinese (``zh``, ``zh-CN``, ``zh-SG``), English
    for any English. A header naming only other languages gets English; no header (or only
    ``*``) gets the product's language, zh-Hans, as before there were others (an API
    client that says nothing reads what it always read). ``en-XA`` only when ``pseudo``.
    Lenient: any string gives an answer.
    """
    if not accept_language:
        return DEFAULT
    ranges: list[tuple[float, int, str]] = []
    for order, part in enumerate(accept_language.split(",")[:32]):
        tag, *params = part.split(";")
        tag = tag.strip()
        if tag:
            ranges.append((-_weight(params), order, tag))
    named_other = False
    for negative_q, _, tag in sorted(ranges):
        if negative_q >= 0:  # q=0: "not this one"
            continue
        if tag == "*":
            continue
        lang = _lang_of(tag, pseudo)
        if lang is not None:
            return lang
        named_other = True
    return Lang.EN if named_other else DEFAULT
