"""好友房间 on the production stack (O4): nginx, two app processes, PostgreSQL. The room's
streams go through nginx unbuffered; ``kill -9`` of an app process mid-game: its streams
reconnect through nginx, to the other process, with ``Last-Event-ID``, miss nothing, and
the game goes on."""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

from bench_smoke import quick_figures, run_quick_status
from server_process import EventStream, HttpError, RawClient, Stack

from .test_rooms_multiprocess import _act, _room, _until_version
from .test_stack import stack  # noqa: F401 (the stack fixture: PostgreSQL, 2 apps, nginx)

RECONNECTED: list[str] = []  # the streams that broke and came back, in this test


async def _drain(stream: EventStream, version: int) -> list[tuple[int, dict[str, Any]]]:
    """Events up to the game at ``version``; a stream that breaks reconnects through
    nginx with its last id (as a browser's EventSource does)."""
    got: list[tuple[int, dict[str, Any]]] = []
    for _ in range(5):
        try:
            got += await _until_version(stream, version)
            return got
        except (ConnectionError, asyncio.IncompleteReadError):
            RECONNECTED.append(stream.path)
            assert await stream.reopen() == 200
    raise AssertionError("the stream did not come back")


def _code(exc: HttpError) -> str | None:
    """The error code of an answer in the API's error shape (``None`` for another body)."""
    try:
        code: str = json.loads(exc.body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None
    return code


async def _act_again(
    clients: dict[int, RawClient], game: dict[str, Any], room_id: str
) -> dict[str, Any]:
    """One action, as a page does it after a process died: a POST that met the dead
    process on a kept-alive connection is answered 503 ``unavailable`` by nginx (it does
    not resend a POST, and it cannot know whether the action was done: S4); the page reads
    the room again (from the live process) and acts on what it shows."""
    for _ in range(5):
        try:
            return await _act(clients, game)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except HttpError as exc:
            if exc.status != 409 and (exc.status, _code(exc)) != (503, "unavailable"):
                raise
        room = await clients[0].request("GET", f"/api/rooms/{room_id}")
        game = room["room"]["game"]
    raise AssertionError("no action went through")


def _served_port(on: Stack, path_head: str) -> int:
    """The app port that last served a request whose path begins with ``path_head``
    (nginx writes its access-log line just after the answer)."""
    for _ in range(100):
        ports = [p for _c, p, _m, uri in on.served() if uri.startswith(path_head) and p]
        if ports:
            return ports[-1]
        time.sleep(0.05)
    raise AssertionError(f"nginx logged no request for {path_head}")


def test_o4_kill_9_of_an_app_process_mid_game_streams_reconnect_and_miss_nothing(
    stack: Stack,  # noqa: F811 (the imported fixture)
) -> None:
    async def main() -> None:
        port = stack.port
        host = RawClient("127.0.0.1", port)
        friend = RawClient("127.0.0.1", port)
        room = await _room(host, friend)
        rid, game = room["id"], room["game"]
        assert game["id"].startswith(rid)  # (nginx's key for the room's process)
        clients = {0: host, 1: friend}
        path = f"/api/rooms/{rid}/events"
        streams = [EventStream("127.0.0.1", port, path, cookie=c.cookie) for c in (host, friend)]
        watch = room["watch_url"].partition("#w=")[2]
        # Watchers with cookies of their own: nginx sends every stream of the room, whoever
        # holds it, to the room's process, as it does the game's actions.
        streams += [
            EventStream("127.0.0.1", port, f"{path}?token={watch}", cookie=f"yahtzee_player=w{i}")
            for i in range(8)
        ]
        for s in streams:
            assert await s.open() == 200
        seen: list[list[tuple[int, dict[str, Any]]]] = [[] for _ in streams]
        for _ in range(4):
            game = await _act(clients, game)
        for i, s in enumerate(streams):
            seen[i] += await _drain(s, game["version"])
        # kill -9 the room's process (the one that served its game's actions): every
        # stream breaks and comes back through nginx, on the other process
        served = _served_port(stack, f"/api/games/{game['id']}/")
        pid = int((stack.dir / f"app-{served}.pid").read_text())
        os.kill(pid, 9)
        for _ in range(10):
            game = await _act_again(clients, game, rid)
        before = len(RECONNECTED)
        for i, s in enumerate(streams):
            seen[i] += await _drain(s, game["version"])
        assert len(RECONNECTED) - before == len(streams)  # all of them, on the other process
        assert _served_port(stack, f"/api/games/{game['id']}/") != served
        fresh = EventStream("127.0.0.1", port, path, cookie=host.cookie)
        assert await fresh.open() == 200
        log = await _until_version(fresh, game["version"])
        for got in seen:
            assert got == log  # every event once, in order, on every stream
        assert [i for i, _ in log] == list(range(1, len(log) + 1))
        for s in (*streams, fresh):
            await s.close()
        await host.close()
        await friend.close()

    asyncio.run(main())


def test_o4_rooms_benchmark_quick_run_prints_sound_figures() -> None:
    """benchmarks/rooms_bench.py --quick (20 rooms, 80 streams, a kill -9): no event lost
    or duplicated, every figure there (no timing asserted: the machine is shared)."""
    figures = quick_figures("rooms_bench.py")
    assert figures["streams"] == 80
    assert figures["actions"] > 0
    assert figures["deliveries"] > 0
    assert (figures["lost"], figures["duplicated"], figures["missing"]) == (0, 0, 0)
    assert figures["not_stored"] == 0
    assert figures["reconnected_streams"] > 0  # the killed process's streams came back
    assert figures["memory_per_idle_stream_kb"] > 0
    # S3: the click's own wait is a figure with its target, and every process's CPU is read
    assert figures["click_p50_ms"] <= figures["click_p99_ms"]
    assert figures["targets_ms"]["click_p99"] > 0
    assert {"app1", "app2", "postgresql", "nginx", "clients"} <= set(figures["cpu_cores"])
    assert figures["failed"] == 0
    assert figures["missed"] == []


def test_s3_rooms_benchmark_exits_non_zero_on_a_failed_action_or_a_missed_target() -> None:
    """S3: a failed action (two sent with a stale version, as a double click would) and a
    missed click target (p99 ≤ 0 ms, which nothing meets) are counted, by status and code,
    and make the run exit 1 (it exited 0 with 75 failed actions before)."""
    status, out, err = run_quick_status(
        "rooms_bench.py", "--json", "--no-kill", "--inject-stale", "2", "--click-p99-ms", "0"
    )
    assert status == 1, out + err
    figures = json.loads(out)
    assert figures["failures"] == {"409 stale_version": 2}
    assert figures["failed"] == 2
    assert {"failed", "click_p99"} <= set(figures["missed"])
    assert (figures["lost"], figures["duplicated"], figures["missing"]) == (0, 0, 0)
