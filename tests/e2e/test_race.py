"""同骰竞速 in the browser (W5): a race made in one browser, joined from another through its
invite link (and by a third player over the API), each seat playing its own game on the
same dice at its own pace, the others' progress shown live, then a day passes on the
server's injected clock (tests/clocked_server.py: a number written to a file, no sleep):
the race ends, the seat that did not finish is ranked last, and 复盘 opens side by side
on the same dice."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.helpers import ConsoleWatch, sized_context
from server_process import NO_LIMIT_ARGS, RawClient, ServerProcess
from yahtzee.storage import run_coroutine

pytestmark = pytest.mark.e2e

CLOCKED = Path(__file__).resolve().parents[1] / "clocked_server.py"
DAY = 86400

# One turn of this browser's own game through the page's own origin (a seat finishing
# fast: the board's clicks are checked on the turns played in it).
TURNS = """async ([id, n]) => {
  const json = {"Content-Type": "application/json"};
  const post = (path, body) =>
    fetch(path, {method: "POST", headers: json, body: JSON.stringify(body)}).then((r) => r.json());
  let game = await fetch(`/api/games/${id}`).then((r) => r.json());
  for (let i = 0; i < n; i += 1) {
    const rolled = await post(`/api/games/${id}/roll`, {version: game.version});
    const box = Object.entries(rolled.preview).find(([, o]) => o.allowed)[0];
    game = await post(`/api/games/${id}/score`,
      {version: rolled.version, category: box, confirm_zero: true});
  }
  return game.status;
}"""


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server on a clock the test moves, and its clock's file. Without rate limits: the
    third seat plays its 13 rounds over the API at machine speed, faster than F5's 20
    actions a second let a person (it met 429 on a quiet machine)."""
    clock = tmp_path / "clock"
    clock.write_text("0")
    program = (sys.executable, str(CLOCKED), "--clock-file", str(clock))
    with ServerProcess(tmp_path / "race.db", program=program, args=NO_LIMIT_ARGS) as server:
        yield server.url, clock


def _faces(page: Page) -> list[str | None]:
    expect(page.get_by_test_id("die-4")).to_have_attribute("data-value", re.compile("[1-6]"))
    return [page.get_by_test_id(f"die-{i}").get_attribute("data-value") for i in range(5)]


def _turn(page: Page) -> list[str | None]:
    """A roll and the first box that scores, on the board; the faces rolled."""
    page.locator('[data-testid="roll"]:enabled').click()
    faces = _faces(page)
    expect(page.locator(".cell.preview .cell-btn:enabled").first).to_be_visible()
    scoring = page.locator(".cell.preview:not(.zero) .cell-btn:enabled")  # (no 0 to confirm)
    (scoring if scoring.count() else page.locator(".cell.preview .cell-btn:enabled")).first.click()
    expect(page.locator(".cell.preview")).to_have_count(0)
    return faces


def test_w5_a_race_in_two_browsers_to_its_deadline_and_reviews_side_by_side(
    browser: Browser, clocked: tuple[str, Path], console: ConsoleWatch
) -> None:
    base, clock = clocked
    host_ctx = sized_context(browser, 1280, 800)
    friend_ctx = sized_context(browser, 390, 844)
    host, friend = host_ctx.new_page(), friend_ctx.new_page()
    for p in (host, friend):
        p.set_default_timeout(20_000)
        console.watch(p)

    # made from the lobby: two friends' seats, a day
    host.goto(base + "/")
    host.get_by_test_id("race-link").click()
    host.get_by_test_id("race-name").fill("房主")
    host.get_by_test_id("race-friends").select_option("2")
    host.get_by_test_id("race-days").select_option("1")
    host.get_by_test_id("race-create").click()
    link = host.get_by_test_id("race-invite")
    expect(link).to_have_value(re.compile(r"/races/[0-9a-f]{16}#t=[A-Za-z0-9_-]{22}$"))
    invite = link.input_value()
    room_id = invite.split("/races/")[1][:16]
    token = invite.partition("#t=")[2]

    # the friend joins on a phone; a third player over the API
    friend.goto(invite)
    friend.get_by_test_id("race-join-name").fill("朋友")
    friend.get_by_test_id("race-join").click()
    expect(friend.get_by_test_id("race-invite")).to_be_visible()  # seated
    third = RawClient("127.0.0.1", int(base.rsplit(":", 1)[1]))

    async def third_joins() -> Any:
        return await third.request(
            "POST", f"/api/rooms/{room_id}/join", {"token": token, "name": "三号"}
        )

    run_coroutine(third_joins())
    expect(host.get_by_test_id("race-waiting-2")).to_have_text("三号")
    assert friend.get_by_test_id("race-start").count() == 0  # only the creator starts
    host.get_by_test_id("race-start").click()

    # each plays at its own pace on the board; the same dice; the others' progress shows
    expect(friend.get_by_test_id("roll")).to_be_enabled()
    first = _turn(host)
    _turn(host)
    expect(friend.get_by_test_id("race-rounds-0")).to_contain_text("2/13")
    expect(friend.get_by_test_id("race-rounds-1")).to_contain_text("0/13")
    assert _turn(friend) == first  # round 1's faces: the host's
    # W2: the lobby's 「轮到你了」 lists the race as the friend's turn, opening its page
    friend.goto(base + "/")
    listed = friend.get_by_test_id(f"turns-game-{room_id}")
    expect(listed).to_have_attribute("href", f"/races/{room_id}")
    expect(listed.get_by_test_id("turns-round")).to_contain_text("1/13")
    expect(friend.get_by_test_id("turns-count")).to_have_text("1")
    listed.click()
    expect(friend).to_have_url(f"{base}/races/{room_id}")
    expect(friend.get_by_test_id("roll")).to_be_enabled()
    expect(host.get_by_test_id("race-rounds-1")).to_contain_text("1/13")
    # no dice of another seat anywhere: the strip says rounds and points only
    strip = friend.get_by_test_id("race-progress").inner_text()
    assert "2/13" in strip
    assert re.search(r"\d+ 分", strip)

    # the host finishes (the last rounds through its page's own requests), the third too;
    # the friend does not
    mine = host.evaluate(f"() => fetch('/api/rooms/{room_id}').then((r) => r.json())")
    assert host.evaluate(TURNS, [mine["room"]["race"]["your_game_id"], 11]) == "finished"

    async def third_plays() -> None:
        nonlocal third
        cookie, third = third.cookie, RawClient("127.0.0.1", third.port)  # (a new loop)
        third.cookie = cookie
        room = (await third.request("GET", f"/api/rooms/{room_id}"))["room"]
        game = room["game"]
        for _ in range(13):
            rolled = await third.request(
                "POST", f"/api/games/{game['id']}/roll", {"version": game["version"]}
            )
            box = next(c for c, o in rolled["preview"].items() if o["allowed"])
            game = await third.request(
                "POST",
                f"/api/games/{game['id']}/score",
                {"version": rolled["version"], "category": box, "confirm_zero": True},
            )

    run_coroutine(third_plays())
    expect(friend.get_by_test_id("race-seat-0")).to_contain_text("13/13")
    expect(friend.get_by_test_id("race-status")).to_contain_text("比赛中")

    # a day passes on the server's clock: the race ends; the friend is ranked last
    clock.write_text(str(DAY + 5))
    for p in (host, friend):
        expect(p.get_by_test_id("race-ranking")).to_be_visible()
    rows = friend.get_by_test_id("race-ranking").locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_contain_text("朋友")
    expect(rows.nth(2)).to_contain_text("未完成")

    # 复盘 side by side: the two finished seats, round by round on the same dice
    side = friend.get_by_test_id("race-side-by-side")
    for seat in (0, 2):
        # (each review computed on its first request, in the CPU pool)
        expect(side.get_by_test_id(f"race-review-{seat}")).to_contain_text(
            "第 1 掷", timeout=30_000
        )
    friend.get_by_test_id("race-round-1").click()
    dice = [
        side.get_by_test_id(f"race-review-{seat}").locator(".rc-dice").first.inner_text()
        for seat in (0, 2)
    ]
    assert dice[0] == dice[1]  # the same first roll of round 1 for both
    friend.get_by_test_id("race-round-7").click()
    expect(friend.get_by_test_id("race-round-7")).to_have_attribute("aria-pressed", "true")
    expect(side.get_by_test_id("race-review-0").locator(".read-card")).to_be_visible()

    # 统计 counts a finished race game in its own section; the unfinished seat's, nowhere
    host.goto(f"{base}/stats")
    expect(host.get_by_test_id("stats-race-games")).to_have_text("1")
    expect(host.locator("#st-race-title")).to_have_text("同骰竞速")
    friend.goto(f"{base}/stats")
    expect(friend.get_by_test_id("stats-race-games")).to_have_text("0")
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)
    host_ctx.close()
    friend_ctx.close()
