"""Turns over days in the browser (W1-W4, the page's side): three people, each in a browser
context of their own, play a room that waits a day a turn over a simulated week, and two of
them a second room without a clock. The server runs on a clock the test moves
(``tests/clocked_server.py``: a day passes by writing a number; no test sleeps for it).

One page load per step, several checks each: the pace offered from the server's list (the
turn's seconds asked only for a live room); 「轮到你了」 in the lobby (own turns first, the
soonest deadline first; whose turn; the time left as a person reads it) with its count on
the card and in the title; 「提醒他」 (the server's message, copied where the browser has no
share sheet, the room's QR code; a second nudge within the hour refused, readably); the
other seats' turns replayed on opening the room, marked 「新」 in 本局记录, and seen (a
reload marks nothing); a seat whose deadline passed three times running is 托管 (away)
until 「我回来了」."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from e2e.helpers import ConsoleWatch, sized_context
from server_process import ServerProcess

pytestmark = pytest.mark.e2e

CLOCKED = Path(__file__).resolve().parents[1] / "clocked_server.py"
HOUR = 3600
DAY = 24 * HOUR


class Clocked:
    """A clocked server and its clock: :meth:`advance` moves it for every request."""

    def __init__(self, server: ServerProcess, path: Path) -> None:
        self.server = server
        self.path = path
        self.offset = 0.0

    @property
    def url(self) -> str:
        return self.server.url

    def advance(self, seconds: float) -> None:
        self.offset += seconds
        self.path.write_text(str(self.offset))


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clocked]:
    tmp = tmp_path_factory.mktemp("waiting")
    clock = tmp / "clock"
    clock.write_text("0")
    program = (sys.executable, str(CLOCKED), "--clock-file", str(clock))
    with ServerProcess(tmp / "waiting.db", program=program) as server:
        yield Clocked(server, clock)


def _page(context: BrowserContext, console: ConsoleWatch) -> Page:
    page = context.new_page()
    page.set_default_timeout(20_000)
    console.watch(page)
    return page


def _api(page: Page, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """A request of the page's own (its cookie, same origin, strict JSON)."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const r = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                         body: body === null ? undefined : JSON.stringify(body)});
            return {status: r.status, body: await r.json().catch(() => null)};
        }""",
        [method, path, body],
    )


def _play_turn(page: Page) -> None:
    """Roll once and write the first open box that scores (else the first allowed)."""
    page.locator('[data-testid="roll"]:enabled').click()
    expect(page.locator(".cell.preview .cell-btn:enabled").first).to_be_visible()
    scoring = page.locator(".cell.preview:not(.zero) .cell-btn:enabled")
    (scoring if scoring.count() else page.locator(".cell.preview .cell-btn:enabled")).first.click()
    expect(page.get_by_test_id("roll")).to_be_hidden()


def _room_of(page: Page, rid: str) -> dict[str, Any]:
    answer = _api(page, "GET", f"/api/rooms/{rid}")
    assert answer["status"] == 200, answer
    room: dict[str, Any] = answer["body"]["room"]
    return room


def _wait_turn(page: Page, rid: str, seat: int, round_: int) -> dict[str, Any]:
    """The room once its game is at ``seat``'s turn of round ``round_`` (the server's sweep
    plays a due turn within a second of the clock passing its deadline)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        room = _room_of(page, rid)
        game = room["game"]
        if game["turn"] == seat and game["round"] == round_ and room["deadline"] > room["now"]:
            return room
        page.wait_for_timeout(200)
    raise AssertionError(f"room {rid} never reached seat {seat}'s turn of round {round_}")


def test_w1_to_w4_a_room_that_waits_a_day_a_turn_over_a_simulated_week(
    browser: Browser, clocked: Clocked, console: ConsoleWatch
) -> None:
    base = clocked.url
    # 甲 hosts on a desktop with no share sheet (the copy fallback), 乙 and 丙 on phones
    host_ctx = sized_context(browser, 1280, 800, permissions=["clipboard-read", "clipboard-write"])
    host_ctx.add_init_script("delete Navigator.prototype.share")
    # (a slow replay: the test sees it run before it skips it)
    host_ctx.add_init_script(
        "localStorage.setItem('yahtzee.settings', JSON.stringify({replay: 'slow'}))"
    )
    # 乙 reads English, 丙 Taiwan's Chinese (each page in its reader's language)
    b_ctx, c_ctx = (
        browser.new_context(
            viewport={"width": width, "height": height},
            is_mobile=True,
            has_touch=True,
            locale=locale,
        )
        for width, height, locale in ((390, 844, "en-US"), (375, 667, "zh-TW"))
    )
    host, b, c = (_page(ctx, console) for ctx in (host_ctx, b_ctx, c_ctx))

    # -- W1: the pace is chosen from the server's list; a waiting pace asks no seconds
    host.goto(base + "/")
    host.get_by_test_id("rooms-link").click()
    pace = host.get_by_test_id("room-pace")
    paces = host.evaluate(
        "JSON.parse(document.getElementById('game-config').textContent).rooms.paces"
    )
    expect(pace.locator("option")).to_have_count(len(paces))
    assert pace.locator("option").evaluate_all("os => os.map(o => o.value)") == [
        p["id"] for p in paces
    ]
    expect(pace.locator("option").first).to_have_text("实时（每回合 10–300 秒）")
    expect(host.get_by_test_id("room-turn-seconds")).to_be_visible()
    pace.select_option("1d")
    expect(host.get_by_test_id("room-turn-seconds")).to_be_hidden()
    expect(pace.locator("option:checked")).to_have_text("每回合最多等 1 天")
    host.get_by_test_id("room-your-name").fill("甲")
    host.get_by_test_id("room-friends").select_option("2")
    host.get_by_test_id("create-room").click()
    link = host.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"#t="))
    invite = link.input_value()
    rid = re.search(r"/rooms/([0-9a-f]{16})", invite).group(1)  # type: ignore[union-attr]
    expect(host.locator(".rm-status")).to_contain_text("每回合最多等 1 天")
    for page, name in ((b, "乙"), (c, "丙")):
        page.goto(invite)
        page.get_by_test_id("join-name").fill(name)
        page.get_by_test_id("join-room").click()
        expect(page.get_by_test_id("invite-link")).to_be_visible()
    host.get_by_test_id("start-room").click()
    expect(host.locator('[data-testid="roll"]:enabled')).to_be_visible()
    # a second room, no clock, of 甲 and 乙 (made through the API: the form is shown above)
    second = _api(
        host,
        "POST",
        "/api/rooms",
        {"seats": [{"kind": "human", "name": "甲"}, {"kind": "human"}], "pace": "none"},
    )
    assert second["status"] == 201, second
    rid2, token2 = (
        second["body"]["room"]["id"],
        second["body"]["room"]["invite_url"].split("#t=")[1],
    )
    assert (
        _api(b, "POST", f"/api/rooms/{rid2}/join", {"token": token2, "name": "乙"})["status"] == 200
    )
    assert _api(host, "POST", f"/api/rooms/{rid2}/start", {})["status"] == 200

    # -- W2: 甲's lobby lists both, 甲's turn in each: the one with a deadline first
    host.goto(base + "/")
    games = host.get_by_test_id("turns-list").locator("li")
    expect(games).to_have_count(2)
    expect(host.get_by_test_id("turns-count")).to_have_text("2")
    expect(host).to_have_title(re.compile(r"^\(2\) "))
    first, last = games.nth(0), games.nth(1)
    expect(first.locator("a")).to_have_attribute("href", f"/rooms/{rid}")
    expect(first.get_by_test_id("turns-whose")).to_have_text("轮到你了")
    expect(first.get_by_test_id("turns-left")).to_have_text(
        re.compile(r"^(今天|明天) \d\d:\d\d 前$")
    )
    expect(first).to_contain_text("你、乙、丙")
    expect(first).to_contain_text("第 1 回合")
    expect(last.get_by_test_id("turns-left")).to_have_text("不限时")
    # ... and opens the room, where 甲 plays the first turn
    first.locator("a").click()
    _play_turn(host)

    # -- W4: 「提醒他」 beside 乙, whose turn it is: the message copied, the QR code
    expect(host.get_by_test_id("room-left")).to_have_text(
        re.compile(r"^轮到 乙 · (今天|明天) \d\d:\d\d 前$")
    )
    host.get_by_test_id("nudge-1").click()
    text = host.get_by_test_id("nudge-text")
    expect(text).to_contain_text("乙，轮到你了！")
    expect(text).to_contain_text(f"/rooms/{rid}")
    expect(host.get_by_test_id("nudge-copied")).to_be_visible()
    assert host.evaluate("navigator.clipboard.readText()") == text.inner_text()
    qr = host.get_by_test_id("nudge-qr")
    host.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=qr.element_handle())
    assert host.get_by_test_id("nudge-2").count() == 0  # (丙's turn is not on)
    host.get_by_test_id("nudge-close").click()
    console.allowed.append(f"/api/rooms/{rid}/nudge")  # (the refusal below is on purpose)
    host.get_by_test_id("nudge-1").click()  # within the hour: refused, and said
    expect(host.get_by_test_id("nudge-error")).to_contain_text("一小时内已经被提醒过了")
    host.goto(base + "/")  # 甲 leaves the room

    # -- W2 for 丙 (not 丙's turn: no count, no number in the title); 乙 plays from the list
    c.goto(base + "/")
    expect(c.get_by_test_id("turns-list").locator("li")).to_have_count(1)
    expect(c.get_by_test_id("turns-whose")).to_have_text("輪到 乙")
    expect(c.get_by_test_id("turns-left")).to_have_text(re.compile(r"^(今天|明天) \d\d:\d\d 前$"))
    assert c.get_by_test_id("turns-count").count() == 0
    assert not c.title().startswith("(")
    b.goto(base + "/")
    expect(b.get_by_test_id("turns-count")).to_have_text("1")
    expect(b).to_have_title(re.compile(r"^\(1\) "))
    expect(b.get_by_test_id("turns-whose").first).to_have_text("Your turn")
    expect(b.get_by_test_id("turns-left").first).to_have_text(
        re.compile(r"^by \d\d:\d\d (today|tomorrow)$")
    )
    b.get_by_test_id(f"turns-game-{rid}").click()
    _play_turn(b)

    # -- W1: a day passes; 丙's turn goes to 托管 (one of three: not away yet)
    clocked.advance(DAY + 60)
    _wait_turn(host, rid, 0, 2)

    # -- W3: 甲 opens the room: 乙's and 丙's turns replayed, marked 新, then seen
    host.goto(base + "/")
    expect(host.get_by_test_id("turns-count")).to_have_text(
        "2"
    )  # (the room without a clock waits too)
    expect(host).to_have_title(re.compile(r"^\(2\) "))
    host.get_by_test_id(f"turns-game-{rid}").click()
    skip = host.get_by_test_id("skip-replay")
    expect(skip).to_be_visible()  # the replay runs, skippable as a computer's turns
    skip.click()
    expect(host.get_by_test_id("turn-new")).to_have_count(2)
    expect(host.get_by_test_id("turn-log").locator(".turn-log-item")).to_have_count(3)
    expect(host.locator('[data-testid="roll"]:enabled')).to_be_visible()
    host.reload()  # seen: nothing is new on the next visit
    expect(host.locator('[data-testid="roll"]:enabled')).to_be_visible()
    assert host.get_by_test_id("turn-new").count() == 0

    # -- W1: 丙 misses two more turns: 托管 (away) until 「我回来了」
    for round_ in (2, 3):
        _play_turn(host)
        b.goto(f"{base}/rooms/{rid}")
        _play_turn(b)
        clocked.advance(DAY + 60)
        _wait_turn(host, rid, 0, round_ + 1)
        host.goto(f"{base}/rooms/{rid}")
    expect(host.get_by_test_id("away-2")).to_have_text("托管")
    c.goto(f"{base}/rooms/{rid}")
    back = c.get_by_test_id("room-im-back")
    expect(back).to_have_text("我回來了")
    expect(c.get_by_test_id("away-2")).to_be_visible()
    back.click()
    expect(back).to_be_hidden()
    expect(c.get_by_test_id("away-2")).to_be_hidden()

    for ctx in (host_ctx, b_ctx, c_ctx):
        ctx.close()
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)
