"""F27 (issue 35 item 10), on SQLite and PostgreSQL: removing a member renews the link.

A removal banned one player id (F8), so the removed person's fresh cookie (a private
window, cleared cookies) joined again with the same link. Now the room's links, or the
group's invite link, are renewed with the removal: the old link opens nothing, the others
keep their seats and memberships, and the answer carries the new link for the creator to
share."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from .helpers import error_code
from .test_daily import NOON
from .test_rooms import Clock, _log, _seats, _token


def test_f27_removing_a_seat_renews_the_rooms_links(
    make_client: Callable[..., TestClient],
) -> None:
    clock = Clock()
    host, friend, pest = (make_client(clock=clock) for _ in range(3))
    room = host.post(
        "/api/rooms", json={"seats": _seats("open", "open", "open"), "turn_seconds": 60}
    ).json()["room"]
    rid = room["id"]
    old_invite, old_watch = _token(room["invite_url"], "t"), _token(room["watch_url"], "w")
    for who, name in ((friend, "小明"), (pest, "捣蛋鬼")):
        r = who.post(f"/api/rooms/{rid}/join", json={"token": old_invite, "name": name})
        assert r.status_code == 200, r.text
    removed = host.post(f"/api/rooms/{rid}/remove", json={"seat": 2})
    assert removed.status_code == 200, removed.text
    body = removed.json()
    assert body["links_renewed"] is True
    new_invite = _token(body["room"]["invite_url"], "t")
    assert new_invite != old_invite
    assert _token(body["room"]["watch_url"], "w") != old_watch
    assert [e.kind for e in _log(host, rid)][-2:] == ["leave", "links"]
    # the removed browser itself is told why, with the old link as with the new (F8)
    for token in (old_invite, new_invite):
        r = pest.post(f"/api/rooms/{rid}/join", json={"token": token, "name": "换个名字"})
        assert (r.status_code, error_code(r)) == (403, "removed_from_room"), r.text
    # its fresh cookie: the old link opens nothing (before, it rejoined)
    pest.cookies.clear()
    again = pest.post(f"/api/rooms/{rid}/join", json={"token": old_invite, "name": "换个名字"})
    assert (again.status_code, error_code(again)) == (404, "not_found"), again.text
    assert pest.get(f"/api/rooms/{rid}", params={"token": old_watch}).status_code == 404
    # the others keep their seats and see the new links; a newcomer joins by the new one
    seen = friend.get(f"/api/rooms/{rid}").json()["room"]
    assert [s["name"] for s in seen["seats"]] == ["房主", "小明", None, None]
    assert _token(seen["invite_url"], "t") == new_invite
    newcomer = make_client(clock=clock)
    r = newcomer.post(f"/api/rooms/{rid}/join", json={"token": new_invite, "name": "小红"})
    assert r.status_code == 200, r.text


def _invite(url: str) -> str:
    return url.rpartition("#")[2]


def test_f27_removing_a_member_renews_the_groups_link(
    make_client: Callable[..., TestClient],
) -> None:
    teacher, pupil, pest = (make_client(clock=lambda: NOON) for _ in range(3))
    created = teacher.post("/api/groups", json={"name": "三年二班", "your_name": "王老师"}).json()
    gid = created["group"]["id"]
    old = _invite(created["invite_url"])
    for who, name in ((pupil, "小明"), (pest, "捣蛋鬼")):
        r = who.post("/api/groups/join", json={"token": old, "name": name})
        assert r.status_code == 200, r.text
    members = teacher.get(f"/api/groups/{gid}").json()["members"]
    target = next(m["member_id"] for m in members if m["name"] == "捣蛋鬼")
    removed = teacher.delete(f"/api/groups/{gid}/members/{target}")
    assert removed.status_code == 200, removed.text
    body = removed.json()
    assert body["group"]["members"] == 2
    new = _invite(body["invite_url"])
    assert new != old
    assert body["qr_url"] == f"/api/groups/{gid}/qr.svg"
    # the removed browser itself is told why, with the old link as with the new (F8)
    for token in (old, new):
        r = pest.post("/api/groups/join", json={"token": token, "name": "换个名字"})
        assert (r.status_code, error_code(r)) == (403, "removed_from_group"), r.text
    # its fresh cookie: the old link is dead (before, it joined again)
    pest.cookies.clear()
    r = pest.post("/api/groups/join", json={"token": old, "name": "换个名字"})
    assert (r.status_code, error_code(r)) == (404, "not_found"), r.text
    assert pest.post("/api/groups/lookup", json={"token": old}).status_code == 404
    # the others stay members; the new link is the group page's and lets a newcomer in
    assert pupil.get(f"/api/groups/{gid}").status_code == 200
    assert _invite(teacher.get(f"/api/groups/{gid}").json()["invite_url"]) == new
    newcomer = make_client(clock=lambda: NOON)
    r = newcomer.post("/api/groups/join", json={"token": new, "name": "小红"})
    assert r.status_code == 200, r.text
