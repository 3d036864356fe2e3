"""Reviews and stats of finished games for the API: ownership, state checks, caches, and
the CPU work done once (issue 22).

A finished game never changes, so its review is computed once per process and kept, as
the JSON bytes sent with its sentences cut out, said in each reader's language as it is
sent (one object per person's seat, T6; G5), in a bounded LRU keyed by game id, version
and seat serial (a game cannot be finished at two versions, the version only guards
against a stale entry; the serial moves when a seat's name is erased, F24, so that no
process serves the review with the name). Concurrent requests for a review not yet cached
share one computation (single-flight): 24 clients asking at once cost one analysis, not
24. The analysis runs in
the server's CPU pool (:class:`~yahtzee.server.cpu.CpuPool`), never on the event loop nor
in the threads of the writes.

The stats cover the player's :data:`STATS_GAMES` most recent finished games (a bound on
the work of one request: before it, the stats of 800 games took 1.3 s cold), each
game's summary (final card, accuracy, a table's places) computed once per process and
cached; the stats object of a player is cached too, as bytes, until their next game
finishes. A cold player's summaries are made in jobs of :data:`SUMMARY_BATCH` games, so
other players' work passes between them.

The analysis itself lives in :mod:`yahtzee.review` (the jobs: :mod:`yahtzee.review.jobs`);
this module only loads the logs, maps the states and keeps the caches (sizes below,
docs/benchmarks.md "Memory").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, TypeVar, cast

from yahtzee.errors import AbandonedGameError, GameNotFoundError, NotReviewableError
from yahtzee.game import Status
from yahtzee.i18n import DEFAULT, Lang
from yahtzee.lru import LruCache
from yahtzee.review import jobs
from yahtzee.review.jobs import Reviewed, Summary, compute_review
from yahtzee.review.stats import FinishedGame
from yahtzee.server.cpu import CpuJobs
from yahtzee.server.kinds import KindRegistry, apart_sections
from yahtzee.storage import GameRecord, Storage
from yahtzee.storage.base import RecentGame

__all__ = ["CACHE_SIZE", "ReviewService", "Reviewed", "SingleFlight", "Summary", "compute_review"]

#: Reviews kept (JSON bytes: 10-40 KB a seat, so at most ~20 MB for solo and vs games).
CACHE_SIZE = 512
#: Per-game summaries kept for the stats and the lobby (a card, a float, a table's places).
SUMMARY_CACHE_SIZE = 20_000
#: Players whose stats object is kept (JSON bytes, ~3 KB each).
STATS_CACHE_SIZE = 2_000
#: The stats count at most this many of a player's most recent finished games.
STATS_GAMES = 200
#: Games summarised per CPU job when a player's stats are cold.
SUMMARY_BATCH = 20

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SingleFlight:
    """Concurrent calls for the same key share one computation: the first caller starts
    it (as a task of its own, so that a client going away does not cancel it for the
    others), the rest await the same result."""

    def __init__(self) -> None:
        self._running: dict[Hashable, asyncio.Task[Any]] = {}

    def __len__(self) -> int:
        return len(self._running)

    async def run(self, key: K, compute: Callable[[], Awaitable[V]]) -> V:
        """``await compute()``, or the result of the one already running for ``key``."""
        task = self._running.get(key)
        if task is None:
            task = asyncio.ensure_future(compute())
            self._running[key] = task
            task.add_done_callback(lambda _: self._running.pop(key, None))
        result: V = await asyncio.shield(cast("asyncio.Task[V]", task))
        return result


class ReviewService:
    """``GET /api/games/{id}/review``, ``GET /api/stats`` and the lobby's summaries (see the
    module docstring)."""

    def __init__(
        self,
        storage: Storage,
        cache_size: int = CACHE_SIZE,
        *,
        may_see: Callable[[GameRecord, str], Awaitable[bool]] | None = None,
        kinds: KindRegistry | None = None,
    ) -> None:
        self.storage = storage
        # K2: the 统计 section each kind of game counts in (its rules), and the kinds' own.
        self.kinds = kinds or KindRegistry()
        self._apart = apart_sections(self.kinds)
        # Who may review a game: its owner, and (the game service's rule, O7) the seat
        # holders of a room's game.
        self._may_see = may_see or _owns
        self._cache: LruCache[tuple[str, int, int], Reviewed] = LruCache(cache_size)
        # game id -> what the stats and the lobby need of each finished game.
        self._summaries: LruCache[str, Summary] = LruCache(SUMMARY_CACHE_SIZE)
        # player id -> (the finished games counted, the stats object as sent)
        self._stats: LruCache[str, tuple[tuple[str, ...], bytes]] = LruCache(STATS_CACHE_SIZE)
        self._flights = SingleFlight()

    def forget_reviews(self) -> None:
        """Drop the reviews computed here: a player's data was deleted, and a room game's
        seat lost its name (I4); the stats and summaries hold no names."""
        self._cache.clear()

    async def review(
        self,
        player_id: str,
        game_id: str,
        cpu: CpuJobs,
        seat: int | None = None,
        lang: Lang = DEFAULT,
    ) -> bytes:
        """The review object of ``seat`` as JSON (T6: any person's seat; by default the
        first person's: solo and vs keep theirs); 404 for another player's or an unknown
        game (a room's game is its seat holders', O7), 409 unless the game is finished,
        422 ``invalid_seats`` for a computer's or a missing seat. Computed once for every
        seat, in the CPU pool (as the asking requester's job, ``cpu``), however many ask
        at once. The cache holds it once for every language; its sentences are said in
        ``lang``, the reader's, as it is sent (G5)."""
        stored = await self.storage.get_game(game_id)
        if stored is None or not await self._may_see(stored, player_id):
            raise GameNotFoundError(f"no game {game_id} for this player")
        if stored.status is Status.ABANDONED:
            raise AbandonedGameError(game_id)
        if stored.status is not Status.FINISHED:
            raise NotReviewableError(f"game {game_id} is still in progress")
        # (the seat serial too: a seat's name erased since on another process, F24)
        key = (game_id, stored.version, stored.seat_serial)
        hit = self._cache.get(key)
        if hit is None:

            async def compute() -> Reviewed:
                events = await self.storage.events(game_id)
                out = await cpu(jobs.compute_review, events, game_id, stored.kind)
                self._cache.put(key, out)
                return out

            hit = await self._flights.run(("review", key), compute)
        return hit.of_seat(seat, lang)

    async def summaries(self, game_ids: Sequence[str], cpu: CpuJobs) -> list[Summary]:
        """What the stats and the lobby's recent games need of each finished game of
        ``game_ids``, in order (each analysed once per process, those not yet known in
        batches in the CPU pool)."""
        return await self._summaries_of(game_ids, cpu)

    async def stats(self, player_id: str, cpu: CpuJobs, also: Sequence[RecentGame] = ()) -> bytes:
        """``GET /api/stats`` as JSON: the player's latest :data:`STATS_GAMES` finished
        games summed up (L5), with ``also`` (the games of the rooms it played in, O7;
        counted as table games), each game analysed once per process, in the CPU pool."""
        games = await self.storage.finished_games(player_id, limit=STATS_GAMES)
        if also:  # (oldest first, as the storage gives them)
            games = sorted([*games, *also], key=lambda g: g.finished_at)[-STATS_GAMES:]
        games = [g for g in games if self.kinds[g.kind].stats is not None]  # (K2: or nowhere)
        counted = tuple(game.id for game in games)
        hit = self._stats.get(player_id)
        if hit is not None and hit[0] == counted:
            return hit[1]

        async def compute() -> bytes:
            summaries = await self._summaries_of(counted, cpu)
            pairs = zip(games, summaries, strict=True)
            # U18: the mistakes are one's own in one's own games (a room's game is reviewed
            # from its first person's seat, not necessarily this browser's).
            theirs = {g.id for g in also}
            finished = [
                _finished(game, summary, self.kinds[game.kind].stats, game.id not in theirs)
                for game, summary in pairs
            ]
            body = await cpu(jobs.stats_bytes, finished, self._apart)
            self._stats.put(player_id, (counted, body))
            return body

        return await self._flights.run(("stats", player_id, counted), compute)

    async def _summaries_of(self, game_ids: Sequence[str], cpu: CpuJobs) -> list[Summary]:
        known: dict[str, Summary | None] = {g: self._summaries.get(g) for g in game_ids}
        missing = [g for g in game_ids if known[g] is None]
        for start in range(0, len(missing), SUMMARY_BATCH):
            batch = missing[start : start + SUMMARY_BATCH]
            logs = [await self.storage.events(game_id) for game_id in batch]
            made = await cpu(jobs.summaries, logs)
            for game_id, summary in zip(batch, made, strict=True):
                self._summaries.put(game_id, summary)
                known[game_id] = summary
        out = []
        for game_id in game_ids:
            have = known[game_id]
            assert have is not None
            out.append(have)
        return out


async def _owns(stored: GameRecord, player_id: str) -> bool:
    return stored.player_id == player_id


def _finished(
    game: RecentGame, summary: Summary, section: str | None, own: bool = True
) -> FinishedGame:
    return FinishedGame(
        mode=game.mode,
        difficulty=game.difficulty,
        result=game.result,
        human_total=game.human_total,
        card=summary.card,
        accuracy=summary.accuracy,
        people=summary.people,
        section=section,
        skill_loss=summary.skill_loss,
        mistakes=summary.mistakes if own else 0,
    )
