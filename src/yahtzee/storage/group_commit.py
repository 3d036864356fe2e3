"""Group commit: the writes of concurrent requests share one transaction (F6).

Part of the SQLite backend (:class:`~yahtzee.storage.sqlite.SQLiteStorage`); PostgreSQL
flushes the commits of concurrent connections together by itself.

With ``synchronous=FULL`` every commit waits for the disk (an fsync: about a millisecond
on the benchmark machine, several when the disk is busy), which would cap the server near
one write per fsync. So the writes are queued: a drain task takes everything queued, runs
it as one transaction in the backend's writer thread (the event loop keeps serving
requests while the disk syncs), and answers each request with its own result. Writes that
arrive during a sync form the next batch, so the batch size grows with the load and one
fsync covers many of them. A write is still acknowledged only after its commit is durable.

Every write goes this way: the actions' appends, the new games (with their rate-limit
tokens), the tokens of new player ids (F5) and the features' write transactions (a room's
event, a daily result, a group's join: :mod:`yahtzee.storage.feature_db`, A3). A burst of
new games therefore shares fsyncs with the actions (``benchmarks/new_game_burst.py``
measures what players feel).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from yahtzee.storage.base import GameRecord, Write

#: The results of one batch, in order: a header, ``None`` (tokens taken), a feature's
#: result in a 1-tuple, or the refusal of that write alone (a storage fault raises
#: instead, failing the whole batch).
Results = list[GameRecord | Exception | tuple[Any] | None]


class GroupCommit:
    """Batches concurrent writes (see the module docstring). ``run`` makes one durable
    transaction of a batch, off the event loop."""

    def __init__(self, run: Callable[[Sequence[Write]], Awaitable[Results]]) -> None:
        self._run = run
        self._queue: list[tuple[Write, asyncio.Future[Any]]] = []
        self._drainer: asyncio.Task[None] | None = None

    async def write(self, write: Write) -> Any:
        """The result of ``write`` once its batch is durable; its refusal is raised."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((write, future))
        if self._drainer is None or self._drainer.done():
            # A task of its own: a request that goes away (client disconnect) must not
            # take the others' batch with it.
            self._drainer = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                results = await self._run([write for write, _ in batch])
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
