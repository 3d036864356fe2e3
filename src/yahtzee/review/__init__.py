"""复盘 and 统计: every finished game judged by the expert (L1-L4), a player's stats (L5).

* :func:`review_events` — a finished game's decisions, luck, skill loss and accuracy;
* :func:`review_json` — the ``GET /api/games/{id}/review`` object;
* :mod:`yahtzee.review.selfplay` — computer-played games as event logs (tests, benchmarks).

Depends on the rules, the solver and the players only (never on storage or the server).
"""

from yahtzee.errors import NotReviewableError
from yahtzee.review.analysis import (
    MARK_NAMES,
    MARKS,
    MISTAKE_MARKS,
    Choice,
    Decision,
    GameReview,
    PlayerReview,
    accuracy_of,
    mark_of,
    review_events,
)
from yahtzee.review.report import review_json

__all__ = [
    "MARKS",
    "MARK_NAMES",
    "MISTAKE_MARKS",
    "Choice",
    "Decision",
    "GameReview",
    "NotReviewableError",
    "PlayerReview",
    "accuracy_of",
    "mark_of",
    "review_events",
    "review_json",
]
