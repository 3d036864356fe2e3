"""Where the code names keys: the extractors ``pybabel extract`` runs (``babel.cfg``).

Babel's own Python and JavaScript extractors miss a lookup inside another's arguments
(``t("core.said", {box: t("core.box.ones")})``, ``msg(table.get(k, N_("error.x")))``), which
the migration writes all the time; these find every call of a keyword whose key argument
is a string literal, however nested:

* :func:`extract_python` reads the module's syntax tree (a call ``N_(...)``, ``msg(...)`` or
  ``x.msg(...)``);
* :func:`extract_javascript` scans the module's tokens (:func:`js_tokens`: comments,
  strings, template literals and regular expressions told apart), a call ``t(...)`` or
  ``tn(...)`` not after a ``.``;
* :func:`extract_html` the page's ``data-i18n`` and ``data-i18n-attr`` keys.

Each yields Babel's ``(line, function, arguments, comments)``, from which Babel takes the key
by the keyword's spec (a plural keyword, ``tn:1,1``, gives the key twice: a plural entry).
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from typing import Any

Found = tuple[int, str, tuple[str | None, ...], list[str]]
"""Babel's extractor result: the line, the keyword and the call's arguments (a string
literal's text, ``None`` for anything else); Babel picks the key by the keyword's spec."""


def extract_python(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[Found]:
    """Every keyword call of a Python module (see above)."""
    del comment_tags, options
    names = set(keywords)
    tree = ast.parse(fileobj.read())
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in names or not node.args:
            continue
        args = tuple(
            a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
            for a in node.args
        )
        yield node.lineno, str(name), args, []


# -- JavaScript ---------------------------------------------------------------------------

_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}
_REGEX_KEYWORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void"}


def _template_end(source: str, i: int) -> int:
    """Where the template literal starting at ``source[i]`` (a backquote) ends: after its
    closing backquote, its ``${…}`` parts skipped as code (see :func:`_expression_end`)."""
    n = len(source)
    i += 1
    while i < n:
        d = source[i]
        if d == "\\":
            i += 2
        elif d == "`":
            return i + 1
        elif source.startswith("${", i):
            i = _expression_end(source, i + 2) + 1
        else:
            i += 1
    return n


def _expression_end(source: str, i: int) -> int:
    """Where the ``${…}`` part whose code starts at ``source[i]`` ends (its ``}``): braces
    counted, strings and nested templates skipped whole, so an object literal, an arrow
    function's body or a ``"}"`` inside the part do not end it early."""
    n, depth = len(source), 0
    while i < n:
        d = source[i]
        if d == "`":
            i = _template_end(source, i)
            continue
        if d in "'\"":
            i += 1
            while i < n and source[i] != d:
                i += 2 if source[i] == "\\" else 1
        elif d == "{":
            depth += 1
        elif d == "}":
            if not depth:
                return i
            depth -= 1
        i += 1
    return n


def template_parts(literal: str) -> list[tuple[int, str]]:
    """The code of a template literal's ``${…}`` parts, each with the number of lines
    before it in the literal: ``"`a ${t("k")} b`"`` gives ``[(0, 't("k")')]``."""
    parts: list[tuple[int, str]] = []
    i, n = 1, len(literal)
    while i < n:
        if literal[i] == "\\":
            i += 2
        elif literal.startswith("${", i):
            end = _expression_end(literal, i + 2)
            parts.append((literal.count("\n", 0, i), literal[i + 2 : end]))
            i = end + 1
        else:
            i += 1
    return parts


def js_tokens(source: str) -> Iterator[tuple[str, int, str]]:
    """``(kind, line, text)`` of a JavaScript module: ``code`` runs, ``string`` literals
    (quotes included; a template literal whole, its ``${}`` parts included: see
    :func:`template_parts`), ``regex``
    literals and ``comment`` s. Enough of the language for the page's modules: a ``/`` is
    a regular expression where an expression may start."""
    i, n, line = 0, len(source), 1
    code_start = 0
    last = ""  # the last significant code character (or word) before here

    def flush(end: int) -> Iterator[tuple[str, int, str]]:
        if end > code_start:
            text = source[code_start:end]
            yield "code", line - text.count("\n"), text

    while i < n:
        c = source[i]
        if c == "/" and source.startswith("//", i):
            yield from flush(i)
            end = source.find("\n", i)
            end = n if end < 0 else end
            yield "comment", line, source[i:end]
            i = code_start = end
            continue
        if c == "/" and source.startswith("/*", i):
            yield from flush(i)
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            yield "comment", line, source[i:end]
            line += source.count("\n", i, end)
            i = code_start = end
            continue
        if c == "`":
            yield from flush(i)
            start, start_line = i, line
            i = _template_end(source, i)
            line += source.count("\n", start, i)
            yield "string", start_line, source[start:i]
            code_start = i
            last = "a"
            continue
        if c in "'\"" or (c == "/" and (last in _REGEX_AFTER or last in _REGEX_KEYWORDS)):
            yield from flush(i)
            start, start_line = i, line
            i += 1
            in_class = False
            while i < n:
                d = source[i]
                if d == "\\":
                    i += 2
                    continue
                if d == "\n":
                    line += 1
                if c == "/" and d == "[":
                    in_class = True
                elif c == "/" and d == "]":
                    in_class = False
                elif d == c and not in_class:
                    i += 1
                    break
                i += 1
            if c == "/":
                while i < n and source[i].isalpha():  # flags
                    i += 1
            yield ("regex" if c == "/" else "string"), start_line, source[start:i]
            code_start = i
            last = "a"  # (a value: a following / divides)
            continue
        if c == "\n":
            line += 1
        if not c.isspace():
            if c.isalnum() or c in "_$":
                j = i
                while j < n and (source[j].isalnum() or source[j] in "_$"):
                    j += 1
                last = source[i:j]
                i = j
                continue
            last = c
        i += 1
    yield from flush(n)


_JS_CALL = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\(\s*$")


def extract_javascript(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[Found]:
    """Every keyword call of a JavaScript module whose first argument is a string literal
    without ``${}``, in the module's code and in its templates' ``${…}`` parts."""
    del comment_tags, options
    yield from _calls(fileobj.read().decode("utf-8"), set(keywords), 0)


def _calls(source: str, names: set[str], lines_before: int) -> Iterator[Found]:
    tokens = list(js_tokens(source))
    for kind, line, text in tokens:
        if kind == "string" and text.startswith("`"):
            for offset, part in template_parts(text):
                yield from _calls(part, names, lines_before + line - 1 + offset)
    for (kind, _, text), (next_kind, line, literal) in itertools.pairwise(tokens):
        if kind != "code" or next_kind != "string" or "${" in literal:
            continue
        match = _JS_CALL.search(text)
        if match and match.group(1) in names:
            yield lines_before + line, match.group(1), (literal[1:-1],), []


# -- HTML ---------------------------------------------------------------------------------

_COMMENT = re.compile(r"<!--.*?-->", re.S)


def attr_pairs(value: str) -> list[tuple[str, str]]:
    """``data-i18n-attr``'s ``(attribute, key)`` pairs: ``"title=core.a aria-label=core.b"``."""
    pairs = []
    for item in value.split():
        name, sep, key = item.partition("=")
        if not sep or not name or not key:
            raise ValueError(f"data-i18n-attr needs attribute=key pairs, got {value!r}")
        pairs.append((name, key))
    return pairs


def extract_html(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[Found]:
    """The page's HTML: each ``data-i18n`` and ``data-i18n-attr`` key (comments skipped)."""
    del keywords, comment_tags, options
    source = fileobj.read().decode("utf-8")
    source = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    for match in re.finditer(r'\sdata-i18n="([^"]+)"', source):
        yield source.count("\n", 0, match.start()) + 1, "t", (match.group(1),), []
    for match in re.finditer(r'\sdata-i18n-attr="([^"]+)"', source):
        line = source.count("\n", 0, match.start()) + 1
        for _name, key in attr_pairs(match.group(1)):
            yield line, "t", (key,), []
