"""The CPU pool's turns (issue 28 item 11): the page's reads before the open API's advice,
and fair turns between keys (start-time fair queueing)."""

from __future__ import annotations

import asyncio
import threading
import time

from yahtzee.server.cpu import CpuPool
from yahtzee.storage import run_coroutine


def _work(seconds: float, log: list[str], name: str) -> str:
    time.sleep(seconds)
    log.append(name)
    return name


def test_a_players_read_waits_for_at_most_the_running_advice_job() -> None:
    """60 cookies asking for advice, one job each in the pool's queue: before, another
    player's meter waited behind all of them (FIFO); now only behind the one running."""

    async def main() -> list[str]:
        pool = CpuPool(workers=1, processes=False)
        log: list[str] = []
        flood = [
            asyncio.create_task(pool.run(f"bot{i}", _work, 0.01, log, f"bot{i}", background=True))
            for i in range(60)
        ]
        await asyncio.sleep(0.005)  # the first advice job is running, the others wait
        await pool.run("player", _work, 0.001, log, "meter")
        await asyncio.gather(*flood)
        pool.shutdown()
        return log

    log = run_coroutine(main())
    assert log.index("meter") <= 2, log


def test_a_light_key_goes_before_keys_that_keep_the_workers_busy() -> None:
    """The attack of issue 28 in the pool: 60 keys each asking again as soon as answered;
    another key's job waited behind one job of each (FIFO). Now it goes next: it has used
    the workers least (start-time fair queueing)."""

    async def main() -> tuple[list[str], int]:
        pool = CpuPool(workers=1, processes=False)
        log: list[str] = []

        async def bot(key: str) -> None:
            for n in range(4):
                await pool.run(key, _work, 0.003, log, f"{key}.{n}")

        bots = [asyncio.create_task(bot(f"bot{i}")) for i in range(60)]
        while sum(1 for name in log if name.endswith(".0")) < 60:  # every bot has had a turn
            await asyncio.sleep(0.005)
        asked = len(log)
        await pool.run("player", _work, 0.001, log, "meter")
        await asyncio.gather(*bots)
        pool.shutdown()
        return log, asked

    log, asked = run_coroutine(main())
    assert log.index("meter") - asked <= 2, (asked, log)


def test_a_cancelled_wait_gives_its_turn_on_and_busy_still_counts() -> None:
    async def main() -> None:
        pool = CpuPool(workers=1, max_waiting=64, processes=False)
        gate = threading.Event()
        running = asyncio.create_task(pool.run("a", gate.wait, 5))
        await asyncio.sleep(0.01)
        waiting = asyncio.create_task(pool.run("b", time.sleep, 0))
        await asyncio.sleep(0.01)
        waiting.cancel()
        gate.set()
        await running
        assert await pool.run("c", sum, [1, 2]) == 3  # the worker is free again
        assert pool.waiting == 0
        pool.shutdown()

    run_coroutine(main())
