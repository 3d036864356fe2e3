"""Why a choice is better, in sentences a child can read (L9, L12), computed exactly.

One source of sentences for 练习 (after an answer) and 复盘 (each decision that was not
best): both hand in a :class:`Spot` (the card, the dice, the rolls left) and the graded
choice (:class:`~yahtzee.review.analysis.Graded`: the chosen option and every option).
The sentences are catalog messages (:class:`~yahtzee.i18n.Msg`, keys ``server.why.*``
with their values): language-neutral values that a cached review keeps as they are, said
in each reader's language where the answer is written (G5).

For a keep: the chance, by the end of this turn, that the best keep and the chosen keep
reach the combination that matters (「至少三个 6」, 「小顺」...), when the player keeps
rolling for it as well as possible. It is exact: the same 252-roll / 462-keep recursion
as the solver's (:func:`yahtzee.solver.advice.reroll_single`), over "reached it" (1 or 0)
instead of points. The combination is the one, among those the two keeps aim at, where the
best keep's chance beats the chosen keep's by most; when the keeps aim at nothing (to stop,
to roll all five, a keep without a pair), every combination an open box still pays for is
tried. "Stop" reaches a combination only if the dice show it already. When no
combination's chance tells the two apart (the percentages shown would be equal), the
reason is the points: what stopping writes now, or which kept dice count more.

For a box: what each box brings now and what the rest of the game is still worth
afterwards (the solver's value of the card after writing it), so that "记在机会少 3 分"
reads as "机会 留着以后更有用".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np
import numpy.typing as npt

from yahtzee.i18n import Msg, msg, msg_n
from yahtzee.review.analysis import STOP, Choice, Graded, box_choices
from yahtzee.rules import Category, Dice, Scorecard
from yahtzee.solver import ValueTable, load_table
from yahtzee.solver.advice import reroll_single
from yahtzee.solver.tables import DICE_COUNTS, dice_index, keep_index

F64 = npt.NDArray[np.float64]
Keep = tuple[int, ...] | str


class Where(Protocol):
    """Where a decision is taken (a :class:`Spot`, a puzzle's position)."""

    @property
    def card(self) -> Scorecard: ...
    @property
    def dice(self) -> Dice: ...
    @property
    def rolls_left(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a decision is taken: the card, the dice and the rolls left (0: a box)."""

    card: Scorecard
    dice: Dice
    rolls_left: int


@dataclass(frozen=True, slots=True)
class Target:
    """A combination to reach by the end of the turn (``key``: ``6x3``, ``small``...), and
    its words (a catalog message)."""

    key: str
    words: Msg


def of_a_kind(face: int, n: int) -> Target:
    """At least ``n`` dice showing ``face`` (five: a 快艇)."""
    if n == 5:
        return Target(f"{face}x5", msg("server.why.target.five", face=face))
    if n == 4:
        return Target(f"{face}x4", msg("server.why.target.four", face=face))
    return Target(f"{face}x{n}", msg("server.why.target.three", face=face))


SMALL = Target("small", msg("server.why.target.small"))
LARGE = Target("large", msg("server.why.target.large"))
FULL = Target("full", msg("server.why.target.full"))


def _reached(key: str) -> npt.NDArray[np.bool_]:
    """(252,): which rolls show the target ``key``."""
    counts = DICE_COUNTS
    present = counts > 0
    if "x" in key:
        face, n = (int(x) for x in key.split("x"))
        return np.asarray(counts[:, face - 1] >= n)
    if key == "small":
        runs = [present[:, s : s + 4].all(axis=1) for s in range(3)]
        return np.asarray(np.logical_or.reduce(runs))
    if key == "large":
        return np.asarray(present[:, 0:5].all(axis=1) | present[:, 1:6].all(axis=1))
    shape = np.sort(counts, axis=1)
    return np.asarray((shape[:, -1] == 3) & (shape[:, -2] == 2))


@cache
def _keep_chances(key: str) -> tuple[F64, F64, F64]:
    """For a target: reached per roll (252,), keep chances with 1 and with 2 rolls left
    (462,), aiming at the target as well as possible."""
    e0 = _reached(key).astype(np.float64)
    k1, e1 = reroll_single(e0, e0)
    k2, _ = reroll_single(e1, e0)
    return e0, k1, k2


def chance(target: Target, spot: Where, keep: Keep) -> float:
    """Exact chance that keeping ``keep`` (or ``"stop"``) shows ``target`` by the end of
    the turn, rerolling for it as well as possible."""
    e0, k1, k2 = _keep_chances(target.key)
    if keep == STOP:
        return float(e0[dice_index(spot.dice.values)])
    assert isinstance(keep, tuple)
    k = k1 if spot.rolls_left == 1 else k2
    return float(k[keep_index(keep)])


def _kind_pays(card: Scorecard, face: int, n: int) -> bool:
    """Whether an open box still pays for ``n`` of ``face``."""
    if n == 5:
        return card.is_open(Category.YAHTZEE) or card[Category.YAHTZEE] == 50
    boxes = [Category.upper(face), Category.THREE_OF_A_KIND]
    if n >= 4:
        boxes.append(Category.FOUR_OF_A_KIND)
    return any(card.is_open(b) for b in boxes)


def _aims(keep: Keep, card: Scorecard) -> list[Target]:
    """The combinations a keep is aiming at (none for stop, all five rerolled, or a keep
    without a pair or a run)."""
    if not isinstance(keep, tuple) or not keep:
        return []
    out: list[Target] = []
    counts = Counter(keep)
    face, c = max(counts.items(), key=lambda fc: (fc[1], fc[0]))
    if c >= 2:
        n = min(5, max(3, c + 1))
        if n == 5 and card[Category.YAHTZEE] == 0:
            n = 4 if c < 4 else 5
        out.append(of_a_kind(face, n))
    if len(counts) == len(keep) and len(keep) >= 3:
        if card.is_open(Category.SMALL_STRAIGHT):
            out.append(SMALL)
        if card.is_open(Category.LARGE_STRAIGHT):
            out.append(LARGE)
    if card.is_open(Category.FULL_HOUSE) and sorted(counts.values()) in ([2, 2], [1, 3], [2, 3]):
        out.append(FULL)
    return out


def _every_aim(spot: Where) -> list[Target]:
    """Every combination an open box still pays for, over the faces on the table."""
    card = spot.card
    out = [
        of_a_kind(face, n)
        for face in sorted(set(spot.dice.values), reverse=True)
        for n in (3, 4, 5)
        if _kind_pays(card, face, n)
    ]
    if card.is_open(Category.SMALL_STRAIGHT):
        out.append(SMALL)
    if card.is_open(Category.LARGE_STRAIGHT):
        out.append(LARGE)
    if card.is_open(Category.FULL_HOUSE):
        out.append(FULL)
    return out


def listed(items: tuple[object, ...]) -> Msg | str:
    """``items`` as a list in the reader's language (「6、6」, "6, 6")."""
    out: Msg | str = str(items[0])
    for item in items[1:]:
        out = msg("server.list.and_more", first=out, next=item)
    return out


def keep_words(keep: Keep) -> Msg:
    """「留 6、6」, 「全部重掷」 or 「不再掷，直接记分」 (the start of a sentence)."""
    if keep == STOP:
        return msg("server.why.keep.stop")
    if not keep:
        return msg("server.why.keep.none")
    assert isinstance(keep, tuple)
    return msg("server.why.keep.faces", faces=listed(keep))


def percent(p: float) -> str:
    """A chance as a person reads it: whole percent."""
    return f"{round(100 * p)}%"


def points(x: float) -> str:
    """Points as a person reads them: one decimal (L15)."""
    return f"{x:.1f}"


def _apart(pb: float, pc: float) -> bool:
    """The best keep's chance beats the chosen one's as the sentence shows them."""
    return round(100 * pb) > round(100 * pc)


def _written(spot: Where, table: ValueTable) -> list[Target]:
    """The combination that stopping writes now (葫芦, 小顺, 四条 of 5...), if any."""
    box = box_choices(spot.card, spot.dice, table)[0].category
    counts = Counter(spot.dice.values)
    face, n = max(counts.items(), key=lambda fc: (fc[1], fc[0]))
    by_box = {
        Category.FULL_HOUSE: FULL,
        Category.SMALL_STRAIGHT: SMALL,
        Category.LARGE_STRAIGHT: LARGE,
        Category.YAHTZEE: of_a_kind(face, 5),
    }
    if box in by_box:
        return [by_box[box]]
    if box in (Category.THREE_OF_A_KIND, Category.FOUR_OF_A_KIND) and n >= 3:
        return [of_a_kind(face, min(n, 4))]
    return []


def chance_sentence(
    spot: Where, best: Keep, chosen: Keep, table: ValueTable | None = None
) -> Msg | None:
    """The combination the best keep reaches more often than the chosen one, both chances
    in one sentence; ``None`` when no combination tells them apart. When stopping is best,
    the combination it writes now comes first."""
    first = _aims(best, spot.card) + _aims(chosen, spot.card)
    if best == STOP:
        first = _written(spot, table or load_table()) + first
    for pool in (first, _every_aim(spot)):
        seen: dict[str, Target] = {}
        for t in pool:
            seen.setdefault(t.key, t)
        scored = [(chance(t, spot, best), chance(t, spot, chosen), t) for t in seen.values()]
        apart = [(pb - pc, pb, pc, t) for pb, pc, t in scored if _apart(pb, pc)]
        if apart:
            _, pb, pc, target = max(apart, key=lambda x: x[0])
            return msg(
                "server.why.chance.both",
                best=keep_words(best),
                target=target.words,
                best_chance=percent(pb),
                chosen=keep_words(chosen),
                chosen_chance=percent(pc),
            )
    return None


def _points_sentence(spot: Where, best: Keep, chosen: Keep, table: ValueTable) -> Msg:
    """The reason of a keep when chance does not decide it: the points."""
    if best == STOP:
        box = box_choices(spot.card, spot.dice, table)[0]
        assert box.category is not None
        assert box.points is not None
        return msg_n(
            "server.why.points.stop", box.points, box=msg(box.category.name_key), points=box.points
        )
    if chosen == STOP:
        box = box_choices(spot.card, spot.dice, table)[0]
        assert box.category is not None
        assert box.points is not None
        return msg_n(
            "server.why.points.roll_on",
            box.points,
            box=msg(box.category.name_key),
            points=box.points,
            keep=keep_words(best),
        )
    assert isinstance(best, tuple)
    assert isinstance(chosen, tuple)
    if sum(best) > sum(chosen):
        return msg("server.why.points.higher", keep=keep_words(best))
    if len(best) < len(chosen):
        return msg("server.why.points.fewer", keep=keep_words(best))
    return msg("server.why.points.later", keep=keep_words(best))


def keep_reasons(spot: Where, graded: Graded, table: ValueTable) -> list[Msg]:
    """Why the best keep is better (or, when the answer was best, what it aims at)."""
    best, chosen = graded.best.keep, graded.chosen.keep
    assert best is not None
    assert chosen is not None
    if best == chosen:
        aims = _aims(best, spot.card)
        if not aims:
            return []
        p = chance(aims[0], spot, best)
        return [
            msg(
                "server.why.chance.one",
                keep=keep_words(best),
                target=aims[0].words,
                chance=percent(p),
            )
        ]
    sentence = chance_sentence(spot, best, chosen, table)
    return [sentence if sentence is not None else _points_sentence(spot, best, chosen, table)]


def _after(spot: Where, choice: Choice, table: ValueTable) -> tuple[int, float]:
    """Points a box adds now (bonuses included) and the value still to come after it."""
    assert choice.category is not None
    card = spot.card.score(choice.category, spot.dice)
    return card.total - spot.card.total, table.value(card)


def _box_line(category: Category, now: int, later: float) -> Msg:
    """「记在「六点」：现在得 24 分，以后的回合平均还能得 180.2 分。」"""
    return msg_n("server.why.box", now, box=msg(category.name_key), now=now, later=points(later))


def box_reasons(spot: Where, graded: Graded, table: ValueTable) -> list[Msg]:
    """What the best box and the chosen box bring now, and later."""
    best, chosen = graded.best, graded.chosen
    assert best.category is not None
    assert chosen.category is not None
    now_b, later_b = _after(spot, best, table)
    lines = [_box_line(best.category, now_b, later_b)]
    if chosen.category is not best.category:
        now_c, later_c = _after(spot, chosen, table)
        lines.append(_box_line(chosen.category, now_c, later_c))
        if now_c > now_b:
            more = now_c - now_b
            lines.append(
                msg_n(
                    "server.why.box.keep_open", more, more=more, box=msg(chosen.category.name_key)
                )
            )
        elif now_c < now_b:
            more = now_b - now_c
            lines.append(
                msg_n("server.why.box.more_now", more, more=more, box=msg(best.category.name_key))
            )
    return lines


def reasons(spot: Where, graded: Graded, table: ValueTable | None = None) -> list[Msg]:
    """The reasons of a graded choice (the chances for a keep, the boxes for a box): what
    复盘 shows under a decision, and 练习 after its first sentence."""
    table = table or load_table()
    if spot.rolls_left > 0:
        return keep_reasons(spot, graded, table)
    return box_reasons(spot, graded, table)


def headline(graded: Graded) -> Msg:
    """How good the choice was, in points (expected final scores: the points on the card
    plus what the rest of the game brings on average)."""
    if graded.mark == "best":
        return msg("server.why.best")
    return msg(
        "server.why.loss",
        loss=points(graded.loss),
        best=points(graded.best.value),
        chosen=points(graded.chosen.value),
    )


def explain_graded(spot: Where, graded: Graded, table: ValueTable | None = None) -> list[Msg]:
    """The whole explanation: the headline, then the reasons."""
    return [headline(graded), *reasons(spot, graded, table)]


__all__ = [
    "FULL",
    "LARGE",
    "SMALL",
    "Spot",
    "Target",
    "Where",
    "chance",
    "chance_sentence",
    "explain_graded",
    "headline",
    "keep_words",
    "listed",
    "of_a_kind",
    "reasons",
]
