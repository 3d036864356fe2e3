"""G5: every error the API answers reads in each language. Every domain error and every
API error class of the platform and the features is made, mapped by the one mapping (the
features' too) and said in 简体中文, 繁體中文 and English: each a catalog message (the
type says so: ``ApiError`` takes a ``Msg``), English without a Chinese word, the Chinese
ones in Chinese. A new error class with no sample here fails the test."""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any, get_type_hints

import pytest

from yahtzee.i18n import REAL, Lang, Msg, catalogs, msg, placeholders
from yahtzee.server.errors import ApiError, to_api_error

MODULES = (
    "yahtzee.errors",
    "yahtzee.server.errors",
    "yahtzee.daily.errors",
    "yahtzee.devices.errors",
    "yahtzee.practice.errors",
    "yahtzee.rooms.errors",
)
FEATURES = ("daily", "devices", "practice", "rooms")
#: Bases, never raised themselves.
BASES = {"YahtzeeError", "OverCapError", "IllegalMoveError", "ApiError"}
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
#: Arguments of a class whose values are not any text (a name's refusal names a reason).
SAMPLES: dict[str, dict[str, Any]] = {
    "InvalidNameError": {"value": "x\u200b", "reason": "invisible", "detail": "U+200B"},
    "GameInProgressError": {},
}


def _sample(cls: type[Exception]) -> Exception:
    given = SAMPLES.get(cls.__name__)
    hints = get_type_hints(cls.__init__)
    args: dict[str, Any] = dict(given or {})
    for name, param in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or name in args or param.default is not inspect.Parameter.empty:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        kind = hints.get(name)
        if kind is int:
            args[name] = 3
        elif kind is float:
            args[name] = 1.5
        elif kind is Exception:
            args[name] = ValueError("sample")
        elif kind is Msg:
            args[name] = msg("error.internal")
        elif kind in (str, object):
            args[name] = f"sample-{name}-0123456789"
        else:
            raise AssertionError(f"{cls.__name__}: no sample for {name}: {kind}")
    return cls(**args)


def _classes() -> list[type[Exception]]:
    out = []
    for name in MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Exception)
                and value.__module__ == name
                and value.__name__ not in BASES
            ):
                out.append(value)
    return out


def _mappings() -> list[Any]:
    return [importlib.import_module(f"yahtzee.{f}.errors").api_error for f in FEATURES]


@pytest.mark.parametrize("cls", _classes(), ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_g5_each_api_error_is_said_in_each_language(cls: type[Exception]) -> None:
    error = to_api_error(_sample(cls), _mappings())
    assert isinstance(error, ApiError)
    assert error.status >= 400
    assert error.code != "internal_error" or cls.__name__ == "CorruptLogError", cls
    said = {lang: error.message_in(lang) for lang in REAL}
    assert all(said.values()), said
    assert not CJK.search(said[Lang.EN]), said[Lang.EN]
    assert CJK.search(said[Lang.ZH_HANS]), said[Lang.ZH_HANS]
    assert CJK.search(said[Lang.ZH_HANT]), said[Lang.ZH_HANT]
    assert said[Lang.EN] != said[Lang.ZH_HANS]


def test_g5_every_error_message_of_the_catalogs_is_translated() -> None:
    """Each ``error.*`` text, its placeholders filled, in English holds no Chinese word and
    in each Chinese is Chinese (a text copied across languages untranslated fails)."""
    cat = catalogs()
    keys = [k for k in cat.texts[Lang.ZH_HANS] if k.startswith("error.")]
    assert len(keys) > 100
    untranslated = []
    for key in keys:
        entry = cat.texts[Lang.ZH_HANS][key]
        source = entry if isinstance(entry, str) else next(iter(entry.values()))
        values = dict.fromkeys(placeholders(source), "7")
        # (an entry of placeholders and punctuation alone, 「{what}（{detail}）」, has no words)
        worded = any(c.isalpha() for c in re.sub(r"\{\w+\}", "", source))
        for lang in REAL:
            text = (
                cat.plural(lang, key, 7, **values)
                if not isinstance(entry, str)
                else (cat.text(lang, key, **values))
            )
            chinese = bool(CJK.search(text))
            if (
                not text
                or (lang is Lang.EN and chinese)
                or (worded and lang is not Lang.EN and not chinese)
            ):
                untranslated.append((lang, key, text))
    assert not untranslated, untranslated
