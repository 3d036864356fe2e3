"""Reviews of finished games for the API: ownership, state checks and a cache.

A finished game never changes, so its review is computed once per process and kept in a
bounded LRU keyed by game id and version (a game cannot be finished at two versions, the
version only guards against a stale entry). The analysis itself lives in
:mod:`yahtzee.review`; this module only loads the log and maps the states.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from yahtzee.errors import (
    AbandonedGameError,
    GameNotFoundError,
    InvalidSeatsError,
    NotReviewableError,
)
from yahtzee.game import Mode, SeatKind, Status
from yahtzee.log import Event
from yahtzee.lru import LruCache
from yahtzee.review import review_events, review_json
from yahtzee.review.stats import FinishedGame, TablePerson, stats_json, table_people
from yahtzee.review.winprob import table_timeline
from yahtzee.rules import Scorecard
from yahtzee.storage import Storage

CACHE_SIZE = 512
SUMMARY_CACHE_SIZE = 50_000


class ReviewService:
    """``GET /api/games/{id}/review``: the cached review of one of the player's games."""

    def __init__(self, storage: Storage, cache_size: int = CACHE_SIZE) -> None:
        self.storage = storage
        self._cache: LruCache[tuple[str, int], Reviewed] = LruCache(cache_size)
        # game id -> what the stats and the lobby need of each finished game.
        self._summaries: LruCache[str, Summary] = LruCache(SUMMARY_CACHE_SIZE)

    async def review(self, player_id: str, game_id: str, seat: int | None = None) -> dict[str, Any]:
        """The review object of ``seat`` (T6: any person's seat; by default the first
        person's: solo and vs keep theirs); 404 for another player's or an unknown game,
        409 unless the game is finished, 422 ``invalid_seats`` for a computer's or a missing
        seat. The log is read on the event loop (where the database pool lives); the
        analysis, which takes a while for a vs or table game, runs in a thread, once for
        every seat of the game."""
        stored = await self.storage.get_game(game_id)
        if stored is None or stored.player_id != player_id:
            raise GameNotFoundError(f"no game {game_id} for this player")
        if stored.status is Status.ABANDONED:
            raise AbandonedGameError(game_id)
        if stored.status is not Status.FINISHED:
            raise NotReviewableError(f"game {game_id} is still in progress")
        key = (game_id, stored.version)
        hit = self._cache.get(key)
        if hit is None:
            events = await self.storage.events(game_id)
            hit = await asyncio.to_thread(compute_review, events, game_id)
            self._cache.put(key, hit)
        return hit.of_seat(seat)

    async def summary(self, game_id: str) -> Summary:
        """What the stats and the lobby's recent games need of finished game ``game_id``
        (analysed once per process, in a thread)."""
        hit = self._summaries.get(game_id)
        if hit is not None:
            return hit
        events = await self.storage.events(game_id)
        summary = await asyncio.to_thread(_summarise, events)
        self._summaries.put(game_id, summary)
        return summary

    async def stats(self, player_id: str) -> dict[str, Any]:
        """``GET /api/stats``: the player's finished games summed up (L5). Each game is
        analysed once per process, in a thread (not on the event loop)."""
        games = []
        for game in await self.storage.finished_games(player_id):
            summary = await self.summary(game.id)
            games.append(
                FinishedGame(
                    mode=game.mode,
                    difficulty=game.difficulty,
                    result=game.result,
                    human_total=game.human_total,
                    card=summary.card,
                    accuracy=summary.accuracy,
                    people=summary.people,
                )
            )
        return stats_json(games)


@dataclass(frozen=True, slots=True)
class Reviewed:
    """A finished game's review objects, one per person's seat (the first is the
    default), all computed together: a table's timeline is the same for every seat."""

    by_seat: dict[int, dict[str, Any]]
    default: int

    def of_seat(self, seat: int | None) -> dict[str, Any]:
        """The review object of ``seat`` (``None``: the default seat's)."""
        if seat is None:
            return self.by_seat[self.default]
        out = self.by_seat.get(seat)
        if out is None:
            raise InvalidSeatsError(
                f"seat {seat} is not a person's seat of this game",
                f"第 {seat + 1} 位不是这局的玩家座位，无法复盘。"
                if seat >= 0
                else "座位号不正确。",
            )
        return out


def compute_review(events: list[Event], game_id: str) -> Reviewed:
    """Every review object of a finished game (what one cache entry holds)."""
    review = review_events(events)
    if review.mode is Mode.TABLE:
        seats = table_timeline([s.turn_cards for s in review.seats], review.models)
        people = [i for i, kind in enumerate(review.kinds) if kind is SeatKind.HUMAN]
        by_seat = {i: review_json(review.of_seat(i), game_id, seat_chances=seats) for i in people}
        return Reviewed(by_seat, people[0])
    return Reviewed({0: review_json(review, game_id)}, 0)


@dataclass(frozen=True, slots=True)
class Summary:
    """A finished game in short: the (first) person's final card and accuracy, and a
    table's people with their places (T6)."""

    card: Scorecard
    accuracy: float
    people: tuple[TablePerson, ...] = ()

    @property
    def best_place(self) -> int | None:
        """A table's best place of a person (the lobby's 「第 2 名」), else ``None``."""
        return min((p.place for p in self.people), default=None)

    @property
    def seats(self) -> int | None:
        """A table's number of seats, else ``None``."""
        return self.people[0].seats if self.people else None


def _summarise(events: list[Event]) -> Summary:
    review = review_events(events)
    human = review.human
    people: tuple[TablePerson, ...] = ()
    if review.mode is Mode.TABLE:
        seats = [
            (name, kind is SeatKind.HUMAN)
            for name, kind in zip(review.names, review.kinds, strict=True)
        ]
        people = table_people(seats, [s.final_score for s in review.seats])
    return Summary(human.turn_cards[-1], human.accuracy, people)
