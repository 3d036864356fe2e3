"""The review as the API's JSON object (``GET /api/games/{id}/review``, ``yahtzee review``)."""

from __future__ import annotations

from typing import Any

from yahtzee.game import Mode
from yahtzee.review.analysis import GameReview
from yahtzee.review.winprob import timeline as win_timeline


def review_json(review: GameReview, game_id: str) -> dict[str, Any]:
    """The review object (see docs/api.md), the same for the API and ``yahtzee review``.

    A vs game's timeline carries the human's chance to win before round 1 and after each
    of the 13 rounds (:func:`yahtzee.review.winprob.timeline`: a vs review's costly part).
    """
    human = review.human
    timeline: list[dict[str, Any]] = [
        {"round": r, "expected_final": round(v, 2)} for r, v in enumerate(human.turn_values)
    ]
    if review.computer is not None and review.difficulty is not None:
        chances = win_timeline(human.turn_cards, review.computer.turn_cards, review.difficulty)
        for point, p in zip(timeline, chances, strict=True):
            point["win_probability"] = round(p, 4)
    out: dict[str, Any] = {
        "game_id": game_id,
        "mode": review.mode.value,
        "difficulty": review.difficulty,
        "start_value": round(human.start_value, 4),
        "final_score": human.final_score,
        "luck": round(human.luck, 4),
        "skill_loss": round(human.skill_loss, 4),
        "accuracy": round(human.accuracy, 2),
        "counts": human.counts(),
        "decisions": [d.to_json() for d in human.decisions],
        "timeline": timeline,
    }
    if review.mode is Mode.VS_COMPUTER and review.computer is not None:
        computer = review.computer
        out["computer"] = {
            **computer.summary_json(),
            "final_score": computer.final_score,
            "counts": computer.counts(),
        }
    return out
