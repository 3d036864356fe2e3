"""The review as the API's JSON object (``GET /api/games/{id}/review``, ``yahtzee review``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from yahtzee.game import GameKind, Mode, SeatKind
from yahtzee.review.analysis import Decision, GameReview
from yahtzee.review.explain import Spot, reasons
from yahtzee.review.winprob import table_timeline
from yahtzee.review.winprob import timeline as win_timeline
from yahtzee.rules import Dice
from yahtzee.solver import ValueTable, load_table


def decision_spot(d: Decision) -> Spot:
    """Where decision ``d`` was taken, as the explanations read it (a box: no rolls left)."""
    return Spot(d.card, Dice.of(d.dice), 3 - d.roll if d.kind == "keep" else 0)


def decision_json(d: Decision, table: ValueTable) -> dict[str, Any]:
    """A decision as the API shows it; one of the person's that was not best says why
    (``why``: the sentences 练习 shows after an answer, L12; 托管's moves are the
    computer's, K2: no why; catalog messages, said in the reader's language where the
    object is sent)."""
    out = d.to_json()
    if d.mark != "best" and d.proxy is None:
        out["why"] = reasons(decision_spot(d), d, table)
    return out


def review_json(
    review: GameReview,
    game_id: str,
    seat_chances: Sequence[Sequence[float]] | None = None,
    *,
    kind: GameKind | None = None,
) -> dict[str, Any]:
    """The review object (see docs/api.md) of the reviewed seat (``review.human``), the same
    for the API and ``yahtzee review``.

    A vs game's timeline carries the human's chance to win before round 1 and after each
    of the 13 rounds (:func:`yahtzee.review.winprob.timeline`: a vs review's costly part).
    A table's carries every seat's chance of first place at those points (T5,
    :func:`yahtzee.review.winprob.table_timeline`), the reviewed seat's as its
    ``win_probability``; ``seat_chances`` passes them in when they are already known (the
    server reviews every person of a table from one timeline). ``kind`` is what the game
    is (K2, from its header; by default its mode's plain kind).
    """
    human = review.human
    table = load_table()
    timeline: list[dict[str, Any]] = [
        {"round": r, "expected_final": round(v, 2)} for r, v in enumerate(human.turn_values)
    ]
    if review.computer is not None and review.difficulty is not None:
        chances = win_timeline(human.turn_cards, review.computer.turn_cards, review.difficulty)
        for point, p in zip(timeline, chances, strict=True):
            point["win_probability"] = round(p, 4)
    if review.mode is Mode.TABLE and seat_chances is None:
        seat_chances = table_timeline([s.turn_cards for s in review.seats], review.models)
    if seat_chances is not None:
        for point, at in zip(timeline, seat_chances, strict=True):
            point["win_probability"] = round(at[human.seat], 4)
            point["win_probabilities"] = [round(c, 4) for c in at]
    totals = [s.final_score for s in review.seats]
    out: dict[str, Any] = {
        "game_id": game_id,
        "seat": human.seat,
        "seats": [
            {
                "index": i,
                "kind": kind.value,
                "name": name,
                "difficulty": None if kind is SeatKind.HUMAN else model,
                "final_score": total,
                "place": 1 + sum(t > total for t in totals),
            }
            for i, (kind, model, name, total) in enumerate(
                zip(review.kinds, review.models, review.names, totals, strict=True)
            )
        ],
        "mode": review.mode.value,
        "kind": (kind or GameKind.of(review.mode)).value,
        "difficulty": review.difficulty,
        "start_value": round(human.start_value, 4),
        "final_score": human.final_score,
        "luck": round(human.luck, 4),
        "skill_loss": round(human.skill_loss, 4),
        "proxy_loss": round(human.proxy_loss, 4),
        "accuracy": round(human.accuracy, 2),
        "counts": human.counts(),
        "undos": human.undos,
        "decisions": [decision_json(d, table) for d in human.decisions],
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
