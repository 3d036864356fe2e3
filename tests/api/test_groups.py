"""Groups (小组, D6) over the API: invite, join, leave, removal, close; SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from .test_daily import NOON, _finish


def _invite_token(created: dict[str, Any]) -> str:
    url: str = created["invite_url"]
    assert "/groups/join#" in url  # the token rides in the fragment, never sent to a server
    return url.rpartition("#")[2]


def test_d6_create_invite_join_board_leave_remove_close(
    make_client: Callable[..., TestClient],
) -> None:
    teacher, pupil, other, stranger = (make_client(clock=lambda: NOON) for _ in range(4))
    no_name = teacher.post("/api/groups", json={"name": "三年二班"})
    assert no_name.status_code == 409
    assert no_name.json()["error"]["code"] == "name_required"
    created = teacher.post("/api/groups", json={"name": "三年二班", "your_name": "王老师"})
    assert created.status_code == 201, created.text
    body = created.json()
    group = body["group"]
    assert group["name"] == "三年二班"
    assert group["creator"]
    assert group["member"]
    assert group["members"] == 1
    token = _invite_token(body)
    assert len(token) == 22
    # the QR code of the link, for the creator only
    qr = teacher.get(body["qr_url"])
    assert qr.status_code == 200
    assert qr.headers["content-type"].startswith("image/svg+xml")
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in qr.text  # a standalone document
    assert pupil.get(body["qr_url"]).status_code == 404

    # the link: what it opens, then joining with a name
    assert pupil.post("/api/groups/lookup", json={"token": token}).json()["group"]["name"] == (
        "三年二班"
    )
    assert pupil.post("/api/groups/lookup", json={"token": "x" * 22}).status_code == 404
    joined = pupil.post("/api/groups/join", json={"token": token, "name": "小明"})
    assert joined.status_code == 200, joined.text
    assert joined.json()["group"]["members"] == 2
    assert joined.json()["group"]["your_name"] == "小明"
    assert other.post("/api/groups/join", json={"token": token, "name": "小红"}).status_code == 200
    # a browser can be in several groups
    second = teacher.post("/api/groups", json={"name": "兴趣小组"}).json()
    assert (
        pupil.post(
            "/api/groups/join", json={"token": _invite_token(second), "name": "明明"}
        ).status_code
        == 200
    )
    assert [g["name"] for g in pupil.get("/api/groups").json()["groups"]] == [
        "兴趣小组",
        "三年二班",
    ]

    # boards of the members only; non-members see nothing
    for client in (pupil, other, stranger):
        _finish(client, client.post("/api/daily", json={"name": "路人"}).json())
        client.get("/api/daily")
    gid = group["id"]
    page = teacher.get(f"/api/groups/{gid}").json()
    assert {e["name"] for e in page["today"]["entries"]} == {"小明", "小红"}  # group names
    assert page["week"]["players"] == 2
    assert [m["name"] for m in page["members"]] == ["王老师", "小明", "小红"]
    # who has finished today's challenge (the teacher has not played)
    assert [m["played_today"] for m in page["members"]] == [False, True, True]
    assert page["invite_url"].endswith(token)
    trends = {t["name"]: t["days"] for t in page["trends"]}
    assert [d["date"] for d in trends["小明"]] == ["2026-12-01"]
    assert trends["王老师"] == []
    pupil_page = pupil.get(f"/api/groups/{gid}").json()
    assert pupil_page["trends"] is None  # the trend is the creator's view
    assert all("member_id" not in m for m in pupil_page["members"])
    assert pupil_page.get("invite_url") is None
    assert stranger.get(f"/api/groups/{gid}").status_code == 404
    board = stranger.get("/api/daily/2026-12-01/leaderboard", params={"group": gid})
    assert board.status_code == 404
    assert (
        pupil.get("/api/daily/2026-12-01/leaderboard", params={"group": gid}).json()["players"] == 2
    )

    # only the creator removes and closes
    member_ids = {m["name"]: m["member_id"] for m in page["members"]}
    forbidden = pupil.delete(f"/api/groups/{gid}/members/{member_ids['小红']}")
    assert forbidden.status_code == 403
    assert forbidden.json()["error"]["code"] == "not_group_creator"
    assert teacher.delete(f"/api/groups/{gid}/members/{member_ids['王老师']}").status_code == 404
    removed = teacher.delete(f"/api/groups/{gid}/members/{member_ids['小红']}")
    assert removed.status_code == 200
    assert removed.json()["group"]["members"] == 2
    assert other.get(f"/api/groups/{gid}").status_code == 404
    assert {e["name"] for e in teacher.get(f"/api/groups/{gid}").json()["today"]["entries"]} == {
        "小明"
    }

    # a member leaves and takes their entries off the group's boards
    assert pupil.post(f"/api/groups/{gid}/leave", json={}).status_code == 200
    assert teacher.get(f"/api/groups/{gid}").json()["today"]["entries"] == []
    assert teacher.post(f"/api/groups/{gid}/leave", json={}).status_code == 409  # closes instead
    # ...but keeps their entry on the board of everyone
    assert pupil.get("/api/daily/2026-12-01/leaderboard").json()["players"] == 3

    # a new link stops the old one
    renewed = teacher.post(f"/api/groups/{gid}/invite", json={}).json()
    fresh = _invite_token(renewed)
    assert fresh != token
    assert (
        stranger.post("/api/groups/join", json={"token": token, "name": "晚到"}).status_code == 404
    )
    assert (
        stranger.post("/api/groups/join", json={"token": fresh, "name": "晚到"}).status_code == 200
    )
    # closing: no more joins, the link is dead
    assert pupil.post(f"/api/groups/{gid}/close", json={}).status_code == 404  # not a member
    closed = teacher.post(f"/api/groups/{gid}/close", json={})
    assert closed.json()["group"]["closed"] is True
    assert pupil.post("/api/groups/join", json={"token": fresh, "name": "小明"}).status_code == 404
    assert teacher.get(f"/api/groups/{gid}").json().get("invite_url") is None


def test_d6_hostile_names_and_a_full_group(make_client: Callable[..., TestClient]) -> None:
    teacher = make_client(clock=lambda: NOON)
    bad = teacher.post("/api/groups", json={"name": "\u2800班级", "your_name": "老师"})
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "invalid_name"
    created = teacher.post("/api/groups", json={"name": "<b>班</b>", "your_name": "老师"}).json()
    assert created["group"]["name"] == "<b>班</b>"
    token = _invite_token(created)
    pupil = make_client(clock=lambda: NOON)
    assert pupil.post("/api/groups/join", json={"token": token, "name": ""}).status_code == 422
    assert pupil.post("/api/groups/join", json={"token": token, "name": 7}).status_code == 422


def test_d6_at_most_200_members(make_client: Callable[..., TestClient]) -> None:
    from yahtzee.daily.settings import DailySettings

    assert DailySettings().group_members == 200
    # the same code path as 200, with fewer browsers (--max-group-members, K4)
    teacher = make_client(clock=lambda: NOON, max_group_members=3)
    token = _invite_token(
        teacher.post("/api/groups", json={"name": "大班", "your_name": "老师"}).json()
    )
    for i in range(2):
        teacher.cookies.clear()
        assert (
            teacher.post("/api/groups/join", json={"token": token, "name": f"学生{i}"}).status_code
            == 200
        )
    teacher.cookies.clear()
    full = teacher.post("/api/groups/join", json={"token": token, "name": "多余"})
    assert full.status_code == 409
    assert full.json()["error"]["code"] == "group_full"
