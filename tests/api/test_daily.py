"""The daily challenge over the API (D1-D5), on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from yahtzee.daily.dice import DailyStream
from yahtzee.daily.service import share_text
from yahtzee.storage import is_postgres_url

from .helpers import TEST_SECRET

# 2026-12-01 10:00 in Shanghai: a fixed clock, so the day is known.
NOON = datetime(2026, 12, 1, 2, 0, tzinfo=UTC).timestamp()
DAY = date(2026, 12, 1)
NO_HOLD = [False] * 5


def _secret(db: Path | str) -> bytes:
    if is_postgres_url(db):
        return TEST_SECRET.encode()
    path = Path(db)
    return path.with_name(path.name + ".secret").read_text().strip().encode()


def _daily(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(clock=lambda: NOON)


def _finish(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """Play the rest of ``game``: one roll a turn, the first open box."""
    while game["status"] == "in_progress":
        if game["dice"] is None:
            game = client.post(
                f"/api/games/{game['id']}/roll", json={"version": game["version"]}
            ).json()
        box = next(c for c, o in game["preview"].items() if o["allowed"])
        reply = client.post(
            f"/api/games/{game['id']}/score",
            json={"version": game["version"], "category": box, "confirm_zero": True},
        )
        assert reply.status_code == 200, reply.text
        game = reply.json()
    return game


def test_d2_one_attempt_a_name_once_and_the_game_continues(
    make_client: Callable[..., TestClient],
) -> None:
    client = _daily(make_client)
    status = client.get("/api/daily").json()
    assert status == {
        "date": "2026-12-01",
        "game_id": None,
        "status": "not_started",
        "result": None,
        "name": None,
    }
    refused = client.post("/api/daily", json={})
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "name_required"
    started = client.post("/api/daily", json={"name": "  小明 "})
    assert started.status_code == 201
    game = started.json()
    assert game["daily"] == "2026-12-01"
    assert game["mode"] == "solo"
    again = client.post("/api/daily", json={})  # in progress: the same game, continued
    assert again.status_code == 200
    assert again.json()["id"] == game["id"]
    status = client.get("/api/daily").json()
    assert status["status"] == "in_progress"
    assert status["game_id"] == game["id"]
    assert status["name"] == "小明"
    # D3: no hints in the daily game (nothing is spent)
    game = client.post(f"/api/games/{game['id']}/roll", json={"version": game["version"]}).json()
    hint = client.post(f"/api/games/{game['id']}/hint", json={"version": game["version"]})
    assert hint.status_code == 409
    assert hint.json()["error"]["code"] == "no_hints_in_daily"
    assert client.get(f"/api/games/{game['id']}").json()["hints_left"] == 3
    # an ordinary game meanwhile needs replace (F2), as always
    ordinary = client.post("/api/games", json={"mode": "solo"})
    assert ordinary.status_code == 409
    finished = _finish(client, game)
    assert finished["status"] == "finished"
    second = client.post("/api/daily", json={})
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "already_played"


def test_d3_the_result_with_the_experts_game_and_the_share_text(
    make_client: Callable[..., TestClient],
) -> None:
    client = _daily(make_client)
    game = client.post("/api/daily", json={"name": "小红"}).json()
    final = _finish(client, game)
    reply = client.get("/api/daily")
    assert reply.status_code == 200, reply.text
    status = reply.json()
    assert status["status"] == "finished"
    result = status["result"]
    assert result["score"] == final["players"]["human"]["total"]
    assert result["skill_loss"] > 0  # the first open box is rarely the expert's choice
    assert 0 <= result["accuracy"] < 100
    assert result["expert_skill_loss"] == 0
    assert result["expert_score"] > 0
    assert result["rank"] == 1
    assert result["players"] == 1
    assert len(result["marks"]) == 13
    names = {"best": "最佳", "inaccuracy": "欠佳", "mistake": "失误", "blunder": "大错"}
    assert result["mark_names"] == names
    lines = result["share"].split("\n")
    assert lines[0] == (
        f"快艇骰子 每日挑战 12月1日 {result['score']} 分 · 准确率 {result['accuracy']:.1f}%"
    )
    squares = {"best": "🟩", "inaccuracy": "🟨", "mistake": "🟧", "blunder": "🟥"}
    assert lines[1] == "".join(squares[m] for m in result["marks"])
    assert result["share_squares"] == squares  # the page's legend of the squares
    # spoiler-free: neither dice nor boxes
    assert "快艇" not in lines[1]


def test_d1_two_players_same_holds_same_faces_different_holds_follow_the_stream(
    make_client: Callable[..., TestClient], db: Path | str
) -> None:
    a = _daily(make_client)
    b = _daily(make_client)  # another app on the same database: another process
    faces = DailyStream(_secret(db), DAY).faces(1)
    ga = a.post("/api/daily", json={"name": "甲"}).json()
    gb = b.post("/api/daily", json={"name": "乙"}).json()
    assert ga["id"] != gb["id"]

    def roll(client: TestClient, game: dict[str, Any], hold: list[bool]) -> dict[str, Any]:
        reply = client.post(
            f"/api/games/{game['id']}/roll", json={"version": game["version"], "hold": hold}
        )
        assert reply.status_code == 200, reply.text
        return dict(reply.json())

    ga, gb = roll(a, ga, NO_HOLD), roll(b, gb, NO_HOLD)
    assert ga["dice"] == gb["dice"] == list(faces[:5])
    same = [True, False, True, False, False]
    ga, gb = roll(a, ga, same), roll(b, gb, same)
    assert ga["dice"] == gb["dice"] == [faces[0], faces[5], faces[2], faces[6], faces[7]]
    # now they hold differently: each takes the next faces for its unheld dice
    ga = roll(a, ga, [True, True, True, True, False])
    gb = roll(b, gb, [False, False, False, False, True])
    assert ga["dice"][:4] == [faces[0], faces[5], faces[2], faces[6]]
    assert ga["dice"][4] == faces[8]
    assert gb["dice"] == [faces[8], faces[9], faces[10], faces[11], faces[7]]
    # round 2 starts its own sequence, whatever round 1 drew
    second = DailyStream(_secret(db), DAY).faces(2)
    for client, game in ((a, ga), (b, gb)):
        game = client.post(
            f"/api/games/{game['id']}/score",
            json={"version": game["version"], "category": "chance"},
        ).json()
        assert roll(client, game, NO_HOLD)["dice"] == list(second[:5])


def test_d4_boards_ordered_by_skill_loss_with_your_own_entry(
    make_client: Callable[..., TestClient],
) -> None:
    players = [_daily(make_client) for _ in range(3)]
    for i, client in enumerate(players):
        _finish(client, client.post("/api/daily", json={"name": f"玩家{i}"}).json())
        assert client.get("/api/daily").json()["status"] == "finished"  # as the page does
    board = players[0].get("/api/daily/2026-12-01/leaderboard", params={"limit": 1}).json()
    assert board["players"] == 3
    assert len(board["entries"]) == 1
    everyone = players[0].get("/api/daily/2026-12-01/leaderboard").json()["entries"]
    losses = [e["skill_loss"] for e in everyone]
    assert losses == sorted(losses)
    # (the same moves on the same dice: equal entries share the place, F13)
    assert [e["rank"] for e in everyone] == [1, 1, 1]
    mine = next(e for e in everyone if e["you"])
    assert board["you"] == mine  # own entry and rank, even outside the top 1
    week = players[0].get("/api/daily/2026-12-03/leaderboard", params={"period": "week"}).json()
    assert week["period"] == "week"
    assert {e["name"] for e in week["entries"]} == {"玩家0", "玩家1", "玩家2"}
    assert all(e["days"] == 1 for e in week["entries"])
    accuracies = [e["accuracy"] for e in week["entries"]]
    assert accuracies == sorted(accuracies, reverse=True)
    bad = players[0].get("/api/daily/yesterday/leaderboard")
    assert bad.status_code == 422


def test_d4_hostile_names_are_refused_or_kept_as_text(
    make_client: Callable[..., TestClient],
) -> None:
    client = _daily(make_client)
    for bad in ("", "   ", "a\u2800b", "x\ue000y", "\u200b", "一二三四五六七八九十百千万"):
        reply = client.put("/api/daily/name", json={"name": bad})
        assert reply.status_code == 422, bad
        assert reply.json()["error"]["code"] == "invalid_name"
    reply = client.put("/api/daily/name", json={"name": 5})
    assert reply.status_code == 422
    hostile = "<img src=x>"
    assert client.put("/api/daily/name", json={"name": hostile}).json() == {"name": hostile}
    _finish(client, client.post("/api/daily", json={}).json())
    board = client.get("/api/daily/2026-12-01/leaderboard").json()
    assert board["entries"][0]["name"] == hostile  # data, verbatim (the page uses textContent)


def test_u18_the_share_text_says_the_accuracy_the_result_shows() -> None:
    """A stored accuracy of 48.85 is 48.9 in the result (Python's round of the float) and
    must be 48.9 in the share text too (Babel alone rounds the half to even: 48.8)."""
    line = share_text(date(2026, 12, 1), 39, 48.85, "b" * 13)
    assert f"准确率 {round(48.85, 1)}%" in line, line


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value (its keys left out)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_g5_a_group_board_and_the_share_read_in_each_readers_language(
    make_client: Callable[..., TestClient],
) -> None:
    """G5: a 小组 of a zh-Hans and an English reader. The boards carry codes and values only
    (the names people typed, figures, dates): each reader's page says them in its own
    language, so both readers get the same board whatever language they ask in. The
    result's share text is the sharer's (said in the language the sharer reads), the
    marks' names the reader's."""
    zh = {"accept-language": "zh-CN,zh;q=0.9"}
    en = {"accept-language": "en-GB,en;q=0.9"}
    teacher, pupil = _daily(make_client), _daily(make_client)
    created = teacher.post(
        "/api/groups", json={"name": "三年二班", "your_name": "王老师"}, headers=zh
    ).json()
    token = created["invite_url"].rsplit("#", 1)[1]
    joined = pupil.post("/api/groups/join", json={"token": token, "name": "Amy"}, headers=en)
    assert joined.status_code == 200, joined.text
    gid = created["group"]["id"]
    for client, name, headers in ((teacher, "王老师", zh), (pupil, "Amy", en)):
        game = client.post("/api/daily", json={"name": name}, headers=headers).json()
        _finish(client, game)
        assert client.get("/api/daily", headers=headers).json()["status"] == "finished"

    typed = {"三年二班", "王老师", "Amy"}
    for client in (teacher, pupil):
        said = {}
        for lang, headers in (("zh", zh), ("en", en)):
            reply = client.get(f"/api/groups/{gid}", headers=headers)
            assert reply.status_code == 200, reply.text
            said[lang] = reply.json()
            board = client.get(
                "/api/daily/2026-12-01/leaderboard", params={"group": gid}, headers=headers
            )
            assert board.status_code == 200, board.text
            said[lang + "-board"] = board.json()
        # the same answer whatever language is asked: nothing in it is a sentence
        assert said["zh"] == said["en"]
        assert said["zh-board"] == said["en-board"]
        cjk = {s for s in _strings(said) if any("\u4e00" <= c <= "\u9fff" for c in s)}
        assert cjk <= typed, cjk
        names = {e["name"] for e in said["zh"]["today"]["entries"]}
        assert names == {"王老师", "Amy"}

    # The share text: each sharer's in their language (what they send is theirs); the
    # marks' names each reader's.
    mine = teacher.get("/api/daily", headers=zh).json()["result"]
    theirs = pupil.get("/api/daily", headers=en).json()["result"]
    assert mine["share"].startswith("快艇骰子 每日挑战 12月1日 "), mine["share"]
    assert theirs["share"].startswith("Yacht Dice daily challenge, Dec 1: "), theirs["share"]
    assert f"accuracy {theirs['accuracy']:.1f}%" in theirs["share"]
    assert set(mine["mark_names"].values()) == {"最佳", "欠佳", "失误", "大错"}
    assert set(theirs["mark_names"].values()) == {"Best", "Inaccuracy", "Mistake", "Blunder"}
    # the squares, the figures and the marks are the same codes for every reader
    again = teacher.get("/api/daily", headers=en).json()["result"]
    assert again["marks"] == mine["marks"]
    assert again["share_squares"] == mine["share_squares"]
    assert again["share"].split("\n")[1] == mine["share"].split("\n")[1]
