"""``GET /api/stats`` (L5): per browser, solo and vs, per box, beside the expert."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from yahtzee.players import Difficulty
from yahtzee.rules import CATEGORIES

from .helpers import Api
from .test_daily import NOON, _finish
from .test_review import _play_to_end


def test_l5_stats_empty(api: Api) -> None:
    stats = api.client.get("/api/stats").json()
    solo = stats["solo"]
    assert solo["games"] == 0
    assert solo["mean"] is None
    assert solo["best"] is None
    assert solo["accuracy"] == []
    assert solo["skill_loss"] == []
    assert sum(b["games"] for b in solo["histogram"]) == 0
    assert abs(sum(b["expert"] for b in solo["histogram"]) - 1) < 1e-3
    assert 250 < solo["expert"]["mean"] < 260
    assert list(stats["vs"]) == [d.value for d in Difficulty]  # every level, weakest first
    assert stats["vs"]["expert"] == {"games": 0, "wins": 0, "losses": 0, "draws": 0, "mean": None}
    assert list(stats["boxes"]) == [c.value for c in CATEGORIES]
    assert stats["boxes"]["yahtzee"]["mean"] is None
    assert 10 < stats["boxes"]["yahtzee"]["expert_mean"] < 25


def test_l5_stats_count_finished_games_of_this_browser_only(
    api: Api, make_client: Callable[..., TestClient]
) -> None:
    a = _play_to_end(api, api.new())
    b = _play_to_end(api, api.new())
    vs = _play_to_end(api, api.new("vs_computer", "novice"))
    api.roll(api.new())  # in progress: not counted
    stats = api.client.get("/api/stats").json()
    solo = stats["solo"]
    totals = [a["players"]["human"]["total"], b["players"]["human"]["total"]]
    assert solo["games"] == 2
    assert solo["best"] == max(totals)
    assert solo["mean"] == round(sum(totals) / 2, 2)
    assert sum(bin_["games"] for bin_ in solo["histogram"]) == 2
    reviews = [api.client.get(f"/api/games/{g['id']}/review").json() for g in (a, b)]
    assert solo["accuracy"] == [r["accuracy"] for r in reviews]  # oldest first
    # L13: each game's skill loss too, for the verdict beside 准确率.
    assert solo["skill_loss"] == [round(r["skill_loss"], 2) for r in reviews]
    novice = stats["vs"]["novice"]
    assert novice["games"] == 1
    assert novice["wins"] + novice["losses"] + novice["draws"] == 1
    assert novice["mean"] == vs["players"]["human"]["total"]
    cards = [g["players"]["human"]["boxes"] for g in (a, b, vs)]
    expected = round(sum(c["chance"] for c in cards) / 3, 2)
    assert stats["boxes"]["chance"]["mean"] == expected
    # Another browser sees none of it.
    other = make_client().get("/api/stats").json()
    assert other["solo"]["games"] == 0


def test_a2_stats_count_each_game_where_its_kind_says(
    make_client: Callable[..., TestClient],
) -> None:
    """Issue 36 (A2): 统计 groups games by kind. A 每日挑战 counts in its own section only:
    the boxes' means are over solo and vs games (docs/api.md), and used to take the daily
    game's card in too; a tutorial counts nowhere."""
    client = make_client(clock=lambda: NOON)
    api = Api(client)
    daily = _finish(client, client.post("/api/daily", json={"name": "小明"}).json())
    solo = _finish(client, api.new())
    _finish(client, api.new("tutorial"))
    assert (daily["kind"], solo["kind"]) == ("daily", "solo")
    solo_card = solo["players"]["human"]["boxes"]
    daily_card = daily["players"]["human"]["boxes"]
    assert solo_card != daily_card  # (else the boxes could not tell them apart)
    stats = client.get("/api/stats").json()
    assert stats["solo"]["games"] == 1
    assert stats["daily"] == {
        "games": 1,
        "mean": float(daily["players"]["human"]["total"]),
        "best": daily["players"]["human"]["total"],
    }
    assert sum(stats["vs"][level.value]["games"] for level in Difficulty) == 0
    assert stats["table"]["games"] == 0
    for box in CATEGORIES:
        assert stats["boxes"][box.value]["mean"] == solo_card[box.value], box


def test_u18_the_mistakes_are_counted_as_the_review_counts_them_before_practice_opens(
    api: Api,
) -> None:
    """统计's 「自己的失误」 is each finished game's 复盘 失误 + 大错 from the game's end, not
    the cards 练习 has made so far (it said 1 after a game with 13 until 练习 was opened);
    练习 then makes exactly those decisions its cards."""
    games = [_play_to_end(api, api.new()) for _ in range(2)]
    reviews = [api.client.get(f"/api/games/{g['id']}/review").json() for g in games]
    marked = sum(r["counts"]["mistake"] + r["counts"]["blunder"] for r in reviews)
    assert marked > 0
    assert api.client.get("/api/stats").json()["mistakes"] == marked
    assert api.client.get("/api/puzzles/next").status_code == 200  # 练习 opened: the cards
    progress = api.client.get("/api/puzzles/progress").json()
    assert progress["mine"]["puzzles"] == marked
    assert api.client.get("/api/stats").json()["mistakes"] == marked
