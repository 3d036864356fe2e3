"""G1: no literal player-facing text outside the catalogs.

Every word a player reads was Simplified Chinese, so a CJK character in a string literal of
the code is a literal the catalog should hold. This scan lists them in the page's modules,
its HTML and stylesheets (a ``content:`` text), the service worker and the server's Python
(its string literals, docstrings left out; the log and exception messages are English).

The modules whose words are not in the catalogs yet are listed in
``tests/unit/i18n_not_migrated.txt``; the list only shrinks: a module with such a literal
that is not on it fails, and so does a module on it that has none left (take it off). A
literal that is data, never a word to translate (the characters a name is compared by),
carries ``i18n-ok`` in a comment on its line, with the reason. See docs/i18n.md.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

from yahtzee.i18n.extract import js_tokens

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "yahtzee"
ALLOW_LIST = Path(__file__).with_name("i18n_not_migrated.txt")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
PRAGMA = "i18n-ok"


def _pragma_lines(lines: list[str]) -> set[int]:
    return {i for i, line in enumerate(lines, 1) if PRAGMA in line}


def python_literals(source: str) -> list[tuple[int, str]]:
    """The CJK string literals of a Python module (docstrings and other bare strings left
    out), as ``(line, text)``."""
    tree = ast.parse(source)
    bare = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    # (a comment's pragma: on the string's first or last line)
    comments = {
        tok.start[0]
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT and PRAGMA in tok.string
    }
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in bare or not CJK.search(node.value):
            continue
        if {node.lineno, node.end_lineno or node.lineno} & comments:
            continue
        found.append((node.lineno, node.value))
    return sorted(found)


def js_literals(source: str) -> list[tuple[int, str]]:
    """The CJK string, template and regular-expression literals of a JavaScript module."""
    ok = _pragma_lines(source.split("\n"))
    return [
        (line, text)
        for kind, line, text in js_tokens(source)
        if kind in ("string", "regex") and CJK.search(text) and line not in ok
    ]


def html_literals(source: str) -> list[tuple[int, str]]:
    """The CJK text and attribute values of an HTML page (comments left out)."""
    source = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), source, flags=re.S)
    lines = source.split("\n")
    ok = _pragma_lines(lines)
    return [
        (i, line.strip()) for i, line in enumerate(lines, 1) if CJK.search(line) and i not in ok
    ]


def css_literals(source: str) -> list[tuple[int, str]]:
    """The CJK strings of a stylesheet (a ``content:`` text; comments left out)."""
    ok = _pragma_lines(source.split("\n"))
    bare = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), source, flags=re.S)
    return [
        (bare.count("\n", 0, m.start()) + 1, m.group(0))
        for m in re.finditer(r'"[^"\n]*"|\'[^\'\n]*\'', bare)
        if CJK.search(m.group(0)) and bare.count("\n", 0, m.start()) + 1 not in ok
    ]


SCANNERS = {
    ".py": python_literals,
    ".js": js_literals,
    ".html": html_literals,
    ".css": css_literals,
}


@cache
def scanned() -> dict[str, list[tuple[int, str]]]:
    """Every scanned file's CJK literals, by its path from the repository's root."""
    out = {}
    for path in sorted(SRC.rglob("*")):
        scan = SCANNERS.get(path.suffix)
        if scan is None or "__pycache__" in path.parts:
            continue
        found = scan(path.read_text(encoding="utf-8"))
        if found:
            out[path.relative_to(ROOT).as_posix()] = found
    return out


def allow_list() -> list[str]:
    """The modules not migrated yet (one path a line; ``#`` starts a comment)."""
    lines = (line.split("#", 1)[0].strip() for line in ALLOW_LIST.read_text().splitlines())
    return [line for line in lines if line]


def test_g1_the_scan_tells_literals_from_comments_and_docstrings() -> None:
    py = '"""说明。"""\nX = "大厅"  # 注释\ny = f"第 {n} 回合"\nZ = "电"  # i18n-ok: data\n'
    assert python_literals(py) == [(2, "大厅"), (3, " 回合"), (3, "第 ")]
    js = (
        '// 注释 t("x")\nconst a = "大厅"; /* 块\n注释 */ const b = `第 ${n} 回合`;\n'
        "const r = /[电脑]/; const c = 1 / 2; // 除\nconst d = '设置'; // i18n-ok: data\n"
    )
    assert [line for line, _ in js_literals(js)] == [2, 3, 4]
    assert html_literals('<!-- 大厅 -->\n<p data-i18n="a"></p>\n<p>设置</p>') == [
        (3, "<p>设置</p>")
    ]
    assert css_literals('/* 问 */\np::before { content: "问："; }') == [(2, '"问："')]


def test_g1_every_cjk_literal_is_in_a_module_not_migrated_yet() -> None:
    listed = set(allow_list())
    found = scanned()
    unlisted = {path: lits for path, lits in found.items() if path not in listed}
    report = "\n".join(
        f"{path}:{line}: {text[:60]!r}"
        for path, lits in sorted(unlisted.items())
        for line, text in lits[:5]
    )
    assert not unlisted, (
        "literal player-facing text outside the catalogs (use a key, docs/i18n.md):\n" + report
    )


def test_g1_the_list_of_modules_not_migrated_only_shrinks() -> None:
    listed = allow_list()
    assert listed == sorted(set(listed)), "keep i18n_not_migrated.txt sorted, each path once"
    found = scanned()
    done = [path for path in listed if path not in found]
    assert not done, f"no CJK literal left: take them off i18n_not_migrated.txt: {done}"
