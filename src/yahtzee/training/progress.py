"""How practice moves: ratings (Glicko-2) and the review schedule (FSRS).

**Ratings.** Players and puzzles both carry a Glicko-2 rating (``glicko2``, the most used
Python implementation; it reproduces Glickman's worked example: 1464.06 / 151.52 /
0.05999). An answer is one game between the player and the puzzle: 1 for the best
answer, 0.5 for 欠佳 (less than a point lost), 0 for 失误 and 大错; both sides are
updated, each against the other's rating before the answer (one rating period per answer,
as puzzle sites do). Both start at 1500 (RD 350). The deviation is kept at least
:data:`MIN_RD`, so a rating keeps moving after hundreds of answers.

**Schedule.** A mistake of the player's own games is a flashcard (``fsrs``, the reference
Python FSRS scheduler): 最佳 is ``Good``, 欠佳 ``Hard``, 失误/大错 ``Again``, so it comes
back sooner after a miss and later after a best answer. Fuzzing is off: the schedule is a
function of the answers and their times (randomness is injected everywhere else too).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import glicko2
from fsrs import Card, Rating, Scheduler

from yahtzee.review.analysis import Mark

START_RATING = 1500.0
START_RD = 350.0
START_VOL = 0.06
MIN_RD = 45.0
SETTLED_RD = 110.0
"""A rating whose deviation is above this is still settling: the page says 「定级中」
instead of a number that moves by a hundred points an answer (L14). 110 is the deviation
under which lichess stops calling a Glicko-2 rating provisional; from 350 it takes a player
about ten answers against settled puzzles, about twenty-five against new ones (a new
puzzle's own rating says little)."""

OUTCOME: dict[Mark, float] = {"best": 1.0, "inaccuracy": 0.5, "mistake": 0.0, "blunder": 0.0}
"""The score of an answer as a game between the player and the puzzle."""

FSRS_RATING: dict[Mark, Rating] = {
    "best": Rating.Good,
    "inaccuracy": Rating.Hard,
    "mistake": Rating.Again,
    "blunder": Rating.Again,
}

_SCHEDULER = Scheduler(enable_fuzzing=False)


@dataclass(frozen=True, slots=True)
class Glicko:
    """A Glicko-2 rating: ``rating``, deviation ``rd``, volatility ``vol``."""

    rating: float = START_RATING
    rd: float = START_RD
    vol: float = START_VOL

    @property
    def settling(self) -> bool:
        """Still too uncertain to show as a number (deviation above :data:`SETTLED_RD`)."""
        return self.rd > SETTLED_RD

    def to_json(self) -> dict[str, float]:
        """``{"rating", "rd"}`` rounded for the page (whole points)."""
        return {"rating": round(self.rating), "rd": round(self.rd)}


def _updated(me: Glicko, other: Glicko, score: float) -> Glicko:
    p = glicko2.Player(rating=me.rating, rd=me.rd, vol=me.vol)
    p.update_player([other.rating], [other.rd], [score])
    return Glicko(float(p.rating), max(MIN_RD, float(p.rd)), float(p.vol))


def rate(
    player: Glicko, puzzle: Glicko, mark: Mark, shown: float | None = None
) -> tuple[Glicko, Glicko]:
    """The player's and the puzzle's ratings after one answer marked ``mark``.

    ``shown`` is the puzzle's rating as the player saw it when it was served (L14): the
    player is rated against that one, so the 「难度分」 before the answer is the one used
    after, even if another player's answer moved the puzzle in between."""
    score = OUTCOME[mark]
    seen = puzzle if shown is None else Glicko(shown, puzzle.rd, puzzle.vol)
    return _updated(player, seen, score), _updated(puzzle, player, 1.0 - score)


def new_card(card_id: int, now: datetime) -> str:
    """A new flashcard, due ``now`` (its JSON text, as stored)."""
    return str(Card(card_id=card_id, due=now).to_json())


def review_card(card_json: str, mark: Mark, now: datetime) -> tuple[str, datetime]:
    """The card after an answer marked ``mark`` at ``now``: its JSON and when it is due."""
    card, _log = _SCHEDULER.review_card(Card.from_json(card_json), FSRS_RATING[mark], now)
    return str(card.to_json()), card.due


def card_due(card_json: str) -> datetime:
    """When a stored card is due."""
    due: datetime = Card.from_json(card_json).due
    return due


def card_summary(card_json: str) -> dict[str, Any]:
    """A card's state for tests and debugging: state name, due time, stability."""
    card = Card.from_json(card_json)
    return {"state": card.state.name, "due": card.due.isoformat(), "stability": card.stability}
