"""The names, limits and defaults the page needs, from the one place each is defined.

The page copies none of them: :func:`page_config` is embedded in ``index.html`` as a JSON
data block (``<script type="application/json">``: data, never executed, so the Content
Security Policy's ``script-src 'self'`` is untouched) and served as ``GET /api/config``.

Names (the boxes, the levels, the kinds of game, the results) are given as **catalog
keys** (G1), never as text: the page says each with ``t(key)`` when it draws, so a change
of language redraws them without asking the server again, and the configuration is one
object for every language (the same block in each variant of the page). The keys' texts
are in the ``core`` chunk the page preloads (docs/i18n.md says why this keeps the first
load small).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import cache
from typing import Any

import orjson

from yahtzee.game import (
    HINTS_PER_GAME,
    MAX_SEATS,
    MIN_TABLE_SEATS,
    ROLLS_PER_TURN,
    ROUNDS,
    Result,
)
from yahtzee.i18n import N_, REAL, Lang, text
from yahtzee.names import MAX_NAME_CHARS
from yahtzee.players import DEFAULT_DIFFICULTY, LEVELS, SUGGESTED_DIFFICULTY, Difficulty
from yahtzee.rules import (
    CATEGORIES,
    JOKER_FIXED_POINTS,
    NUM_DICE,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    YAHTZEE_POINTS,
    Category,
)
from yahtzee.server.kinds import PLATFORM_KINDS, kind_names

#: The games ``POST /api/games`` starts, by their ``mode`` there: the platform's kinds.
START_NAMES = kind_names(PLATFORM_KINDS)
#: The boxes that score a fixed number of points (U19: the board's 「?」 says it).
FIXED_POINTS = {**JOKER_FIXED_POINTS, Category.YAHTZEE: YAHTZEE_POINTS}
#: The catalog key of each result's name (the lobby's recent games).
RESULT_NAMES = {
    Result.WIN: N_("core.result.win"),
    Result.LOSS: N_("core.result.loss"),
    Result.DRAW: N_("core.result.draw"),
    Result.SOLO: N_("core.result.solo"),
    Result.TABLE: N_("core.result.table"),
}
CONFIG_ELEMENT_ID = "game-config"


#: The features' parts of the configuration: ``(name, function)`` pairs, each function
#: giving the section ``name`` (a feature's ``config``, :mod:`yahtzee.server.feature`).
Sections = tuple[tuple[str, Callable[[], dict[str, Any]]], ...]
#: Each kind of game's name and the catalog key of what it is called (K2: the platform's
#: and the features').
KindNames = tuple[tuple[str, str], ...]


@cache
def page_config(
    sections: Sections = (),
    languages: tuple[Lang, ...] = REAL,
    kinds: KindNames = START_NAMES,
) -> dict[str, Any]:
    """``GET /api/config`` (see docs/api.md), with the features' ``sections`` last;
    ``languages`` are the ones a player may choose (G3), each named in itself; ``kinds``
    every kind of game the app knows, by the key of its title (what the lobby's recent
    games, 统计 and 复盘 call a game, as ``modes`` the platform's). Every name is a
    catalog key (see the module docstring)."""
    return {
        "categories": [
            {
                "id": c.value,
                "name_key": c.name_key,
                "upper": c.is_upper,
                "face": c.face,
                "points": FIXED_POINTS.get(c),
            }
            for c in CATEGORIES
        ],
        "difficulties": [
            {
                "id": d.value,
                "name_key": LEVELS[d].name_key,
                "summary_key": LEVELS[d].summary_key,
            }
            for d in Difficulty
        ],
        "languages": [
            {"id": str(lang), "name": text(lang, "server.language_name")} for lang in languages
        ],
        "default_difficulty": DEFAULT_DIFFICULTY.value,
        "suggested_difficulty": SUGGESTED_DIFFICULTY.value,
        "modes": dict(START_NAMES),
        "kinds": dict(kinds),
        "results": {r.value: RESULT_NAMES[r] for r in Result},
        "limits": {
            "dice": NUM_DICE,
            "rolls_per_turn": ROLLS_PER_TURN,
            "hints_per_game": HINTS_PER_GAME,
            "rounds": ROUNDS,
            "upper_bonus_threshold": UPPER_BONUS_THRESHOLD,
            "upper_bonus": UPPER_BONUS,
            "yahtzee_bonus": YAHTZEE_BONUS,
            "min_table_seats": MIN_TABLE_SEATS,
            "max_seats": MAX_SEATS,
            "max_name_chars": MAX_NAME_CHARS,
        },
        **{name: section() for name, section in sections},
    }


def with_config(
    page: str,
    sections: Sections = (),
    languages: tuple[Lang, ...] = REAL,
    kinds: KindNames = START_NAMES,
) -> str:
    """``page`` (index.html) with :func:`page_config` as a JSON block just before
    ``</head>`` (at the end of a page without one). ``<`` is escaped so the data can never
    close the element early."""
    data = orjson.dumps(page_config(sections, languages, kinds)).decode().replace("<", "\\u003c")
    block = (
        f'  <script type="application/json" id="{html.escape(CONFIG_ELEMENT_ID)}">{data}</script>\n'
    )
    if "</head>" not in page:
        return page + block
    return page.replace("</head>", block + "</head>", 1)
