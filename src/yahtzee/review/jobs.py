"""The CPU work the server runs in its pool of worker processes (issue 22).

Each job is a module-level function of plain, picklable data that returns what the
response needs (JSON bytes where the answer is big), so that a worker process imports
only this module and what it needs (the review, the solver), never the web stack. The
server's :class:`~yahtzee.server.cpu.CpuPool` decides where and in which order they run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from yahtzee.errors import InvalidSeatsError
from yahtzee.game import Game, GameKind, Mode, SeatKind
from yahtzee.i18n import DEFAULT, Lang, msg
from yahtzee.i18n.neutral import NeutralJson
from yahtzee.log import Event
from yahtzee.review.analysis import review_events
from yahtzee.review.live import live_meter
from yahtzee.review.report import review_json
from yahtzee.review.stats import FinishedGame, TablePerson, stats_json, table_people
from yahtzee.review.winprob import table_timeline
from yahtzee.rules import Dice, Scorecard


@dataclass(frozen=True, slots=True)
class Reviewed:
    """A finished game's review objects, one per person's seat (the first is the
    default), all computed together (a table's timeline is the same for every seat):
    JSON made once for every reader, its sentences said in each reader's language when
    sent (:class:`~yahtzee.i18n.neutral.NeutralJson`, G5)."""

    by_seat: dict[int, NeutralJson]
    default: int

    def of_seat(self, seat: int | None, lang: Lang = DEFAULT) -> bytes:
        """The review object of ``seat`` (``None``: the default seat's) as JSON, its
        sentences in ``lang``."""
        if seat is None:
            return self.by_seat[self.default].said(lang)
        out = self.by_seat.get(seat)
        if out is None:
            raise InvalidSeatsError(
                f"seat {seat} is not a person's seat of this game",
                msg("error.review.not_a_person", n=seat + 1)
                if seat >= 0
                else msg("error.review.bad_seat"),
            )
        return out.said(lang)


def compute_review(events: Sequence[Event], game_id: str, kind: GameKind | None = None) -> Reviewed:
    """Every review object of a finished game (``GET /api/games/{id}/review``, what one
    cache entry holds); ``kind``: what the game is (K2, its header's)."""
    review = review_events(events)
    if review.mode is Mode.TABLE:
        seats = table_timeline([s.turn_cards for s in review.seats], review.models)
        people = [i for i, kind in enumerate(review.kinds) if kind is SeatKind.HUMAN]
        by_seat = {
            i: NeutralJson.dumps(
                review_json(review.of_seat(i), game_id, seat_chances=seats, kind=kind)
            )
            for i in people
        }
        return Reviewed(by_seat, people[0])
    return Reviewed({0: NeutralJson.dumps(review_json(review, game_id, kind=kind))}, 0)


@dataclass(frozen=True, slots=True)
class Summary:
    """A finished game in short: the (first) person's final card and accuracy, and a
    table's people with their places (T6)."""

    card: Scorecard
    accuracy: float
    people: tuple[TablePerson, ...] = ()
    skill_loss: float = 0.0
    """The points the (first) person's choices lost (统计's verdict, L13)."""
    mistakes: int = 0
    """The (first) person's own 失误 and 大错 (U18: as 复盘 counts them)."""

    @property
    def best_place(self) -> int | None:
        """A table's best place of a person (the lobby's 「第 2 名」), else ``None``."""
        return min((p.place for p in self.people), default=None)

    @property
    def seats(self) -> int | None:
        """A table's number of seats, else ``None``."""
        return self.people[0].seats if self.people else None


def summarise(events: Sequence[Event]) -> Summary:
    """What the stats and the lobby's recent games need of a finished game, from its log."""
    review = review_events(events)
    human = review.human
    people: tuple[TablePerson, ...] = ()
    if review.mode is Mode.TABLE:
        seats = [
            (name, kind is SeatKind.HUMAN)
            for name, kind in zip(review.names, review.kinds, strict=True)
        ]
        people = table_people(seats, [s.final_score for s in review.seats])
    return Summary(
        human.turn_cards[-1], human.accuracy, people, human.skill_loss, len(human.mistakes)
    )


def summaries(logs: Sequence[Sequence[Event]]) -> list[Summary]:
    """Each finished game's :class:`Summary`, from its log (one job for a batch)."""
    return [summarise(events) for events in logs]


def stats_bytes(games: Sequence[FinishedGame], apart: Sequence[str] = ()) -> bytes:
    """The stats object (``GET /api/stats``), as JSON, with the kinds' own sections
    ``apart``."""
    return orjson.dumps(stats_json(games, apart))


def meter(
    state: Game, difficulty: str | None, models: Sequence[str] | None = None
) -> dict[str, Any]:
    """The live meter of a game (``GET /api/games/{id}/meter``); ``models``: a table's
    seats' levels."""
    return live_meter(state, difficulty, None, models)


def warm_up() -> None:
    """Load what the jobs need (the solver table) before the first one is asked for: the
    server's start-up runs this in each new worker, as it loads its own players."""
    from yahtzee.solver import load_table

    load_table()


def advice(card: Scorecard, dice: Dice | None, rolls_left: int) -> Any:
    """The expert's ranking of a position (``GET /api/advice``), as ``yahtzee advise
    --json`` prints it."""
    from yahtzee.solver import advise

    return advise(card, dice, rolls_left).to_json()
