"""F8 for groups (issue 28 item 11): a member the creator removed stays out of that group.

Before, removal only deleted the membership, and the removed browser rejoined at once with
the link it still had. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from .helpers import error_code
from .test_daily import NOON


def _token(created: dict[str, Any]) -> str:
    url: str = created["invite_url"]
    return url.rpartition("#")[2]


def _member_id(creator: TestClient, group_id: str, name: str) -> str:
    members = creator.get(f"/api/groups/{group_id}").json()["members"]
    member_id: str = next(m["member_id"] for m in members if m["name"] == name)
    return member_id


def test_f8_a_removed_member_cannot_rejoin_with_the_old_link_or_a_new_one(
    make_client: Callable[..., TestClient],
) -> None:
    teacher, pupil, friend = (make_client(clock=lambda: NOON) for _ in range(3))
    created = teacher.post("/api/groups", json={"name": "三年二班", "your_name": "王老师"}).json()
    group_id = created["group"]["id"]
    token = _token(created)
    assert (
        pupil.post("/api/groups/join", json={"token": token, "name": "捣蛋鬼"}).status_code == 200
    )
    removed = teacher.delete(
        f"/api/groups/{group_id}/members/{_member_id(teacher, group_id, '捣蛋鬼')}"
    )
    assert removed.status_code == 200
    assert removed.json()["group"]["members"] == 1

    # The same link, under any name: refused with a clear 403, and nothing changes.
    again = pupil.post("/api/groups/join", json={"token": token, "name": "好学生"})
    assert again.status_code == 403, again.text
    assert error_code(again) == "removed_from_group"
    assert "移出" in again.json()["error"]["message"]
    looked = pupil.post("/api/groups/lookup", json={"token": token})
    assert looked.status_code == 403
    assert error_code(looked) == "removed_from_group"
    assert teacher.get(f"/api/groups/{group_id}").json()["group"]["members"] == 1
    assert pupil.get(f"/api/groups/{group_id}").status_code == 404
    assert pupil.get("/api/groups").json()["groups"] == []

    # A new link does not undo the removal; other browsers still join with it.
    fresh = teacher.post(f"/api/groups/{group_id}/invite", json={}).json()
    refused = pupil.post("/api/groups/join", json={"token": _token(fresh), "name": "好学生"})
    assert refused.status_code == 403
    assert error_code(refused) == "removed_from_group"
    joined = friend.post("/api/groups/join", json={"token": _token(fresh), "name": "小红"})
    assert joined.status_code == 200
    assert joined.json()["group"]["members"] == 2


def test_f8_leaving_is_no_ban(make_client: Callable[..., TestClient]) -> None:
    """A member who leaves of their own accord may come back with the link."""
    teacher, pupil = (make_client(clock=lambda: NOON) for _ in range(2))
    created = teacher.post("/api/groups", json={"name": "兴趣小组", "your_name": "王老师"}).json()
    group_id = created["group"]["id"]
    token = _token(created)
    assert pupil.post("/api/groups/join", json={"token": token, "name": "小明"}).status_code == 200
    assert pupil.post(f"/api/groups/{group_id}/leave", json={}).status_code == 200
    back = pupil.post("/api/groups/join", json={"token": token, "name": "小明"})
    assert back.status_code == 200
    assert back.json()["group"]["members"] == 2
