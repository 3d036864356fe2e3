"""The owner stays in control (F20), guessing is limited globally (F21), the export (F22,
U20), revocation reads the database (F23) and a device that ended is told so once (U20):
issue 35 items 3-6 and issue 39 item 4, each attack reproduced, on SQLite and PostgreSQL.
(The streams of another process: ``test_devices_multiprocess.py``.)"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee.devices import service as devices_service
from yahtzee.devices.export import render_export
from yahtzee.storage import is_postgres_url
from yahtzee.storage.base import OwnerGoneError

from .helpers import TEST_SECRET, Api, error_code, on_app_loop
from .test_devices import PHONE, browser, code_of, link, player_of
from .test_rooms import Clock

DAY = 86_400.0
NOTICE = "yahtzee_notice"


def _devices(client: TestClient) -> dict[str, Any]:
    r = client.get("/api/devices")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _id(client: TestClient, *, this: bool) -> str:
    return str(next(d["id"] for d in _devices(client)["devices"] if d["this"] is this))


def _copy(client: TestClient, address: str = "203.0.113.66") -> TestClient:
    """A thief's browser holding a copy of ``client``'s cookie."""
    thief = browser(client, address=address)
    thief.cookies = client.cookies
    return thief


def _notices(response: Any) -> list[str]:
    return [
        v.partition("=")[2].partition(";")[0]
        for k, v in response.headers.multi_items()
        if k == "set-cookie" and v.startswith(NOTICE + "=")
    ]


# -- F20: the owner stays in control --------------------------------------------------------


def test_f20_a_copied_cookie_cannot_lock_the_owner_out_every_device_sees_and_refuses(
    make_client: Callable[..., TestClient],
) -> None:
    """Issue 35 item 3: a copied cookie made a new recovery code, removed the owner's
    devices and could delete everything at once. Without the recovery code each now
    waits 72 hours in view of every device, and one tap on any of them refuses it."""
    clock = Clock()
    client = make_client(clock=clock)
    phone, laptop = browser(client, PHONE), browser(client)
    game = Api(phone).roll(Api(phone).new())
    assert link(laptop, code_of(phone)["code"]).status_code == 200
    clock.now += 8 * DAY  # (both long established: neither is a newcomer)
    thief = _copy(laptop)
    phone_id = _id(phone, this=True)

    made = thief.post("/api/devices/recovery", json={})
    assert made.status_code == 202, made.text  # (before: 201, the owner's code replaced)
    assert made.json()["pending"]["kind"] == "recovery_new"
    removed = thief.post(f"/api/devices/{phone_id}/remove", json={})
    assert removed.status_code == 202, removed.text  # (before: 200, the phone a stranger)
    erased = thief.post("/api/me/delete", json={"confirm": True})
    assert erased.status_code == 202, erased.text  # (before: 200, everything gone)
    assert erased.json()["erased"] is False

    # the phone keeps its game and sees the three requests, who asked and when they happen
    assert phone.get(f"/api/games/{game['id']}").status_code == 200
    seen = _devices(phone)
    assert sorted(r["kind"] for r in seen["requests"]) == [
        "erase",
        "recovery_new",
        "remove_device",
    ]
    assert {r["by_name"] for r in seen["requests"]} == {"电脑 · Firefox"}
    assert all(r["due_at"] - r["created_at"] == 72 * 3600 for r in seen["requests"])
    assert seen["recovery_code"] is None
    for request in seen["requests"]:
        r = phone.post(f"/api/devices/requests/{request['id']}/refuse", json={})
        assert r.status_code == 200, r.text
    assert _devices(phone)["requests"] == []
    clock.now += 73 * 3600
    assert len(_devices(phone)["devices"]) == 2
    assert phone.get(f"/api/games/{game['id']}").status_code == 200
    assert _devices(phone)["recovery_code"] is None

    # a request nobody refuses is carried out when its wait is over, by whichever
    # device looks first (or the background task)
    waiting = laptop.post(f"/api/devices/{phone_id}/remove", json={})
    assert waiting.status_code == 202
    clock.now += 71 * 3600
    assert phone.get(f"/api/games/{game['id']}").status_code == 200
    clock.now += 2 * 3600
    assert [d["this"] for d in _devices(laptop)["devices"]] == [True]
    assert phone.get(f"/api/games/{game['id']}").status_code == 404


def test_f20_the_recovery_code_is_the_proof_that_acts_at_once(
    make_client: Callable[..., TestClient],
) -> None:
    """With the current recovery code a protected action is done at once; a wrong one
    is refused (and counted as a try of a recovery code); a lost phone is removable at
    once by a browser that came back with the code."""
    clock = Clock()
    client = make_client(clock=clock)
    phone = browser(client, PHONE)
    game = Api(phone).roll(Api(phone).new())
    first = phone.post("/api/devices/recovery", json={})  # (one device, no code: at once)
    assert first.status_code == 201, first.text
    assert first.json()["pending"] is None
    code = first.json()["code"]
    laptop = browser(client)
    assert link(laptop, code_of(phone)["code"]).status_code == 200
    # the phone is lost: a fresh browser comes back with the code and removes it at once
    back = browser(client, address="192.0.2.9")
    assert back.post("/api/devices/recover", json={"code": code}).status_code == 200
    phone_id = _id(phone, this=True)
    wrong = back.post(f"/api/devices/{phone_id}/remove", json={"recovery_code": "2" * 20})
    assert (wrong.status_code, error_code(wrong)) == (403, "wrong_recovery_code")
    assert phone.get(f"/api/games/{game['id']}").status_code == 200
    r = back.post(f"/api/devices/{phone_id}/remove", json={"recovery_code": code})
    assert r.status_code == 200, r.text
    assert phone.get(f"/api/games/{game['id']}").status_code == 404
    # replacing it, removing it, deleting: at once with it
    r = laptop.post("/api/devices/recovery", json={"recovery_code": code})
    assert r.status_code == 201, r.text
    second = r.json()["code"]
    r = laptop.post("/api/devices/recovery/remove", json={"recovery_code": code})
    assert (r.status_code, error_code(r)) == (403, "wrong_recovery_code")
    r = laptop.post("/api/devices/recovery/remove", json={"recovery_code": second})
    assert r.status_code == 200, r.text
    assert r.json()["recovery_code"] is None


def test_f20_a_device_in_by_a_link_code_cannot_remove_older_ones_and_is_removed_in_one_tap(
    make_client: Callable[..., TestClient],
) -> None:
    """A guessed code's browser (a newcomer by link) cannot remove the owner's devices in
    its first 7 days; every other device shows it (「这是你吗？」) and removes it in one tap;
    「是我」 from another device takes it off the list of newcomers."""
    clock = Clock()
    client = make_client(clock=clock)
    phone, tablet = browser(client, PHONE), browser(client)
    game = Api(phone).roll(Api(phone).new())
    phone.post("/api/devices/recovery", json={})
    assert link(tablet, code_of(phone)["code"]).status_code == 200
    guesser = browser(client, address="198.51.100.23")
    assert link(guesser, code_of(phone)["code"]).status_code == 200  # (the "guessed" code)
    phone_id = _id(phone, this=True)
    r = guesser.post(f"/api/devices/{phone_id}/remove", json={})
    assert (r.status_code, error_code(r)) == (403, "device_too_new")  # (before: 200)
    assert phone.get(f"/api/games/{game['id']}").status_code == 200
    listed = {d["name"]: d for d in _devices(phone)["devices"] if not d["this"]}
    newcomers = [d for d in _devices(phone)["devices"] if d["new"]]
    assert len(newcomers) == 2
    assert all(d["at_once"] for d in newcomers)
    assert all(d["via"] == "link" for d in listed.values())
    guesser_id = _id(guesser, this=True)
    tablet_id = _id(tablet, this=True)
    r = phone.post(f"/api/devices/{tablet_id}/confirm", json={})
    assert r.status_code == 200
    assert [d["id"] for d in r.json()["devices"] if d["new"]] == [guesser_id]
    r = tablet.post(f"/api/devices/{tablet_id}/confirm", json={})
    assert (r.status_code, error_code(r)) == (409, "this_device")
    r = phone.post(f"/api/devices/{guesser_id}/remove", json={})  # one tap, no code
    assert r.status_code == 200, r.text
    assert guesser.get(f"/api/games/{game['id']}").status_code == 404
    # after 7 days the tablet is no newcomer: it may ask (and waits, without the code)
    clock.now += 8 * DAY
    phone.get("/api/records")  # (seen: not expired)
    r = tablet.post(f"/api/devices/{phone_id}/remove", json={})
    assert r.status_code == 202, r.text


def test_f20_an_unused_device_expires_and_sign_out_ends_this_device(
    make_client: Callable[..., TestClient],
) -> None:
    """A device unused for 180 days stops working (told why, once); 「退出这台设备」 ends
    this device and clears its cookie, but never the player's last way back."""
    clock = Clock()
    client = make_client(clock=clock)
    phone, laptop = browser(client, PHONE), browser(client)
    game = Api(phone).roll(Api(phone).new())
    only = phone.post("/api/devices/signout", json={})
    assert (only.status_code, error_code(only)) == (409, "last_way_back")
    assert link(laptop, code_of(phone)["code"]).status_code == 200
    clock.now += 100 * DAY
    assert laptop.get(f"/api/games/{game['id']}").status_code == 200  # (seen now)
    clock.now += 100 * DAY
    assert laptop.get(f"/api/games/{game['id']}").status_code == 200
    r = phone.get(f"/api/games/{game['id']}")  # 200 days unused: expired
    assert r.status_code == 404
    assert _notices(r) == ["expired"]
    assert _notices(phone.get("/api/records")) == []  # (once)
    # the laptop, now the player's only device, needs a way back before it may sign out
    r = laptop.post("/api/devices/signout", json={})
    assert (r.status_code, error_code(r)) == (409, "last_way_back")
    assert laptop.post("/api/devices/recovery", json={}).status_code == 201
    # sign out: the cookie goes, and a copy of it is a stranger too
    kept = _copy(laptop)
    r = laptop.post("/api/devices/signout", json={})
    assert r.status_code == 200, r.text
    cleared = [v for k, v in r.headers.multi_items() if k == "set-cookie"]
    assert any(v.startswith("yahtzee_player=;") and "Max-Age=0" in v for v in cleared)
    assert _notices(r) == ["signed_out"]
    assert kept.get(f"/api/games/{game['id']}").status_code == 404


# -- F21: guessing is limited globally -------------------------------------------------------


def test_f21_guesses_from_many_addresses_hit_the_service_wide_limit(client: TestClient) -> None:
    """Issue 35 item 4: 30 addresses, a fresh cookie per try, made 274 guesses in 6 s.
    Now every try anywhere takes a token of the service's 60 an hour."""
    answered = refused = 0
    for n in range(300):
        guesser = browser(client, address=f"198.18.{n % 30}.{n // 30 + 1}")
        r = link(guesser, f"{n:05d}".translate(str.maketrans("01", "23")) + "ZZZZZ")
        if r.status_code == 429:
            refused += 1
        else:
            assert (r.status_code, error_code(r)) == (404, "invalid_code"), r.text
            answered += 1
    assert answered == 60  # (before: 300, every address its own 10)
    assert refused == 240


def test_f21_an_ipv6_64_is_one_address_group(client: TestClient) -> None:
    """Every address of one IPv6 /64 shares one address's tries (before: each its own)."""
    for n in range(10):
        r = link(browser(client, address=f"2001:db8:5:6::{n + 1:x}"), "22222-33333")
        assert r.status_code == 404
    r = link(browser(client, address="2001:db8:5:6:ffff::1"), "22222-33333")
    assert (r.status_code, error_code(r)) == (429, "rate_limited")
    r = link(browser(client, address="2001:db8:5:7::1"), "22222-33333")
    assert r.status_code == 404


# -- F22, U20: the export ----------------------------------------------------------------------


def test_u20_f22_the_export_is_indented_one_time_format_a_summary_built_off_the_loop(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client(max_work_per_second=20)
    me = browser(client)
    api = Api(me)
    done = api.play_to_end(api.new())
    api.play_to_end(api.new())
    assert me.put("/api/daily/name", json={"name": "小明"}).status_code == 200
    assert me.post("/api/groups", json={"name": "三年二班"}).status_code == 201
    threads: list[str] = []
    render = render_export

    def spy(data: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
        threads.append(threading.current_thread().name)
        return render(data)

    monkeypatch.setattr(devices_service, "render_export", spy)
    r = me.get("/api/me/export")
    assert r.status_code == 200, r.text
    assert threads
    assert threads[0] != threading.main_thread().name
    assert r.text.startswith('{\n  "format": "yahtzee-export-v2",\n')  # indented
    data = json.loads(r.text)
    assert data["summary"] == {
        "games": 2,
        "finished_games": 2,
        "best_score": max(g["human_total"] for g in data["games"]),
        "groups": 1,
        "devices": 1,
        "room_games": 0,
    }
    assert data["games"][0]["id"] == done["id"]
    times = _times(data)
    assert len(times) > 20
    iso = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"
    assert all(__import__("re").fullmatch(iso, t) for t in times), times[:5]


def _times(value: Any, key: str = "") -> list[str]:
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _times(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in _times(v, key)]
    if (key == "at" or key.endswith("_at")) and value is not None:
        return [value]
    return []


def test_f22_the_export_is_charged_by_its_size(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past what the route's fixed cost covers, a unit per size step is owed: a big
    export leaves the next costly read waiting, a small one leaves room for another
    (before, every export cost the same 10 units). (A size step of 500 bytes here, so that a
    few games are "big": the service's is 100 KB.)"""
    from yahtzee.devices import routes

    monkeypatch.setattr(routes, "EXPORT_BYTES_PER_UNIT", 500)
    client = make_client(max_work_per_second=20)
    small = browser(client)
    Api(small).new()
    first = small.get("/api/me/export")
    assert len(first.content) < 10 * 500
    assert small.get("/api/me/export").status_code == 200  # 10 + 10 of 20
    big = browser(client)
    api = Api(big)
    for _ in range(3):
        api.play_to_end(api.new())
    r = big.get("/api/me/export")
    assert r.status_code == 200
    assert len(r.content) > 20 * 500
    again = big.get("/api/me/export")
    assert (again.status_code, error_code(again)) == (429, "rate_limited")
    assert int(again.headers["retry-after"]) >= 1


# -- F23: what could lock the owner out, or write under a deleted player, reads the database --


def _second_app(make_client: Callable[..., TestClient], db: Path | str) -> TestClient:
    """Another server process on the same database (its own caches; a long cache life, so
    that only a read of the database can tell it a device ended)."""
    extra: dict[str, Any] = {"device_cache_seconds": 3600.0}
    if not is_postgres_url(db):
        extra["secret_file"] = Path(db).with_name(Path(db).name + ".secret")
    else:
        extra["secret"] = TEST_SECRET
    return make_client(**extra)


def test_f23_a_device_removed_elsewhere_makes_no_recovery_code_for_its_old_player(
    make_client: Callable[..., TestClient], db: Path | str
) -> None:
    """Issue 35 item 6: removed through one process, a device made a recovery code on the
    other 0.17 s later, and a fresh browser got back in with it."""
    one = make_client(device_cache_seconds=3600.0)
    other = _second_app(make_client, db)
    phone = browser(one, PHONE)
    game = Api(phone).roll(Api(phone).new())
    recovery = phone.post("/api/devices/recovery", json={}).json()["code"]
    tablet_there = browser(other)
    assert link(tablet_there, code_of(phone)["code"]).status_code == 200
    assert tablet_there.get(f"/api/games/{game['id']}").status_code == 200  # (cached there)
    tablet_id = _id(tablet_there, this=True)
    r = phone.post(f"/api/devices/{tablet_id}/remove", json={"recovery_code": recovery})
    assert r.status_code == 200, r.text
    made = tablet_there.post("/api/devices/recovery", json={})
    assert made.status_code == 201, made.text
    fresh = browser(one)
    assert fresh.post("/api/devices/recover", json={"code": made.json()["code"]}).status_code == 200
    assert fresh.get(f"/api/games/{game['id']}").status_code == 404  # (before: 200)
    assert _notices(made) == ["removed"]
    assert phone.post("/api/devices/recover", json={"code": recovery}).status_code == 409


def test_f23_nothing_is_written_under_a_deleted_players_id(
    make_client: Callable[..., TestClient], db: Path | str
) -> None:
    """Issue 35 item 6: after a deletion, another process wrote 9 games under the deleted
    player's id. Now a write reads the device from the database (a stranger's game), and
    a new game's transaction checks its owner under the player's lock."""
    one = make_client(device_cache_seconds=3600.0)
    other = _second_app(make_client, db)
    phone = browser(one, PHONE)
    Api(phone).new()
    recovery = phone.post("/api/devices/recovery", json={}).json()["code"]
    laptop_there = browser(other)
    assert link(laptop_there, code_of(phone)["code"]).status_code == 200
    assert laptop_there.get("/api/games/current").status_code == 200  # (cached there)
    player = player_of(phone)
    erased = phone.post("/api/me/delete", json={"confirm": True, "recovery_code": recovery})
    assert erased.status_code == 200, erased.text
    for _ in range(3):
        r = laptop_there.post("/api/games", json={"mode": "solo", "replace": True})
        assert r.status_code == 201, r.text
    assert _notices(r) == []  # (told once, on the first)
    assert _games_of(one, player) == 0  # (before: 3)
    # the storage's own check: a game for a player without a live device is refused
    service = one.app.state.service  # type: ignore[attr-defined]

    async def create() -> None:
        from yahtzee.game import GameKind

        await service.new_game(player, GameKind.SOLO)

    with pytest.raises(OwnerGoneError):
        on_app_loop(one, create)
    assert _games_of(one, player) == 0


def _games_of(client: TestClient, player: str) -> int:
    db = client.app.state.devices.store.db  # type: ignore[attr-defined]

    async def count() -> int:
        row = await db.run(
            lambda tx: tx.one("SELECT COUNT(*) FROM games WHERE player_id = :p", {"p": player}),
            write=False,
        )
        return int(row[0])

    return on_app_loop(client, count)


# -- U20: told once ----------------------------------------------------------------------------


def test_u20_a_removed_device_and_a_deleted_player_are_told_once(client: TestClient) -> None:
    """Issue 39 item 4: a removed device silently became a new, empty player."""
    phone, laptop = browser(client, PHONE), browser(client)
    recovery = phone.post("/api/devices/recovery", json={}).json()["code"]
    assert link(laptop, code_of(phone)["code"]).status_code == 200
    laptop_id = _id(laptop, this=True)
    assert phone.post(f"/api/devices/{laptop_id}/remove", json={}).status_code == 200
    r = laptop.get("/api/records")
    assert _notices(r) == ["removed"]
    assert "Max-Age" in next(v for k, v in r.headers.multi_items() if v.startswith(NOTICE))
    assert _notices(laptop.get("/api/records")) == []
    erased = phone.post("/api/me/delete", json={"confirm": True, "recovery_code": recovery})
    assert erased.status_code == 200
    assert _notices(phone.get("/api/records")) == ["erased"]
