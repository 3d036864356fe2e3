"""F6: with synchronous=FULL, concurrent actions share one transaction (group commit)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from yahtzee.errors import StaleVersionError
from yahtzee.game import Mode, Status
from yahtzee.server.group_commit import GroupCommit
from yahtzee.storage import Event, GameRecord, SQLiteStorage
from yahtzee.storage.base import Append

ROLL = Event("roll", {"seat": "human", "hold": [False] * 5, "faces": [1, 2, 3, 4, 5]})


def _games(store: SQLiteStorage, n: int) -> list[GameRecord]:
    return [
        asyncio.run(
            store.create_game(
                game_id=f"g{i}",
                player_id=f"p{i}",
                mode=Mode.SOLO,
                difficulty=None,
                events=[Event("start", {"mode": "solo", "difficulty": None})],
            )
        )
        for i in range(n)
    ]


class CountingStorage(SQLiteStorage):
    """Counts the transactions of append_many."""

    batches: list[int]

    def append_many(self, appends: Sequence[Append]) -> list[GameRecord | Exception]:
        self.batches.append(len(appends))
        return super().append_many(appends)


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

    async def run() -> list[GameRecord]:
        writes = GroupCommit(store)
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
        writes = GroupCommit(store)
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
