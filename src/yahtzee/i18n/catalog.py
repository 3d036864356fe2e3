"""The message catalogs (G1): one gettext ``.po`` file per language, read once with Babel.

A message's id is a **key** (``error.game_over``, ``core.lobby.title``), never a sentence:
the code names keys, the catalogs hold the text. A key's first segment is its **chunk**,
the part of the catalog the page loads with one view (``core`` with the first one, see
:mod:`yahtzee.i18n.page`); ``error``, ``server`` and ``cli`` are the server's alone.

Text has named placeholders in braces (``{limit}``; ``{{`` and ``}}`` are literal braces).
A plural entry (gettext's ``msgid_plural``, the key twice) holds one text per plural
category of the language's CLDR rule, in CLDR's order: English ``one``, ``other``;
Chinese ``other`` alone. The pseudo-language's catalog is made from English's when the
catalogs load (:func:`pseudo`), never stored.

The code marks keys so that ``pybabel extract`` finds them (``scripts/i18n.py``,
``babel.cfg``): ``N_("core.level.novice")`` a bare key, ``msg(key, **values)`` a message to
say later in a reader's language (a domain error's), ``msg_n(key, n, **values)`` its plural,
``text(lang, key, **values)`` and ``plural(lang, key, n, **values)`` the text now.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from yahtzee.i18n.lang import DEFAULT, Lang

#: Where the catalogs live: ``locale/<folder>/LC_MESSAGES/messages.po`` and the template.
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "messages"
#: The chunks the page never loads (the server's own words; ``rules``: the rules page's,
#: which the server writes into its HTML per language, yahtzee.server.language).
SERVER_CHUNKS = frozenset({"error", "server", "cli", "rules"})
#: CLDR's plural categories, in the order a gettext entry's forms take them.
PLURAL_ORDER = ("zero", "one", "two", "few", "many", "other")

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")

Text = str | dict[str, str]
"""A key's text in one language: a string, or a plural entry's forms by CLDR category."""


def N_(key: str) -> str:  # noqa: N802 - gettext's name for a marker, known to the extractor
    """Mark ``key`` for the extractor where the code holds it as data (a table, an enum's
    registry) and says it later; returns it unchanged."""
    return key


def chunk_of(key: str) -> str:
    """The chunk of ``key``: its first segment."""
    return key.partition(".")[0]


def placeholders(text: str) -> frozenset[str]:
    """The names of the placeholders in ``text``."""
    return frozenset(m.group(1) for m in _PLACEHOLDER.finditer(text) if m.group(1))


#: The languages written in Chinese characters, which set a figure apart from the text
#: around it by a space (U18: 「至少三个 2 的机会」, 「留 6、6 再掷」, never 「2的机会」).
_SPACED = frozenset({Lang.ZH_HANS, Lang.ZH_HANT})


def _ideograph(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff"  # i18n-ok: the CJK ideographs' range, data


def fill(text: str, values: Mapping[str, object], lang: Lang) -> str:
    """``text`` with its placeholders replaced by ``values`` (a :class:`Msg` value said in
    ``lang``); a placeholder without a value raises :class:`KeyError` naming it. In
    Chinese a value that ends (or begins) with a figure gets a space where the text
    around it goes on with a character (U18): the catalog's texts space their own
    figures, and a value's words decide this one only when it is said."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return match.group(0)[0]
        value = values[name]
        said = value.render(lang) if isinstance(value, Msg) else str(value)
        if lang in _SPACED and said:
            after = text[match.end() : match.end() + 1]
            before = text[match.start() - 1 : match.start()] if match.start() else ""
            if said[-1].isdigit() and _ideograph(after):
                said += " "
            if said[0].isdigit() and _ideograph(before):
                said = " " + said
        return said

    return _PLACEHOLDER.sub(one, text)


def plural_tags(lang: Lang) -> tuple[str, ...]:
    """The plural categories of ``lang``'s CLDR rule, in :data:`PLURAL_ORDER`."""
    from babel import Locale

    tags = set(Locale.parse(lang.babel).plural_form.tags) | {"other"}
    return tuple(t for t in PLURAL_ORDER if t in tags)


@cache
def _plural_rule(lang: Lang) -> Any:
    from babel import Locale

    return Locale.parse(lang.babel).plural_form


def plural_tag(lang: Lang, n: float) -> str:
    """The plural category of ``n`` in ``lang`` (``one`` for English 1, else ``other``)."""
    tag: str = _plural_rule(lang)(abs(n))
    return tag


# -- the pseudo-language ------------------------------------------------------------------

_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "áƀçđéƒĝĥîĵķłɱñóƥǫŕšţúṽŵẋýžÁƁÇĐÉƑĜĤÎĴĶŁṀÑÓƤǪŔŠŢÚṼŴẊÝŽ",
)
_FILLER = (
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
#: How much longer a pseudo text is than its English (some languages are that much longer).
PSEUDO_GROWTH = 0.4


def pseudo(text: str) -> str:
    """The pseudo-language's form of an English ``text``: every letter accented (the
    placeholders kept), bracketed, and filler words making it at least 40 % longer, so a
    layout test sees what a longer language would break and any text that did not come
    from the catalog stands out (Android's ``en-XA`` does the same)."""
    out: list[str] = []
    pos = 0
    for match in _PLACEHOLDER.finditer(text):
        out.append(text[pos : match.start()].translate(_ACCENTED))
        out.append(match.group(0))
        pos = match.end()
    out.append(text[pos:].translate(_ACCENTED))
    visible = len(_PLACEHOLDER.sub("", text))
    extra = math.ceil(PSEUDO_GROWTH * visible)
    filler: list[str] = []
    while len(" ".join(filler)) < extra:
        filler.append(_FILLER[len(filler) % len(_FILLER)])
    return "[" + "".join(out) + (" " + " ".join(filler) if filler else "") + "]"


# -- the catalogs -------------------------------------------------------------------------


@dataclass(frozen=True)
class Catalogs:
    """Every language's texts by key (see the module docstring)."""

    texts: Mapping[Lang, Mapping[str, Text]]

    def lookup(self, lang: Lang, key: str) -> Text:
        """The text of ``key`` in ``lang``, else zh-Hans's (the checks keep every language
        complete), else the key itself (a key no catalog has: a bug the checks catch)."""
        found = self.texts.get(lang, {}).get(key)
        if found is None:
            found = self.texts[DEFAULT].get(key, key)
        return found

    def text(self, lang: Lang, key: str, /, **values: object) -> str:
        """``key`` in ``lang`` with ``values`` (a plural entry: its ``other`` form)."""
        found = self.lookup(lang, key)
        if isinstance(found, dict):
            found = found["other"]
        return fill(found, values, lang)

    def plural(self, lang: Lang, key: str, n: float, /, **values: object) -> str:
        """The form of plural entry ``key`` for ``n`` in ``lang``, with ``values``."""
        found = self.lookup(lang, key)
        if isinstance(found, dict):
            found = found.get(plural_tag(lang, n), found["other"])
        return fill(found, values, lang)

    def chunk(self, lang: Lang, name: str) -> dict[str, Text]:
        """The entries of chunk ``name`` in ``lang`` (what the page loads with a view)."""
        prefix = name + "."
        return {k: v for k, v in sorted(self.texts[lang].items()) if k.startswith(prefix)}

    def chunks(self) -> frozenset[str]:
        """The page's chunks: every key's first segment but the server's own."""
        return frozenset(chunk_of(k) for k in self.texts[DEFAULT]) - SERVER_CHUNKS


def po_path(lang: Lang, directory: Path = LOCALE_DIR) -> Path:
    """The ``.po`` file of ``lang`` (none for the pseudo-language)."""
    return directory / lang.folder / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(lang: Lang, directory: Path = LOCALE_DIR) -> Any:
    """Babel's :class:`~babel.messages.catalog.Catalog` of ``lang``'s ``.po`` file."""
    from babel.messages.pofile import read_po

    with po_path(lang, directory).open("rb") as f:
        return read_po(f, locale=lang.babel)


def _texts_of(lang: Lang, catalog: Any) -> dict[str, Text]:
    tags = plural_tags(lang)
    out: dict[str, Text] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            forms = tuple(message.string)
            if any(forms):
                out[message.id[0]] = dict(zip(tags, forms, strict=False))
        elif message.string:
            out[message.id] = message.string
    return out


def load(directory: Path = LOCALE_DIR) -> Catalogs:
    """Read every language's catalog (fuzzy and empty entries left out) and make the
    pseudo-language's from English's."""
    texts: dict[Lang, dict[str, Text]] = {}
    for lang in (Lang.ZH_HANS, Lang.ZH_HANT, Lang.EN):
        texts[lang] = _texts_of(lang, read_catalog(lang, directory))
    texts[Lang.PSEUDO] = {
        key: (
            {tag: pseudo(form) for tag, form in value.items()}
            if isinstance(value, dict)
            else pseudo(value)
        )
        for key, value in texts[Lang.EN].items()
    }
    return Catalogs(texts)


@cache
def catalogs() -> Catalogs:
    """The installed catalogs, read once per process."""
    return load()


# -- what the code says -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Msg:
    """A message to say later in its reader's language: a key, its values (a value may be
    a :class:`Msg`, said in the same language) and, for a plural entry, its count."""

    key: str
    values: Mapping[str, object] = field(default_factory=dict)
    count: float | None = None

    def render(self, lang: Lang) -> str:
        """The message in ``lang``."""
        if self.count is None:
            return catalogs().text(lang, self.key, **self.values)
        return catalogs().plural(lang, self.key, self.count, **self.values)


def msg(key: str, /, **values: object) -> Msg:
    """The message ``key`` with ``values``, to say later (:meth:`Msg.render`)."""
    return Msg(key, values)


def msg_n(key: str, n: float, /, **values: object) -> Msg:
    """The plural message ``key`` for the count ``n`` with ``values``, to say later."""
    return Msg(key, values, n)


def render(value: Any, lang: Lang) -> Any:
    """``value`` with every :class:`Msg` in it said in ``lang``: dicts, lists and tuples
    are walked (a tuple becomes a list, as JSON has it), anything else is kept. A
    language-neutral answer (a review's sentences, a grade's) made for one reader."""
    if isinstance(value, Msg):
        return value.render(lang)
    if isinstance(value, dict):
        return {k: render(v, lang) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [render(v, lang) for v in value]
    return value


def text(lang: Lang, key: str, /, **values: object) -> str:
    """``key`` in ``lang`` with ``values``, now."""
    return catalogs().text(lang, key, **values)


def plural(lang: Lang, key: str, n: float, /, **values: object) -> str:
    """Plural entry ``key`` for ``n`` in ``lang`` with ``values``, now."""
    return catalogs().plural(lang, key, n, **values)


# -- numbers and dates --------------------------------------------------------------------


def format_number(lang: Lang, value: float, *, decimals: int | None = None) -> str:
    """``value`` written as ``lang`` writes numbers (grouping, decimal sign)."""
    from babel.numbers import format_decimal

    if decimals is None:
        return str(format_decimal(value, locale=lang.babel))
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return str(format_decimal(value, format=pattern, locale=lang.babel))


def format_date(lang: Lang, value: Any, *, style: str = "medium") -> str:
    """A :class:`datetime.date` (or datetime) as ``lang`` writes dates."""
    from babel.dates import format_date as babel_date

    return str(babel_date(value, format=style, locale=lang.babel))


def format_month_day(lang: Lang, value: Any) -> str:
    """The month and day of a :class:`datetime.date` as ``lang`` writes them (12月7日,
    Dec 7): CLDR's ``MMMd`` skeleton."""
    from babel.dates import format_skeleton

    return str(format_skeleton("MMMd", value, locale=lang.babel))


def format_datetime(lang: Lang, value: Any, *, style: str = "medium") -> str:
    """A :class:`datetime.datetime` as ``lang`` writes a date and time."""
    from babel.dates import format_datetime as babel_datetime

    return str(babel_datetime(value, format=style, locale=lang.babel))
