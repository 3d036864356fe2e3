"""W5 across server processes: a race's seats play on different processes on the same
dice (the stream comes from the shared secret, not from a process's memory), and the
race's end lives in the database: when the deadline passes and one process is killed
(``kill -9``) mid-sweep, the other ends every race, once, with the ranking. The servers run
on a clock the test moves (``tests/clocked_server.py``): no test waits for a day."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from server_process import RawClient, ServerProcess

from .test_rooms_pace_multiprocess import _on, clocked

__all__ = ["clocked"]  # (the fixture, shared)

RACES = 6
DAY = 86400


async def _turn(client: RawClient, game: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    """One turn: a roll and the first box allowed; the game after it and the faces."""
    rolled = await client.request(
        "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
    )
    box = next(c for c, o in rolled["preview"].items() if o["allowed"])
    scored = await client.request(
        "POST",
        f"/api/games/{game['id']}/score",
        {"version": rolled["version"], "category": box, "confirm_zero": True},
    )
    return scored, list(rolled["dice"])


def test_w5_races_end_once_on_the_process_left_after_a_kill_at_the_deadline(
    clocked: tuple[list[ServerProcess], Path],
) -> None:
    (first, second), clock = clocked

    async def run() -> None:
        races = []
        for i in range(RACES):
            host = RawClient("127.0.0.1", first.port)
            friend = RawClient("127.0.0.1", second.port)  # (the friend on the other process)
            seats = [{"kind": "human", "name": f"房主{i}"}, {"kind": "human"}]
            room = (await host.request("POST", "/api/rooms", {"seats": seats, "race_days": 1}))[
                "room"
            ]
            token = room["invite_url"].partition("#t=")[2]
            await friend.request(
                "POST", f"/api/rooms/{room['id']}/join", {"token": token, "name": "朋友"}
            )
            room = (await host.request("POST", f"/api/rooms/{room['id']}/start", {}))["room"]
            mine = room["game"]
            theirs = (await friend.request("GET", f"/api/rooms/{room['id']}"))["room"]["game"]
            # the host finishes on the first process; the friend plays two rounds on the
            # second, and rolls the host's faces
            faces = []
            for _ in range(13):
                mine, rolled = await _turn(host, mine)
                faces.append(rolled)
            for round_ in range(2):
                theirs, rolled = await _turn(friend, theirs)
                assert rolled == faces[round_]
            seen = (await friend.request("GET", f"/api/rooms/{room['id']}"))["room"]
            assert [(s["rounds"], s["finished"]) for s in seen["race"]["seats"]] == [
                (13, True),
                (2, False),
            ]
            races.append((host, room, mine, theirs))
        # the deadline passes on both processes' clock; the first is killed as soon as its
        # sweep ended one race (the others it claimed are the second's once the lease ends)
        clock.write_text(str(DAY + 5))
        watch = races[0][0]
        limit = time.monotonic() + 30
        while time.monotonic() < limit:
            got = await watch.request("GET", f"/api/rooms/{races[0][1]['id']}")
            if got["room"]["status"] == "finished":
                break
            await asyncio.sleep(0.05)
        first.kill()
        pending = {
            room["id"]: (_on(second, host), mine, theirs) for host, room, mine, theirs in races
        }
        limit = time.monotonic() + 90
        while pending and time.monotonic() < limit:
            for rid, (host, mine, theirs) in list(pending.items()):
                seen = (await host.request("GET", f"/api/rooms/{rid}"))["room"]
                if seen["status"] != "finished":
                    continue
                pending.pop(rid)
                ranking = seen["race"]["ranking"]
                assert [(e["seat"], e["finished"]) for e in ranking] == [(0, True), (1, False)]
                assert ranking[0]["score"] == mine["seats"][0]["total"]
                assert ranking[1]["score"] == theirs["seats"][0]["total"]
                assert isinstance(ranking[0]["skill_loss"], float)
                assert ranking[1]["skill_loss"] is None
            if pending:
                await asyncio.sleep(0.2)
        assert not pending, f"{len(pending)} races never ended"

    asyncio.run(run())
