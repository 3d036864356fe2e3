"""Group commit: the writes of concurrent requests share one transaction (F6).

With ``synchronous=FULL`` every commit waits for the disk (an fsync: about a millisecond
on the benchmark machine, several when the disk is busy), which inline on the event loop
would cap the server near one write per fsync and stall every other request meanwhile.
So the writes go to a writer task: it takes everything queued, runs it as one
transaction (:meth:`~yahtzee.storage.base.BatchWriter.write_many`) in a worker thread (the
loop keeps serving requests while the disk syncs), and answers each request with its own
result. Writes that arrive during a sync form the next batch, so the batch size grows
with the load and one fsync covers many of them. A write is still acknowledged only after
its commit is durable.

Every write of the SQLite backend goes this way: the game actions' appends, the new games
(``POST /api/games``, with their rate-limit tokens) and the tokens of new player ids (F5).
A burst of new games therefore shares fsyncs with the actions instead of taking one each
on the event loop (``benchmarks/new_game_burst.py`` measures what players feel).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from yahtzee.game import Game, Mode, Status
from yahtzee.log import Event
from yahtzee.players import Difficulty
from yahtzee.storage import GameRecord
from yahtzee.storage.base import BatchWriter, Charge, NewGame, TakeTokens, Write


class GroupCommit:
    """Batches the writes of concurrent requests (see the module docstring). Its methods
    are those of :class:`~yahtzee.storage.base.Storage` they stand for."""

    def __init__(self, storage: BatchWriter) -> None:
        self._storage = storage
        self._queue: list[tuple[Write, asyncio.Future[Any]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def append(
        self,
        game: GameRecord,
        events: Sequence[Event],
        *,
        status: Status,
        final: Game | None = None,
    ) -> GameRecord:
        """:meth:`Storage.append`, durable on return, batched with concurrent writes."""
        result: GameRecord = await self._write((game, events, status, final))
        return result

    async def create_game(
        self,
        *,
        game_id: str,
        player_id: str,
        mode: Mode,
        difficulty: Difficulty | None,
        events: Sequence[Event],
        replace: bool = False,
        charges: Sequence[Charge] = (),
    ) -> GameRecord:
        """:meth:`Storage.create_game`, durable on return, batched with concurrent writes."""
        new = NewGame(game_id, player_id, mode, difficulty, events, replace, charges)
        result: GameRecord = await self._write(new)
        return result

    async def take(self, charges: Sequence[Charge]) -> None:
        """:meth:`Storage.take`, batched with concurrent writes."""
        if charges:
            await self._write(TakeTokens(charges))

    async def _write(self, write: Write) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((write, future))
        if self._writer is None or self._writer.done():
            # A task of its own: a request that goes away (client disconnect) must not
            # take the others' batch with it.
            self._writer = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                results = await asyncio.to_thread(
                    self._storage.write_many, [write for write, _ in batch]
                )
            except Exception as exc:  # a storage fault: every write of the batch failed
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), result in zip(batch, results, strict=True):
                if future.done():
                    continue
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)
