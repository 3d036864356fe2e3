"""The daily tables (storage.daily) on SQLite and PostgreSQL: boards ordered and ranked
(D4), and the one attempt a day claimed in the game's own transaction (D2)."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path

import pytest

from yahtzee import log
from yahtzee.daily.store import MIGRATIONS, DailyStore, Result
from yahtzee.errors import GameInProgressError
from yahtzee.game import Mode, Status
from yahtzee.storage import Storage, invites, open_storage, run_coroutine
from yahtzee.storage.base import ClaimRefusedError

DAY = date(2026, 12, 1)
Scenario = Callable[[Storage, DailyStore], Awaitable[None]]


def _with(db: Path | str, body: Scenario) -> None:
    """The games' storage and the daily store of ``db``, opened, for ``body``."""

    async def main() -> None:
        storage = open_storage(db, schema=[invites.MIGRATIONS, MIGRATIONS])
        await storage.open()
        store = DailyStore(storage.features(), b"k" * 32)  # (the app's way: one storage)
        try:
            await body(storage, store)
        finally:
            await storage.close()

    run_coroutine(main())


async def _start(
    storage: Storage,
    store: DailyStore,
    day: date,
    player: str,
    game: str,
    name: str | None,
    *,
    replace: bool = False,
) -> None:
    """The day's game of ``player`` with its claim, as the daily service starts it."""
    await storage.create_game(
        game_id=game,
        player_id=player,
        mode=Mode.SOLO,
        difficulty=None,
        events=[log.Start.of(Mode.SOLO, None)],
        replace=replace,
        claim=store.claim(day, player, game, name),
    )


def test_d4_day_board_order_rank_and_own_entry_outside_the_top(db: Path | str) -> None:
    async def scenario(storage: Storage, store: DailyStore) -> None:
        rng = random.Random(7)
        expected = []
        for i in range(60):
            player = f"p{i:03d}"
            await _start(storage, store, DAY, player, f"g{i:03d}", f"名{i}")
            loss = float(rng.choice([0.0, 1.5, 3.25, 7.0, 12.5]))  # many ties on the loss
            finished = f"2026-12-01T0{rng.randrange(10)}:{rng.randrange(60):02d}:00+00:00"
            await store.record_result(
                f"g{i:03d}", Result(200 + i, loss, 100 - loss, 0.0, "b" * 13, finished)
            )
            # by skill loss, then score, never the finishing time (F13)
            expected.append((loss, -(200 + i), player))
        # one unfinished play and one without a result: never on a board
        await _start(storage, store, DAY, "late", "g-late", "迟到")
        expected.sort()
        order = [p for _, _, p in expected]
        for me in ("p000", order[-1], order[30]):
            board = await store.board(DAY, me, 10)
            assert board.players == 60
            assert [e.name for e in board.entries] == [f"名{int(p[1:])}" for p in order[:10]]
            assert [e.rank for e in board.entries] == list(range(1, 11))
            assert board.you is not None
            assert board.you.rank == order.index(me) + 1
            assert board.you.you
        assert (await store.board(DAY, "late", 5)).you is None
        assert (await store.board(DAY, "nobody", 5)).you is None
        # a second result for the same game changes nothing (recorded once)
        first = await store.play(DAY, "p000")
        await store.record_result("g000", Result(1, 0.0, 100.0, 0.0, "x" * 13, "2026-12-01T23:00"))
        assert await store.play(DAY, "p000") == first
        # the week: means over the days played, by mean accuracy
        other = date(2026, 12, 2)
        await _start(storage, store, other, "p001", "g-2", None, replace=True)
        await store.record_result("g-2", Result(250, 0.0, 100.0, 0.0, "b" * 13, "2026-12-02T01"))
        week = await store.board(other, "p001", 100, week=True)
        mine = week.you
        assert mine is not None
        assert mine.days == 2
        accuracies = [e.accuracy for e in week.entries]
        assert accuracies == sorted(accuracies, reverse=True)
        assert week.players == 60

    _with(db, scenario)


def test_d2_one_claim_per_day_and_player(db: Path | str) -> None:
    async def scenario(storage: Storage, store: DailyStore) -> None:
        await _start(storage, store, DAY, "p", "game-1", "小明")
        # A second attempt, even replacing the game in progress: refused, nothing written
        # (the first game is not abandoned, there is no second game).
        with pytest.raises(ClaimRefusedError):
            await _start(storage, store, DAY, "p", "game-2", None, replace=True)
        first = await storage.get_game("game-1")
        assert first is not None
        assert first.status is Status.IN_PROGRESS
        assert await storage.get_game("game-2") is None
        play = await store.play(DAY, "p")
        assert play is not None
        assert play.game_id == "game-1"
        assert await store.name("p") == "小明"
        # Another day is another attempt.
        await _start(storage, store, date(2026, 12, 2), "p", "game-3", None, replace=True)
        later = await store.play(date(2026, 12, 2), "p")
        assert later is not None
        assert later.game_id == "game-3"
        # No name yet and none given: refused, neither a play nor a game.
        with pytest.raises(ClaimRefusedError):
            await _start(storage, store, DAY, "q", "game-4", None)
        assert await store.play(DAY, "q") is None
        assert await storage.get_game("game-4") is None
        # A game kept by the player refuses before the claim: nothing claimed.
        await storage.create_game(
            game_id="ordinary",
            player_id="r",
            mode=Mode.SOLO,
            difficulty=None,
            events=[log.Start.of(Mode.SOLO, None)],
        )
        with pytest.raises(GameInProgressError):
            await _start(storage, store, DAY, "r", "game-5", "小红")
        assert await store.play(DAY, "r") is None

    _with(db, scenario)
