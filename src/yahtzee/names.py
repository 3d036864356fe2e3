"""People's display names: the one rule for every name a person types (daily boards,
groups, table seats, rooms), F16.

A name is what a child types on a phone to appear on a board, and what the others read
there, so it must be visible, one line, and nobody else's. The rule:

* it is **text** (a ``str``), normalised to Unicode NFC, so that a letter typed as one
  code point or as a base letter plus a combining accent is the same name;
* it holds **no control character** (category Cc: NUL, ESC, and also the line breaks and
  tabs newline, CR, tab, VT, FF, U+001C-U+001F, U+0085; and the line and paragraph
  separators U+2028/U+2029). These are *refused*, never turned into a space: a name that
  arrives with a newline was not typed into a one-line field;
* surrounding spaces are **trimmed** and every inner run of spaces (category Zs: the
  ASCII space, U+3000 the ideographic space, the no-break space …) becomes one ASCII space;
* **default-ignorable code points are removed** (:func:`without_ignorables`: Unicode's
  Default_Ignorable_Code_Point, :data:`IGNORABLE_RANGES`: the variation selectors
  U+FE00-U+FE0F and U+E0100-U+E01EF, the Mongolian free variation selectors
  U+180B-U+180F, the zero-width space, joiner and non-joiner, the soft hyphen, the word
  joiner, the BOM, the bidirectional embeddings, overrides and isolates, the tags, the
  Hangul fillers...) before anything else, so that two names a browser draws alike are
  one name: 「电脑（高\ufe00手）」 is 「电脑（高手）」 (refused below), and 「小明\ufe0f」
  is 「小明」 (the same name in a room, a group, a table). Every comparison of names goes
  through :func:`name_key`, which removes them too (a name stored before this rule
  compares as it looks). So ❤️ (U+2764 U+FE0F) is stored as ❤ and an emoji family
  joined by U+200D as its members side by side;
* it holds **nothing else invisible**: nothing of the categories Cf (the format
  characters that are not default-ignorable, such as U+0600 or the interlinear
  annotation marks), Cs (surrogates), Co (private use) or Cn (unassigned), nor the
  blank Braille pattern U+2800 (:data:`INVISIBLE`, a symbol that draws nothing);
* it has **at least one visible letter, digit, punctuation mark or symbol** (categories
  L, N, P, S, outside :data:`INVISIBLE`): a name of spaces or of combining marks only
  shows nothing;
* **combining marks sit on a character**, at most :data:`MAX_MARKS_PER_CHAR` on one (a
  Tibetan stack needs three; "Zalgo" text piles dozens on a letter so that it spills over
  the rows above and below); a mark at the start or after a space has nothing to sit on;
* it is **1 to 12 characters**, where a character is a Unicode *code point* after the
  normalisation (so 12 汉字, 12 Latin letters, or 12 emoji that are one code point each;
  an emoji with a skin tone or a variation selector counts 2);
* it does **not pose as a computer seat**: the page calls a computer 「电脑（高手）」, or
  「电脑3（普通）」 at a table with several, so a person may not be called that, nor
  「电脑」 or 「电脑3」 alone, in any of the page's languages ("Computer 3 (Normal)"). The
  comparison folds what looks alike (:func:`skeleton`:
  NFKC, so full-width and half-width forms and the other compatibility forms are one,
  case, spaces, any opening or closing bracket, the digits of any script, the traditional
  forms of 电脑 and 门), and the names come from their one source, the catalogs' names of
  the computer and of the levels of :data:`yahtzee.players.levels.LEVELS`.

Code points, not grapheme clusters, because they are what every layer agrees on without a
dependency (Python's ``len``, PostgreSQL's ``char_length``, JavaScript's ``[...s].length``)
and the limit exists to bound a board's column, which 12 code points always do.

Names are shown as text only (``textContent``), never as markup; this module only decides
what is a name. :func:`parse_name` is the parse, ``str`` the print: a parsed name is its
own canonical form (``parse_name(parse_name(s)) == parse_name(s)``). Refusals are
:class:`~yahtzee.errors.InvalidNameError`, whose ``reason`` says which part of the rule
failed and :func:`name_problem` says it to a person (the catalog's ``error.name.*``).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from yahtzee.errors import InvalidNameError
from yahtzee.i18n import N_, REAL, Lang, Msg, msg, text
from yahtzee.players.levels import COMPUTER_NAME, LEVELS

MIN_NAME_CHARS = 1
MAX_NAME_CHARS = 12
#: Combining marks one character may carry (see the module docstring).
MAX_MARKS_PER_CHAR = 3

#: The Unicode general categories a name may not contain: controls (and the line and
#: paragraph separators) are ``"control"``, the others ``"invisible"``.
CONTROL_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})
FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

#: Characters of visible categories (letters, symbols, marks) that draw nothing: the
#: Hangul fillers, the combining grapheme joiner and the Khmer inherent vowels (all of
#: them default-ignorable, so removed before this check) and the blank Braille pattern
#: U+2800 (not default-ignorable: refused).
INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")  # i18n-ok: data

#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, the same since
#: Unicode 7; ``tests/unit/test_names.py`` checks it against its derivation from this
#: Python's character database): code points a browser draws as nothing, which F25
#: removes from every name before it is compared or stored. Inclusive ranges.
IGNORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors and vowel separator
    (0x200B, 0x200F),  # zero-width space, non-joiner, joiner; LRM, RLM
    (0x202A, 0x202E),  # bidirectional embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, isolates, deprecated formats
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero-width no-break space (BOM)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement, reserved
)
_IGNORABLE = re.compile(
    "["
    + "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in IGNORABLE_RANGES)
    + "]+"
)

#: Why a name was refused: the ``reason`` of :class:`~yahtzee.errors.InvalidNameError`.
REASONS = (
    "type",
    "empty",
    "too_long",
    "control",
    "invisible",
    "no_visible",
    "marks",
    "computer",
)

_CONTROL_NAMES = {
    "\n": N_("error.name.char.line_break"),
    "\r": N_("error.name.char.carriage_return"),
    "\t": N_("error.name.char.tab"),
    "\v": N_("error.name.char.vertical_tab"),
    "\f": N_("error.name.char.form_feed"),
    "\x85": N_("error.name.char.line_break"),
    "\u2028": N_("error.name.char.line_break"),
    "\u2029": N_("error.name.char.paragraph_break"),
}


def _char(char: str) -> Msg | str:
    """``U+000A`` and, for the common controls, its name (``U+000A（换行）``)."""
    code = f"U+{ord(char):04X}"
    name = _CONTROL_NAMES.get(char)
    return msg("error.name.char", code=code, name=msg(name)) if name else code


def _char_text(char: str) -> str:
    """:func:`_char` in English (the exception's own message, a log's)."""
    said = _char(char)
    return said.render(Lang.EN) if isinstance(said, Msg) else said


# -- the one normalisation: as people see it ---------------------------------------------


def without_ignorables(text: str) -> str:
    """``text`` without its default-ignorable code points (:data:`IGNORABLE_RANGES`), the
    characters a browser draws as nothing: what two names must not differ by (F25). Every
    name is parsed (:func:`parse_name`), folded (:func:`skeleton`) and compared
    (:func:`name_key`) through it."""
    return _IGNORABLE.sub("", text)


def name_key(name: str) -> str:
    """What two names are compared by (a room's seats, a group's members, a table's
    seats): NFC without default-ignorable code points, case-folded. Names compare as
    people see them: 「小明\ufe0f」 and 「小明」 are one name, and so are 「Amy」 and
    「amy」."""
    return unicodedata.normalize("NFC", without_ignorables(name)).casefold()


# -- what looks like a computer seat ------------------------------------------------------

# Traditional forms of the characters of the seats' names (NFKC keeps them apart).
_SIMPLIFIED = str.maketrans({"電": "电", "腦": "脑", "門": "门"})  # i18n-ok: data


def skeleton(text: str) -> str:
    """What ``text`` looks like, for comparing with the computer seats' names: without
    its default-ignorable code points (:func:`without_ignorables`), NFKC (so
    full-width 「（３）」 is "(3)"), case-folded, without spaces, every opening bracket
    "(" and closing bracket ")", every decimal digit as its ASCII digit, and the
    traditional forms of 电, 脑 and 门 as the simplified ones."""
    out = []
    folded = unicodedata.normalize("NFKC", without_ignorables(text)).casefold()
    for char in without_ignorables(folded).translate(_SIMPLIFIED):
        category = unicodedata.category(char)
        if char.isspace():
            continue
        if category == "Ps":
            out.append("(")
        elif category == "Pe":
            out.append(")")
        elif category == "Nd":
            out.append(str(unicodedata.digit(char)))
        else:
            out.append(char)
    return "".join(out)


@functools.cache
def _seat_pattern() -> re.Pattern[str]:
    """A computer seat's name in any language (the catalogs' names of the computer and of
    its levels, read once, on the first name checked)."""
    levels = sorted(
        {skeleton(text(lang, level.name_key)) for level in LEVELS.values() for lang in REAL}
        | {d.value for d in LEVELS}
    )
    alternatives = "|".join(re.escape(level) for level in levels)
    computers = "|".join(sorted({re.escape(skeleton(text(lang, COMPUTER_NAME))) for lang in REAL}))
    return re.compile(rf"(?:{computers})\d*(?:\((?:{alternatives})\))?")


def looks_like_a_computer(name: str) -> bool:
    """Whether ``name`` reads as a computer seat's name in any language (「电脑（高手）」,
    「电脑3（普通）」, 「电脑」, "Computer (Expert)") once what looks alike is folded
    (:func:`skeleton`)."""
    return _seat_pattern().fullmatch(skeleton(name)) is not None


# -- the parse ------------------------------------------------------------------------------


def _refuse(value: object, reason: str, detail: str, char: str | None = None) -> InvalidNameError:
    return InvalidNameError(value, reason, detail, char=char)


def _check_characters(value: str, name: str) -> None:
    """The characters' part of the rule (the controls were refused before): invisibles,
    and combining marks on a character, not too many."""
    for char in name:
        category = unicodedata.category(char)
        if category in FORBIDDEN_CATEGORIES or char in INVISIBLE:
            raise _refuse(value, "invisible", f"U+{ord(char):04X} ({category}) draws nothing", char)
    marks = 0
    base: str | None = None
    for char in name:
        if unicodedata.category(char).startswith("M"):
            marks += 1
            if base is None or base == " ":
                raise _refuse(value, "marks", f"U+{ord(char):04X} is a combining mark on nothing")
            if marks > MAX_MARKS_PER_CHAR:
                raise _refuse(
                    value,
                    "marks",
                    f"more than {MAX_MARKS_PER_CHAR} combining marks on {base!r}",
                    base,
                )
        else:
            base, marks = char, 0


def _visible(char: str) -> bool:
    return unicodedata.category(char)[0] in "LNPS" and char not in INVISIBLE


def parse_name(value: object) -> str:
    """The canonical form of the display name ``value``, or :class:`InvalidNameError`
    whose ``reason`` (one of :data:`REASONS`) says what is wrong and whose message names
    the value (see the module docstring for the rule)."""
    if not isinstance(value, str):
        raise _refuse(value, "type", f"a name is text, got {type(value).__name__}")
    # F25: what draws as nothing goes first, so that nothing below (the length, the
    # computer's names, the comparisons of the callers) sees it.
    normal = unicodedata.normalize("NFC", without_ignorables(value))
    for char in normal:  # before the spaces are collapsed: a newline is refused, not a space
        if unicodedata.category(char) in CONTROL_CATEGORIES:
            raise _refuse(value, "control", f"{_char_text(char)} is a control character", char)
    name = " ".join(normal.split())
    _check_characters(value, name)
    if len(name) < MIN_NAME_CHARS:
        raise _refuse(value, "empty", "a name needs at least one visible character")
    if not any(_visible(char) for char in name):
        raise _refuse(value, "no_visible", "no visible letter, digit or symbol")
    if len(name) > MAX_NAME_CHARS:
        raise _refuse(
            value, "too_long", f"{len(name)} characters, at most {MAX_NAME_CHARS} are allowed"
        )
    if looks_like_a_computer(name):
        raise _refuse(value, "computer", "it reads as a computer seat's name")
    return name


def is_name(value: object) -> bool:
    """Whether ``value`` is already a canonical display name."""
    try:
        return parse_name(value) == value
    except InvalidNameError:
        return False


_PROBLEMS = {
    "type": N_("error.name.type"),
    "empty": N_("error.name.empty"),
    "too_long": N_("error.name.too_long"),
    "control": N_("error.name.control"),
    "invisible": N_("error.name.invisible"),
    "no_visible": N_("error.name.no_visible"),
    "marks": N_("error.name.marks"),
    "computer": N_("error.name.computer"),
}


def name_problem(exc: InvalidNameError, who: Msg | str) -> Msg:
    """What is wrong with a refused name, as a sentence about ``who`` owns it (「名字」,
    「第 2 位的名字」), e.g. 「名字里有控制字符 U+000A（换行）：名字只能是一行文字，请去掉它。」
    The name a person typed is a value, never translated."""
    return msg(
        _PROBLEMS.get(exc.reason, N_("error.name.other")),
        who=who,
        char=_char(exc.char) if exc.char else "",
        max=MAX_NAME_CHARS,
        marks=MAX_MARKS_PER_CHAR,
        value=str(exc.value),
    )
