"""W1 across server processes: waiting rooms' deadlines live in the database, so two real
server processes on one database (both backends) play every due turn once, and when one
is killed (``kill -9``) while the turns are due — some claimed by its sweep — the other
plays them all. The servers run on a clock the test moves (``tests/clocked_server.py``):
an hour passes by writing a number, no test sleeps for it."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_smoke import quick_figures
from server_process import NO_LIMIT_ARGS, RawClient, ServerProcess, start_together

CLOCKED = Path(__file__).resolve().parents[1] / "clocked_server.py"
ROOMS = 12


@pytest.fixture
def clocked(db: Path | str, tmp_path: Path) -> Iterator[tuple[list[ServerProcess], Path]]:
    """Two clocked server processes on one fresh database, and their clock's file."""
    clock = tmp_path / "clock"
    clock.write_text("0")
    args = ["--secret-file", str(tmp_path / "cookie.secret"), *NO_LIMIT_ARGS]
    program = (sys.executable, str(CLOCKED), "--clock-file", str(clock))
    started = start_together(
        [
            ServerProcess(db, log=tmp_path / f"server{i}.log", program=program, args=args)
            for i in range(2)
        ]
    )
    yield started, clock
    for server in started:
        server.stop()


def _on(server: ServerProcess, client: RawClient) -> RawClient:
    """The same browser (its cookie) on another process."""
    moved = RawClient("127.0.0.1", server.port)
    moved.cookie = client.cookie
    return moved


async def _rooms(server: ServerProcess) -> list[tuple[RawClient, RawClient, dict[str, Any]]]:
    """``ROOMS`` started rooms of an hour's pace (a host and a friend each), made on
    ``server``; the host's turn is on."""
    out = []
    for i in range(ROOMS):
        host, friend = RawClient("127.0.0.1", server.port), RawClient("127.0.0.1", server.port)
        seats = [{"kind": "human", "name": f"房主{i}"}, {"kind": "human"}]
        room = (await host.request("POST", "/api/rooms", {"seats": seats, "pace": "1h"}))["room"]
        token = room["invite_url"].partition("#t=")[2]
        await friend.request(
            "POST", f"/api/rooms/{room['id']}/join", {"token": token, "name": "朋友"}
        )
        started = await host.request("POST", f"/api/rooms/{room['id']}/start", {})
        out.append((host, friend, started["room"]))
    return out


def test_w1_due_turns_are_played_once_by_the_process_left_after_a_kill(
    clocked: tuple[list[ServerProcess], Path],
) -> None:
    (first, second), clock = clocked

    async def run() -> None:
        rooms = await _rooms(first)
        for _, _, room in rooms:
            assert room["pace"] == "1h"
            assert room["game"]["turn"] == 0
            assert abs(room["deadline"] - room["now"] - 3600) < 5
        # an hour and a bit later on both processes' clock; then the first dies at once,
        # mid-sweep or not (the rooms it claimed are the second's once its lease ends)
        clock.write_text(str(3600 + 5))
        await asyncio.sleep(0.3)  # (the sweeps run every half second in the servers)
        first.kill()
        deadline = time.monotonic() + 90
        pending = {room["id"]: _on(second, host) for host, _, room in rooms}
        while pending and time.monotonic() < deadline:
            for rid, host in list(pending.items()):
                seen = (await host.request("GET", f"/api/rooms/{rid}"))["room"]
                # (a turn played by the killed process just before its kill -9 may show
                # in the game before the room's log has it: the survivor's sweep catches
                # the room up, with the friend's deadline, once the claim's lease ends)
                if seen["game"]["turn"] != 1 or seen["deadline"] <= seen["now"]:
                    continue
                pending.pop(rid)
                # played once: the host's card has one box; the friend's hour is on
                boxes = seen["game"]["seats"][0]["scores"]
                assert sum(1 for v in boxes.values() if v is not None) == 1, boxes
                assert seen["seats"][0]["away"] is False  # (one missed turn of three)
                assert seen["deadline"] > seen["now"] + 3000
            if pending:
                await asyncio.sleep(0.2)
        assert not pending, f"{len(pending)} due turns never played, or their rooms never caught up"
        # 「轮到你了」 on the process left: every game waits for its friend
        for _, friend, room in rooms:
            listed = await _on(second, friend).request("GET", "/api/rooms/turns")
            assert [(g["room_id"], g["your_turn"]) for g in listed["games"]] == [(room["id"], True)]

    asyncio.run(run())


def test_w1_the_waiting_rooms_benchmark_quick_mode_plays_every_turn_on_time() -> None:
    """``benchmarks/waiting_rooms_bench.py --quick``: every due turn played, none early,
    each within its few seconds (the figures of a full run are in docs/benchmarks.md)."""
    figures = quick_figures("waiting_rooms_bench.py")
    assert figures["rooms"] == 40
    assert figures["not_played"] == 0
    assert figures["early"] == 0
    assert figures["late_max_s"] <= 5.0
    assert figures["click_ms_during"]["n"] > 0
    assert figures["failures"] == []
