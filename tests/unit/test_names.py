"""Display names (yahtzee.names): trimmed, 1-12 code points, nothing invisible (D4, D6)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee.errors import InvalidNameError, YahtzeeError
from yahtzee.names import FORBIDDEN_CATEGORIES, MAX_NAME_CHARS, is_name, parse_name

HOSTILE = '<img src=x onerror="alert(1)">'


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("小明", "小明"),
        ("  小明  ", "小明"),
        ("\u3000小明\u3000", "小明"),  # the ideographic space is whitespace too
        ("李  雷", "李 雷"),
        ("a\tb", "a b"),
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
        ("a\x00b", "invisible"),
        ("a\x1bb", "invisible"),
        ("a\u200bb", "invisible"),  # zero-width space
        ("a\u200db", "invisible"),  # zero-width joiner
        ("\u202eevil", "invisible"),  # right-to-left override
        ("a\u2066b\u2069", "invisible"),  # isolates
        ("\ufeffbom", "invisible"),
        ("\ue000", "invisible"),  # private use
        ("\U000e0041", "invisible"),  # tag character (Cf)
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


def test_d4_a_newline_inside_is_whitespace_not_a_line() -> None:
    assert parse_name("小\n明") == "小 明"


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
        assert reason in {"empty", "too_long", "invisible"}
        return
    assert 1 <= len(name) <= MAX_NAME_CHARS
    assert name == name.strip()
    assert "  " not in name
    assert all(unicodedata.category(c) not in FORBIDDEN_CATEGORIES for c in name)
    assert parse_name(name) == name  # the canonical form is a fixed point
    assert is_name(name)


@given(st.text(st.characters(categories=["Cc", "Cf", "Co"]), min_size=1, max_size=3))
def test_d4_invisible_characters_never_pass(junk: str) -> None:
    # (whitespace controls such as \n are trimmed or collapsed, never kept)
    visible = [c for c in junk if not c.isspace()]
    if not visible:
        return
    with pytest.raises(InvalidNameError) as caught:
        parse_name(f"ab{junk}cd")
    assert caught.value.reason == "invisible"


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
    assert parse_name(raw) == normal
