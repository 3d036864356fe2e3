"""统计 (L5): a player's games over time, beside the expert's reference figures.

The expert's final-score distribution, its per-box means and its bonus rates come from
``expert_scores.json`` (1,000,000 simulated optimal games, made by
``scripts/expert_distribution.py`` and shipped with the package); nothing is simulated
at request time.

Each finished game counts in one section, which its kind's rules name (K2, on the server:
:class:`yahtzee.server.kinds.KindRules`): :data:`SOLO_STATS` (the solo figures),
:data:`VS_STATS` (by level), :data:`TABLE_STATS` (T6), or a section of a kind's own,
counted apart (its games' number, mean and best). ``boxes`` are the means over the solo
and vs sections only. Nothing here names a kind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from yahtzee.game import Mode, Result
from yahtzee.players import Difficulty
from yahtzee.rules import CATEGORIES, UPPER_BONUS_THRESHOLD, YAHTZEE_POINTS, Category, Scorecard

BIN_WIDTH = 20
LAST_BIN = 500
"""Totals from ``LAST_BIN`` up share the last histogram bin."""

#: The sections of ``GET /api/stats`` every kind of game can count in (the plain games of
#: the three modes count in theirs); any other name is a kind's own section, counted apart.
SOLO_STATS = "solo"
VS_STATS = "vs"
TABLE_STATS = "table"
#: The sections whose games' cards make ``boxes``' means (docs/api.md).
BOX_SECTIONS = frozenset({SOLO_STATS, VS_STATS})
_OF_MODE = {Mode.SOLO: SOLO_STATS, Mode.VS_COMPUTER: VS_STATS, Mode.TABLE: TABLE_STATS}


@dataclass(frozen=True, slots=True)
class ExpertReference:
    """The expert's figures: share of games per final score, per-box means, rates."""

    games: int
    mean: float
    shares: dict[int, float]
    box_means: dict[str, float]
    upper_bonus_rate: float
    yahtzee_rate: float


@cache
def expert_reference() -> ExpertReference:
    """The shipped reference (read once per process)."""
    text = resources.files("yahtzee.review").joinpath("expert_scores.json").read_text("utf-8")
    data = json.loads(text)
    games = int(data["games"])
    return ExpertReference(
        games=games,
        mean=float(data["mean"]),
        shares={int(s): k / games for s, k in data["scores"]},
        box_means={k: float(v) for k, v in data["box_means"].items()},
        upper_bonus_rate=float(data["upper_bonus_rate"]),
        yahtzee_rate=float(data["yahtzee_rate"]),
    )


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What the stats need of one finished game (oldest first in a list).

    ``accuracy`` is the review's (solo games; ``None`` when unknown).
    """

    mode: Mode
    difficulty: Difficulty | None
    result: Result
    human_total: int
    card: Scorecard
    accuracy: float | None
    people: tuple[TablePerson, ...] = ()
    """A table game's people (T6); empty for solo and vs games."""
    section: str | None = None
    """The section it counts in, as its kind's rules say (K2); ``None``: its mode's."""
    skill_loss: float | None = None
    """The review's skill loss (solo games; ``None`` when unknown): 统计's verdict (L13)."""
    mistakes: int = 0
    """The player's own 失误 and 大错 in it, as 复盘 counts them (U18; 0 for a game of
    someone else's room, whose 复盘 and 练习 are of other seats)."""

    @property
    def counted_in(self) -> str:
        """The section the game counts in."""
        return self.section or _OF_MODE[self.mode]


@dataclass(frozen=True, slots=True)
class TablePerson:
    """A person of a finished table game: the name typed, the total and the place
    (equal totals share one, T4), at a table of ``seats``."""

    name: str | None
    total: int
    place: int
    seats: int


def table_people(
    seats: Sequence[tuple[str | None, bool]], totals: Sequence[int]
) -> tuple[TablePerson, ...]:
    """The people of a finished table: ``seats`` are (name, is a person) in order."""
    return tuple(
        TablePerson(name, total, 1 + sum(t > total for t in totals), len(totals))
        for (name, person), total in zip(seats, totals, strict=True)
        if person
    )


def _bin_of(total: int) -> int:
    return min(total, LAST_BIN) // BIN_WIDTH


def histogram(totals: Sequence[int]) -> list[dict[str, Any]]:
    """Fixed bins of 20 points (0-19 … 480-499, then 500 and up): the player's games and
    the expert's share of games in each."""
    ref = expert_reference()
    n_bins = LAST_BIN // BIN_WIDTH + 1
    games = [0] * n_bins
    for t in totals:
        games[_bin_of(t)] += 1
    expert = [0.0] * n_bins
    for score, share in ref.shares.items():
        expert[_bin_of(score)] += share
    return [
        {
            "from": i * BIN_WIDTH,
            "to": (i + 1) * BIN_WIDTH - 1 if i < n_bins - 1 else None,
            "games": games[i],
            "expert": round(expert[i], 6),
        }
        for i in range(n_bins)
    ]


def _mean(values: Sequence[float], digits: int = 2) -> float | None:
    return round(sum(values) / len(values), digits) if values else None


def stats_json(games: Sequence[FinishedGame], apart: Sequence[str] = ()) -> dict[str, Any]:
    """The ``GET /api/stats`` object (see docs/api.md); ``apart`` are the kinds' own
    sections (each listed, with or without games)."""
    ref = expert_reference()
    by_section: dict[str, list[FinishedGame]] = {}
    for g in games:
        by_section.setdefault(g.counted_in, []).append(g)
    solo = by_section.get(SOLO_STATS, [])
    totals = [g.human_total for g in solo]
    out: dict[str, Any] = {
        "solo": {
            "games": len(solo),
            "mean": _mean(totals),
            "best": max(totals) if totals else None,
            "histogram": histogram(totals),
            "upper_bonus_rate": _mean(
                [float(g.card.upper_subtotal >= UPPER_BONUS_THRESHOLD) for g in solo], 4
            ),
            "yahtzee_rate": _mean(
                [float(g.card[Category.YAHTZEE] == YAHTZEE_POINTS) for g in solo], 4
            ),
            "accuracy": [round(g.accuracy, 2) for g in solo if g.accuracy is not None],
            "skill_loss": [round(g.skill_loss, 2) for g in solo if g.skill_loss is not None],
            "expert": {
                "mean": round(ref.mean, 2),
                "upper_bonus_rate": round(ref.upper_bonus_rate, 4),
                "yahtzee_rate": round(ref.yahtzee_rate, 4),
                "games": ref.games,
            },
        },
        **{name: _apart([g.human_total for g in by_section.get(name, [])]) for name in apart},
        "apart": list(apart),
        "vs": {},
        "boxes": {},
        # U18: 「自己的失误」, the sum of each game's 复盘 counts (练习 makes them its cards).
        "mistakes": sum(g.mistakes for g in games),
    }
    vs = by_section.get(VS_STATS, [])
    for level in Difficulty:
        played = [g for g in vs if g.difficulty is level]
        out["vs"][level.value] = {
            "games": len(played),
            "wins": sum(g.result is Result.WIN for g in played),
            "losses": sum(g.result is Result.LOSS for g in played),
            "draws": sum(g.result is Result.DRAW for g in played),
            "mean": _mean([g.human_total for g in played]),
        }
    out["table"] = table_stats(by_section.get(TABLE_STATS, []))
    boxed = [g for g in games if g.counted_in in BOX_SECTIONS]  # T6: no table, no kind's own
    for c in CATEGORIES:
        points = [float(g.card[c] or 0) for g in boxed]
        out["boxes"][c.value] = {
            "mean": _mean(points),
            "expert_mean": round(ref.box_means[c.value], 2),
        }
    return out


def _apart(totals: Sequence[int]) -> dict[str, Any]:
    """A kind's own section: how many games, their mean and best total."""
    return {"games": len(totals), "mean": _mean(totals), "best": max(totals) if totals else None}


def table_stats(games: Sequence[FinishedGame]) -> dict[str, Any]:
    """T6: finished table games, apart from solo and vs: how many, and per person name
    (as typed) the games, each place's count and the mean total."""
    by_name: dict[str, list[TablePerson]] = {}
    for g in games:
        for person in g.people:
            if person.name is not None:
                by_name.setdefault(person.name, []).append(person)
    return {
        "games": len(games),
        "people": [
            {
                "name": name,
                "games": len(played),
                "places": {
                    str(p): sum(q.place == p for q in played)
                    for p in sorted({q.place for q in played})
                },
                "wins": sum(q.place == 1 for q in played),
                "mean": _mean([q.total for q in played]),
            }
            for name, played in sorted(by_name.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ],
    }
