"""Explanations a child can read (L9), computed exactly.

For a keep: the chance, by the end of this turn, that the best keep and the chosen keep
reach the combination that matters (「至少三个 6」, 「小顺」...), when the player keeps
rolling for it as well as possible. It is exact: the same 252-roll / 462-keep recursion
as the solver's (:func:`yahtzee.solver.advice.reroll_single`), over "reached it" (1 or 0)
instead of points. The combination is the one, among those the two keeps aim at, where
the best keep's chance beats the chosen keep's by most.

For a box: what each box brings now and what the rest of the game is still worth
afterwards (the solver's value of the card after writing it), so that "记在机会少 3 分"
reads as "机会 留着以后更有用".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from yahtzee.review.analysis import STOP, Choice
from yahtzee.rules import Category, Scorecard
from yahtzee.solver import ValueTable, load_table
from yahtzee.solver.advice import reroll_single
from yahtzee.solver.tables import DICE_COUNTS, dice_index, keep_index
from yahtzee.training.puzzle import Grade, PuzzlePosition

F64 = npt.NDArray[np.float64]

_NUMBERS = {3: "三", 4: "四", 5: "五"}


@dataclass(frozen=True, slots=True)
class Target:
    """A combination to reach by the end of the turn, and its Chinese words."""

    key: str
    words: str


def _of_a_kind(face: int, n: int) -> Target:
    if n == 5:
        return Target(f"{face}x5", f"五个 {face}（快艇）")
    return Target(f"{face}x{n}", f"至少{_NUMBERS[n]}个 {face}")


SMALL = Target("small", "小顺（四个连着的数）")
LARGE = Target("large", "大顺（五个连着的数）")
FULL = Target("full", "葫芦（三个一样加两个一样）")


def _reached(target: Target) -> npt.NDArray[np.bool_]:
    """(252,): which rolls show the target."""
    counts = DICE_COUNTS
    present = counts > 0
    if "x" in target.key:
        face, n = (int(x) for x in target.key.split("x"))
        return np.asarray(counts[:, face - 1] >= n)
    if target.key == "small":
        runs = [present[:, s : s + 4].all(axis=1) for s in range(3)]
        return np.asarray(np.logical_or.reduce(runs))
    if target.key == "large":
        return np.asarray(present[:, 0:5].all(axis=1) | present[:, 1:6].all(axis=1))
    shape = np.sort(counts, axis=1)
    return np.asarray((shape[:, -1] == 3) & (shape[:, -2] == 2))


@cache
def _keep_chances(key: str, words: str) -> tuple[F64, F64, F64]:
    """For a target: reached per roll (252,), keep chances with 1 and with 2 rolls left
    (462,), aiming at the target as well as possible."""
    e0 = _reached(Target(key, words)).astype(np.float64)
    k1, e1 = reroll_single(e0, e0)
    k2, _ = reroll_single(e1, e0)
    return e0, k1, k2


def chance(target: Target, position: PuzzlePosition, keep: tuple[int, ...] | str) -> float:
    """Exact chance that keeping ``keep`` (or ``"stop"``) shows ``target`` by the end of
    the turn, rerolling for it as well as possible."""
    e0, k1, k2 = _keep_chances(target.key, target.words)
    if keep == STOP:
        return float(e0[dice_index(position.dice.values)])
    assert isinstance(keep, tuple)
    k = k1 if position.rolls_left == 1 else k2
    return float(k[keep_index(keep)])


def _aims(keep: tuple[int, ...] | str, card: Scorecard) -> list[Target]:
    """The combinations a keep can be aiming at."""
    if not isinstance(keep, tuple) or not keep:
        return []
    out: list[Target] = []
    counts = Counter(keep)
    face, c = max(counts.items(), key=lambda fc: (fc[1], fc[0]))
    if c >= 2:
        n = min(5, max(3, c + 1))
        if n == 5 and card[Category.YAHTZEE] == 0:
            n = 4 if c < 4 else 5
        out.append(_of_a_kind(face, n))
    if len(counts) == len(keep) and len(keep) >= 3:
        if card.is_open(Category.SMALL_STRAIGHT):
            out.append(SMALL)
        if card.is_open(Category.LARGE_STRAIGHT):
            out.append(LARGE)
    if card.is_open(Category.FULL_HOUSE) and sorted(counts.values()) in ([2, 2], [1, 3], [2, 3]):
        out.append(FULL)
    return out


def keep_words(keep: tuple[int, ...] | str) -> str:
    """「留 6、6」, 「全部重掷」 or 「不再掷，直接记分」."""
    if keep == STOP:
        return "不再掷，直接记分"
    if not keep:
        return "全部重掷"
    return "留 " + "、".join(str(f) for f in keep)


def _percent(p: float) -> str:
    return f"{round(100 * p)}%"


def _points(x: float) -> str:
    return f"{x:.1f}"


def explain_keep(grade: Grade) -> list[str]:
    """The chance sentences of a keep (empty when no combination tells them apart)."""
    pos, best, chosen = grade.position, grade.best.keep, grade.chosen.keep
    assert best is not None
    assert chosen is not None
    if best == chosen:
        aims = _aims(best, pos.card)
        if not aims:
            return []
        target = aims[0]
        p = chance(target, pos, best)
        return [f"{keep_words(best)}：这回合结束时{target.words}的机会是 {_percent(p)}。"]
    seen: dict[str, Target] = {}
    for t in _aims(best, pos.card) + _aims(chosen, pos.card):
        seen.setdefault(t.key, t)
    scored = [(chance(t, pos, best) - chance(t, pos, chosen), t) for t in seen.values()]
    scored = [(d, t) for d, t in scored if d > 0.005]
    if not scored:
        return []
    _, target = max(scored, key=lambda dt: dt[0])
    pb, pc = chance(target, pos, best), chance(target, pos, chosen)
    return [
        f"{keep_words(best)}：这回合结束时{target.words}的机会是 {_percent(pb)}；"
        f"{keep_words(chosen)}：{_percent(pc)}。"
    ]


def _after(pos: PuzzlePosition, choice: Choice, table: ValueTable) -> tuple[int, float]:
    """Points a box adds now (bonuses included) and the value still to come after it."""
    assert choice.category is not None
    card = pos.card.score(choice.category, pos.dice)
    return card.total - pos.card.total, table.value(card)


def explain_box(grade: Grade, table: ValueTable) -> list[str]:
    """What the best box and the chosen box bring now, and later."""
    pos, best, chosen = grade.position, grade.best, grade.chosen
    assert best.category is not None
    assert chosen.category is not None
    now_b, later_b = _after(pos, best, table)
    lines = [
        f"记在「{best.category.zh}」：现在得 {now_b} 分，"
        f"以后的回合平均还能得 {_points(later_b)} 分。"
    ]
    if chosen.category is not best.category:
        now_c, later_c = _after(pos, chosen, table)
        lines.append(
            f"记在「{chosen.category.zh}」：现在得 {now_c} 分，"
            f"以后的回合平均还能得 {_points(later_c)} 分。"
        )
        if now_c > now_b:
            lines.append(
                f"现在多得的 {now_c - now_b} 分，抵不上以后少得的分："
                f"「{chosen.category.zh}」留着以后更有用。"
            )
        elif now_c < now_b:
            lines.append(f"「{best.category.zh}」现在就多得 {now_b - now_c} 分。")
    return lines


def explain(grade: Grade, table: ValueTable | None = None) -> list[str]:
    """The explanation of a graded answer: short sentences, best answer first.

    The first sentence says how good the answer was, in points (the review's "expected
    final score": the points on the card plus what the rest of the game brings on
    average); then the chances (a keep) or the boxes (a box).
    """
    table = table or load_table()
    lines: list[str] = []
    if grade.mark == "best":
        lines.append("答对了！这是最好的选择。")
    else:
        lines.append(
            f"最好的选择平均能多得 {_points(grade.loss)} 分"
            f"（预计终局 {_points(grade.best.value)} 分，"
            f"你的选择 {_points(grade.chosen.value)} 分）。"
        )
    build: Callable[[Grade], list[str]]
    if grade.position.kind == "keep":
        build = explain_keep
    else:

        def build(g: Grade) -> list[str]:
            return explain_box(g, table)

    lines.extend(build(grade))
    return lines
