"""K4 (issue 26 item 4): one limits vocabulary, read from the source.

One charge and take (``yahtzee.server.limits.Guard``), one family of caps
(``yahtzee.errors.OverCapError``), one bounded cache (``yahtzee.lru``),
one QR function (``yahtzee.server.qr``), the computer levels' names read from
``yahtzee.players.levels``: each test fails when a copy comes back.
"""

from __future__ import annotations

import ast
from pathlib import Path

import yahtzee
from yahtzee.i18n import Lang, text
from yahtzee.players import Difficulty

SRC = Path(yahtzee.__file__).resolve().parent


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "static" not in p.parts)


def _rel(path: Path) -> str:
    return path.relative_to(SRC).as_posix()


def _calls_of(tree: ast.AST, name: str) -> list[int]:
    """The lines that call ``name(...)`` or ``something.name(...)``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if called == name:
                lines.append(node.lineno)
    return lines


def test_k4_one_charge_helper() -> None:
    """A shared bucket's token is made in one place (``Guard.charge``) and taken in one
    (``Guard.take``): the rooms and the groups had copies, one switched off by an
    unrelated setting, and the wrapper itself was written four times (``limits.charge``,
    ``Guard.charge``, the rooms' and the devices' ``_charge``; issue 36, A2)."""
    found = {
        _rel(p): lines
        for p in _modules()
        if (lines := _calls_of(ast.parse(p.read_text("utf-8")), "Charge"))
    }
    assert set(found) == {"server/limits.py"}, found
    wrappers = []
    for path in _modules():
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in {
                "charge",
                "_charge",
                "_take",
            }:
                wrappers.append((_rel(path), node.name))
            # tokens taken past the guard: storage.take(...), self.tokens.take(...)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "take"
                and isinstance(node.func.value, ast.Attribute | ast.Name)
                and getattr(node.func.value, "attr", getattr(node.func.value, "id", ""))
                in {"storage", "tokens", "_writer"}
            ):
                wrappers.append((_rel(path), "take"))
    assert sorted(set(wrappers)) == [("server/limits.py", "charge"), ("server/limits.py", "take")]


def test_k4_every_cap_is_an_over_cap_error() -> None:
    """A cap (so many at once: rooms, groups, a group's members, streams) is refused with
    an :class:`~yahtzee.errors.OverCapError` naming its number (issue 36, A2: the streams'
    was a plain error)."""
    import importlib
    import inspect

    from yahtzee.errors import OverCapError

    caps = []
    for path in _modules():
        if path.name != "errors.py":
            continue
        module = importlib.import_module(
            "yahtzee." + path.relative_to(SRC).with_suffix("").as_posix().replace("/", ".")
        )
        for name, cls in inspect.getmembers(module, inspect.isclass):
            # (a room is full when its own seats are taken: no setting's cap)
            if name.startswith("TooMany") or name == "GroupFullError":
                caps.append((name, issubclass(cls, OverCapError)))
    assert {"TooManyRoomsError", "TooManyStreamsError", "GroupFullError"} <= {n for n, _ in caps}
    assert [n for n, is_cap in caps if not is_cap] == []


def test_k4_one_bounded_cache() -> None:
    """Every bounded map is ``yahtzee.lru.LruCache``: no hand-written LRU beside it."""
    copies = [
        _rel(p) for p in _modules() if "OrderedDict" in p.read_text("utf-8") and _rel(p) != "lru.py"
    ]
    assert copies == []


def test_k4_one_qr_function() -> None:
    """The rooms' and the groups' QR codes differed only in their title: one function."""
    users = [_rel(p) for p in _modules() if "import segno" in p.read_text("utf-8")]
    assert users == ["server/qr.py"]


def _string_literals(tree: ast.Module) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_k4_the_levels_names_are_read_from_their_one_source() -> None:
    """``_DIFFICULTY_NAMES`` and two messages copied 入门 / 普通 / 高手 (now the catalogs'
    texts of the levels' keys, in Chinese of either script)."""
    names = [text(lang, d.name_key) for d in Difficulty for lang in (Lang.ZH_HANS, Lang.ZH_HANT)]
    copies = [
        (_rel(p), line, text)
        for p in _modules()
        if _rel(p).split("/")[0] in {"server", "web", "rooms", "daily", "practice", "table.py"}
        for line, text in _string_literals(ast.parse(p.read_text("utf-8")))
        if any(name in text for name in names)
    ]
    assert copies == []
