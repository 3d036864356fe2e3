"""同骰竞速 (W5) over the API, on SQLite and PostgreSQL: a race room's creation and its
refusals, every seat playing its own game on the room's one dice stream at its own pace,
the others' progress without their dice, the end (every seat finished, or the deadline:
the seats still playing ranked last, as they stand) with skill loss and luck, and who may
open which 复盘 when. The clock is injected: no test waits for a day."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from .helpers import error_code
from .test_devices import _rows_with, browser, code_of, link, player_of
from .test_rooms import Clock, _log, _token
from .test_rooms_pace import DAY, _get, _rounds, _started, _sweep, _turn_faces

PEOPLE = [{"kind": "human", "name": "房主"}]


def _race(host: TestClient, friends: list[TestClient], days: int = 3) -> dict[str, Any]:
    """A started race of ``days``: the host, then each friend in an open seat."""

    def made(room: dict[str, Any]) -> None:
        assert (room["pace"], room["turn_seconds"]) == ("race", None)
        assert room["race"]["days"] == days
        assert room["race"]["seats"] == []
        assert room["invite_url"].split("/")[-1].startswith(room["id"] + "#t=")

    seats = PEOPLE + [{"kind": "human"}] * len(friends)
    return _started(host, friends, {"seats": seats, "race_days": days}, made=made)


def _two_racing(
    make_client: Callable[..., TestClient], days: int
) -> tuple[Clock, TestClient, TestClient, dict[str, Any]]:
    """A clock, the host and a friend on it, and their started race of ``days``."""
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    return clock, host, friend, _race(host, [friend], days=days)


def test_w5_a_race_is_made_with_1_3_or_7_days_and_people_only(
    make_client: Callable[..., TestClient],
) -> None:
    host = make_client()

    def made(**body: Any) -> Any:
        return host.post("/api/rooms", json={"seats": [*PEOPLE, {"kind": "human"}], **body})

    for days in (0, 2, 30, -1, "3", 3.0, True, [3]):
        r = made(race_days=days)
        assert r.status_code == 422, (days, r.text)
        assert error_code(r) == "invalid_race_days"
        assert "1, 3, 7" in r.json()["error"]["message"]  # the choices, readably
    r = made(race_days=5)
    assert "5" in r.json()["error"]["message"]  # the value
    for extra in ({"pace": "1d"}, {"turn_seconds": 60}):
        r = made(race_days=1, **extra)
        assert (r.status_code, error_code(r)) == (422, "invalid_pace"), r.text
    r = host.post(
        "/api/rooms",
        json={"seats": [*PEOPLE, {"kind": "computer", "difficulty": "expert"}], "race_days": 1},
    )
    assert (r.status_code, error_code(r)) == (422, "invalid_seats")
    assert made(race_days=7).status_code == 201
    assert host.get("/api/config").json()["rooms"]["race_days"] == [1, 3, 7]


def test_w5_a_race_counts_as_a_waiting_room_against_the_players_cap(
    make_client: Callable[..., TestClient],
) -> None:
    host = make_client(max_waiting_rooms=1)
    body = {"seats": [*PEOPLE, {"kind": "human"}], "race_days": 1}
    assert host.post("/api/rooms", json=body).status_code == 201
    r = host.post("/api/rooms", json=body)
    assert (r.status_code, error_code(r)) == (409, "too_many_waiting_rooms")


def test_w5_every_seat_plays_the_same_dice_at_its_own_pace_and_sees_progress_only(
    make_client: Callable[..., TestClient],
) -> None:
    clock, host, friend, room = _two_racing(make_client, 1)
    rid = room["id"]
    assert room["status"] == "playing"
    assert room["race"]["ends_at"] == clock.now + DAY
    mine = room["game"]
    assert mine["id"] == room["race"]["your_game_id"]
    theirs = _get(friend, rid)["game"]
    assert theirs["id"] != mine["id"]
    assert theirs["id"] == _get(friend, rid)["race"]["your_game_id"]
    # each seat's own game: the other's is not found (its dice are nobody else's business)
    assert host.get(f"/api/games/{theirs['id']}").status_code == 404
    assert (
        friend.post(f"/api/games/{mine['id']}/roll", json={"version": mine["version"]}).status_code
        == 404
    )
    assert (
        host.post(f"/api/games/{mine['id']}/hint", json={"version": mine["version"]}).json()[
            "error"
        ]["code"]
        == "no_hints_in_race"
    )
    # the host plays three rounds; the friend has not begun: nobody waits for anybody
    faces = []
    for _ in range(3):
        mine, first, _final = _turn_faces(host, mine)
        faces.append(first)
    seen = _get(friend, rid)
    assert [(s["rounds"], s["finished"]) for s in seen["race"]["seats"]] == [(3, False), (0, False)]
    assert seen["race"]["seats"][0]["score"] == mine["seats"][0]["total"]
    assert seen["game"]["id"] == theirs["id"]  # the friend's own game, nobody else's
    # the progress events carry no dice, no game
    progress = [e for e in _log(friend, rid) if e.kind == "progress"]
    assert [e.data["seat"] for e in progress] == [0, 0, 0]
    assert all(set(e.data) == {"seat", "rounds", "score", "finished"} for e in progress)
    # the same dice: the friend's first rolls are the host's, round by round
    for round_faces in faces:
        theirs, first, _final = _turn_faces(friend, theirs)
        assert first == round_faces
    # holding different dice, the next faces differ by what is held, the same stream still
    mine, _a, kept = _turn_faces(host, mine, hold=[True, True, True, True, False])
    theirs, _b, other = _turn_faces(friend, theirs, hold=[True, True, True, True, False])
    assert kept == other
    assert _get(host, rid)["status"] == "playing"


def test_w5_the_race_ends_when_everyone_finished_ranked_by_score_with_skill_and_luck(
    make_client: Callable[..., TestClient],
) -> None:
    clock, host, friend, room = _two_racing(make_client, 3)
    rid = room["id"]
    games = {0: room["game"], 1: _get(friend, rid)["game"]}
    games[0] = _rounds(host, games[0], 13)
    # one finished, one playing: not over; the finisher cannot read the other's 复盘 yet
    assert _get(host, rid)["status"] == "playing"
    other_id = games[1]["id"]
    assert host.get(f"/api/games/{other_id}/review").status_code == 404
    games[1] = _rounds(friend, games[1], 13)
    _sweep(host)  # (the last box brought the deadline to now: the sweep ends it)
    over = _get(friend, rid)
    assert over["status"] == "finished"
    ranking = over["race"]["ranking"]
    totals = {0: games[0]["seats"][0]["total"], 1: games[1]["seats"][0]["total"]}
    assert [e["score"] for e in ranking] == sorted(totals.values(), reverse=True)
    assert all(e["finished"] and e["rounds"] == 13 for e in ranking)
    assert all(isinstance(e["skill_loss"], float) and isinstance(e["luck"], float) for e in ranking)
    best = max(totals.values())
    assert [e["rank"] for e in ranking] == ([1, 1] if len(set(totals.values())) == 1 else [1, 2])
    assert ranking[0]["score"] == best
    end = [e for e in _log(host, rid) if e.kind == "end"]
    assert len(end) == 1
    assert end[0].data["reason"] == "finished"
    # 复盘 side by side: every seat opens every finished seat's review, skill loss the same
    for client in (host, friend):
        for entry in ranking:
            r = client.get(f"/api/games/{entry['game_id']}/review")
            assert r.status_code == 200, r.text
            assert round(r.json()["skill_loss"], 2) == entry["skill_loss"]
    # a stranger still cannot
    assert make_client(clock=clock).get(f"/api/games/{other_id}/review").status_code == 404
    assert _sweep(host) == 0  # ended once


def test_w5_a_finished_race_game_counts_in_its_own_stats_section_and_recent_games(
    make_client: Callable[..., TestClient],
) -> None:
    """Each seat that finished finds its race game in the lobby's recent games and in 统计's
    own 同骰竞速 section (never 单人挑战's figures, nor its best); a seat the deadline caught
    unfinished has no finished game to count."""
    clock, host, friend, room = _two_racing(make_client, 1)
    rid = room["id"]
    mine = _rounds(host, room["game"], 13)
    _rounds(friend, _get(friend, rid)["game"], 2)
    before = host.get("/api/stats").json()
    assert before["apart"] == ["daily", "race"]
    assert before["race"] == {"games": 0, "mean": None, "best": None}  # not over yet
    clock.now += DAY + 1
    _sweep(host)
    assert _get(host, rid)["status"] == "finished"
    total = mine["seats"][0]["total"]
    stats = host.get("/api/stats").json()
    assert stats["race"] == {"games": 1, "mean": float(total), "best": total}
    assert stats["solo"]["games"] == 0
    assert stats["daily"]["games"] == 0
    records = host.get("/api/records").json()
    [line] = records["recent"]
    assert (line["id"], line["kind"], line["human_total"]) == (mine["id"], "race", total)
    assert records["best_score"] is None  # never 单人挑战's best
    theirs = friend.get("/api/stats").json()
    assert theirs["race"]["games"] == 0
    assert friend.get("/api/records").json()["recent"] == []


def test_w5_at_the_deadline_the_seats_still_playing_are_ranked_last_as_they_stand(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host, friend, third = (make_client(clock=clock) for _ in range(3))
    room = _race(host, [friend, third], days=1)
    rid = room["id"]
    games = [room["game"], _get(friend, rid)["game"], _get(third, rid)["game"]]
    games[2] = _rounds(third, games[2], 13)
    games[0] = _rounds(host, games[0], 5)
    games[1] = _rounds(friend, games[1], 2)
    clock.now += DAY - 1
    _sweep(host)
    assert _get(host, rid)["status"] == "playing"  # a second before the end
    clock.now += 2
    _sweep(host)
    over = _get(host, rid)
    assert over["status"] == "finished"
    ranking = over["race"]["ranking"]
    assert next(e["seat"] for e in ranking) == 2  # the one who finished first of all
    assert [e["finished"] for e in ranking] == [True, False, False]
    unfinished = sorted(
        (games[0]["seats"][0]["total"], games[1]["seats"][0]["total"]), reverse=True
    )
    assert [e["score"] for e in ranking[1:]] == unfinished
    assert sorted(e["rounds"] for e in ranking[1:]) == [2, 5]  # as they stood
    assert ranking[1]["rank"] >= 2
    assert ranking[2]["rank"] >= 2
    assert ranking[1]["skill_loss"] is None
    assert ranking[1]["luck"] is None
    assert next(e for e in _log(host, rid) if e.kind == "end").data["reason"] == "deadline"
    # the games still in play were closed: no more dice
    r = host.post(f"/api/games/{games[0]['id']}/roll", json={"version": games[0]["version"]})
    assert r.status_code == 409, r.text
    # the finished seat's 复盘 for everyone; an unfinished one has none
    assert friend.get(f"/api/games/{games[2]['id']}/review").status_code == 200
    assert third.get(f"/api/games/{games[0]['id']}/review").status_code == 409


def _turns(client: TestClient) -> dict[str, Any]:
    r = client.get("/api/rooms/turns")
    assert r.status_code == 200, r.text
    turns: dict[str, Any] = r.json()
    return turns


def test_w2_a_race_is_the_players_turn_in_the_list_until_its_own_game_is_finished(
    make_client: Callable[..., TestClient],
) -> None:
    clock, host, friend, room = _two_racing(make_client, 1)
    rid = room["id"]
    mine = room["game"]
    listed = _turns(host)
    assert listed["your_turns"] == 1  # (the lobby card's, the title's and the badge's count)
    [race] = listed["games"]
    assert race["kind"] == "race"
    assert race["url"] == f"/races/{rid}"  # its own page, not /rooms/
    assert (race["room_id"], race["game_id"], race["pace"]) == (rid, mine["id"], "race")
    assert (race["your_turn"], race["your_seat"], race["turn"]) == (True, 0, 0)
    assert (race["rounds"], race["round"]) == (0, 1)
    assert race["deadline"] == room["race"]["ends_at"] == clock.now + DAY
    assert [(s["name"], s["you"]) for s in race["seats"]] == [("房主", True), ("朋友1", False)]
    mine = _rounds(host, mine, 3)
    [race] = _turns(host)["games"]
    assert (race["rounds"], race["round"], race["your_turn"]) == (3, 4, True)
    # the friend's own game: its turn too, whatever the host played (nobody waits)
    [theirs] = _turns(friend)["games"]
    assert (theirs["your_seat"], theirs["rounds"], theirs["your_turn"]) == (1, 0, True)
    assert theirs["game_id"] == _get(friend, rid)["race"]["your_game_id"]
    mine = _rounds(host, mine, 10)
    # the host's 13th box: its game is over, the race leaves its list (not the friend's)
    assert mine["status"] == "finished"
    assert _turns(host) == {"games": [], "your_turns": 0, "now": clock.now}
    assert _turns(friend)["your_turns"] == 1
    # past the race's end (before the sweep closes it) it is nobody's turn any more
    clock.now += DAY
    assert _turns(friend)["games"] == []
    assert _turns(friend)["your_turns"] == 0


def test_w2_a_race_and_a_room_game_are_listed_together_and_counted(
    make_client: Callable[..., TestClient],
) -> None:
    _clock, host, friend, race = _two_racing(make_client, 7)
    made = host.post("/api/rooms", json={"seats": [*PEOPLE, {"kind": "human"}], "pace": "1d"})
    assert made.status_code == 201, made.text
    waiting = made.json()["room"]
    token = _token(waiting["invite_url"], "t")
    joined = friend.post(f"/api/rooms/{waiting['id']}/join", json={"token": token, "name": "乙"})
    assert joined.status_code == 200, joined.text
    assert host.post(f"/api/rooms/{waiting['id']}/start", json={}).status_code == 200
    # the room game: the host's turn (seat 0), its deadline a day away; the race a week
    listed = _turns(host)
    assert [(g["kind"], g["room_id"]) for g in listed["games"]] == [
        ("room", waiting["id"]),
        ("race", race["id"]),
    ]
    assert listed["your_turns"] == 2
    assert listed["games"][0]["rounds"] is None
    assert listed["games"][0]["url"] == f"/rooms/{waiting['id']}"
    # the friend: the room game is the host's turn, the race its own
    listed = _turns(friend)
    assert [(g["kind"], g["your_turn"]) for g in listed["games"]] == [
        ("race", True),
        ("room", False),
    ]
    assert listed["your_turns"] == 1


def test_i4_the_players_export_holds_its_race_games_with_their_logs(
    make_client: Callable[..., TestClient],
) -> None:
    _clock, host, friend, room = _two_racing(make_client, 1)
    mine = room["game"]
    mine = _rounds(host, mine, 2)
    r = host.get("/api/me/export")
    assert r.status_code == 200, r.text
    export = r.json()
    [game] = export["rooms"]["race_games"]
    assert (game["room_id"], game["seat"], game["id"]) == (room["id"], 0, mine["id"])
    assert (game["kind"], game["status"], game["version"]) == (
        "race",
        "in_progress",
        mine["version"],
    )
    assert [e["seq"] for e in game["events"]] == list(range(1, mine["version"] + 1))
    assert sum(e["kind"] == "score" for e in game["events"]) == 2
    # the friend's own game is the friend's, not the host's
    [theirs] = friend.get("/api/me/export").json()["rooms"]["race_games"]
    assert (theirs["seat"], theirs["events"][-1]["kind"]) == (1, "start")
    assert mine["id"] not in str(export["games"])  # (not a game the browser owns)


def test_f24_deletion_erases_the_players_name_from_a_race_its_ranking_and_caches(
    make_client: Callable[..., TestClient],
) -> None:
    name = "删我的竞速名"
    clock = Clock()
    one, two = make_client(clock=clock), make_client(clock=clock)  # two "processes"
    me, friend = browser(one), browser(one)
    made = me.post(
        "/api/rooms",
        json={"seats": [{"kind": "human", "name": name}, {"kind": "human"}], "race_days": 1},
    )
    assert made.status_code == 201, made.text
    rid = made.json()["room"]["id"]
    token = _token(made.json()["room"]["invite_url"], "t")
    joined = friend.post(f"/api/rooms/{rid}/join", json={"token": token, "name": "朋友乙"})
    assert joined.status_code == 200, joined.text
    games = {0: me.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]}
    games[1] = _get(friend, rid)["game"]
    games[0] = _rounds(me, games[0], 13)
    games[1] = _rounds(friend, games[1], 13)
    _sweep(one)  # the race's end: its ranking names both seats
    player = player_of(me)

    def readable(app: TestClient) -> str:
        seat = browser(app)
        seat.cookies.update(friend.cookies)
        texts = [r.text for r in (seat.get(f"/api/rooms/{rid}"), seat.get("/api/rooms"))]
        texts += [seat.get(f"/api/games/{g['id']}").text for g in games.values()]
        texts += [seat.get(f"/api/games/{g['id']}/review").text for g in games.values()]
        texts += [e.to_json() for e in _log(app, rid)]
        return "\n".join(texts)

    for app in (one, two):
        assert name in readable(app)
    assert _get(friend, rid)["race"]["ranking"] is not None
    assert me.post("/api/me/delete", json={"confirm": True}).status_code == 200
    for app in (one, two):
        seen = readable(app)
        assert name not in seen
        assert player not in seen
        assert "朋友乙" in seen  # (the others' names stay)
    over = _get(friend, rid)
    assert [e["score"] for e in over["race"]["ranking"]] == sorted(
        (games[0]["seats"][0]["total"], games[1]["seats"][0]["total"]), reverse=True
    )  # the ranking stays whole
    # the race games stay (the friend's 复盘 side by side), nobody holds the erased seat
    assert friend.get(f"/api/games/{games[0]['id']}/review").status_code == 200
    assert _rows_with(one, name) == []
    assert _rows_with(one, player) == []


def test_i1_a_merged_players_race_game_plays_on_from_every_process(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    one, two = make_client(clock=clock), make_client(clock=clock)  # two "processes"
    school, friend, home = browser(one), browser(one), browser(one)
    room = _race(school, [friend], days=1)
    mine = _turn_faces(school, room["game"])[0]
    on_two = browser(two)
    on_two.cookies.update(school.cookies)
    assert on_two.get(f"/api/games/{mine['id']}").status_code == 200  # (its seat, cached)
    r = link(school, code_of(home)["code"], merge=True)
    assert r.status_code == 200, r.text
    # the seat is the merged player's now: once the other process knows the device's new
    # player (its device cache, 2 s), it reads the seat's holder anew too (the seat
    # serial, F24); before, its cached holder (the old player) kept the game from the
    # device: 404 for as long as it stayed cached
    clock.now += 3
    fresh = on_two.get(f"/api/games/{mine['id']}")
    assert fresh.status_code == 200, fresh.text
    mine = _turn_faces(on_two, fresh.json())[0]
    listed = _turns(home)
    assert [(g["kind"], g["rounds"]) for g in listed["games"]] == [("race", 2)]
