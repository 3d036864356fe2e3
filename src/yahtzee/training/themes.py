"""Themes of a puzzle (L8): what a decision is about, for 「专项练习」.

A theme is decided from the position, the expert's best option and the option the player
(or the simulated level) chose: a puzzle is "about" the upper bonus when one of those two
choices is about it. Each rule is one small function, tested on hand-made positions
(tests/unit/test_training.py). The ids are stable (stored in the bank and the database);
each theme's name and sentence are catalog keys, said in the reader's language by 练习's
route (the page copies none of them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from yahtzee.i18n import N_
from yahtzee.review.analysis import Choice
from yahtzee.rules import UPPER, UPPER_BONUS_THRESHOLD, Category, Scorecard
from yahtzee.training.puzzle import PuzzlePosition

THEMES: Mapping[str, str] = {
    "upper_bonus": N_("server.theme.upper_bonus"),
    "straights": N_("server.theme.straights"),
    "kinds": N_("server.theme.kinds"),
    "full_house": N_("server.theme.full_house"),
    "yahtzee": N_("server.theme.yahtzee"),
    "zero": N_("server.theme.zero"),
    "chance": N_("server.theme.chance"),
    "endgame": N_("server.theme.endgame"),
    "mixed": N_("server.theme.mixed"),
}
"""Theme id -> the catalog key of its name, in the order the page lists them."""

THEME_HELP: Mapping[str, str] = {
    "upper_bonus": N_("server.theme.upper_bonus.help"),
    "straights": N_("server.theme.straights.help"),
    "kinds": N_("server.theme.kinds.help"),
    "full_house": N_("server.theme.full_house.help"),
    "yahtzee": N_("server.theme.yahtzee.help"),
    "zero": N_("server.theme.zero.help"),
    "chance": N_("server.theme.chance.help"),
    "endgame": N_("server.theme.endgame.help"),
    "mixed": N_("server.theme.mixed.help"),
}
"""Theme id -> the catalog key of one short sentence on it, in the rules page's words."""

_STRAIGHTS = (Category.SMALL_STRAIGHT, Category.LARGE_STRAIGHT)


def _categories(*choices: Choice) -> set[Category]:
    return {c.category for c in choices if c.category is not None}


def _keeps(*choices: Choice) -> list[tuple[int, ...]]:
    return [c.keep for c in choices if isinstance(c.keep, tuple)]


def _run(faces: tuple[int, ...]) -> int:
    """The longest run of consecutive distinct faces (1-2-3 is 3)."""
    have, best, cur = set(faces), 0, 0
    for f in range(1, 7):
        cur = cur + 1 if f in have else 0
        best = max(best, cur)
    return best


def bonus_open(card: Scorecard) -> bool:
    """The upper bonus is still undecided: not reached, and still reachable if every open
    upper box got five of its face."""
    if card.upper_subtotal >= UPPER_BONUS_THRESHOLD:
        return False
    best = card.upper_subtotal + sum(5 * (c.index + 1) for c in UPPER if card.is_open(c))
    return best >= UPPER_BONUS_THRESHOLD


def _upper_bonus(p: PuzzlePosition, best: Choice, chosen: Choice) -> bool:
    if not bonus_open(p.card):
        return False
    if any(c.is_upper for c in _categories(best, chosen)):
        return True
    for keep in _keeps(best, chosen):
        counts = Counter(keep)
        if len(counts) == 1 and len(keep) >= 2:
            face = keep[0]
            if p.card.is_open(Category.upper(face)) and face >= 3:
                return True
    return False


def _in_window(faces: tuple[int, ...], width: int) -> bool:
    """Distinct faces that fit in one run of ``width`` (2, 4, 5 fits in 2-3-4-5)."""
    return len(set(faces)) == len(faces) and max(faces) - min(faces) < width


def _straights(p: PuzzlePosition, best: Choice, chosen: Choice) -> bool:
    if _categories(best, chosen) & set(_STRAIGHTS):
        return True
    small = p.card.is_open(Category.SMALL_STRAIGHT)
    large = p.card.is_open(Category.LARGE_STRAIGHT)
    if not (small or large):
        return False
    # A keep of two or more different faces that a run can still grow from, gaps
    # included (2, 4, 5 waits for a 3): the straight is what it is for.
    return any(
        len(k) >= 2 and ((small and _in_window(k, 4)) or (large and _in_window(k, 5)))
        for k in _keeps(best, chosen)
    )


_KINDS = (Category.THREE_OF_A_KIND, Category.FOUR_OF_A_KIND)


def _kinds(p: PuzzlePosition, best: Choice, chosen: Choice) -> bool:
    if _categories(best, chosen) & set(_KINDS):
        return True
    # Collecting one face: a pair or more of it, kept while a box still pays for more.
    for keep in _keeps(best, chosen):
        if len(keep) >= 2 and len(set(keep)) == 1:
            face = keep[0]
            boxes = (*_KINDS, Category.YAHTZEE, Category.upper(face))
            if any(p.card.is_open(c) for c in boxes):
                return True
    return False


def _full_house(p: PuzzlePosition, best: Choice, chosen: Choice) -> bool:
    if Category.FULL_HOUSE in _categories(best, chosen):
        return True
    if not p.card.is_open(Category.FULL_HOUSE):
        return False
    shapes = {tuple(sorted(Counter(k).values())) for k in _keeps(best, chosen)}
    return bool(shapes & {(2, 2), (1, 3), (2, 3)})


def _yahtzee(p: PuzzlePosition, best: Choice, chosen: Choice) -> bool:
    if p.dice.is_yahtzee or Category.YAHTZEE in _categories(best, chosen):
        return True
    box = p.card[Category.YAHTZEE]
    if box == 0:
        return False
    return any(max(Counter(k).values(), default=0) >= 3 for k in _keeps(best, chosen))


def _zero(_p: PuzzlePosition, best: Choice, chosen: Choice) -> bool:
    return any(c.category is not None and c.points == 0 for c in (best, chosen))


def _chance(_p: PuzzlePosition, best: Choice, chosen: Choice) -> bool:
    return Category.CHANCE in _categories(best, chosen)


def _endgame(p: PuzzlePosition, _best: Choice, _chosen: Choice) -> bool:
    return len(p.card.open_categories) <= 3


_RULES: Mapping[str, Callable[[PuzzlePosition, Choice, Choice], bool]] = {
    "upper_bonus": _upper_bonus,
    "straights": _straights,
    "kinds": _kinds,
    "full_house": _full_house,
    "yahtzee": _yahtzee,
    "zero": _zero,
    "chance": _chance,
    "endgame": _endgame,
}
assert (*_RULES, "mixed") == tuple(THEMES)
MIXED = "mixed"
"""The theme of a decision no other theme names (L14: every puzzle has a theme)."""


def themes_of(position: PuzzlePosition, best: Choice, chosen: Choice) -> tuple[str, ...]:
    """The themes of a decision, in :data:`THEMES` order: at least one (``mixed`` when no
    other rule names it)."""
    found = tuple(t for t, rule in _RULES.items() if rule(position, best, chosen))
    return found or (MIXED,)


def parse_theme(text: str) -> str:
    """A theme id (or its name in any language, any case) -> the id; :class:`ValueError`
    naming the known."""
    if text in THEMES:
        return text
    from yahtzee.i18n import REAL
    from yahtzee.i18n import text as said

    wanted = text.strip().casefold()
    for tid, key in THEMES.items():
        if any(said(lang, key).casefold() == wanted for lang in REAL):
            return tid
    raise ValueError(f"unknown theme {text!r}; expected one of: {', '.join(THEMES)}")


__all__ = ["THEMES", "THEME_HELP", "bonus_open", "parse_theme", "themes_of"]
