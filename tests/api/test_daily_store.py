"""The daily tables (storage.daily) on SQLite and PostgreSQL: boards ordered and ranked (D4)."""

from __future__ import annotations

import asyncio
import random
from datetime import date
from pathlib import Path

from yahtzee.storage.daily import DailyStore, Result
from yahtzee.storage.feature_db import open_feature_db

DAY = date(2026, 12, 1)


def test_d4_day_board_order_rank_and_own_entry_outside_the_top(db: Path | str) -> None:
    async def scenario() -> None:
        store = DailyStore(open_feature_db(db), b"k" * 32)
        await store.open()
        rng = random.Random(7)
        expected = []
        for i in range(60):
            player = f"p{i:03d}"
            await store.claim(DAY, player, f"g{i:03d}", f"名{i}")
            loss = float(rng.choice([0.0, 1.5, 3.25, 7.0, 12.5]))  # many ties on the loss
            finished = f"2026-12-01T0{rng.randrange(10)}:{rng.randrange(60):02d}:00+00:00"
            await store.record_result(
                f"g{i:03d}", Result(200 + i, loss, 100 - loss, 0.0, "b" * 13, finished)
            )
            expected.append((loss, finished, player))
        # one unfinished play and one without a result: never on a board
        await store.claim(DAY, "late", "g-late", "迟到")
        expected.sort()
        order = [p for _, _, p in expected]
        for me in ("p000", order[-1], order[30]):
            board = await store.day_board(DAY, me, 10)
            assert board.players == 60
            assert [e.name for e in board.entries] == [f"名{int(p[1:])}" for p in order[:10]]
            assert [e.rank for e in board.entries] == list(range(1, 11))
            assert board.you is not None
            assert board.you.rank == order.index(me) + 1
            assert board.you.you
        assert (await store.day_board(DAY, "late", 5)).you is None
        assert (await store.day_board(DAY, "nobody", 5)).you is None
        # a second result for the same game changes nothing (recorded once)
        first = await store.play(DAY, "p000")
        await store.record_result("g000", Result(1, 0.0, 100.0, 0.0, "x" * 13, "2026-12-01T23:00"))
        assert await store.play(DAY, "p000") == first
        # the week: means over the days played, by mean accuracy
        other = date(2026, 12, 2)
        await store.claim(other, "p001", "g-2", None)
        await store.record_result("g-2", Result(250, 0.0, 100.0, 0.0, "b" * 13, "2026-12-02T01"))
        week = await store.week_board(other, "p001", 100)
        mine = week.you
        assert mine is not None
        assert mine.days == 2
        accuracies = [e.accuracy for e in week.entries]
        assert accuracies == sorted(accuracies, reverse=True)
        assert week.players == 60
        await store.db.close()

    asyncio.run(scenario())


def test_d2_one_claim_per_day_and_player(db: Path | str) -> None:
    async def scenario() -> None:
        store = DailyStore(open_feature_db(db), b"k" * 32)
        await store.open()
        first = await store.claim(DAY, "p", "game-1", "小明")
        second = await store.claim(DAY, "p", "game-2", None)
        assert first.game_id == second.game_id == "game-1"
        await store.unclaim(DAY, "p", "game-2")  # not the standing claim: nothing happens
        play = await store.play(DAY, "p")
        assert play is not None
        assert play.game_id == "game-1"
        assert (await store.claim(date(2026, 12, 2), "p", "game-3", None)).game_id == "game-3"
        await store.db.close()

    asyncio.run(scenario())
