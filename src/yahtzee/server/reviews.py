"""Reviews of finished games for the API: ownership, state checks and a cache.

A finished game never changes, so its review is computed once per process and kept in a
bounded LRU keyed by game id and version (a game cannot be finished at two versions, the
version only guards against a stale entry). The analysis itself lives in
:mod:`yahtzee.review`; this module only loads the log and maps the states.
"""

from __future__ import annotations

import asyncio
from typing import Any

from yahtzee.errors import AbandonedGameError, GameNotFoundError, NotReviewableError
from yahtzee.game import Status
from yahtzee.log import Event
from yahtzee.lru import LruCache
from yahtzee.review import review_events, review_json
from yahtzee.review.stats import FinishedGame, stats_json
from yahtzee.rules import Scorecard
from yahtzee.storage import Storage

CACHE_SIZE = 512
SUMMARY_CACHE_SIZE = 50_000


class ReviewService:
    """``GET /api/games/{id}/review``: the cached review of one of the player's games."""

    def __init__(self, storage: Storage, cache_size: int = CACHE_SIZE) -> None:
        self.storage = storage
        self._cache: LruCache[tuple[str, int], dict[str, Any]] = LruCache(cache_size)
        # game id -> (final card, accuracy): what the stats need of each finished game.
        self._summaries: LruCache[str, tuple[Scorecard, float]] = LruCache(SUMMARY_CACHE_SIZE)

    async def review(self, player_id: str, game_id: str) -> dict[str, Any]:
        """The review object; 404 for another player's or an unknown game, 409 unless
        the game is finished. The log is read on the event loop (where the database
        pool lives); the analysis, which takes a while for a vs game, runs in a thread."""
        stored = await self.storage.get_game(game_id)
        if stored is None or stored.player_id != player_id:
            raise GameNotFoundError(f"no game {game_id} for this player")
        if stored.status is Status.ABANDONED:
            raise AbandonedGameError(game_id)
        if stored.status is not Status.FINISHED:
            raise NotReviewableError(f"game {game_id} is still in progress")
        key = (game_id, stored.version)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        events = await self.storage.events(game_id)
        out = await asyncio.to_thread(_compute, events, game_id)
        self._cache.put(key, out)
        return out

    async def _summary(self, game_id: str) -> tuple[Scorecard, float]:
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
            card, accuracy = await self._summary(game.id)
            games.append(
                FinishedGame(
                    mode=game.mode,
                    difficulty=game.difficulty,
                    result=game.result,
                    human_total=game.human_total,
                    card=card,
                    accuracy=accuracy,
                )
            )
        return stats_json(games)


def _compute(events: list[Event], game_id: str) -> dict[str, Any]:
    return review_json(review_events(events), game_id)


def _summarise(events: list[Event]) -> tuple[Scorecard, float]:
    human = review_events(events).human
    return human.turn_cards[-1], human.accuracy
