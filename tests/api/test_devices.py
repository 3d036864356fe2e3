"""我的设备 (I1–I4) over the API, on SQLite and PostgreSQL: link by code, replayed and
guessed codes, merge or keep, the recovery code, the devices list and removal, the old
cookies' migration, export, and the deletion of everything from every table."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee.devices.export import iso_time
from yahtzee.server.identity import PlayerSigner
from yahtzee.storage import is_postgres_url

from .helpers import TEST_SECRET, Api, DocumentedResponses, error_code, on_app_loop
from .test_daily import NOON, _finish
from .test_puzzles import best_body
from .test_rooms import Clock, _play, _seats, _token

COOKIE = "yahtzee_player"
PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) " + (
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


def browser(
    client: TestClient, user_agent: str = DESKTOP, address: str = "testclient"
) -> TestClient:
    """Another browser (its own cookie jar) on the same app as ``client``."""
    other = TestClient(client.app, client=(address, 50000), headers={"user-agent": user_agent})
    other.event_hooks["response"].append(DocumentedResponses(client.app))  # type: ignore[arg-type]
    return other


def code_of(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/devices/code", json={})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def link(client: TestClient, code: str, **body: Any) -> Any:
    return client.post("/api/devices/link", json={"code": code, **body})


def player_of(client: TestClient) -> str:
    r = client.get("/api/me/export")
    assert r.status_code == 200, r.text
    player: str = r.json()["player_id"]
    return player


def _secret(db: Path | str) -> bytes:
    if is_postgres_url(db):
        return TEST_SECRET.encode()
    path = Path(db)
    return path.with_name(path.name + ".secret").read_text().strip().encode()


# -- I1: link a device --------------------------------------------------------------------


def test_i1_a_code_links_a_second_browser_which_continues_the_game(client: TestClient) -> None:
    phone = browser(client, PHONE)
    laptop = Api(phone)
    finished = laptop.play_to_end(laptop.new())
    game = laptop.roll(laptop.new())
    made = code_of(phone)
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{5}-[2-9A-HJKMNP-Z]{5}", made["code"])
    assert made["seconds"] == 600
    assert made["url"].endswith("/devices#code=" + made["code"])  # in the fragment
    assert made["qr"].startswith("data:image/svg+xml;base64,")

    tablet = browser(client)
    r = link(tablet, made["code"].lower().replace("-", " "))  # as a child might type it
    assert r.status_code == 200, r.text
    assert r.json() == {"linked": True, "merged": False, "devices": 1, "left_out": []}
    # the same player: the saved game continues where the other left it (U6), the records
    current = tablet.get("/api/games/current").json()
    assert (current["id"], current["version"]) == (game["id"], game["version"])
    rolled = Api(tablet).roll(current)
    assert phone.get(f"/api/games/{game['id']}").json()["version"] == rolled["version"]
    assert tablet.get("/api/records").json() == phone.get("/api/records").json()
    assert tablet.get(f"/api/games/{finished['id']}").status_code == 200
    # the devices list, named from the User-Agent, this one marked
    listed = phone.get("/api/devices").json()
    names = sorted((d["name"], d["this"]) for d in listed["devices"])
    assert names == [("手机 · Chrome", True), ("电脑 · Firefox", False)]
    # a code is used once: replayed, it is refused, and nothing changes for the stranger
    stranger = browser(client)
    r = link(stranger, made["code"])
    assert (r.status_code, error_code(r)) == (404, "invalid_code")
    assert stranger.get("/api/records").json()["games_played"] == 0
    # the page's own code is refused as already this player's
    again = code_of(phone)
    r = link(tablet, again["code"])
    assert (r.status_code, error_code(r)) == (409, "already_linked")


def test_i1_a_browser_with_games_of_its_own_chooses_to_merge_or_keep(
    client: TestClient,
) -> None:
    home, school = browser(client), browser(client)
    home_game = Api(home).roll(Api(home).new())
    school_api = Api(school)
    school_done = school_api.play_to_end(school_api.new())
    school_game = school_api.roll(school_api.new())
    made = code_of(home)
    # never silently dropped: the player must choose, and nothing changes meanwhile
    r = link(school, made["code"])
    assert (r.status_code, error_code(r)) == (409, "choose_merge")
    assert school.get("/api/records").json()["games_played"] == 1
    # two unfinished games cannot become one player's (F2): finish or give up one first
    r = link(school, made["code"], merge=True)
    assert (r.status_code, error_code(r)) == (409, "both_unfinished")
    gone = school.post(
        f"/api/games/{school_game['id']}/abandon", json={"version": school_game["version"]}
    )
    assert gone.status_code == 200
    r = link(school, made["code"], merge=True)
    assert r.status_code == 200, r.text
    assert r.json()["merged"] is True
    # everything of both, on both
    records = home.get("/api/records").json()
    assert records == school.get("/api/records").json()
    assert home.get(f"/api/games/{school_done['id']}").status_code == 200
    assert school.get("/api/games/current").json()["id"] == home_game["id"]
    assert len(home.get("/api/devices").json()["devices"]) == 2


def test_i1_codes_expire(make_client: Callable[..., TestClient]) -> None:
    clock = Clock()
    client = make_client(clock=clock)
    made = code_of(client)
    clock.now += 601
    r = link(browser(client), made["code"])
    assert (r.status_code, error_code(r)) == (404, "invalid_code")
    # a new code ends the old one
    first, second = code_of(client), code_of(client)
    assert link(browser(client), first["code"]).status_code == 404
    assert link(browser(client), second["code"]).status_code == 200


def test_i1_guessed_codes_are_rate_limited_per_player_and_per_address(
    client: TestClient,
) -> None:
    """10 tries an hour per player and per address (right or wrong): 31^10 ≈ 8.2e14 codes,
    so one address's 240 guesses a day find one of 1,000 live codes with odds ≈ 3e-10."""
    owner = browser(client)
    made = code_of(owner)
    guesser = browser(client, address="198.51.100.7")
    for n in range(10):
        r = link(guesser, f"22222-{n + 2}2222")
        assert (r.status_code, error_code(r)) == (404, "invalid_code"), r.text
    r = link(guesser, made["code"])  # even the right code, once over the limit
    assert (r.status_code, error_code(r)) == (429, "rate_limited")
    assert int(r.headers["retry-after"]) > 0
    # another browser at the same address: the address's limit
    r = link(browser(client, address="198.51.100.7"), made["code"])
    assert r.status_code == 429
    # the same player elsewhere: the player's limit
    moved = TestClient(client.app, client=("203.0.113.9", 50000), cookies=guesser.cookies)
    assert moved.post("/api/devices/link", json={"code": made["code"]}).status_code == 429
    # anyone else, anywhere else
    assert link(browser(client, address="192.0.2.44"), made["code"]).status_code == 200
    # malformed codes are refused before any database work, and count as tries too
    r = link(browser(client, address="192.0.2.45"), "<script>")
    assert (r.status_code, error_code(r)) == (404, "invalid_code")


# -- I2: the recovery code ------------------------------------------------------------------


def test_i2_a_recovery_code_restores_the_player_and_can_be_replaced(
    client: TestClient,
) -> None:
    parent = browser(client)
    api = Api(parent)
    done = api.play_to_end(api.new())
    first = parent.post("/api/devices/recovery", json={})
    assert first.status_code == 201, first.text
    code = first.json()["code"]
    assert re.fullmatch(r"([2-9A-HJKMNP-Z]{4}-){4}[2-9A-HJKMNP-Z]{4}", code)
    assert parent.get("/api/devices").json()["recovery_code"]["created_at"] > 0
    # the browser forgot everything: a new one gets the player back, again and again
    for _ in range(2):
        fresh = browser(client)
        r = fresh.post("/api/devices/recover", json={"code": code})
        assert r.status_code == 200, r.text
        assert fresh.get(f"/api/games/{done['id']}").status_code == 200
    # replaced (with it: F20): the old one stops working, the new one works
    second = parent.post("/api/devices/recovery", json={"recovery_code": code}).json()["code"]
    r = browser(client).post("/api/devices/recover", json={"code": code})
    assert (r.status_code, error_code(r)) == (404, "invalid_code")
    fresh = browser(client)
    assert fresh.post("/api/devices/recover", json={"code": second}).status_code == 200
    assert fresh.get("/api/records").json()["games_played"] == 1
    # stored as a keyed digest only: the code appears nowhere in the database
    assert not _rows_with(client, second.replace("-", ""))


# -- I3: the devices list, removal, the old cookies ---------------------------------------------


def test_i3_a_removed_device_is_a_stranger_at_its_next_request(client: TestClient) -> None:
    phone, tablet = browser(client, PHONE), browser(client)
    game = Api(phone).new()
    assert link(tablet, code_of(phone)["code"]).status_code == 200
    devices = phone.get("/api/devices").json()["devices"]
    mine = next(d["id"] for d in devices if d["this"])
    other = next(d["id"] for d in devices if not d["this"])
    r = phone.post(f"/api/devices/{mine}/remove", json={})
    assert (r.status_code, error_code(r)) == (409, "this_device")
    r = phone.post(f"/api/devices/{other}/remove", json={})
    assert r.status_code == 200, r.text
    assert [d["id"] for d in r.json()["devices"]] == [mine]
    # the tablet: a stranger now (a new player, a new cookie), the game out of its reach
    r = tablet.get(f"/api/games/{game['id']}")
    assert r.status_code == 404
    assert COOKIE in r.headers["set-cookie"]
    assert tablet.get("/api/records").json()["games_played"] == 0
    r = tablet.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]})
    assert r.status_code == 404
    # another player's device, or none: not found
    r = tablet.post(f"/api/devices/{mine}/remove", json={})
    assert (r.status_code, error_code(r)) == (404, "not_found")
    assert phone.post(f"/api/devices/{'A' * 22}/remove", json={}).status_code == 404
    assert phone.get(f"/api/games/{game['id']}").status_code == 200


def test_g2_a_devices_name_is_said_in_the_readers_language(client: TestClient) -> None:
    """The names are stored language-neutral (from the User-Agent) and said in each
    reader's language: a linked device reading English sees English names (the old code
    stored 简体中文's words and showed them to every reader)."""
    phone, laptop = browser(client, PHONE), browser(client)
    assert link(laptop, code_of(phone)["code"]).status_code == 200

    def names(lang: str) -> list[str]:
        r = phone.get("/api/devices", headers={"accept-language": lang})
        assert r.status_code == 200, r.text
        return sorted(d["name"] for d in r.json()["devices"])

    assert names("zh-CN") == ["手机 · Chrome", "电脑 · Firefox"]
    assert names("zh-TW") == ["手機 · Chrome", "電腦 · Firefox"]
    assert names("en-GB") == ["Computer · Firefox", "Phone · Chrome"]
    # the export holds the row as kept: the neutral words
    exported = {d["name"] for d in phone.get("/api/me/export").json()["devices"]}
    assert exported == {"phone chrome", "computer firefox"}


def test_i3_an_old_cookie_becomes_a_device_of_the_same_player(
    client: TestClient, db: Path | str
) -> None:
    """Nobody is logged out: a cookie of the earlier form (the signed player id) is
    migrated on its next request, concurrent requests agree on the device, and once that
    device is removed the old cookie cannot bring it back."""
    first = browser(client)
    game = Api(first).roll(Api(first).new())
    player = player_of(first)
    recovery = first.post("/api/devices/recovery", json={}).json()["code"]
    old = PlayerSigner(_secret(db)).sign(player)
    legacy = TestClient(client.app, cookies={COOKIE: old})
    r = legacy.get("/api/games/current")
    assert r.status_code == 200
    assert r.json()["id"] == game["id"]
    issued = r.headers["set-cookie"].partition("=")[2].partition(";")[0]
    assert issued.startswith("v2.")
    again = TestClient(client.app, cookies={COOKIE: old}).get("/api/records")
    assert again.headers["set-cookie"].partition("=")[2].partition(";")[0] == issued
    assert len(first.get("/api/devices").json()["devices"]) == 2
    migrated = next(d for d in first.get("/api/devices").json()["devices"] if not d["this"])
    removed = first.post(f"/api/devices/{migrated['id']}/remove", json={"recovery_code": recovery})
    assert removed.status_code == 200
    r = TestClient(client.app, cookies={COOKIE: old}).get("/api/games/current")
    assert r.status_code == 404
    r = TestClient(client.app, cookies={COOKIE: issued}).get("/api/games/current")
    assert r.status_code == 404


# -- I4: export and delete ---------------------------------------------------------------------


def test_i4_the_export_holds_everything_kept_about_the_player(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(clock=lambda: NOON)
    me = browser(client, PHONE)
    api = Api(me)
    done = api.play_to_end(api.new())
    assert me.put("/api/daily/name", json={"name": "小明"}).status_code == 200
    created = me.post("/api/groups", json={"name": "三年二班"})
    assert created.status_code == 201, created.text
    me.post("/api/devices/recovery", json={})
    code_of(me)
    assert me.put("/api/settings/language", json={"language": "en"}).status_code == 200
    r = me.get("/api/me/export")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == 'attachment; filename="yahtzee-data.json"'
    data = r.json()
    assert data["format"] == "yahtzee-export-v2"
    assert set(data) == {
        "format",
        "player_id",
        "exported_at",
        "summary",
        "requests",
        "games",
        "daily",
        "practice",
        "rooms",
        "devices",
        "recovery_code",
        "link_codes",
        "settings",
        "push",
    }
    [game] = data["games"]
    assert game["id"] == done["id"]
    assert game["human_total"] == done["seats"][0]["total"] if "seats" in done else True
    assert game["events"][0]["kind"] == "start"
    assert len(game["events"]) == done["version"]
    assert data["daily"]["board_name"]["name"] == "小明"
    assert [g["name"] for g in data["daily"]["groups_created"]] == ["三年二班"]
    assert data["devices"][0]["name"] == "phone chrome"  # as kept: said per reader (G2)
    assert data["recovery_code"]["created_at"] == iso_time(NOON)
    assert len(data["link_codes"]) == 1
    assert data["settings"] == {"language": "en", "updated_at": iso_time(NOON)}  # G3
    assert "digest" not in r.text


@pytest.mark.usefixtures("table")
def test_i4_delete_removes_the_player_from_every_table_and_leaves_others_whole(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    client = make_client(clock=clock)
    me, phone, host, classmate, teacher = (browser(client) for _ in range(5))
    api = Api(me)
    recovery = me.post("/api/devices/recovery", json={}).json()["code"]
    assert link(phone, code_of(me)["code"]).status_code == 200
    code_of(me)
    assert me.put("/api/settings/language", json={"language": "en"}).status_code == 200  # G3
    # games: finished, unfinished; the daily; a group of mine and one of another's
    api.play_to_end(api.new())
    for who, name in ((me, "秘密名字"), (classmate, "同学甲"), (teacher, "王老师")):
        assert who.put("/api/daily/name", json={"name": name}).status_code == 200
    daily = me.post("/api/daily", json={})
    assert daily.status_code == 201, daily.text
    _finish(me, daily.json())
    _finish(classmate, classmate.post("/api/daily", json={}).json())
    for who in (me, classmate):
        assert who.get("/api/daily").json()["status"] == "finished"  # as the page does
    mine = me.post("/api/groups", json={"name": "我的小组"}).json()
    joined = classmate.post(
        "/api/groups/join", json={"token": mine["invite_url"].rpartition("#")[2]}
    )
    assert joined.status_code == 200, joined.text
    theirs = teacher.post("/api/groups", json={"name": "老师的小组"}).json()
    r = me.post("/api/groups/join", json={"token": theirs["invite_url"].rpartition("#")[2]})
    assert r.status_code == 200, r.text
    # 练习: a served and answered puzzle
    puzzle = me.get("/api/puzzles/next").json()["puzzle"]
    answered = me.post(f"/api/puzzles/{puzzle['id']}/answer", json=best_body(puzzle))
    assert answered.status_code == 200, answered.text
    # a room game with a friend, played to its end
    room = host.post("/api/rooms", json={"seats": _seats("open"), "turn_seconds": 60}).json()
    rid = room["room"]["id"]
    invite = _token(room["room"]["invite_url"], "t")
    sat = me.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "秘密名字"})
    assert sat.status_code == 200, sat.text
    started = host.post(f"/api/rooms/{rid}/start", json={}).json()["room"]["game"]
    room_game = _play({0: host, 1: me}, started)
    unfinished = api.roll(api.new(replace=True))
    # a room whose creator removed me (F8: the ban names my id too)
    other = host.post("/api/rooms", json={"seats": _seats("open"), "turn_seconds": 60}).json()
    other_id = other["room"]["id"]
    other_invite = _token(other["room"]["invite_url"], "t")
    sat = me.post(f"/api/rooms/{other_id}/join", json={"token": other_invite, "name": "秘密名字"})
    assert sat.status_code == 200, sat.text
    assert host.post(f"/api/rooms/{other_id}/remove", json={"seat": 1}).status_code == 200
    assert me.get("/api/me/export").json()["rooms"]["banned_from_rooms"] == [other_id]
    # a group whose creator removed me (F8)
    strict = teacher.post("/api/groups", json={"name": "严格的小组"}).json()
    token = strict["invite_url"].rpartition("#")[2]
    assert me.post("/api/groups/join", json={"token": token}).status_code == 200
    members = teacher.get(f"/api/groups/{strict['group']['id']}").json()["members"]
    mine_there = next(m["member_id"] for m in members if not m.get("you"))
    out = teacher.delete(f"/api/groups/{strict['group']['id']}/members/{mine_there}")
    assert out.status_code == 200, out.text
    removed = me.get("/api/me/export").json()["daily"]["removed_from_groups"]
    assert [r["group_id"] for r in removed] == [strict["group"]["id"]]

    player = player_of(me)
    assert _rows_with(client, player)
    assert classmate.get("/api/daily/2026-12-01/leaderboard").json()["players"] == 2

    r = me.post("/api/me/delete", json={})
    assert (r.status_code, error_code(r)) == (422, "invalid_request")
    r = me.post("/api/me/delete", json={"confirm": True, "recovery_code": recovery})
    assert r.status_code == 200, r.text
    assert r.json() == {"erased": True, "devices": 2}

    # nothing of the player anywhere: not its id, not the name it typed
    assert _rows_with(client, player) == []
    assert _rows_with(client, "秘密名字") == []
    # both its devices are strangers
    for device in (me, phone):
        r = device.get("/api/records")
        assert r.json()["games_played"] == 0
        assert COOKIE in r.headers["set-cookie"]
        assert device.get(f"/api/games/{unfinished['id']}").status_code == 404
    # the others' things stay whole: the board, the group (mine handed to its member),
    # the room's game with a nameless seat
    board = classmate.get("/api/daily/2026-12-01/leaderboard").json()
    assert board["players"] == 1
    assert [e["name"] for e in board["entries"]] == ["同学甲"]
    groups = classmate.get("/api/groups").json()["groups"]
    assert [(g["name"], g["creator"]) for g in groups] == [("我的小组", True)]
    assert teacher.get("/api/groups").json()["groups"][0]["members"] == 1
    seen = host.get(f"/api/games/{room_game['id']}")
    assert seen.status_code == 200
    assert [s["name"] for s in seen.json()["seats"]] == ["房主", None]
    assert seen.json()["ranking"] == room_game["ranking"]
    assert host.get(f"/api/games/{room_game['id']}/review").status_code == 200


def _rows_with(client: TestClient, text: str) -> list[tuple[str, str]]:
    """Every (table, row) of the whole database whose text contains ``text``."""
    db = client.app.state.devices.store.db  # type: ignore[attr-defined]

    async def scan(tx: Any) -> list[tuple[str, str]]:
        if tx.dialect == "sqlite":
            tables = [
                r[0] for r in await tx.all("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
        else:
            tables = [
                r[0]
                for r in await tx.all(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
                )
            ]
        found = []
        for table in tables:
            for row in await tx.all(f"SELECT * FROM {table}"):  # (our own table names)
                if text in repr(row):
                    found.append((table, repr(row)[:200]))
        return found

    async def run() -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = await db.run(scan, write=False)
        return found

    return on_app_loop(client, run)


def test_i1_a_merge_keeps_one_daily_attempt_a_day_the_one_started_first(
    make_client: Callable[..., TestClient],
) -> None:
    """D2 stays one attempt a day for the player: both browsers played today's daily; after
    the merge the attempt started first is the day's on the boards, the other game stays
    in the records (nothing dropped)."""
    clock = Clock()
    client = make_client(clock=clock)
    home, school, other = browser(client), browser(client), browser(client)
    games = []
    for who, name in ((school, "学校"), (home, "家里"), (other, "别人")):
        assert who.put("/api/daily/name", json={"name": name}).status_code == 200
        started = who.post("/api/daily", json={})
        assert started.status_code == 201, started.text
        games.append(_finish(who, started.json()))
        assert who.get("/api/daily").json()["status"] == "finished"
        clock.now += 60  # school started first, then home, then another player
    assert home.get("/api/daily/2026-12-01/leaderboard").json()["players"] == 3
    r = link(school, code_of(home)["code"], merge=True)
    assert r.status_code == 200, r.text
    board = home.get("/api/daily/2026-12-01/leaderboard").json()
    assert board["players"] == 2
    assert sorted(e["name"] for e in board["entries"]) == ["别人", "家里"]  # the linked name
    mine = board["you"]
    assert mine is not None
    assert mine["score"] == games[0]["seats"][0]["total"]  # school's attempt: started first
    assert school.get("/api/daily").json()["game_id"] == games[0]["id"]
    # both games in the records, and still no second attempt today
    for game in games[:2]:
        assert home.get(f"/api/games/{game['id']}").status_code == 200
    again = home.post("/api/daily", json={})
    assert (again.status_code, error_code(again)) == (409, "already_played")
