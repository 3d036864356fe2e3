"""F6: with synchronous=FULL, concurrent writes share one transaction: the SQLite
backend's own group commit (the server just awaits the storage)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from yahtzee import log
from yahtzee.errors import GameInProgressError, RateLimitExceededError, StaleVersionError
from yahtzee.game import Mode, Status
from yahtzee.storage import GameRecord, SQLiteStorage
from yahtzee.storage.base import Charge, Write
from yahtzee.storage.group_commit import Results

ROLL = log.Roll(0, (False,) * 5, (1, 2, 3, 4, 5))


def _games(store: SQLiteStorage, n: int) -> list[GameRecord]:
    return [
        asyncio.run(
            store.create_game(
                game_id=f"g{i}",
                player_id=f"p{i}",
                mode=Mode.SOLO,
                difficulty=None,
                events=[log.Start.of(Mode.SOLO)],
            )
        )
        for i in range(n)
    ]


class CountingStorage(SQLiteStorage):
    """Counts the transactions of write_many (each one commit, one fsync)."""

    batches: list[int]

    def write_many(self, writes: Sequence[Write]) -> Results:
        self.batches.append(len(writes))
        return super().write_many(writes)


def test_f6_append_many_refuses_one_stale_append_and_keeps_the_others(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "g.db")
    one, two = _games(store, 2)
    results = store.append_many(
        [
            (one, [ROLL], Status.IN_PROGRESS, None),
            (one, [ROLL], Status.IN_PROGRESS, None),  # the same version again: stale
            (two, [ROLL], Status.IN_PROGRESS, None),
        ]
    )
    assert isinstance(results[0], GameRecord)
    assert isinstance(results[1], StaleVersionError)
    assert isinstance(results[2], GameRecord)
    assert results[0].version == results[2].version == 2
    assert [e.kind for e in asyncio.run(store.events("g0"))] == ["start", "roll"]
    assert [e.kind for e in asyncio.run(store.events("g1"))] == ["start", "roll"]


def test_f6_concurrent_appends_share_transactions(tmp_path: Path) -> None:
    store = CountingStorage(tmp_path / "g.db")
    store.batches = []
    games = _games(store, 20)
    store.batches.clear()  # (each creation was a write_many of its own)

    async def run() -> list[GameRecord]:
        writes = store
        return await asyncio.gather(
            *(writes.append(game, [ROLL], status=Status.IN_PROGRESS) for game in games)
        )

    records = asyncio.run(run())
    assert [r.version for r in records] == [2] * 20
    assert sum(store.batches) == 20
    assert len(store.batches) < 20  # the first write alone, the rest while it synced
    for game in games:
        assert [e.kind for e in asyncio.run(store.events(game.id))] == ["start", "roll"]


def test_f6_a_stale_append_in_a_batch_raises_for_its_request_only(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "g.db")
    (game,) = _games(store, 1)

    async def run() -> tuple[GameRecord | BaseException, GameRecord | BaseException]:
        writes = store
        return await asyncio.gather(
            writes.append(game, [ROLL], status=Status.IN_PROGRESS),
            writes.append(game, [ROLL], status=Status.IN_PROGRESS),
            return_exceptions=True,
        )

    first, second = asyncio.run(run())
    assert isinstance(first, GameRecord)
    assert isinstance(second, StaleVersionError)
    with pytest.raises(StaleVersionError):
        asyncio.run(store.append(game, [ROLL], status=Status.IN_PROGRESS))


START = log.Start.of(Mode.SOLO)


def test_f6_new_games_share_transactions_with_the_actions(tmp_path: Path) -> None:
    """POST /api/games is no longer a commit of its own on the event loop: a burst of new
    games rides in the same batches as the actions (one fsync for many)."""
    store = CountingStorage(tmp_path / "g.db")
    store.batches = []
    games = _games(store, 10)
    store.batches.clear()

    async def run() -> list[GameRecord]:
        writes = store
        news = [
            writes.create_game(
                game_id=f"new{i}",
                player_id=f"q{i}",
                mode=Mode.SOLO,
                difficulty=None,
                events=[START],
            )
            for i in range(30)
        ]
        rolls = [writes.append(game, [ROLL], status=Status.IN_PROGRESS) for game in games]
        return await asyncio.gather(*news, *rolls)

    records = asyncio.run(run())
    assert [r.version for r in records] == [1] * 30 + [2] * 10
    assert sum(store.batches) == 40
    assert len(store.batches) <= 2  # the first write alone, then everything else at once
    assert asyncio.run(store.get_game("new29")) is not None


def test_f5_a_refused_new_game_in_a_batch_leaves_the_others(tmp_path: Path) -> None:
    """An empty bucket or a kept game refuses its own write only; a kept game still spends
    its token (the refusal counts against the limit)."""
    store = SQLiteStorage(tmp_path / "g.db")

    def charge() -> list[Charge]:
        return [Charge("new_games", "alice", 2, 60.0, 1000.0)]

    def new(i: int, player: str, charges: list[Charge]) -> Any:
        return writes.create_game(
            game_id=f"n{i}",
            player_id=player,
            mode=Mode.SOLO,
            difficulty=None,
            events=[START],
            charges=charges,
        )

    async def run() -> list[Any]:
        return await asyncio.gather(  # type: ignore[return-value]
            new(0, "alice", charge()),  # token 1 of 2
            new(1, "alice", charge()),  # token 2: refused, alice has a game (409)
            new(2, "alice", charge()),  # no token left: 429
            new(3, "bob", []),
            return_exceptions=True,
        )

    writes = store
    first, kept, limited, other = asyncio.run(run())
    assert isinstance(first, GameRecord)
    assert isinstance(kept, GameInProgressError)
    assert isinstance(limited, RateLimitExceededError)
    assert limited.retry_after == 30
    assert isinstance(other, GameRecord)
    assert asyncio.run(store.get_game("n2")) is None
