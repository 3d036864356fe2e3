"""Issue 28 items 6 and 7 and issue 26 item 4, on SQLite and PostgreSQL.

* K4 one limits vocabulary: every limit a setting (the groups' too, each switched off by
  its own 0), messages that state the configured numbers.
* F14 a cap and a pruning age on everything a cookie or an address can create: groups
  per address, 练习 servings, a room's holds; the reads a page can repeat have a budget.
* F13 boards that bots cannot crowd: ties share a place, a group board orders equal
  entries as the public one does, a fresh browser's entry is not listed on the public
  board until it has some history (a group board stays complete).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient

from yahtzee.daily.settings import DailySettings
from yahtzee.practice.settings import PracticeSettings
from yahtzee.rooms.settings import RoomSettings
from yahtzee.web import Settings

from .helpers import error_code, no_limits_but, on_app_loop
from .test_daily import _finish
from .test_groups import _invite_token
from .test_limits import assert_rate_limited
from .test_rooms import Clock, _play

# 2026-12-01 10:00 in Shanghai (as test_daily's NOON); a day later is the next challenge.
NOON = datetime(2026, 12, 1, 2, 0, tzinfo=UTC).timestamp()
DAY_SECONDS = 24 * 3600.0


def _limits(**changes: Any) -> tuple[object, ...]:
    """Every limit off but ``changes``."""
    return no_limits_but(**changes)


def _group(client: TestClient, name: str = "三年二班") -> Any:
    return client.post("/api/groups", json={"name": name, "your_name": "老师"})


# -- K4: one vocabulary ------------------------------------------------------------------


def test_k4_every_group_limit_is_a_setting_switched_off_by_its_own_zero(
    make_client: Callable[..., TestClient],
) -> None:
    """The groups' hourly limits were hard-coded (10 and 30 an hour) and switched off by
    the new-games setting; now each is its own flag, on while new games are unlimited."""
    client = make_client(clock=lambda: NOON, sections=_limits(groups_per_hour=2))
    assert Settings().section(DailySettings).groups_per_hour == 10
    assert Settings().section(DailySettings).group_joins_per_hour == 30
    for _ in range(2):
        assert _group(client).status_code == 201
    assert_rate_limited(_group(client), 1800)
    off = make_client(clock=lambda: NOON, sections=_limits(groups_per_hour=0, open_groups=50))
    for _ in range(25):
        assert _group(off).status_code == 201


def test_k4_refusals_state_the_configured_numbers(make_client: Callable[..., TestClient]) -> None:
    """「最多 5 个」 was written in the message whatever --max-open-rooms said; the group
    caps (open groups, members) were module constants that no message named."""
    rooms = make_client(clock=lambda: NOON, max_open_rooms=2, max_rooms_per_hour_per_address=0)
    seats = [{"kind": "human", "name": "房主"}, {"kind": "human"}]
    for _ in range(2):
        assert rooms.post("/api/rooms", json={"seats": seats}).status_code == 201
    third = rooms.post("/api/rooms", json={"seats": seats})
    assert error_code(third) == "too_many_rooms"
    assert "最多 2 个" in third.json()["error"]["message"]

    teacher = make_client(clock=lambda: NOON, sections=_limits(open_groups=1, group_members=2))
    created = _group(teacher).json()
    assert created["group"]["max_members"] == 2
    refused = _group(teacher, "第二个")
    assert error_code(refused) == "too_many_groups"
    assert "最多 1 个" in refused.json()["error"]["message"]
    token = _invite_token(created)
    pupil = make_client(clock=lambda: NOON, sections=_limits(group_members=2))
    assert pupil.post("/api/groups/join", json={"token": token, "name": "小明"}).status_code == 200
    late = make_client(clock=lambda: NOON, sections=_limits(group_members=2))
    full = late.post("/api/groups/join", json={"token": token, "name": "小红"})
    assert error_code(full) == "group_full"
    assert "最多 2 人" in full.json()["error"]["message"]


# -- F14: caps on what a cookie or an address creates -------------------------------------


def test_f14_groups_per_address_whatever_the_cookies(
    make_client: Callable[..., TestClient],
) -> None:
    """The attack: 10 groups an hour per cookie x 60 new cookies a minute = ~36,000 groups
    an hour from one address. Now an address makes at most --max-groups-per-hour-per-address
    (20 by default) whatever its cookies."""
    assert DailySettings().groups_per_hour_per_address == 20
    limited = make_client(
        clock=lambda: NOON, sections=_limits(groups_per_hour=10, groups_per_hour_per_address=3)
    )
    for _ in range(3):
        limited.cookies.clear()  # a fresh cookie each time, one address
        assert _group(limited).status_code == 201
    limited.cookies.clear()
    assert_rate_limited(_group(limited), 1200)
    # another address is not counted with it
    other = TestClient(limited.app, client=("203.0.113.5", 5000))
    assert _group(other).status_code == 201


def test_f14_practice_servings_have_an_hourly_cap(make_client: Callable[..., TestClient]) -> None:
    """~39,000 servings (a row each) an hour from one cookie before; now at most
    --max-practice-servings-per-hour per player and
    --max-practice-servings-per-hour-per-address per address."""
    assert PracticeSettings().servings_per_hour == 600
    assert PracticeSettings().servings_per_hour_per_address == 6000
    client = make_client(clock=lambda: NOON, sections=_limits(servings_per_hour=3))
    for _ in range(3):
        assert client.get("/api/puzzles/next").status_code == 200
    assert_rate_limited(client.get("/api/puzzles/next"), 1200)
    by_address = make_client(clock=lambda: NOON, sections=_limits(servings_per_hour_per_address=2))
    for _ in range(2):
        by_address.cookies.clear()
        assert by_address.get("/api/puzzles/next").status_code == 200
    by_address.cookies.clear()
    assert_rate_limited(by_address.get("/api/puzzles/next"), 1800)


def test_f14_servings_never_answered_do_not_pile_up(
    make_client: Callable[..., TestClient],
) -> None:
    """Each ``GET /api/puzzles/next`` left a row, answered or not; the ones never answered
    are stale once the next is served and are deleted then: one row, not one a request."""
    client = make_client(clock=lambda: NOON)
    served = [client.get("/api/puzzles/next").json()["puzzle"]["id"] for _ in range(5)]
    assert len(set(served)) == 5
    store = client.app.state.practice.store  # type: ignore[attr-defined]

    async def rows() -> list[Any]:
        return await store.db.run(  # type: ignore[no-any-return]
            lambda tx: tx.all("SELECT id, answered_at FROM practice_servings"), write=False
        )

    assert [tuple(r) for r in on_app_loop(client, rows)] == [(served[-1], None)]


def _room_playing(make_client: Callable[..., TestClient], **settings: Any) -> tuple[Any, ...]:
    """A started room of the host and a computer, the host on turn after a roll."""
    clock = Clock(NOON)
    host = make_client(clock=clock, **settings)
    seats = [{"kind": "human", "name": "房主"}, {"kind": "computer", "difficulty": "novice"}]
    room = host.post("/api/rooms", json={"seats": seats}).json()["room"]
    started = host.post(f"/api/rooms/{room['id']}/start", json={}).json()["room"]
    game = started["game"]
    rolled = host.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]})
    assert rolled.status_code == 200
    return host, clock, room["id"]


def test_f14_room_holds_have_a_budget(make_client: Callable[..., TestClient]) -> None:
    """~20 hold events a second per cookie, each sent to every stream of the room; now
    --max-room-holds-per-second (5) per player, over it 429 and no event."""
    assert RoomSettings().holds_per_second == 5
    host, clock, rid = _room_playing(make_client, sections=_limits(holds_per_second=3))
    before = host.get(f"/api/rooms/{rid}").json()["room"]["last_event_id"]
    hold = {"hold": [True, False, False, False, False]}
    for _ in range(3):
        assert host.post(f"/api/rooms/{rid}/hold", json=hold).status_code == 204
    assert_rate_limited(host.post(f"/api/rooms/{rid}/hold", json=hold), 1)
    after = host.get(f"/api/rooms/{rid}").json()["room"]["last_event_id"]
    assert after == before + 3
    clock.now += 1.0
    assert host.post(f"/api/rooms/{rid}/hold", json=hold).status_code == 204


def test_f14_the_reads_a_page_repeats_have_a_budget(
    make_client: Callable[..., TestClient],
) -> None:
    """/api/records, /api/rooms and /api/rooms/{id} answered >= 60 requests a second per
    cookie with no budget; now each costs units of the work budget (docs/api.md)."""
    host, clock, rid = _room_playing(make_client, sections=_limits(work_per_second=20))
    for path, units in ((f"/api/rooms/{rid}", 1), ("/api/rooms", 1), ("/api/records", 2)):
        clock.now += 1.0  # a full budget again
        served = 0
        while served <= 40:
            reply = host.get(path)
            if reply.status_code != 200:
                break
            served += 1
        assert_rate_limited(reply, 1)
        assert served == 20 // units, path


# -- F14: pruning ages --------------------------------------------------------------------


def test_f14_closed_and_never_joined_groups_are_pruned_by_age(
    make_client: Callable[..., TestClient],
) -> None:
    """Groups were never deleted: a closed group, or one nobody ever joined, stays for
    ever. Now both go after --prune-groups-after-days; a group in use stays."""
    from yahtzee.server.pruning import prune_features

    clock = Clock(time.time())  # (the groups' tables keep the real time)
    teacher = make_client(clock=clock, sections=_limits(prune_groups_after_days=30.0))
    used = _group(teacher, "在用").json()
    closed = _group(teacher, "关了").json()["group"]["id"]
    lonely = _group(teacher, "没人").json()["group"]["id"]
    pupil = make_client(clock=clock)
    token = _invite_token(used)
    assert pupil.post("/api/groups/join", json={"token": token, "name": "小明"}).status_code == 200
    assert teacher.post(f"/api/groups/{closed}/close", json={}).status_code == 200
    app = teacher.app
    pruned = on_app_loop(teacher, prune_features, app.state.prunings, clock() + 10 * DAY_SECONDS)  # type: ignore[attr-defined]
    assert pruned.get("groups", 0) == 0
    pruned = on_app_loop(teacher, prune_features, app.state.prunings, clock() + 31 * DAY_SECONDS)  # type: ignore[attr-defined]
    assert pruned["groups"] == 2
    mine = [g["name"] for g in teacher.get("/api/groups").json()["groups"]]
    assert mine == ["在用"]
    assert teacher.get(f"/api/groups/{closed}").status_code == 404
    assert teacher.get(f"/api/groups/{lonely}").status_code == 404


def test_f14_events_of_rooms_over_are_pruned_by_age(
    make_client: Callable[..., TestClient],
) -> None:
    """A room's events (every hold, reaction and move) were kept for ever; now those of
    rooms over for --prune-room-events-after-days go (the room and its game stay)."""
    from yahtzee.server.pruning import prune_features

    host, clock, rid = _room_playing(make_client, sections=_limits(prune_events_after_days=7.0))
    svc = host.app.state.rooms
    game = host.get(f"/api/rooms/{rid}").json()["room"]["game"]
    _play({0: host}, game)
    assert host.get(f"/api/rooms/{rid}").json()["room"]["status"] == "finished"
    prunings = host.app.state.prunings
    assert on_app_loop(host, svc.store.events, rid, 0)
    assert (
        on_app_loop(host, prune_features, prunings, clock() + DAY_SECONDS).get("room events", 0)
        == 0
    )
    counts = on_app_loop(host, prune_features, prunings, clock() + 8 * DAY_SECONDS)
    assert counts["room events"] > 0
    assert on_app_loop(host, svc.store.events, rid, 0) == []
    room = host.get(f"/api/rooms/{rid}").json()["room"]
    assert room["status"] == "finished"
    assert host.get(f"/api/games/{room['game_id']}").status_code == 200


# -- F13: the public board ----------------------------------------------------------------


def _play_daily(client: TestClient, name: str) -> None:
    _finish(client, client.post("/api/daily", json={"name": name}).json())
    assert client.get("/api/daily").json()["status"] == "finished"


def test_f13_ties_share_a_place_on_the_day_and_week_boards(
    make_client: Callable[..., TestClient],
) -> None:
    """Equal skill loss and score ranked by the finishing time: the earlier finish (a
    bot's) always outranked a person. Now equal entries share the place, on both boards,
    and a group board orders them as the public one does."""
    players = [make_client(clock=lambda: NOON) for _ in range(3)]
    for i, client in enumerate(players):
        _play_daily(client, f"玩家{i}")  # the same moves on the same dice: equal entries
    day = players[2].get("/api/daily/2026-12-01/leaderboard").json()
    assert [e["rank"] for e in day["entries"]] == [1, 1, 1]
    assert day["you"]["rank"] == 1
    assert players[0].get("/api/daily").json()["result"]["rank"] == 1
    week = players[2].get("/api/daily/2026-12-01/leaderboard?period=week").json()
    assert [e["rank"] for e in week["entries"]] == [1, 1, 1]
    # a group of the three: the same order as the public board's, on both of its boards
    created = _group(players[0]).json()
    token = _invite_token(created)
    for i, client in enumerate(players[1:], 1):
        joined = client.post("/api/groups/join", json={"token": token, "name": f"玩家{i}"})
        assert joined.status_code == 200
    page = players[0].get(f"/api/groups/{created['group']['id']}").json()
    public_order = [e["name"] for e in day["entries"]]
    assert [e["name"] for e in page["today"]["entries"]] == [
        n if n != "玩家0" else "老师" for n in public_order
    ]
    week_order = [e["name"] for e in week["entries"]]
    assert [e["name"] for e in page["week"]["entries"]] == [
        n if n != "玩家0" else "老师" for n in week_order
    ]
    assert [e["rank"] for e in page["today"]["entries"]] == [1, 1, 1]


def test_f13_a_fresh_browser_is_not_listed_on_the_public_board_until_it_has_history(
    make_client: Callable[..., TestClient],
) -> None:
    """Six fresh cookies posted 134 perfect entries in 76 s and took the public top 10.
    Now the public board lists a browser once it finished the challenge on
    --board-min-days earlier days (of the last --board-history-days); its own entry shows
    where it would stand (``listed: false``) and a group board lists everyone."""
    assert DailySettings().board_min_days == 2
    clock = Clock(NOON)
    limits = _limits(board_min_days=1)
    regular, fresh = (
        make_client(clock=clock, sections=limits),
        make_client(clock=clock, sections=limits),
    )
    _play_daily(regular, "老玩家")
    first = regular.get("/api/daily/2026-12-01/leaderboard").json()
    assert first["entries"] == []  # nobody has history yet
    assert first["you"]["listed"] is False
    assert first["you"]["rank"] == 1
    clock.now += DAY_SECONDS
    _play_daily(regular, "老玩家")
    _play_daily(fresh, "新来的")
    board = fresh.get("/api/daily/2026-12-02/leaderboard").json()
    assert [(e["name"], e["listed"]) for e in board["entries"]] == [("老玩家", True)]
    assert board["players"] == 1
    assert board["you"]["name"] == "新来的"
    assert board["you"]["listed"] is False
    assert fresh.get("/api/daily").json()["result"]["listed"] is False
    week = fresh.get("/api/daily/2026-12-02/leaderboard?period=week").json()
    assert [e["name"] for e in week["entries"]] == ["老玩家"]
    # a group board stays complete
    created = _group(regular).json()
    assert (
        fresh.post(
            "/api/groups/join", json={"token": _invite_token(created), "name": "新来的"}
        ).status_code
        == 200
    )
    page = regular.get(f"/api/groups/{created['group']['id']}").json()
    assert sorted(e["name"] for e in page["today"]["entries"]) == ["新来的", "老师"]
