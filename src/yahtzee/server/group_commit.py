"""Group commit: the appends of concurrent requests share one transaction (F6).

With ``synchronous=FULL`` every commit waits for the disk (an fsync: about a millisecond
on the benchmark machine, several when the disk is busy), which inline on the event loop
would cap the server near one action per fsync and stall every other request meanwhile.
So the appends go to a writer task: it takes everything queued, runs it as one
transaction (:meth:`~yahtzee.storage.Storage.append_many`) in a worker thread (the loop
keeps serving requests while the disk syncs), and answers each request with its own
result. Appends that arrive during a sync form the next batch, so the batch size grows
with the load and one fsync covers many actions. An action is still acknowledged only
after its commit is durable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from yahtzee.game import Game, Status
from yahtzee.storage import Event, GameRecord
from yahtzee.storage.base import Append, BatchAppender


class GroupCommit:
    """Batches :meth:`Storage.append` calls of concurrent requests (see the module doc)."""

    def __init__(self, storage: BatchAppender) -> None:
        self._storage = storage
        self._queue: list[tuple[Append, asyncio.Future[GameRecord]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def append(
        self,
        game: GameRecord,
        events: Sequence[Event],
        *,
        status: Status,
        final: Game | None = None,
    ) -> GameRecord:
        """:meth:`Storage.append`, durable on return, batched with concurrent ones."""
        future: asyncio.Future[GameRecord] = asyncio.get_running_loop().create_future()
        self._queue.append(((game, events, status, final), future))
        if self._writer is None or self._writer.done():
            # A task of its own: a request that goes away (client disconnect) must not
            # take the others' batch with it.
            self._writer = asyncio.create_task(self._write())
        return await future

    async def _write(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                results = await asyncio.to_thread(
                    self._storage.append_many, [append for append, _ in batch]
                )
            except Exception as exc:  # a storage fault: every append of the batch failed
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
