"""K2: a game says what it is (solo, vs, table, room, daily, tutorial), stored with it, and
the records, the lobby's recent games, 统计 and 复盘 follow it; on SQLite and PostgreSQL.

Before K2 nothing in a game said what it was: a finished 每日挑战 was counted as a 单人挑战
(新纪录, 单人最高分), a 好友房间 game was listed as 多人同屏, and the moves the computer made
for an absent person (托管) were reviewed as that person's own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import psycopg
from fastapi.testclient import TestClient

from yahtzee import log
from yahtzee.game import Mode, SeatKind
from yahtzee.i18n import Lang, text
from yahtzee.rooms.service import room_of
from yahtzee.storage import is_postgres_url, open_storage, run_coroutine
from yahtzee.storage.sql import dumps

from .helpers import on_app_loop
from .old_schema import postgres_at, sqlite_at
from .test_daily import _finish
from .test_rooms import Clock, _play, _rooms, _seats, _token

NOON = datetime(2026, 12, 1, 2, 0, tzinfo=UTC).timestamp()  # 10:00 in Shanghai


def test_k2_a_finished_daily_is_never_a_solo_record_and_is_listed_as_daily(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(clock=lambda: NOON)
    game = client.post("/api/daily", json={"name": "小明"}).json()
    final = _finish(client, game)
    assert final["new_record"] is False  # the first finished game, yet no 新纪录 (U7)
    records = client.get("/api/records").json()
    assert records["best_score"] is None  # 单人最高分 counts 单人挑战 only
    assert game["kind"] == final["kind"] == "daily"
    [line] = records["recent"]
    assert line["id"] == final["id"]
    assert line["kind"] == "daily"
    assert records["games_played"] == 1
    assert client.get(f"/api/games/{final['id']}/review").json()["kind"] == "daily"  # 复盘
    stats = client.get("/api/stats").json()
    assert stats["solo"]["games"] == 0
    assert stats["daily"]["games"] == 1
    assert stats["daily"]["best"] == final["players"]["human"]["total"]
    # a solo game afterwards is the first solo record, whatever the daily's total was
    solo = client.post("/api/games", json={"mode": "solo"}).json()
    assert solo["kind"] == "solo"
    solo = _finish(client, solo)
    assert solo["new_record"] is True
    records = client.get("/api/records").json()
    assert records["best_score"] == solo["players"]["human"]["total"]
    assert [line["kind"] for line in records["recent"]] == ["solo", "daily"]


def test_k2_the_kinds_names_come_from_the_server(client: TestClient) -> None:
    kinds = client.get("/api/config").json()["kinds"]
    # (G1: names are catalog keys, each said in the reader's language by the page)
    assert {kind: text(Lang.ZH_HANS, key) for kind, key in kinds.items()} == {
        "solo": "单人挑战",
        "vs_computer": "人机对战",
        "table": "多人同屏",
        "room": "好友房间",
        "daily": "每日挑战",
        "tutorial": "新手教程",
        "race": "同骰竞速",
    }


def test_k2_a_room_game_is_listed_as_a_room_game(make_client: Callable[..., TestClient]) -> None:
    host, friend = make_client(), make_client()
    rid = host.post("/api/rooms", json={"seats": _seats("open")}).json()["room"]["id"]
    room = host.get(f"/api/rooms/{rid}").json()["room"]
    friend.post(
        f"/api/rooms/{rid}/join", json={"token": _token(room["invite_url"], "t"), "name": "小红"}
    )
    game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    assert game["kind"] == "room"
    final = _play({0: host, 1: friend}, game)
    for client in (host, friend):
        [line] = client.get("/api/records").json()["recent"]
        assert line["id"] == final["id"]
        assert line["kind"] == "room"
        assert line["mode"] == "table"  # the rules' shape stays a table's
    # an ordinary 多人同屏 game stays one
    table = host.post(
        "/api/games",
        json={
            "mode": "table",
            "seats": [{"kind": "human", "name": "甲"}, {"kind": "human", "name": "乙"}],
        },
    ).json()
    assert table["kind"] == "table"


def test_k2_the_moves_of_autopilot_are_the_computers_in_the_review(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    room = host.post("/api/rooms", json={"seats": _seats("open"), "turn_seconds": 10}).json()
    rid = room["room"]["id"]
    friend.post(
        f"/api/rooms/{rid}/join",
        json={"token": _token(room["room"]["invite_url"], "t"), "name": "慢"},
    )
    game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    # the host rolls once and goes away: 托管 plays the rest of that turn (its keep and box)
    game = host.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]}).json()
    clock.now += 11
    on_app_loop(host, _rooms(host).sweep)
    game = host.get(f"/api/games/{game['id']}").json()
    assert game["turn"] == 1
    final = _play({0: host, 1: friend}, game)  # the host is back from round 2 on
    review = host.get(f"/api/games/{final['id']}/review", params={"seat": 0}).json()
    assert review["kind"] == "room"
    first = [d for d in review["decisions"] if d["round"] == 1]
    later = [d for d in review["decisions"] if d["round"] > 1]
    assert first, "托管 made round 1's decisions"
    assert all(d["proxy"] is True for d in first)
    assert all(d["proxy"] is False for d in later)
    # not credited to the person: their figures are over their own decisions only
    own = [d for d in review["decisions"] if not d["proxy"]]
    assert abs(review["skill_loss"] - sum(d["loss"] for d in own)) < 0.001
    assert abs(review["proxy_loss"] - sum(d["loss"] for d in first)) < 0.001
    assert review["proxy_loss"] > 0 or all(d["mark"] == "best" for d in first)
    assert sum(review["counts"].values()) == len(own)
    # L2 still adds up: start + luck - (own loss + 托管's loss) = final
    total = review["start_value"] + review["luck"] - review["skill_loss"] - review["proxy_loss"]
    assert abs(total - review["final_score"]) < 0.01


# -- the migration of an old database ---------------------------------------------------

PLAYER = "q" * 32
NOW = "2026-11-30T10:00:00.000000+00:00"


def _start(mode: Mode, seats: tuple[log.Seat, ...] | None = None, day: date | None = None) -> str:
    if seats is None:
        seats = log.Start.of(mode, "expert" if mode is Mode.VS_COMPUTER else None).seats
    return dumps(log.Start(mode, seats, day).to_json())


TABLE = (log.Seat(SeatKind.HUMAN, name="甲"), log.Seat(SeatKind.COMPUTER, difficulty="novice"))
SOLO, VS = _start(Mode.SOLO), _start(Mode.VS_COMPUTER)
TUTORIAL = dumps({"mode": "tutorial", "seats": [{"kind": "human"}]})  # (a mode until level 9)
DAILY, TABLES = _start(Mode.SOLO, day=date(2026, 11, 29)), _start(Mode.TABLE, TABLE)
P, ROOM, FIN, GOING = PLAYER, "room:abcdef", "finished", "in_progress"
#: Games as the server of schema level 6 wrote them: (id, owner, mode, difficulty,
#: status, result, human_total, new_record, start event), and the kind and room each gets.
#: The daily counted as 新纪录 then: the migration keeps the header, the kind says daily.
OLD_GAMES: list[tuple[Any, ...]] = [
    ("solo1", P, "solo", None, FIN, "solo", 180, True, SOLO, "solo", None),
    ("daily1", P, "solo", None, FIN, "solo", 260, True, DAILY, "daily", None),
    ("vs1", P, "vs_computer", "expert", FIN, "win", 250, False, VS, "vs_computer", None),
    ("tut1", P, "tutorial", None, "abandoned", None, None, None, TUTORIAL, "tutorial", None),
    ("table1", P, "table", None, GOING, None, None, None, TABLES, "table", None),
    ("room1", ROOM, "table", None, GOING, None, None, None, TABLES, "room", "abcdef"),
]  # fmt: skip


def _level6_sqlite(path: Path) -> None:
    """An SQLite database at schema level 6 (its shipped migrations, never edited)."""
    conn = sqlite_at(path, 6)
    _insert(conn.execute, "?")
    conn.close()


def _level6_postgres(url: str) -> None:
    """A PostgreSQL database at schema level 6 (its migrations 1-5)."""
    postgres_at(url, 6)
    with psycopg.connect(url, autocommit=True) as conn:
        _insert(conn.execute, "%s")


def _insert(execute: Callable[..., Any], holder: str) -> None:
    columns = "id, player_id, mode, difficulty, status, version, created_at, updated_at, "
    columns += "finished_at, result, human_total, new_record"
    holders = ", ".join([holder] * 12)
    for i, (game_id, owner, mode, level, status, result, total, record, start, _k, _r) in enumerate(
        OLD_GAMES
    ):
        finished = f"2026-11-30T10:00:{i:02}.000000+00:00" if status == "finished" else None
        execute(
            f"INSERT INTO games ({columns}) VALUES ({holders})",
            (game_id, owner, mode, level, status, 1, NOW, NOW, finished, result, total, record),
        )
        execute(
            "INSERT INTO events (game_id, seq, kind, data, created_at) "
            f"VALUES ({holder}, 1, 'start', {holder}, {holder})",
            (game_id, start, NOW),
        )


def test_k2_an_old_database_is_migrated_to_kinds(db: Path | str) -> None:
    """Old games get the kind the code inferred before K2: a room's by its ``room:``
    owner (and its room id from it), a daily challenge by its start's date, the rest by
    their mode."""
    if is_postgres_url(db):
        _level6_postgres(str(db))
    else:
        _level6_sqlite(Path(db))

    async def check() -> None:
        store = open_storage(db)
        await store.open()
        try:
            for game_id, _owner, mode, *_, kind, room in OLD_GAMES:
                stored = await store.get_game(game_id)
                assert stored is not None
                # level 10: a room game's room is stored once, as its owner
                assert (game_id, stored.kind.value, room_of(stored)) == (game_id, kind, room)
                # level 9: a mode is who sits at the game; the tutorial is a kind of solo game
                assert stored.mode.value == ("solo" if mode == "tutorial" else mode)
                [start] = await store.events(game_id, until=1)
                assert isinstance(start, log.Start)
                assert start.mode is stored.mode
            records = await store.records(PLAYER)
            assert records.best_score == 180  # the daily's 260 is no solo best
            assert [g.kind.value for g in records.recent] == ["vs_computer", "daily", "solo"]
        finally:
            await store.close()

    run_coroutine(check())
    assert "room_id" not in _columns(db)


def _columns(db: Path | str) -> set[str]:
    """The columns of the games' header table."""
    if is_postgres_url(db):
        with psycopg.connect(str(db), autocommit=True) as pg:
            rows = pg.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'games'"
            ).fetchall()
        return {str(row[0]) for row in rows}
    lite = sqlite3.connect(db)
    try:
        return {str(row[1]) for row in lite.execute("PRAGMA table_info(games)")}
    finally:
        lite.close()


def test_a2_a_room_games_room_is_stored_once(make_client: Callable[..., TestClient]) -> None:
    """Issue 36 (A2): a room game's room was stored three times (its owner ``room:<id>``,
    the ``room_id`` column, its id's head); schema level 10 drops the column (the old
    database above), and a room's game is the room's by its owner alone: its seats play it
    and the room's log follows it to the end. On SQLite and PostgreSQL."""
    host, friend = make_client(), make_client()
    db = _rooms(host).storage  # (the app's own storage: the migration ran when it opened)
    rid = host.post("/api/rooms", json={"seats": _seats("open")}).json()["room"]["id"]
    room = host.get(f"/api/rooms/{rid}").json()["room"]
    friend.post(
        f"/api/rooms/{rid}/join", json={"token": _token(room["invite_url"], "t"), "name": "小红"}
    )
    game = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    assert game["id"].startswith(rid)  # the routing hint (nginx's affinity), derived once
    stored = on_app_loop(host, db.get_game, game["id"])
    assert stored is not None
    assert (stored.player_id, room_of(stored)) == (f"room:{rid}", rid)
    assert not hasattr(stored, "room_id")
    final = _play({0: host, 1: friend}, game)
    assert final["status"] == "finished"
    assert on_app_loop(host, _rooms(host).store.events, rid, 0)[-1].kind == "end"
