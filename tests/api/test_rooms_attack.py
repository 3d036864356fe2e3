"""好友房间 under attack (issue 28), on SQLite and PostgreSQL: each test plays the attack
that worked, then checks that it no longer does.

F7: a watch link gives away nothing (no join token, no invite link) and the creator renews
the links; F8: a removed browser stays out of that room; F10: a start whose process died
does not leave the room ``starting`` for ever, and a rematch takes the slot of whoever asked
for it; F12: the turn deadline is set once a turn (rolls and hints do not move it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yahtzee.storage import StorageUnavailableError

from .helpers import error_code, on_app_loop
from .test_rooms import NOON, Clock, _log, _play, _rooms, _seats, _token


def _open_room(host: TestClient, *kinds: str, turn: int = 60) -> dict[str, Any]:
    created = host.post("/api/rooms", json={"seats": _seats(*kinds), "turn_seconds": turn})
    assert created.status_code == 201, created.text
    room: dict[str, Any] = created.json()["room"]
    return room


def _join(client: TestClient, room: dict[str, Any], name: str) -> dict[str, Any]:
    joined = client.post(
        f"/api/rooms/{room['id']}/join",
        json={"token": _token(room["invite_url"], "t"), "name": name},
    )
    assert joined.status_code == 200, joined.text
    out: dict[str, Any] = joined.json()["room"]
    return out


# -- F7: the watch link ------------------------------------------------------------------------


def test_f7_a_watcher_sees_no_join_link(make_client: Callable[..., TestClient]) -> None:
    """The attack: GET the room with the watch token, read ``invite_url``, join with it."""
    host, watcher = make_client(), make_client()
    room = _open_room(host, "open", "novice")
    invite = _token(room["invite_url"], "t")
    watch = _token(room["watch_url"], "w")
    seen = watcher.get(f"/api/rooms/{room['id']}", params={"token": watch})
    assert seen.status_code == 200, seen.text
    assert invite not in seen.text  # not in any field
    body = seen.json()["room"]
    assert body["invite_url"] is None
    assert body["qr_url"] is None
    assert body["watch_url"] is None  # the watcher has it already; only seat holders get links
    # what a watcher's stream replays carries no token either
    assert all(invite not in str(e.data) for e in _log(host, room["id"]))
    # a seat holder still gets both links
    mine = host.get(f"/api/rooms/{room['id']}").json()["room"]
    assert _token(mine["invite_url"], "t") == invite
    assert _token(mine["watch_url"], "w") == watch


def test_f7_the_creator_renews_the_links_and_the_old_ones_stop_working(
    make_client: Callable[..., TestClient],
) -> None:
    host, friend, watcher, late = (make_client() for _ in range(4))
    room = _open_room(host, "open", "open")
    rid = room["id"]
    old_invite, old_watch = _token(room["invite_url"], "t"), _token(room["watch_url"], "w")
    _join(friend, room, "甲")
    assert watcher.get(f"/api/rooms/{rid}", params={"token": old_watch}).status_code == 200
    # only the creator renews
    refused = friend.post(f"/api/rooms/{rid}/links", json={})
    assert refused.status_code == 403
    assert error_code(refused) == "not_room_creator"
    renewed = host.post(f"/api/rooms/{rid}/links", json={})
    assert renewed.status_code == 200, renewed.text
    new_room = renewed.json()["room"]
    new_invite, new_watch = _token(new_room["invite_url"], "t"), _token(new_room["watch_url"], "w")
    assert len({old_invite, old_watch, new_invite, new_watch}) == 4
    # the old links open nothing
    assert watcher.get(f"/api/rooms/{rid}", params={"token": old_watch}).status_code == 404
    assert late.get(f"/api/rooms/{rid}", params={"token": old_invite}).status_code == 404
    stale = late.post(f"/api/rooms/{rid}/join", json={"token": old_invite, "name": "乙"})
    assert stale.status_code == 404
    # the new ones do; the seats already taken stay taken
    assert watcher.get(f"/api/rooms/{rid}", params={"token": new_watch}).status_code == 200
    joined = late.post(f"/api/rooms/{rid}/join", json={"token": new_invite, "name": "乙"})
    assert joined.status_code == 200, joined.text
    assert friend.get(f"/api/rooms/{rid}").json()["room"]["your_seat"] == 1
    # every page of the room hears of it; the event carries no token
    links = [e for e in _log(host, rid) if e.kind == "links"]
    assert [e.data for e in links] == [{}]
    # a seat holder's page reads the new links again
    assert _token(friend.get(f"/api/rooms/{rid}").json()["room"]["invite_url"], "t") == new_invite


def test_f7_renewals_are_limited(make_client: Callable[..., TestClient]) -> None:
    host = make_client(max_room_link_renewals_per_hour=2)
    rid = _open_room(host, "open")["id"]
    for _ in range(2):
        assert host.post(f"/api/rooms/{rid}/links", json={}).status_code == 200
    third = host.post(f"/api/rooms/{rid}/links", json={})
    assert third.status_code == 429
    assert "retry-after" in third.headers


# -- F8: removal is a ban -------------------------------------------------------------------------


def test_f8_a_removed_browser_stays_out_of_the_room(
    make_client: Callable[..., TestClient],
) -> None:
    """The attack: the creator removes a seat's person, who rejoins at once with the link."""
    host, pest, friend = make_client(), make_client(), make_client()
    room = _open_room(host, "open", "open")
    rid, invite = room["id"], _token(room["invite_url"], "t")
    _join(pest, room, "捣乱")
    removed = host.post(f"/api/rooms/{rid}/remove", json={"seat": 1})
    assert removed.status_code == 200, removed.text
    again = pest.post(f"/api/rooms/{rid}/join", json={"token": invite, "name": "换个名字"})
    assert again.status_code == 403
    assert error_code(again) == "removed_from_room"
    assert "房主" in again.json()["error"]["message"]
    # the link shows it nothing either (the page says why at once)
    look = pest.get(f"/api/rooms/{rid}", params={"token": invite})
    assert look.status_code == 403
    assert error_code(look) == "removed_from_room"
    watch = _token(host.get(f"/api/rooms/{rid}").json()["room"]["watch_url"], "w")
    assert pest.get(f"/api/rooms/{rid}", params={"token": watch}).status_code == 403
    # anyone else still takes the freed seat (with the link the removal renewed, F27), and
    # the ban is of that room only
    assert _join(friend, removed.json()["room"], "朋友")["your_seat"] == 1
    other = _open_room(host, "open")
    assert _join(pest, other, "捣乱")["your_seat"] == 1


# -- F10: a rematch takes the asker's slot ---------------------------------------------------------


def test_f10_a_rematch_is_opened_by_whoever_asks_for_it(
    make_client: Callable[..., TestClient],
) -> None:
    """The attack: a seat holder asks for rematch after rematch of the creator's rooms, each
    taking one of the creator's open-room slots."""
    host = make_client(max_open_rooms=2, max_rooms_per_hour_per_address=0)
    friend = make_client(max_open_rooms=2, max_rooms_per_hour_per_address=0)
    room = _open_room(host, "open")
    _join(friend, room, "甲")
    game = host.post(f"/api/rooms/{room['id']}/start", json={}).json()["room"]["game"]
    assert _play({0: host, 1: friend}, game)["status"] == "finished"
    assert _open_room(host, "novice")["status"] == "waiting"  # the host's other open room
    new = friend.post(f"/api/rooms/{room['id']}/rematch", json={})
    assert new.status_code == 200, new.text
    rematch = new.json()["room"]
    assert rematch["creator"] is True
    assert rematch["your_seat"] == 0  # the creator's seat is the first
    assert [(s["name"], s["taken"]) for s in rematch["seats"]] == [("甲", True), ("房主", True)]
    seen_by_host = host.post(f"/api/rooms/{room['id']}/rematch", json={}).json()["room"]
    assert seen_by_host["id"] == rematch["id"]
    assert seen_by_host["creator"] is False
    assert seen_by_host["your_seat"] == 1
    # the host's second slot is still free
    assert host.post("/api/rooms", json={"seats": _seats("novice")}).status_code == 201
    # and the friend, not the host, starts it
    assert host.post(f"/api/rooms/{rematch['id']}/start", json={}).status_code == 403
    assert friend.post(f"/api/rooms/{rematch['id']}/start", json={}).status_code == 200


# -- F10: a start whose process died -----------------------------------------------------------


class _DiedError(StorageUnavailableError):
    """What the test's "process" meets between the claim and the stored game."""


def test_f10_a_claimed_start_without_a_game_goes_back_to_waiting(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that claimed the start dies before its game is stored (here: the game's
    insert fails and the claim's own clean-up never runs, as after ``kill -9``). The sweep
    puts the room back to ``waiting`` after the start deadline; it then starts normally,
    and it stops holding the creator's open-room slot once it expires."""
    clock = Clock()
    host = make_client(
        clock=clock, max_open_rooms=1, max_rooms_per_hour_per_address=0, room_start_timeout=30
    )
    friend = make_client(clock=clock)
    room = _open_room(host, "open")
    rid = room["id"]
    _join(friend, room, "甲")
    svc = _rooms(host)

    async def dies(*_args: Any, **_kwargs: Any) -> Any:
        raise _DiedError("the process died here")

    async def never(*_args: Any, **_kwargs: Any) -> None:
        return None

    with monkeypatch.context() as patch:
        patch.setattr(svc.games, "new_game", dies)
        patch.setattr(svc.store, "abort_start", never)
        assert host.post(f"/api/rooms/{rid}/start", json={}).status_code == 503
    assert host.get(f"/api/rooms/{rid}").json()["room"]["status"] == "starting"
    assert error_code(host.post(f"/api/rooms/{rid}/start", json={})) == "already_started"
    clock.now += 29  # within the deadline: the claim may still be working
    on_app_loop(host, svc.sweep)
    assert host.get(f"/api/rooms/{rid}").json()["room"]["status"] == "starting"
    clock.now += 2
    on_app_loop(host, svc.sweep)
    back = host.get(f"/api/rooms/{rid}").json()["room"]
    assert back["status"] == "waiting"
    assert [(s["name"], s["taken"]) for s in back["seats"]] == [("房主", True), ("甲", True)]
    # waiting again, it expires like any room left waiting: the slot is the creator's again
    assert error_code(host.post("/api/rooms", json={"seats": _seats("open")})) == "too_many_rooms"
    clock.now += 24 * 3600
    on_app_loop(host, svc.sweep)
    assert host.get(f"/api/rooms/{rid}").json()["room"]["status"] == "expired"
    assert host.post("/api/rooms", json={"seats": _seats("open")}).status_code == 201


def test_f10_a_claimed_start_whose_game_was_stored_goes_on_to_playing(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process dies after storing the game, before the room says so: the sweep finds
    the game and the room plays it (its seats are the seats that play, renumbered)."""
    clock = Clock()
    host = make_client(clock=clock, room_start_timeout=30)
    friend = make_client(clock=clock)
    room = _open_room(host, "open", "open")  # an open seat, dropped at the start
    rid = room["id"]
    _join(friend, room, "甲")
    svc = _rooms(host)

    async def dies(*_args: Any, **_kwargs: Any) -> Any:
        raise _DiedError("the process died here")

    with monkeypatch.context() as patch:
        patch.setattr(svc.store, "started", dies)
        assert host.post(f"/api/rooms/{rid}/start", json={}).status_code == 503
    assert host.get(f"/api/rooms/{rid}").json()["room"]["status"] == "starting"
    clock.now += 31
    on_app_loop(host, svc.sweep)
    playing = host.get(f"/api/rooms/{rid}").json()["room"]
    assert playing["status"] == "playing"
    assert [s["name"] for s in playing["seats"]] == ["房主", "甲"]
    assert [s["name"] for s in playing["game"]["seats"]] == ["房主", "甲"]
    assert playing["deadline"] == clock.now + 60
    assert [e.kind for e in _log(host, rid)][-1] == "start"
    final = _play({0: host, 1: friend}, playing["game"])
    assert final["status"] == "finished"


def test_f10_a_room_left_starting_by_the_old_version_is_undone_too(
    make_client: Callable[..., TestClient],
) -> None:
    """A room stuck before the upgrade has no recorded claim: the sweep undoes it."""
    host = make_client()
    rid = _open_room(host, "novice")["id"]
    svc = _rooms(host)
    on_app_loop(
        host,
        svc.store.db.run,
        lambda tx: tx.all("UPDATE rooms SET status = 'starting' WHERE id = :room", {"room": rid}),
    )
    on_app_loop(host, svc.sweep)
    assert host.get(f"/api/rooms/{rid}").json()["room"]["status"] == "waiting"
    assert host.post(f"/api/rooms/{rid}/start", json={}).status_code == 200


# -- F12: the turn deadline ---------------------------------------------------------------------


def test_f12_rolls_and_hints_do_not_move_the_turn_deadline(
    make_client: Callable[..., TestClient],
) -> None:
    """The attack: roll, wait, roll, wait, hint... each action gave the turn its full time
    again, so a 10 s turn lasted three times as long. Now 托管 comes 10 s after the turn
    began, whatever was done in it."""
    clock = Clock()
    host, friend = make_client(clock=clock), make_client(clock=clock)
    room = _open_room(host, "open", turn=10)
    _join(friend, room, "甲")
    started = host.post(f"/api/rooms/{room['id']}/start", json={}).json()["room"]
    assert started["deadline"] == NOON + 10
    game = started["game"]
    clock.now += 4
    game = host.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]}).json()
    assert host.get(f"/api/rooms/{room['id']}").json()["room"]["deadline"] == NOON + 10
    clock.now += 4
    hint = host.post(f"/api/games/{game['id']}/hint", json={"version": game["version"]})
    assert hint.status_code == 200, hint.text
    game = hint.json()["game"]
    held = [True, True, False, False, False]
    rolled = host.post(
        f"/api/games/{game['id']}/roll", json={"version": game["version"], "hold": held}
    )
    assert rolled.status_code == 200, rolled.text
    assert host.get(f"/api/rooms/{room['id']}").json()["room"]["deadline"] == NOON + 10
    clock.now += 3  # 11 s into the turn
    # (the app's own sweeper may be playing the turn as this sweep asks: it is refused by
    # the compare-and-set, and the turn ends in the other's: swept until it has moved)
    for _ in range(200):
        on_app_loop(host, _rooms(host).sweep)
        now = host.get(f"/api/rooms/{room['id']}").json()["room"]
        if now["game"]["turn"] == 1:
            break
    assert now["seats"][0]["away"] is True
    assert now["game"]["turn"] == 1
    # the next turn gets its full time from when it began, and keeps it
    assert now["deadline"] == clock.now + 10
    g = now["game"]
    clock.now += 5
    g = friend.post(f"/api/games/{g['id']}/roll", json={"version": g["version"]}).json()
    assert host.get(f"/api/rooms/{room['id']}").json()["room"]["deadline"] == clock.now + 5
