"""A4, the page's half: the modules every mode shares name no mode (the page's counterpart
of ``test_feature_contract.py``, whose platform names no feature).

The shared modules are the one board (``static/js/board/``) and the page's own modules
under ``static/js/`` that the lobby, the top bar and the settings run on (the store and its
funnel, the render, the effects, the requests, the storage, the copy…). A mode lives in its
own module — the page's table view ``solo.js`` (单人挑战, 人机对战, 每日挑战, 新手教程), the lazy
views under ``lazy/`` (多人同屏, 好友房间, 每日挑战's page) — and reaches the shared modules
only through what they take: a board's mode description, the registry's entry. Two modules
may name modes by design, as the server's app factory names features: ``main.js``, which
wires each mode's parts, and ``views.js``, the registry of the lazy views and overlays.

A module names a mode when its code holds a mode's id as a string (``"daily"``, ``'room'``:
a comparison, a lookup, a request's body), reads a mode's own field of a game or a state
(``game.daily``, ``state.tutorial``) or imports a mode's module. Comments do not count;
words shown to a player are copy, not names (messages.js holds every mode's words, keyed
by the server's kinds).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from yahtzee.i18n.extract import js_tokens

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "src" / "yahtzee" / "static" / "js"
CONFIG = json.loads((ROOT / "tests" / "js" / "config.json").read_text(encoding="utf-8"))
#: Every mode's and kind's id (/api/config's ``modes`` and ``kinds``: the server's names).
MODES = frozenset(CONFIG["modes"]) | frozenset(CONFIG["kinds"])
#: The modes' own modules (the page's table view's, and the lazy views that are modes).
MODE_MODULES = ("solo.js", "lazy/table.js", "lazy/seats.js", "lazy/room.js", "lazy/daily.js")
#: The wiring and the registry (see the module docstring).
WIRING = ("main.js", "views.js")

_WORD = "|".join(sorted(MODES))
_FIELD = re.compile(rf"\.({_WORD})\b")
_TAG_BEFORE = re.compile(r"(?:\bel|createElement)\(\s*$")


def shared_modules() -> list[Path]:
    """The shared modules: the board's, and the page's own but the wiring and the modes'."""
    own = [p for p in JS.glob("*.js") if p.name not in WIRING and p.name not in MODE_MODULES]
    return sorted([*own, *(JS / "board").glob("*.js")])


def mode_names(source: str) -> list[tuple[int, str]]:
    """Where ``source`` (a module) names a mode, as ``(line, what)``."""
    found: list[tuple[int, str]] = []
    code_before = ""
    for kind, line, text in js_tokens(source):
        if kind == "code":
            found += [(line, m.group(0)) for m in _FIELD.finditer(text)]
            code_before = text
        elif kind == "string":
            bare = text[1:-1]
            # (an element's tag name is not a mode: el("table"))
            if bare in MODES and not _TAG_BEFORE.search(code_before):
                found.append((line, text))
            if text.startswith("`"):  # a template's ${…} parts are code
                found += [(line, m.group(0)) for m in _FIELD.finditer(text)]
            if bare.endswith(MODE_MODULES):
                found.append((line, f"imports {bare}"))
    return found


def test_a4_the_contract_finds_a_mode_named_in_any_of_its_ways() -> None:
    """The check finds each way of naming a mode, and passes what only looks like one."""
    named = """
      if (game.kind === "daily") return;
      const words = { table: 1 };
      const hidden = game.daily ? 1 : 0;
      const t = `${state.tutorial.closedFor}`;
      import { x } from "../solo.js";
    """
    assert [what for _line, what in mode_names(named)] == [
        '"daily"',
        ".daily",
        ".tutorial",
        "imports ../solo.js",
    ]
    innocent = """
      // a comment may say "daily" or state.tutorial
      const table = el("table", "scorecard");
      const words = "每日挑战";
      const seats = game.seats.map((s) => s.kind === "human");
    """
    assert mode_names(innocent) == []


@pytest.mark.parametrize("path", shared_modules(), ids=lambda p: p.relative_to(JS).as_posix())
def test_a4_a_shared_page_module_names_no_mode(path: Path) -> None:
    named = mode_names(path.read_text(encoding="utf-8"))
    assert named == [], f"{path.relative_to(ROOT)} names a mode: {named}"


def test_a4_the_shared_modules_include_the_board_and_the_lobby_s() -> None:
    """The list is found, not written: the board's modules and the lobby's render, funnel
    and copy are in it; the modes' are not."""
    names = {p.relative_to(JS).as_posix() for p in shared_modules()}
    assert {"board/board.js", "board/draw.js", "board/state.js"} <= names
    assert {"render.js", "reducer.js", "state.js", "messages.js", "actions.js"} <= names
    assert not names & {*MODE_MODULES, *WIRING}
