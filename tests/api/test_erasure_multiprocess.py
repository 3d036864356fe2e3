"""F24 across two real server processes on one PostgreSQL database (issue 35 item 7).

The player to delete creates a room and plays it with a friend (the game in progress,
its position cached by both processes), plays another to its end (its review cached by
both) and asks for a rematch. After 删除我的数据 on one process, everything a seat or a
watcher can read on *either* process — the rooms, their games, the reviews, the records,
the rooms' event streams replayed from their start — and every text column of every
table of the database hold neither the player's name nor its id; also after the friend's
next action through the process whose cached position had the name (no test hook: only
what the processes serve, and the database)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from server_process import (
    NO_LIMIT_ARGS,
    EventStream,
    HttpError,
    RawClient,
    ServerProcess,
    start_together,
)

pytestmark = pytest.mark.parametrize("db", ["postgresql"], indirect=True)

NAME = "删我的名字"
FRIEND = "朋友乙"


@pytest.fixture
def servers(db: Path | str, tmp_path: Path, table: object) -> Iterator[list[ServerProcess]]:
    """Two server processes on one fresh PostgreSQL database (the solver's table built
    first: the reviews need it)."""
    del table
    args = ["--secret-file", str(tmp_path / "cookie.secret"), *NO_LIMIT_ARGS]
    started = start_together(
        [ServerProcess(db, log=tmp_path / f"server{i}.log", args=args) for i in range(2)]
    )
    yield started
    for server in started:
        server.stop()


def _token(url: str) -> str:
    return url.partition("#")[2].partition("=")[2]


class Browser:
    """One browser (one cookie) that can talk to either process."""

    def __init__(self, ports: list[int]) -> None:
        self.clients = [RawClient("127.0.0.1", port) for port in ports]
        self.ports = ports

    async def request(self, where: int, method: str, path: str, body: Any = None) -> Any:
        client = self.clients[where]
        client.cookie = next((c.cookie for c in self.clients if c.cookie), None)
        # A connection of its own each time: on a loaded machine an idle keep-alive one may
        # be closed by the server (its 5 s) just as it is used again.
        await client.close()
        answer = await client.request(method, path, body)
        for other in self.clients:
            other.cookie = client.cookie
        return answer

    async def text(self, where: int, path: str) -> str:
        return json.dumps(await self.request(where, "GET", path), ensure_ascii=False)

    async def stream(self, where: int, room_id: str, token: str | None, last: int) -> str:
        """The room's stream replayed from its start up to event ``last``."""
        path = f"/api/rooms/{room_id}/events" + (f"?token={token}" if token else "")
        stream = EventStream(
            "127.0.0.1", self.ports[where], path, cookie=self.clients[where].cookie
        )
        assert await stream.open() == 200
        frames = []
        try:
            while True:
                seq, data = await stream.next()
                frames.append(json.dumps(data, ensure_ascii=False))
                if seq >= last:
                    return "\n".join(frames)
        finally:
            await stream.close()

    async def close(self) -> None:
        for client in self.clients:
            await client.close()


async def _act(who: Browser, where: int, game: dict[str, Any]) -> dict[str, Any]:
    gid = game["id"]
    if game["dice"] is None or game["rolls_left"] == 3:
        answer: dict[str, Any] = await who.request(
            where, "POST", f"/api/games/{gid}/roll", {"version": game["version"]}
        )
        return answer
    box = next(c for c, o in game["preview"].items() if o["allowed"])
    body = {"version": game["version"], "category": box, "confirm_zero": True}
    scored: dict[str, Any] = await who.request(where, "POST", f"/api/games/{gid}/score", body)
    return scored


async def _room(me: Browser, friend: Browser) -> dict[str, Any]:
    seats = [
        {"kind": "human", "name": NAME},
        {"kind": "human"},
        {"kind": "computer", "difficulty": "novice"},
    ]
    room: dict[str, Any] = (
        await me.request(0, "POST", "/api/rooms", {"seats": seats, "turn_seconds": 300})
    )["room"]
    body = {"token": _token(room["invite_url"]), "name": FRIEND}
    await friend.request(0, "POST", f"/api/rooms/{room['id']}/join", body)
    return room


def _scan(url: str, needles: list[str]) -> list[tuple[str, str]]:
    """Every (table, row) of the database whose text holds one of ``needles``."""
    found = []
    with psycopg.connect(url) as pg:
        tables = [
            r[0]
            for r in pg.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            ).fetchall()
        ]
        for table in tables:
            for (row,) in pg.execute(f"SELECT t::text FROM {table} t").fetchall():
                if any(needle in row for needle in needles):
                    found.append((table, row[:200]))
    return found


def test_f24_nothing_of_a_deleted_player_on_either_process_or_in_the_database(
    servers: list[ServerProcess], db: str
) -> None:
    ports = [s.port for s in servers]

    async def main() -> None:
        me, friend, watcher = Browser(ports), Browser(ports), Browser(ports)
        by_seat = {0: me, 1: friend}
        live = await _room(me, friend)
        game = (await me.request(0, "POST", f"/api/rooms/{live['id']}/start", {}))["room"]["game"]
        turn = 0
        while game["turn"] != 1 or game["dice"] is not None:  # to the friend's turn, unrolled
            game = await _act(by_seat[game["turn"]], turn % 2, game)
            turn += 1
        over = await _room(me, friend)
        done = (await me.request(1, "POST", f"/api/rooms/{over['id']}/start", {}))["room"]
        done = done["game"]
        while done["status"] == "in_progress":
            done = await _act(by_seat[done["turn"]], turn % 2, done)
            turn += 1
        again = (await me.request(0, "POST", f"/api/rooms/{over['id']}/rematch", {}))["room"]
        player = (await me.request(0, "GET", "/api/me/export"))["player_id"]

        async def readable(where: int) -> str:
            texts = [await friend.text(where, "/api/rooms")]
            for room_id in (live["id"], over["id"], again["id"]):
                room = (await friend.request(where, "GET", f"/api/rooms/{room_id}"))["room"]
                texts.append(json.dumps(room, ensure_ascii=False))
                texts.append(await friend.stream(where, room_id, None, room["last_event_id"]))
            texts.append(await friend.text(where, f"/api/games/{game['id']}"))
            texts.append(await friend.text(where, f"/api/games/{done['id']}"))
            for seat in (0, 1):
                texts.append(
                    await friend.text(where, f"/api/games/{done['id']}/review?seat={seat}")
                )
            texts.append(await friend.text(where, "/api/records"))
            for room in (live, over):
                token = _token(room["watch_url"])
                seen = await watcher.request(where, "GET", f"/api/rooms/{room['id']}?token={token}")
                texts.append(json.dumps(seen, ensure_ascii=False))
                last = seen["room"]["last_event_id"]
                texts.append(await watcher.stream(where, room["id"], token, last))
            return "\n".join(texts)

        for where in (0, 1):  # both processes hold positions and reviews with the name
            assert NAME in await readable(where)
        assert _scan(db, [NAME])

        await me.request(0, "POST", "/api/me/delete", {"confirm": True})

        for where in (0, 1):
            seen = await readable(where)
            assert NAME not in seen, where
            assert player not in seen, where
            assert FRIEND in seen
        # the friend's next action through the process that had the position cached (the
        # other one read it again above: both did; here through each in turn)
        for where in (1, 0):
            refused: HttpError | None = None
            try:
                game = await _act(friend, where, game)
            except HttpError as exc:
                refused = exc
            if refused is not None:
                assert (refused.status, b"stale_version" in refused.body) == (409, True)
                game = await friend.request(where, "GET", f"/api/games/{game['id']}")
                game = await _act(friend, where, game)
            assert NAME not in json.dumps(game, ensure_ascii=False)
        for where in (0, 1):
            seen = await readable(where)
            assert NAME not in seen
            assert player not in seen
        assert _scan(db, [NAME, player]) == []
        for browser in (me, friend, watcher):
            await browser.close()

    asyncio.run(main())
