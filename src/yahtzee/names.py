"""People's display names: the one rule for every name a person types (daily boards,
groups, table seats, rooms).

A name is what a child types on a phone to appear on a board, so the rule is short:

* it is **text** (a ``str``), normalised to Unicode NFC, so that a letter typed as one
  code point or as a base letter plus a combining accent is the same name;
* surrounding whitespace is **trimmed** and every inner run of whitespace (including the
  ideographic space U+3000) becomes one ASCII space;
* it is **1 to 12 characters**, where a character is a Unicode *code point* after the
  normalisation (so 12 汉字, 12 Latin letters, or 12 emoji that are one code point each;
  an emoji with a skin tone or a variation selector counts 2);
* it holds **no invisible or control characters**: nothing of the categories Cc
  (controls, e.g. NUL, newline, ESC), Cf (format characters: zero-width space and joiner,
  the bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069, the BOM),
  Cs (surrogates), Co (private use) or Cn (unassigned). These are the characters that can
  make a name look like another one, reorder the text around it or hide from a reader.
  (So an emoji family joined by U+200D is refused; its parts are allowed one by one.)

Code points, not grapheme clusters, because they are what every layer agrees on without a
dependency (Python's ``len``, PostgreSQL's ``char_length``, JavaScript's ``[...s].length``)
and the limit exists to bound a board's column, which 12 code points always do.

Names are shown as text only (``textContent``), never as markup; this module only decides
what is a name. :func:`parse_name` is the parse, ``str`` the print: a parsed name is its
own canonical form (``parse_name(parse_name(s)) == parse_name(s)``).
"""

from __future__ import annotations

import unicodedata

from yahtzee.errors import InvalidNameError

MIN_NAME_CHARS = 1
MAX_NAME_CHARS = 12

#: The Unicode general categories a name may not contain (see the module docstring).
FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def parse_name(value: object) -> str:
    """The canonical form of the display name ``value``, or :class:`InvalidNameError`
    (whose ``reason`` is ``"type"``, ``"empty"``, ``"too_long"`` or ``"invisible"`` and
    whose message names the value)."""
    if not isinstance(value, str):
        raise InvalidNameError(value, "type", f"a name is text, got {type(value).__name__}")
    name = " ".join(unicodedata.normalize("NFC", value).split())
    for char in name:
        category = unicodedata.category(char)
        if category in FORBIDDEN_CATEGORIES:
            raise InvalidNameError(
                value, "invisible", f"U+{ord(char):04X} ({category}) is not allowed in a name"
            )
    if len(name) < MIN_NAME_CHARS:
        raise InvalidNameError(value, "empty", "a name needs at least one visible character")
    if len(name) > MAX_NAME_CHARS:
        raise InvalidNameError(
            value, "too_long", f"{len(name)} characters, at most {MAX_NAME_CHARS} are allowed"
        )
    return name


def is_name(value: object) -> bool:
    """Whether ``value`` is already a canonical display name."""
    try:
        return parse_name(value) == value
    except InvalidNameError:
        return False
