"""Display names (yahtzee.names): trimmed, 1-12 code points, nothing invisible, something
visible, no computer's name (D4, D6, F16)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee.errors import InvalidNameError, YahtzeeError
from yahtzee.i18n import REAL, Lang, text
from yahtzee.names import (
    FORBIDDEN_CATEGORIES,
    IGNORABLE_RANGES,
    INVISIBLE,
    MAX_MARKS_PER_CHAR,
    MAX_NAME_CHARS,
    REASONS,
    is_name,
    looks_like_a_computer,
    name_key,
    name_problem,
    parse_name,
    skeleton,
    without_ignorables,
)
from yahtzee.players.levels import COMPUTER_NAME, LEVELS

COMPUTER_ZH = text(Lang.ZH_HANS, COMPUTER_NAME)


def name_problem_zh(exc: InvalidNameError) -> str:
    """What the player reads in 简体中文 of a refused name (the rest of the sentence)."""
    return name_problem(exc, "").render(Lang.ZH_HANS)


HOSTILE = '<img src=x onerror="alert(1)">'


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("小明", "小明"),
        ("  小明  ", "小明"),
        ("\u3000小明\u3000", "小明"),  # the ideographic space is whitespace too
        ("李  雷", "李 雷"),
        ("a\u00a0b", "a b"),  # a no-break space is a space
        ("\u2764\ufe0f", "\u2764"),  # ❤️: its variation selector draws nothing (F25)
        ("a\u200bb", "ab"),  # a zero-width space: removed (F25), not refused
        ("a\u200db", "ab"),  # the joiner
        ("\u202eevil", "evil"),  # the right-to-left override
        ("a\u2066b\u2069", "ab"),  # isolates
        ("\ufeffbom", "bom"),
        ("小\u00ad明", "小明"),  # a soft hyphen
        ("\u0f62\u0f92\u0fb1\u0f74", "\u0f62\u0f92\u0fb1\u0f74"),  # a Tibetan stack: 3 marks
        ("电脑迷", "电脑迷"),  # a word that begins like the computer's name is fine
        ("我是电脑（高手）", "我是电脑（高手）"),
        ("e\u0301", "\u00e9"),  # NFC: a combining accent joins its letter
        ("一二三四五六七八九十百千", "一二三四五六七八九十百千"),  # 12 code points
        ("<b>x</b>", "<b>x</b>"),  # markup is just text: shown with textContent
        ("🎲", "🎲"),
    ],
)
def test_d4_valid_names_are_trimmed_and_normalised(raw: str, name: str) -> None:
    assert parse_name(raw) == name
    assert is_name(name)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("\u3000", "empty"),
        ("一二三四五六七八九十百千万", "too_long"),  # 13
        ("abcdefghijklm", "too_long"),
        ("a\x00b", "control"),
        ("a\x1bb", "control"),
        ("\ue000", "invisible"),  # private use
        ("a\u0600b", "invisible"),  # a format character that is not default-ignorable
        ("a\ufff9b", "invisible"),  # an interlinear annotation mark (idem)
        ("\U000e0041", "empty"),  # a tag character: default-ignorable, so nothing is left
        (12, "type"),
        (None, "type"),
        (["小明"], "type"),
    ],
)
def test_d4_bad_names_are_refused_with_a_reason(raw: object, reason: str) -> None:
    with pytest.raises(InvalidNameError) as caught:
        parse_name(raw)
    assert caught.value.reason == reason
    assert repr(raw) in str(caught.value)  # the message names the value
    assert not is_name(raw)


@pytest.mark.parametrize("control", ["\n", "\t", "\r", "\v", "\f", "\x1f", "\x85", "\u2028"])
@pytest.mark.parametrize("where", ["小{}明", "{}小明", "小明{}"])
def test_f16_line_breaks_and_tabs_are_refused_not_made_a_space(control: str, where: str) -> None:
    """Issue 28 item 9: newline, tab, CR, VT, U+001F and U+0085 became a space, against
    the rule's own docstring (no control characters)."""
    raw = where.format(control)
    with pytest.raises(InvalidNameError) as caught:
        parse_name(raw)
    assert caught.value.reason == "control"
    assert caught.value.char == control
    message = name_problem_zh(caught.value)
    assert f"U+{ord(control):04X}" in message
    assert "一行" in message


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("\u3164", "empty"),  # HANGUL FILLER: default-ignorable, removed (F25)
        ("\u115f", "empty"),
        ("\u1160", "empty"),
        ("\uffa0", "empty"),
        ("\u3164\u3164\u3164", "empty"),
        ("\u2800", "invisible"),  # BRAILLE PATTERN BLANK: not default-ignorable, refused
        ("\u2800 \u2800", "invisible"),
    ],
)
def test_f16_names_of_fillers_and_blanks_are_refused(raw: str, reason: str) -> None:
    with pytest.raises(InvalidNameError) as caught:
        parse_name(raw)
    assert caught.value.reason == reason
    if reason == "invisible":
        assert f"U+{ord(raw[0]):04X}" in name_problem_zh(caught.value)


@pytest.mark.parametrize("filler", ["\u3164", "\u115f", "\u1160", "\uffa0", "\u034f"])
def test_f25_a_filler_inside_a_visible_name_is_removed(filler: str) -> None:
    """「小明ㅤ」 would look exactly like 「小明」 on a board: it is 「小明」."""
    for raw in (f"小明{filler}", f"小{filler}明"):
        assert parse_name(raw) == "小明"


def test_f16_the_braille_blank_cannot_hide_inside_a_visible_name() -> None:
    for raw in ("小明\u2800", "小\u2800明"):
        with pytest.raises(InvalidNameError) as caught:
            parse_name(raw)
        assert caught.value.reason == "invisible"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("\u0301", "marks"),  # a combining mark alone: nothing to sit on
        ("\u0301\u0302\u0303", "marks"),
        ("a \u0301", "marks"),  # after a space
        ("\u034f", "empty"),  # the combining grapheme joiner: removed (F25)
        ("\u200d", "empty"),  # ZWJ
        ("\u200d\u200d", "empty"),
        ("\u200d\u0301", "marks"),  # what is left is a mark on nothing
        ("Z\u0351\u0352\u0353\u0354\u0355\u0356\u0357\u0358\u0359\u035a\u035b", "marks"),
        ("a\u0300\u0301\u0302\u0303\u0304", "marks"),  # à (NFC) and 4 more marks
        ("\ufe0f", "empty"),  # a variation selector alone: removed (F25)
    ],
)
def test_f16_marks_only_and_zalgo_are_refused(raw: str, reason: str) -> None:
    with pytest.raises(InvalidNameError) as caught:
        parse_name(raw)
    assert caught.value.reason == reason
    assert name_problem_zh(caught.value)


@pytest.mark.parametrize(
    "raw",
    [
        "电脑（高手）",
        "电脑（入门）",
        "电脑（普通）",
        "电脑3（普通）",
        "电脑",
        "电脑2",
        "电脑(高手)",  # half-width brackets
        "电脑 （ 高手 ）",  # spaces
        "电脑３（高手）",  # a full-width digit
        "电脑【高手】",  # other brackets
        "電腦（高手）",  # traditional
        "电脑(expert)",
        "电脑(EXPERT)",
    ],
)
def test_f16_a_person_cannot_take_a_computer_seats_name(raw: str) -> None:
    with pytest.raises(InvalidNameError) as caught:
        parse_name(raw)
    assert caught.value.reason == "computer"
    assert "电脑" in name_problem_zh(caught.value)


def test_f16_the_computer_names_follow_the_levels_registry() -> None:
    """Every level's name, from players.levels, is refused after 电脑."""
    for level in LEVELS.values():
        name = text(Lang.ZH_HANS, level.name_key)
        assert looks_like_a_computer(f"{COMPUTER_ZH}（{name}）")
        assert looks_like_a_computer(f"{COMPUTER_ZH}5（{name}）")
    assert not looks_like_a_computer(f"{COMPUTER_ZH}（大师）")


def test_g2_a_computer_seats_name_is_refused_in_every_language() -> None:
    """The page names a computer seat in the reader's language (Computer (Expert),
    電腦（入門）): a person may take none of them (F16 in G2; the Chinese-only rule let
    "Computer (Expert)" through)."""
    for lang in REAL:
        computer = text(lang, COMPUTER_NAME)
        for level in LEVELS.values():
            name = text(lang, level.name_key)
            assert looks_like_a_computer(f"{computer} ({name})"), (lang, name)
            assert looks_like_a_computer(f"{computer} 3 ({name})"), (lang, name)
        assert looks_like_a_computer(computer)
    assert looks_like_a_computer("computer (EXPERT)")
    assert not looks_like_a_computer("Computer (Master)")
    assert parse_name("Expert") == "Expert"  # (a level's name alone is a name)


def test_d4_hostile_markup_is_kept_verbatim_but_too_long_is_refused() -> None:
    with pytest.raises(InvalidNameError, match=r"at most 12"):
        parse_name(HOSTILE)
    assert parse_name("<script>") == "<script>"


@given(st.text(max_size=40))
def test_d4_any_text_is_a_name_or_one_clear_error(raw: str) -> None:
    try:
        name = parse_name(raw)
    except InvalidNameError as exc:
        reason = exc.reason
        assert isinstance(exc, YahtzeeError), exc  # noqa: PT017 (a property, not one case)
        assert reason in REASONS
        assert name_problem_zh(exc)  # noqa: PT017 (a property, not one case)
        return
    assert 1 <= len(name) <= MAX_NAME_CHARS
    assert name == name.strip()
    assert "  " not in name
    assert all(unicodedata.category(c) not in FORBIDDEN_CATEGORIES for c in name)
    assert not INVISIBLE & set(name)
    assert without_ignorables(name) == name  # F25: nothing that draws as nothing
    assert any(unicodedata.category(c)[0] in "LNPS" for c in name)  # something visible
    assert not looks_like_a_computer(name)
    assert parse_name(name) == name  # the canonical form is a fixed point
    assert is_name(name)


@given(st.text(st.characters(categories=["Cc", "Cf", "Co", "Zl", "Zp"]), min_size=1, max_size=3))
def test_f16_controls_and_invisible_characters_never_pass(junk: str) -> None:
    """Anywhere in a name, even at its ends (where trimming used to drop a newline); the
    default-ignorable ones are removed instead (F25)."""
    for raw in (f"ab{junk}cd", f"{junk}abcd", f"abcd{junk}"):
        if without_ignorables(raw) == "abcd":
            assert parse_name(raw) == "abcd"
            continue
        with pytest.raises(InvalidNameError) as caught:
            parse_name(raw)
        assert caught.value.reason in {"control", "invisible"}


@given(
    st.text(st.sampled_from(sorted(INVISIBLE | {" ", "\u3000", "\u200d"})), min_size=1),
    st.text(st.characters(categories=["Mn", "Me"]), max_size=6),
)
def test_f16_nothing_visible_never_passes(blanks: str, marks: str) -> None:
    with pytest.raises(InvalidNameError):
        parse_name(blanks + marks)


@given(
    st.characters(categories=["L", "N", "P", "S"]),
    st.lists(st.characters(categories=["Mn", "Me"]), min_size=MAX_MARKS_PER_CHAR + 1, max_size=11),
)
def test_f16_no_character_carries_more_than_the_marks_cap(base: str, marks: list[str]) -> None:
    raw = base + "".join(marks)
    normal = unicodedata.normalize("NFC", without_ignorables(raw))  # (F25: VS go first)
    stacked = 0
    for char in normal:  # (NFC may compose some marks into the base: count what is left)
        stacked = stacked + 1 if unicodedata.category(char)[0] == "M" else 0
        if stacked > MAX_MARKS_PER_CHAR:
            break
    else:
        return
    with pytest.raises(InvalidNameError):
        parse_name(raw)


@given(
    st.sampled_from(["电脑", "電腦", "电腦"]),
    st.sampled_from(["", "1", "3", "６", "12"]),
    st.sampled_from([text(Lang.ZH_HANS, level.name_key) for level in LEVELS.values()]),
    st.sampled_from(["（）", "()", "【】", "[]", "「」"]),
    st.sampled_from(["", " ", "\u3000"]),
)
def test_f16_computer_seat_lookalikes_never_pass(
    word: str, number: str, level: str, brackets: str, space: str
) -> None:
    raw = f"{word}{space}{number}{brackets[0]}{level}{space}{brackets[1]}"
    with pytest.raises(InvalidNameError) as caught:
        parse_name(raw)
    assert caught.value.reason in {"computer", "too_long"}


@given(
    st.text(
        st.characters(categories=["L", "N", "P", "S"]),
        min_size=1,
        max_size=MAX_NAME_CHARS,
    )
)
def test_d4_up_to_twelve_visible_code_points_pass(raw: str) -> None:
    normal = unicodedata.normalize("NFC", raw)
    if any(unicodedata.category(c) in FORBIDDEN_CATEGORIES for c in normal):
        return  # (NFC never makes these, but the strategy's view of categories may differ)
    if INVISIBLE & set(normal) or looks_like_a_computer(normal):
        return  # (letters and symbols that draw nothing; 电脑: the two rules of F16)
    if len(normal) > MAX_NAME_CHARS:
        return  # (NFC may decompose a character: U+FB2A שׁ is two code points)
    assert parse_name(raw) == normal


# -- F25: names are compared as people see them ---------------------------------------------

#: Unicode's derivation of Default_Ignorable_Code_Point (UAX #44): Other_DI + Cf +
#: Variation_Selector - White_Space - U+FFF9..FFFB - the Egyptian format controls -
#: Prepended_Concatenation_Mark. The two lists of PropList.txt it names:
OTHER_DEFAULT_IGNORABLE = [
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x2065, 0x2065),
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0000),
    (0xE0002, 0xE001F),
    (0xE0080, 0xE00FF),
    (0xE01F0, 0xE0FFF),
]
VARIATION_SELECTORS = [(0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF)]
NOT_IGNORABLE_FORMATS = [
    (0x0600, 0x0605),  # Prepended_Concatenation_Mark
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0xFFF9, 0xFFFB),  # interlinear annotation
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
]


def _points(ranges: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


def test_f25_the_ignorable_ranges_are_unicodes_default_ignorable_code_points() -> None:
    """:data:`IGNORABLE_RANGES` is what UAX #44 derives from this Python's database."""
    formats = {
        cp
        for cp in range(0x110000)
        if unicodedata.category(chr(cp)) == "Cf" and not chr(cp).isspace()
    }
    derived = (_points(OTHER_DEFAULT_IGNORABLE) | formats | _points(VARIATION_SELECTORS)) - _points(
        NOT_IGNORABLE_FORMATS
    )
    assert _points(IGNORABLE_RANGES) == derived


IGNORABLE_SAMPLES = [
    "\ufe00",
    "\ufe0f",
    "\U000e0100",
    "\U000e01ef",
    "\u180b",
    "\u180c",
    "\u180d",
    "\u180e",
    "\u180f",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u00ad",
    "\u2060",
    "\ufeff",
    "\u202e",
    "\u2067",
    "\u034f",
    "\u3164",
    "\U000e0041",
]
ignorables = st.one_of(
    st.sampled_from(IGNORABLE_SAMPLES),
    st.sampled_from(IGNORABLE_RANGES).flatmap(lambda r: st.integers(r[0], r[1]).map(chr)),
)


def _sprinkle(text: str, extra: list[tuple[int, str]]) -> str:
    """``text`` with each ``(position, char)`` of ``extra`` inserted."""
    chars = list(text)
    for where, char in extra:
        chars.insert(min(where, len(chars)), char)
    return "".join(chars)


def _outcome(raw: str) -> str:
    try:
        return "name:" + parse_name(raw)
    except InvalidNameError as exc:
        return "refused:" + exc.reason


@given(st.text(max_size=16), st.lists(st.tuples(st.integers(0, 16), ignorables), max_size=6))
def test_f25_default_ignorable_code_points_change_nothing(
    raw: str, extra: list[tuple[int, str]]
) -> None:
    """Any text with any default-ignorable code points put anywhere is the same name as
    without them (or refused for the same reason), and compares equal to it."""
    mixed = _sprinkle(raw, extra)
    assert _outcome(mixed) == _outcome(raw)
    assert name_key(mixed) == name_key(raw)
    assert skeleton(mixed) == skeleton(raw)
    assert looks_like_a_computer(mixed) == looks_like_a_computer(raw)


@given(st.text(max_size=20))
def test_f25_a_parsed_name_holds_no_default_ignorable_code_point(raw: str) -> None:
    try:
        name = parse_name(raw)
    except InvalidNameError:
        return
    assert not any(ord(c) in _points(IGNORABLE_RANGES) for c in name)
    assert name_key(name) == name.casefold()


@given(
    st.sampled_from(
        [f"{COMPUTER_ZH}（{text(Lang.ZH_HANS, level.name_key)}）" for level in LEVELS.values()]
        + ["电脑3"]
    ),
    st.lists(st.tuples(st.integers(0, 8), ignorables), min_size=1, max_size=4),
)
def test_f25_a_computer_seats_name_with_invisible_characters_is_refused(
    name: str, extra: list[tuple[int, str]]
) -> None:
    """「电脑（高\\uFE00手）」 is 「电脑（高手）」: refused."""
    with pytest.raises(InvalidNameError) as caught:
        parse_name(_sprinkle(name, extra))
    assert caught.value.reason == "computer"


@pytest.mark.parametrize("tail", ["\ufe0f", "\ufe00", "\u180b", "\U000e0100", "\u200d"])
def test_f25_a_name_and_the_same_name_with_a_selector_are_one_name(tail: str) -> None:
    assert parse_name("小明" + tail) == "小明"
    assert name_key("小明" + tail) == name_key("小明")
    assert name_key("Amy" + tail) == name_key("amy")
    assert name_key("小红") != name_key("小明")
