"""The documented response shapes of ``/api/puzzles`` (练习, L6-L8; see docs/api.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from yahtzee.rules import Category
from yahtzee.server.views import _Out

MarkId = Literal["best", "inaccuracy", "mistake", "blunder"]


class BoxPreviewOut(_Out):
    """An open box: the points the dice would score there, and whether it is allowed."""

    points: int
    allowed: bool


class PuzzleOut(_Out):
    """A served puzzle: the position (as in the game) and what it is about."""

    id: str = Field(description="the serving's id: answer it with POST /api/puzzles/{id}/answer")
    scores: dict[Category, int] = Field(description="the filled boxes")
    upper_subtotal: int
    upper_bonus: int
    yahtzee_bonus: int
    dice: list[int]
    rolls_left: int = Field(description="1 or 2: a keep (or stop); 0: a box")
    held: list[int] = Field(description="the faces held into this roll")
    round: int
    kind: Literal["keep", "score"]
    total: int = Field(description="the card's total so far")
    preview: dict[Category, BoxPreviewOut] = Field(
        description="what the dice would score in each open box now"
    )
    source: Literal["mine", "bank"]
    themes: list[str]
    rating: int = Field(
        description="the puzzle's Glicko-2 rating (its difficulty score); the answer is "
        "rated against this one (L14)"
    )
    rating_settling: bool = Field(description="the puzzle's rating is still settling (L14)")
    game_id: str | None = Field(None, description="source mine: the game it comes from")
    review: bool = Field(
        description="answered before by this player: a review, graded but no rating moves (F15)"
    )


class NextPuzzleOut(_Out):
    """``GET /api/puzzles/next``."""

    puzzle: PuzzleOut
    rating: int = Field(description="the player's Glicko-2 rating")
    rating_settling: bool = Field(
        description="the player's rating is still settling (Glicko-2 deviation above 110): "
        "the page says the rating is still being settled (L14)"
    )


class PuzzleOptionOut(_Out):
    """One option: a keep (faces or ``"stop"``) or a box, its expected final score and
    its loss against the best."""

    keep: list[int] | Literal["stop"] | None = None
    category: Category | None = None
    points: int | None = None
    value: float
    loss: float


class AnswerOut(_Out):
    """``POST /api/puzzles/{id}/answer``: the grade."""

    loss: float
    mark: MarkId
    mark_name: str = Field(description="the mark's name, in the request's language")
    chosen: PuzzleOptionOut
    best: PuzzleOptionOut
    options: list[PuzzleOptionOut] = Field(description="every option, best first")
    explanation: list[str] = Field(
        description="short sentences a child can read: how good, then why (L9, L14)"
    )
    rating: int
    rating_change: int = Field(description="0 for a review")
    rating_settling: bool = Field(description="the player's rating is still settling (L14)")
    puzzle_rating: int = Field(
        description="the puzzle's rating as shown with it, which the answer was rated against"
    )
    puzzle_rating_settling: bool = Field(description="as shown with the puzzle (L14)")
    review: bool = Field(
        description="a puzzle this player had answered before: no rating moved (F15)"
    )


class RatingPointOut(_Out):
    """The player's rating after one answer."""

    at: str
    rating: int


class ThemeProgressOut(_Out):
    """Answers and best answers of one theme."""

    theme: str
    name: str = Field(description="the theme's name, in the request's language")
    answers: int
    best: int


class MineProgressOut(_Out):
    """The player's own mistakes as puzzles."""

    puzzles: int
    answered_right: int = Field(description="of them, answered best at least once since")
    due: int


class ProgressOut(_Out):
    """``GET /api/puzzles/progress`` (统计)."""

    rating: int
    rating_settling: bool = Field(description="the rating is still settling (L14)")
    answers: int
    marks: dict[MarkId, int]
    rating_history: list[RatingPointOut]
    themes: list[ThemeProgressOut]
    mine: MineProgressOut


class ThemeOut(_Out):
    """One theme of 「专项练习」."""

    id: str
    name: str = Field(description="in the request's language")
    help: str = Field(description="one short sentence in the rules page's words")


class PracticeConfigOut(_Out):
    """``GET /api/puzzles/themes``: the themes and the marks' names, in the request's
    language (what the practice view shows; it copies none of them)."""

    themes: list[ThemeOut]
    marks: dict[MarkId, str]
