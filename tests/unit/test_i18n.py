"""The languages (G1, G3): choosing one, the catalogs and their checks, the page's modules
and HTML, the extractors."""

from __future__ import annotations

import datetime
import importlib.util
import io
import json
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from yahtzee.errors import InvalidNameError
from yahtzee.i18n import (
    Lang,
    catalogs,
    format_date,
    format_number,
    msg,
    msg_n,
    negotiate,
    placeholders,
    plural,
    pseudo,
    text,
)
from yahtzee.i18n.catalog import LOCALE_DIR, PLURAL_ORDER, plural_tags
from yahtzee.i18n.extract import extract_html, extract_javascript, extract_python
from yahtzee.i18n.page import chunk_module, localized
from yahtzee.server.errors import to_api_error

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("i18n_script", ROOT / "scripts" / "i18n.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


I18N = _script()

# -- choosing a language (G3) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("zh-TW", Lang.ZH_HANT),
        ("zh-HK", Lang.ZH_HANT),
        ("zh-MO", Lang.ZH_HANT),
        ("zh-Hant", Lang.ZH_HANT),
        ("zh-Hant-HK", Lang.ZH_HANT),
        ("zh_TW", Lang.ZH_HANT),
        ("zh-CN", Lang.ZH_HANS),
        ("zh-SG", Lang.ZH_HANS),
        ("zh", Lang.ZH_HANS),
        ("zh-Hans-HK", Lang.ZH_HANS),
        ("en-GB", Lang.EN),
        ("de-DE,de;q=0.9", Lang.EN),
        ("de, zh-TW;q=0.3", Lang.ZH_HANT),
        ("en;q=0.4, zh-CN;q=0.8", Lang.ZH_HANS),
        ("zh-CN;q=0, en", Lang.EN),
        ("*", Lang.ZH_HANS),
        ("", Lang.ZH_HANS),
        (None, Lang.ZH_HANS),
        ("zh;q=abc", Lang.ZH_HANS),
        ("*;q=0.5", Lang.ZH_HANS),
        ("en-XA", Lang.EN),
    ],
)
def test_g3_negotiate(header: str | None, lang: Lang) -> None:
    assert negotiate(header) is lang


def test_g3_the_pseudo_language_is_chosen_only_when_enabled() -> None:
    assert negotiate("en-XA", pseudo=True) is Lang.PSEUDO
    assert negotiate("en-US", pseudo=True) is Lang.EN


def test_g3_a_language_parses_and_prints() -> None:
    for lang in Lang:
        assert Lang.parse(str(lang)) is lang
        assert Lang.parse(lang.folder.upper()) is lang
    with pytest.raises(ValueError, match=r"'fr'.*zh-Hans, zh-Hant, en, en-XA"):
        Lang.parse("fr")


# -- the catalogs (G1) --------------------------------------------------------------------


def test_g1_texts_placeholders_plurals_and_messages_of_messages() -> None:
    assert text(Lang.ZH_HANS, "error.rate_limited", seconds=3) == "操作太频繁了，请 3 秒后再试。"
    assert text(Lang.EN, "error.rate_limited", seconds=3).endswith("in 3 s.")
    assert plural(Lang.EN, "error.room.too_many", 1, limit=1).count("1 room in play") == 1
    assert plural(Lang.EN, "error.room.too_many", 5, limit=5).count("5 rooms in play") == 1
    assert "5 个" in plural(Lang.ZH_HANS, "error.room.too_many", 5, limit=5)
    said = msg("error.game_in_progress", what=msg("error.game_in_progress.game"))
    assert said.render(Lang.ZH_HANT).startswith("你有一局遊戲還沒玩完")
    assert msg_n("error.group.full", 1, limit=1).render(Lang.EN).endswith("1 member).")
    with pytest.raises(KeyError, match="seconds"):
        text(Lang.EN, "error.rate_limited")
    # A name a person typed is a value: never translated, in every language.
    name = "电脑（高手）"
    error = to_api_error(InvalidNameError(name, "computer", "reads as a computer"))
    assert error.message == f"名字「{name}」看起来像电脑座位的名字，会让人以为是电脑，请换一个。"
    assert error.message_in(Lang.EN).startswith(f"The name “{name}” looks like")


def test_g1_the_pseudo_language_is_accented_bracketed_and_longer() -> None:
    english = text(Lang.EN, "error.rate_limited", seconds="{seconds}")
    made = pseudo(english)
    assert made.startswith("[Ţóó ɱáñý ŕéǫúéšţš")
    assert made.endswith("]")
    assert placeholders(made) == {"seconds"}
    assert len(made) >= 1.4 * len(english)
    # Made for every English entry when the catalogs load (never stored).
    cat = catalogs()
    assert set(cat.texts[Lang.PSEUDO]) == set(cat.texts[Lang.EN])
    assert not (LOCALE_DIR / "en_XA").exists()


def test_g1_numbers_and_dates_as_each_language_writes_them() -> None:
    assert format_number(Lang.EN, 12345.5, decimals=1) == "12,345.5"
    assert format_number(Lang.ZH_HANT, 1234) == "1,234"
    day = datetime.date(2026, 3, 5)
    assert format_date(Lang.EN, day) == "Mar 5, 2026"
    assert format_date(Lang.ZH_HANS, day) == "2026年3月5日"


def test_g1_plural_categories_follow_cldr() -> None:
    assert plural_tags(Lang.EN) == ("one", "other")
    assert plural_tags(Lang.ZH_HANS) == plural_tags(Lang.ZH_HANT) == ("other",)
    assert set(plural_tags(Lang.PSEUDO)) <= set(PLURAL_ORDER)


# -- the checks (G1) ----------------------------------------------------------------------


def test_g1_the_catalogs_are_whole() -> None:
    """Every key the code uses is in every language, not empty, not fuzzy; no key the code
    does not use; each translation's placeholders are zh-Hans's; each plural entry has its
    language's forms; the template is the code's."""
    assert I18N.problems() == []


@pytest.fixture
def copies(tmp_path: Path) -> Path:
    """A copy of the catalogs to break."""
    shutil.copytree(LOCALE_DIR, tmp_path / "locale")
    return tmp_path / "locale"


def _edit(directory: Path, lang: Lang, key: str, change: Any) -> None:
    catalog = I18N.read(lang, directory)
    change(catalog, key)
    out = io.BytesIO()
    from babel.messages.pofile import write_po

    write_po(out, catalog, width=0)
    (directory / lang.folder / "LC_MESSAGES" / "messages.po").write_bytes(out.getvalue())


def test_g1_each_check_finds_its_defect(copies: Path) -> None:
    used = I18N.used_keys()

    def found() -> list[str]:
        return list(I18N.problems(used, copies))

    def set_string(value: Any) -> Any:
        def change(catalog: Any, key: str) -> None:
            catalog[key].string = value

        return change

    _edit(copies, Lang.EN, "error.busy", lambda c, k: c.delete(k))
    _edit(copies, Lang.ZH_HANT, "error.internal", set_string(""))
    _edit(copies, Lang.EN, "error.stale_version", lambda c, k: c[k].flags.add("fuzzy"))
    _edit(copies, Lang.ZH_HANS, "error.unused", lambda c, k: c.add(k, "没用"))
    _edit(copies, Lang.EN, "error.rate_limited", set_string("Wait {secs} s."))
    _edit(copies, Lang.EN, "error.group.full", set_string(("{limit} member",)))  # (no other)
    assert sorted(found()) == sorted(
        [
            "en: error.busy is missing",
            "zh-Hant: error.internal is empty",
            "en: error.stale_version is fuzzy (a draft nobody has read)",
            "zh-Hans: error.unused is in the catalog but the code does not use it",
            "en: error.rate_limited has placeholders ['secs'], zh-Hans has ['seconds']",
            "en: error.group.full is empty",
        ]
    )
    assert I18N.problems({**used, "error.new_key": False}, copies)[-1] == (
        "messages.pot is not the code's keys: run scripts/i18n.py extract"
    )
    assert "'Not A Key': not a key" in I18N.problems({**used, "Not A Key": False}, copies)[0]


# -- the extractors -----------------------------------------------------------------------


def _extract(func: Any, source: str, keywords: Any = ("t", "tn", "msg", "N_")) -> list[Any]:
    results = func(io.BytesIO(source.encode()), keywords, (), {})
    return [(line, name, args) for line, name, args, _ in results]


def test_g1_the_extractors_find_nested_lookups_and_skip_comments() -> None:
    js = (
        '// t("core.not_this")\nconst a = t("core.a", { box: t("core.b") });\n'
        'say(tn(`core.c`, n, { n }));\nx.t("core.method"); t(`core.${dynamic}`);\n'
        'const r = /t\\("core.regex"/;\n'
    )
    assert _extract(extract_javascript, js) == [
        (2, "t", ("core.a",)),
        (2, "t", ("core.b",)),
        (3, "tn", ("core.c",)),
    ]
    py = 'x = msg(table.get(k, N_("error.b")), v=msg("error.c"))\n"""msg("error.doc")"""\n'
    assert sorted(_extract(extract_python, py), key=str) == [
        (1, "N_", ("error.b",)),
        (1, "msg", ("error.c",)),
        (1, "msg", (None,)),
    ]
    html = (
        '<!-- <p data-i18n="page.no"></p> -->\n'
        '<p data-i18n="page.a" data-i18n-attr="title=page.b"></p>'
    )
    assert _extract(extract_html, html) == [(2, "t", ("page.a",)), (2, "t", ("page.b",))]


def test_g1_the_javascript_extractor_reads_templates_parts_and_keeps_in_step() -> None:
    """A lookup inside a template's ``${…}`` is found with its line, and a part holding an
    arrow function's body, an object literal, a ``"}"`` or another template does not end
    its template early: the keys after it are still found (the old scan lost them all)."""
    js = (
        'const a = `<p>${t("core.in_template")}</p>`;\n'
        'const b = `${items.map((i) => { return `<li>${i}</li>`; }).join("}")}\n'
        '${tn("core.nested", n, { n })}`;\n'
        'const c = t("core.after");\n'
    )
    assert _extract(extract_javascript, js) == [
        (1, "t", ("core.in_template",)),
        (3, "tn", ("core.nested",)),
        (4, "t", ("core.after",)),
    ]


# -- the page -----------------------------------------------------------------------------


def test_g3_the_page_is_filled_in_its_language() -> None:
    page = (
        '<!doctype html>\n<html lang="zh-Hans">\n<title data-i18n="core.brand"></title>\n'
        '<button data-i18n="page.settings.done" data-i18n-attr="title=page.settings.title '
        'aria-label=page.settings.title" title="old"></button>'
    )
    out = localized(page, catalogs(), Lang.EN, chosen=True)
    assert '<html lang="en" data-lang-chosen>' in out
    assert '<title data-i18n="core.brand">Yacht Dice</title>' in out
    assert 'title="Settings" aria-label="Settings">Done</button>' in out
    assert 'title="old"' not in out
    with pytest.raises(ValueError, match="must be empty"):
        localized('<p data-i18n="core.brand">快艇骰子</p>', catalogs(), Lang.EN)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs nodejs (make node)")
def test_g3_a_chunk_is_an_es_module_with_its_plural_rule(tmp_path: Path) -> None:
    """The page's module of a chunk runs as JavaScript: its messages, and Babel's plural
    rule choosing English's one and other."""
    module = tmp_path / "core.mjs"
    module.write_bytes(chunk_module(catalogs(), Lang.EN, "core"))
    probe = (
        f"import {{ plural, messages }} from {json.dumps(module.as_uri())};"
        "console.log(JSON.stringify([plural(1), plural(2), plural(0), messages['core.brand']]));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", probe], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == ["one", "other", "other", "Yacht Dice"]


def test_g1_a_changed_catalog_is_a_new_release() -> None:
    """The chunks are part of the release hash: a page of the old release never loads a
    cached chunk of the new one (or the other way)."""
    from yahtzee.i18n import REAL
    from yahtzee.i18n.page import modules
    from yahtzee.server.assets import StaticAssets
    from yahtzee.server.settings import STATIC_DIR

    chunks = modules(catalogs(), REAL)
    before = StaticAssets(STATIC_DIR, ["/"], extra_files=chunks)
    assert before.lookup(f"{before.prefix}/i18n/zh-Hant/core.js") is not None
    changed = dict(chunks)
    changed["/i18n/en/core.js"] = changed["/i18n/en/core.js"].replace(b"Yacht", b"Yatch")
    after = StaticAssets(STATIC_DIR, ["/"], extra_files=changed)
    assert after.release != before.release
