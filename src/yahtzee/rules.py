"""The rules of 快艇骰子 (Yahtzee): dice, categories, scoring and the scorecard.

This module is pure: no I/O, no randomness, no HTTP, no SQL. Requirement ids (R2-R7) refer
to ``docs/requirements.md``.

The single authority on "where may this roll be written, and for how many points" is
:func:`score_options`; everything else (the game state machine, the solver's tables, the
server's preview) derives from it or is tested against it.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from yahtzee.errors import (
    CategoryUsedError,
    InvalidDiceError,
    InvalidScorecardError,
    JokerRuleError,
)
from yahtzee.i18n import N_

NUM_DICE = 5
FACES = (1, 2, 3, 4, 5, 6)
UPPER_BONUS_THRESHOLD = 63
UPPER_BONUS = 35
YAHTZEE_BONUS = 100
FULL_HOUSE_POINTS = 25
SMALL_STRAIGHT_POINTS = 30
LARGE_STRAIGHT_POINTS = 40
YAHTZEE_POINTS = 50


class Category(enum.Enum):
    """The 13 boxes of the scorecard (R2). ``value`` is the stable id used everywhere."""

    ONES = "ones"
    TWOS = "twos"
    THREES = "threes"
    FOURS = "fours"
    FIVES = "fives"
    SIXES = "sixes"
    THREE_OF_A_KIND = "three_of_a_kind"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    SMALL_STRAIGHT = "small_straight"
    LARGE_STRAIGHT = "large_straight"
    YAHTZEE = "yahtzee"
    CHANCE = "chance"

    # Members are singletons compared by identity, so the identity hash is consistent with
    # equality; Enum's default hashes the name in Python, which dominated score_options.
    __hash__ = object.__hash__

    @property
    def index(self) -> int:
        """Position 0..12 on the scorecard (also the bit number in the solver's masks)."""
        return _INDEX[self]

    @property
    def name_key(self) -> str:
        """The catalog key of its name (一点 ... 机会, Ones ... Chance: ``core.box.*``),
        said in the reader's language (G1)."""
        return _NAME_KEYS[self]

    @property
    def is_upper(self) -> bool:
        """True for 一点..六点."""
        return self.index < 6

    @property
    def face(self) -> int | None:
        """The face an upper box counts (1..6), ``None`` for lower boxes."""
        return self.index + 1 if self.index < 6 else None

    @classmethod
    def parse(cls, text: str) -> Category:
        """Look a category up by its id (``"chance"``) or its name in any language
        (``"机会"``, ``"機會"``, ``"Chance"``; any case)."""
        key = text.strip()
        for category in cls:
            if key == category.value:
                return category
        found = _by_name().get(key.casefold())
        if found is not None:
            return found
        known = ", ".join(c.value for c in cls)
        raise InvalidScorecardError(f"unknown category {text!r}; expected one of: {known}")

    @classmethod
    def upper(cls, face: int) -> Category:
        """The upper box that counts ``face``."""
        return UPPER[face - 1]


# The names are the first view's words (the scorecard): chunk ``core``.
_NAME_KEYS = {
    Category.ONES: N_("core.box.ones"),
    Category.TWOS: N_("core.box.twos"),
    Category.THREES: N_("core.box.threes"),
    Category.FOURS: N_("core.box.fours"),
    Category.FIVES: N_("core.box.fives"),
    Category.SIXES: N_("core.box.sixes"),
    Category.THREE_OF_A_KIND: N_("core.box.three_of_a_kind"),
    Category.FOUR_OF_A_KIND: N_("core.box.four_of_a_kind"),
    Category.FULL_HOUSE: N_("core.box.full_house"),
    Category.SMALL_STRAIGHT: N_("core.box.small_straight"),
    Category.LARGE_STRAIGHT: N_("core.box.large_straight"),
    Category.YAHTZEE: N_("core.box.yahtzee"),
    Category.CHANCE: N_("core.box.chance"),
}
#: The catalog key of the Yahtzee bonus's name (快艇加成, Yacht bonus).
YAHTZEE_BONUS_NAME = N_("core.card.yahtzee_bonus")


@functools.cache
def _by_name() -> dict[str, Category]:
    """Every box by its name in every language, case-folded (the catalogs are read the
    first time a name rather than an id is parsed)."""
    from yahtzee.i18n import REAL, text

    return {text(lang, c.name_key).casefold(): c for c in Category for lang in REAL}


@functools.cache
def _bonus_names() -> frozenset[str]:
    from yahtzee.i18n import REAL, text

    return frozenset(text(lang, YAHTZEE_BONUS_NAME).casefold() for lang in REAL)


_INDEX = {category: i for i, category in enumerate(Category)}
CATEGORIES: tuple[Category, ...] = tuple(Category)
UPPER: tuple[Category, ...] = CATEGORIES[:6]
LOWER: tuple[Category, ...] = CATEGORIES[6:]


@dataclass(frozen=True, slots=True)
class Dice:
    """Five dice in table order (position matters for holds; scoring ignores order).

    The canonical text form is the five faces as digits, e.g. ``Dice.parse("13356")``.
    """

    values: tuple[int, int, int, int, int]

    def __post_init__(self) -> None:
        values = self.values
        if not isinstance(values, tuple) or len(values) != NUM_DICE:
            raise InvalidDiceError(f"dice must be {NUM_DICE} faces, got {values!r}")
        for v in values:
            if type(v) is not int or not 1 <= v <= 6:
                raise InvalidDiceError(f"die face must be an integer 1..6, got {v!r}")

    @classmethod
    def of(cls, values: Iterable[int]) -> Dice:
        """Build dice from any iterable of five faces."""
        return cls(tuple(values))  # type: ignore[arg-type]  # length checked in __post_init__

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Parse the canonical form: five digits 1..6 (``"13356"``)."""
        s = text.strip()
        if len(s) != NUM_DICE or not all(ch in "123456" for ch in s):
            raise InvalidDiceError(f"dice must be five digits 1-6 such as 13356, got {text!r}")
        return cls.of(int(ch) for ch in s)

    def __str__(self) -> str:
        return "".join(str(v) for v in self.values)

    def __iter__(self) -> Iterator[int]:
        return iter(self.values)

    @property
    def counts(self) -> tuple[int, int, int, int, int, int]:
        """How many dice show each face 1..6."""
        c = [0] * 6
        for v in self.values:
            c[v - 1] += 1
        return (c[0], c[1], c[2], c[3], c[4], c[5])

    @property
    def total(self) -> int:
        """Sum of the five faces."""
        return sum(self.values)

    @property
    def is_yahtzee(self) -> bool:
        """Five alike."""
        return len(set(self.values)) == 1

    def sorted(self) -> tuple[int, ...]:
        """The faces in ascending order (the multiset the scoring depends on)."""
        return tuple(sorted(self.values))


def base_score(category: Category, dice: Dice) -> int:
    """Points for writing ``dice`` in ``category`` by R3 alone (no Joker, no bonuses)."""
    return _base_scores(dice.sorted())[category.index]


@functools.cache
def _base_scores(faces: tuple[int, ...]) -> tuple[int, ...]:
    """R3's score in each of the 13 boxes for one sorted multiset of faces.

    Cached because there are only 252 multisets and the server previews every roll.
    """
    counts = [faces.count(f) for f in FACES]
    total = sum(faces)
    most = max(counts)
    present = {f for f in FACES if counts[f - 1]}
    runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
    return (
        *(counts[f - 1] * f for f in FACES),
        total if most >= 3 else 0,  # 三条: all five dice count
        total if most >= 4 else 0,  # 四条
        FULL_HOUSE_POINTS if sorted(counts)[-2:] == [2, 3] else 0,  # five alike is not one
        SMALL_STRAIGHT_POINTS if any(run <= present for run in runs) else 0,
        LARGE_STRAIGHT_POINTS if faces in ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6)) else 0,
        YAHTZEE_POINTS if most == 5 else 0,
        total,  # 机会
    )


JOKER_FIXED_POINTS: Mapping[Category, int] = {
    Category.FULL_HOUSE: FULL_HOUSE_POINTS,
    Category.SMALL_STRAIGHT: SMALL_STRAIGHT_POINTS,
    Category.LARGE_STRAIGHT: LARGE_STRAIGHT_POINTS,
}
"""R6: the fixed-points boxes a Joker Yahtzee scores in full (the one copy of this table)."""


def joker_points(category: Category, face: int) -> int:
    """Points of a Yahtzee of ``face`` written in ``category`` under the Joker (R6)."""
    fixed = JOKER_FIXED_POINTS.get(category)
    if fixed is not None:
        return fixed
    return base_score(category, Dice((face, face, face, face, face)))


@dataclass(frozen=True, slots=True)
class ScoreOption:
    """What writing the current dice in one open box would do.

    ``points`` goes in the box; ``yahtzee_bonus`` (R5) and ``upper_bonus`` (R4, when this
    write lifts the upper subtotal to 63 or more) are added on their own lines. ``legal`` is
    False only for boxes the forced Joker rule (R6) forbids.
    """

    category: Category
    points: int
    yahtzee_bonus: int
    upper_bonus: int
    legal: bool
    joker: bool

    @property
    def gain(self) -> int:
        """Everything this write adds to the total."""
        return self.points + self.yahtzee_bonus + self.upper_bonus


@dataclass(frozen=True)
class Scorecard:
    """One player's scorecard: 13 boxes (``None`` while open) and the Yahtzee bonuses.

    The canonical text form lists the filled boxes in card order, e.g.
    ``"ones=3,twos=6,yahtzee=50,yahtzee_bonus=100"`` (empty string for a new card).

    Derived figures (subtotals, total, open boxes) are cached on first use: a card never
    changes, and the server asks for them several times per request.
    """

    boxes: tuple[int | None, ...] = (None,) * 13
    yahtzee_bonus: int = 0

    def __post_init__(self) -> None:
        if len(self.boxes) != len(CATEGORIES):
            raise InvalidScorecardError(f"a scorecard has 13 boxes, got {len(self.boxes)}")
        for category, points in zip(CATEGORIES, self.boxes, strict=True):
            if points is not None and points not in possible_points(category):
                raise InvalidScorecardError(
                    f"{category.value}={points} is impossible: no roll scores that"
                )
        if self.yahtzee_bonus < 0 or self.yahtzee_bonus % YAHTZEE_BONUS:
            raise InvalidScorecardError(
                f"yahtzee_bonus={self.yahtzee_bonus} is not a multiple of {YAHTZEE_BONUS}"
            )
        if self.yahtzee_bonus and self.boxes[Category.YAHTZEE.index] != YAHTZEE_POINTS:
            raise InvalidScorecardError(
                f"yahtzee_bonus={self.yahtzee_bonus} needs yahtzee=50 on the card"
            )
        max_bonus = YAHTZEE_BONUS * (self.filled_count - 1)
        if self.yahtzee_bonus > max(0, max_bonus):
            raise InvalidScorecardError(
                f"yahtzee_bonus={self.yahtzee_bonus} needs more filled boxes than the card has"
            )

    # -- construction -----------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Scorecard:
        """Parse ``"ones=3,twos=6,yahtzee=50"``; also accepts Chinese names as keys."""
        scores: dict[Category, int] = {}
        bonus = 0
        for raw in text.split(","):
            item = raw.strip()
            if not item:
                continue
            key, sep, value = item.partition("=")
            if not sep:
                raise InvalidScorecardError(f"expected name=points, got {item!r}")
            try:
                points = int(value)
            except ValueError:
                raise InvalidScorecardError(f"points must be an integer in {item!r}") from None
            if key.strip() == "yahtzee_bonus" or key.strip().casefold() in _bonus_names():
                bonus = points
                continue
            category = Category.parse(key)
            if category in scores:
                raise InvalidScorecardError(f"{category.value} is listed twice")
            scores[category] = points
        return cls.from_scores(scores, yahtzee_bonus=bonus)

    @classmethod
    def from_scores(cls, scores: Mapping[Category, int], yahtzee_bonus: int = 0) -> Scorecard:
        """A card with the given boxes filled."""
        return cls(tuple(scores.get(c) for c in CATEGORIES), yahtzee_bonus)

    def __str__(self) -> str:
        parts = [
            f"{c.value}={p}" for c, p in zip(CATEGORIES, self.boxes, strict=True) if p is not None
        ]
        if self.yahtzee_bonus:
            parts.append(f"yahtzee_bonus={self.yahtzee_bonus}")
        return ",".join(parts)

    # -- queries ----------------------------------------------------------------------

    def __getitem__(self, category: Category) -> int | None:
        return self.boxes[category.index]

    def is_open(self, category: Category) -> bool:
        """True while ``category`` has not been written."""
        return self.boxes[category.index] is None

    @functools.cached_property
    def open_categories(self) -> tuple[Category, ...]:
        """The open boxes in card order."""
        return tuple(c for c, p in zip(CATEGORIES, self.boxes, strict=True) if p is None)

    @functools.cached_property
    def filled_count(self) -> int:
        """How many boxes hold a score (0..13)."""
        return sum(p is not None for p in self.boxes)

    @property
    def is_complete(self) -> bool:
        """All 13 boxes are filled: this player's game is over."""
        return self.filled_count == len(CATEGORIES)

    @functools.cached_property
    def upper_subtotal(self) -> int:
        """Sum of 一点..六点 (R4)."""
        return sum(p for p in self.boxes[:6] if p is not None)

    @property
    def upper_bonus(self) -> int:
        """35 once the upper subtotal reaches 63 (R4)."""
        return UPPER_BONUS if self.upper_subtotal >= UPPER_BONUS_THRESHOLD else 0

    @functools.cached_property
    def lower_total(self) -> int:
        """Sum of the seven lower boxes."""
        return sum(p for p in self.boxes[6:] if p is not None)

    @functools.cached_property
    def total(self) -> int:
        """R7: upper subtotal + upper bonus + lower boxes + Yahtzee bonus."""
        return self.upper_subtotal + self.upper_bonus + self.lower_total + self.yahtzee_bonus

    @property
    def yahtzee_bonus_eligible(self) -> bool:
        """The 快艇 box holds 50, so each further Yahtzee earns 100 (R5)."""
        return self.boxes[Category.YAHTZEE.index] == YAHTZEE_POINTS

    # -- scoring ----------------------------------------------------------------------

    def score(self, category: Category, dice: Dice) -> Scorecard:
        """The card after writing ``dice`` in ``category``.

        Raises :class:`CategoryUsedError` for a filled box and :class:`JokerRuleError` for a
        box the forced Joker rule forbids.
        """
        if not self.is_open(category):
            raise CategoryUsedError(f"{category.value} already holds {self[category]}")
        option = score_options(self, dice)[category]
        if not option.legal:
            allowed = ", ".join(c.value for c, o in score_options(self, dice).items() if o.legal)
            raise JokerRuleError(
                f"Joker rule: Yahtzee {dice} cannot go in {category.value}; allowed: {allowed}"
            )
        boxes = list(self.boxes)
        boxes[category.index] = option.points
        return Scorecard(tuple(boxes), self.yahtzee_bonus + option.yahtzee_bonus)


def score_options(card: Scorecard, dice: Dice) -> dict[Category, ScoreOption]:
    """Every open box of ``card`` with what writing ``dice`` there scores, in card order.

    This is the one place that applies R3-R6 together:

    * R3 base scores; R4 the upper bonus earned by this very write;
    * R5 the Yahtzee bonus (+100) when the 快艇 box already holds 50;
    * R6 the forced Joker: with the 快艇 box filled (50 or 0), a Yahtzee must go in the
      matching upper box if it is open; otherwise in any open lower box, where 葫芦/小顺/大顺
      score in full; only when every lower box is filled in an open upper box, for 0.
      Boxes the rule forbids are returned with ``legal=False``.
    """
    yahtzee_box = card[Category.YAHTZEE]
    joker = dice.is_yahtzee and yahtzee_box is not None
    bonus = YAHTZEE_BONUS if joker and yahtzee_box == YAHTZEE_POINTS else 0
    subtotal = card.upper_subtotal
    open_cats = card.open_categories
    if joker:
        matching = Category.upper(dice.values[0])
        if matching in open_cats:
            allowed = {matching}
        else:
            allowed = {c for c in open_cats if not c.is_upper} or set(open_cats)
    options: dict[Category, ScoreOption] = {}
    base = _base_scores(dice.sorted())
    for category in open_cats:
        i = _INDEX[category]
        points = base[i]
        if joker and category in JOKER_FIXED_POINTS:
            points = JOKER_FIXED_POINTS[category]
        upper_bonus = 0
        if i < 6 and subtotal < UPPER_BONUS_THRESHOLD <= subtotal + points:
            upper_bonus = UPPER_BONUS
        options[category] = ScoreOption(
            category, points, bonus, upper_bonus, not joker or category in allowed, joker
        )
    return options


def legal_options(card: Scorecard, dice: Dice) -> list[ScoreOption]:
    """The options of :func:`score_options` that the rules allow."""
    return [o for o in score_options(card, dice).values() if o.legal]


def needs_zero_confirmation(options: Mapping[Category, ScoreOption], category: Category) -> bool:
    """U2: writing 0 in ``category`` while another allowed open box would score more.

    ``options`` are the :func:`score_options` of the dice. The server refuses such a score
    without ``confirm_zero`` and the preview marks the box, both through this function.
    """
    chosen = options[category]
    if chosen.points > 0:
        return False
    return any(o.legal and o.points > 0 for c, o in options.items() if c is not category)


def possible_points(category: Category) -> frozenset[int]:
    """Every score ``category`` can hold on a real card (Joker included)."""
    return _POSSIBLE[category]


def _possible() -> dict[Category, frozenset[int]]:
    table: dict[Category, frozenset[int]] = {}
    for category in CATEGORIES:
        face = category.face
        if face is not None:
            table[category] = frozenset(face * n for n in range(NUM_DICE + 1))
        elif category in (Category.THREE_OF_A_KIND, Category.FOUR_OF_A_KIND):
            table[category] = frozenset({0, *range(5, 31)})
        elif category is Category.CHANCE:
            table[category] = frozenset(range(5, 31))
        elif category is Category.YAHTZEE:
            table[category] = frozenset({0, YAHTZEE_POINTS})
        else:
            table[category] = frozenset({0, JOKER_FIXED_POINTS[category]})
    return table


_POSSIBLE = _possible()
