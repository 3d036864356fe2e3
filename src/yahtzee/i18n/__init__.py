"""The languages of 快艇骰子 (G1, G3): 简体中文, 繁體中文 and English, and a pseudo-language
for tests; docs/i18n.md is the design.

Low in the layers (it imports nothing of the package), so the core, the review, 练习, the
command line and the server all say their words through it: :class:`Lang` and
:func:`negotiate` choose a language, the catalogs (:mod:`yahtzee.i18n.catalog`, gettext
``.po`` files read once with Babel) hold the text by key, :mod:`yahtzee.i18n.page` makes the
page's per-language modules and its HTML. Babel itself loads only when a text is first
looked up, so marking a key (:func:`N_`, :func:`msg`) costs an import of nothing.
"""

from yahtzee.i18n.catalog import (
    N_,
    Msg,
    catalogs,
    chunk_of,
    format_date,
    format_datetime,
    format_month_day,
    format_number,
    msg,
    msg_n,
    placeholders,
    plural,
    pseudo,
    render,
    text,
)
from yahtzee.i18n.lang import DEFAULT, REAL, Lang, languages, negotiate

__all__ = [
    "DEFAULT",
    "N_",
    "REAL",
    "Lang",
    "Msg",
    "catalogs",
    "chunk_of",
    "format_date",
    "format_datetime",
    "format_month_day",
    "format_number",
    "languages",
    "msg",
    "msg_n",
    "negotiate",
    "placeholders",
    "plural",
    "pseudo",
    "render",
    "text",
]
