"""OpenAPI schemas of the review and stats objects (documentation only, as in views.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from yahtzee.game import Mode, SeatKind
from yahtzee.players import Difficulty
from yahtzee.rules import Category


class ChoiceOut(BaseModel):
    """A keep (``keep``: faces kept, or ``"stop"``) or a box (``category``, ``points``)."""

    keep: list[int] | Literal["stop"] | None = None
    category: Category | None = None
    points: int | None = None
    value: float = Field(description="expected final score after this choice")


class ReviewCardOut(BaseModel):
    """The card at the decision: filled boxes only, and its sums."""

    boxes: dict[str, int]
    upper_subtotal: int
    upper_bonus: int
    yahtzee_bonus: int
    total: int


class DecisionOut(BaseModel):
    """One decision with more than one legal option."""

    round: int = Field(ge=1, le=13)
    roll: int = Field(ge=1, le=3, description="the roll the dice come from")
    kind: Literal["keep", "score"]
    dice: list[int]
    rolls_left: int
    chosen: ChoiceOut
    best: ChoiceOut
    loss: float = Field(ge=0, description="best.value - chosen.value")
    mark: Literal["best", "inaccuracy", "mistake", "blunder"]
    options: list[ChoiceOut] = Field(description="the three best options, best first")
    card: ReviewCardOut
    hold: list[bool] | None = Field(
        default=None, description="the dice held for the next roll (keeps that rolled on)"
    )
    proxy: bool = Field(
        description="made by the computer for the away person (autoplay, K2): not counted in "
        "the person's skill loss, accuracy or marks"
    )
    why: list[str] | None = Field(
        default=None,
        description="the person's decisions that were not best: why the best is better, in "
        "short sentences (the chances of a keep, what each box brings now and later; L12)",
    )


class TimelinePointOut(BaseModel):
    """Before round 1 (``round`` 0) and after each round."""

    round: int = Field(ge=0, le=13)
    expected_final: float
    win_probability: float | None = Field(
        default=None,
        description="vs games: P(win) + P(draw)/2 for the human; table games: the reviewed "
        "seat's chance of first place (ties split evenly, T5)",
    )
    win_probabilities: list[float] | None = Field(
        default=None, description="table games: every seat's chance of first place (T5)"
    )


class ComputerReviewOut(BaseModel):
    """The computer's play judged the same way (vs games)."""

    accuracy: float
    skill_loss: float
    luck: float
    final_score: int
    counts: dict[str, int]


class ReviewSeatOut(BaseModel):
    """One seat of the reviewed game (the review page's seat switcher, T6)."""

    index: int
    kind: SeatKind
    name: str | None
    difficulty: Difficulty | None
    final_score: int
    place: int = Field(ge=1, le=6, description="equal totals share a place (T4)")


class ReviewOut(BaseModel):
    """A finished game reviewed by the expert (L1-L4)."""

    game_id: str
    seat: int = Field(ge=0, le=5, description="the reviewed person's seat (T6)")
    seats: list[ReviewSeatOut]
    mode: Mode
    kind: str = Field(description="what the game is (K2): the review page's title")
    difficulty: Difficulty | None
    start_value: float
    final_score: int
    luck: float
    skill_loss: float = Field(description="the person's own decisions' losses")
    proxy_loss: float = Field(
        ge=0,
        description="the losses of autoplay's decisions (K2): start_value + luck - skill_loss "
        "- proxy_loss = final_score",
    )
    accuracy: float = Field(ge=0, le=100)
    counts: dict[str, int]
    undos: int = Field(
        ge=0, description="boxes this person took back (undo); the review judges the box written"
    )
    decisions: list[DecisionOut]
    timeline: list[TimelinePointOut]
    computer: ComputerReviewOut | None = None


class HistogramBinOut(BaseModel):
    """Totals ``from``..``to`` (``to`` null: and up)."""

    from_: int = Field(alias="from")
    to: int | None
    games: int = Field(description="the player's solo games in this bin")
    expert: float = Field(description="the expert's share of games in this bin")


class ExpertFiguresOut(BaseModel):
    """The expert's reference figures (1,000,000 simulated games)."""

    mean: float
    upper_bonus_rate: float
    yahtzee_rate: float
    games: int


class SoloStatsOut(BaseModel):
    """Finished 单人挑战 games (a 每日挑战 counts apart, K2)."""

    games: int
    mean: float | None
    best: int | None
    histogram: list[HistogramBinOut]
    upper_bonus_rate: float | None
    yahtzee_rate: float | None
    accuracy: list[float] = Field(description="each game's review accuracy, oldest first")
    skill_loss: list[float] = Field(
        description="each game's skill loss, oldest first (the page's verdict beside the "
        "accuracy, L13)"
    )
    expert: ExpertFiguresOut


class ApartStatsOut(BaseModel):
    """The finished games of a kind that counts apart (K2: its rules name its own
    section, like 每日挑战's ``daily``): never in the solo, vs or table figures, nor in the
    boxes' means."""

    games: int
    mean: float | None
    best: int | None


class VsStatsOut(BaseModel):
    """Finished vs games against one level."""

    games: int
    wins: int
    losses: int
    draws: int
    mean: float | None


class BoxStatsOut(BaseModel):
    """One box: the player's mean (finished solo and vs games) and the expert's."""

    mean: float | None
    expert_mean: float


class TablePersonStatsOut(BaseModel):
    """One person's table games (T6), by the name typed at the table."""

    name: str
    games: int
    places: dict[str, int] = Field(description="place ('1'..'6') -> games ending there")
    wins: int = Field(description="games in first place (shared ones too)")
    mean: float | None


class TableStatsOut(BaseModel):
    """Finished table games (多人同屏), counted apart from solo and vs games (T6)."""

    games: int
    people: list[TablePersonStatsOut] = Field(description="most games first")


class PlatformStatsOut(BaseModel):
    """This browser's stats (L5); the boxes' means are over solo and vs games. The
    platform's sections; :func:`stats_out` adds the kinds' own."""

    solo: SoloStatsOut
    vs: dict[str, VsStatsOut]
    boxes: dict[str, BoxStatsOut]
    table: TableStatsOut
    apart: list[str] = Field(
        description="the kinds' own sections of this object, in order (``daily``, ``race``: "
        "each an ApartStatsOut), for the page to show without knowing the kinds"
    )
    mistakes: int = Field(
        description="the player's own mistakes and blunders over these games, as each game's "
        "review counts them (U18; not the rooms' games, reviewed from another seat)"
    )


def stats_out(apart: Sequence[str]) -> type[BaseModel]:
    """``GET /api/stats``' model, ``StatsOut``: the platform's sections, then each kind's
    own section of ``apart`` (:func:`yahtzee.server.kinds.apart_sections`)."""
    fields: dict[str, Any] = dict.fromkeys(apart, (ApartStatsOut, ...))
    model: type[BaseModel] = create_model(
        "StatsOut", __base__=PlatformStatsOut, __module__=__name__, **fields
    )
    return model


class MeterOut(BaseModel):
    """The live meter (L4) of one of the player's games."""

    expected_final: float = Field(description="points on the card + the solver's value now")
    win_probability: float | None = Field(
        description="vs games: P(win) + P(draw)/2 for the human; table games: the chance "
        "of first place of ``seat``; null in solo games"
    )
    seat: int | None = Field(
        default=None, description="table games: the seat reckoned for (the person on turn)"
    )
    win_probabilities: list[float] | None = Field(
        default=None, description="table games: every seat's chance of first place (T5)"
    )
