"""U14: a stale tab and an offline tap say what happened.

A tab whose game went on elsewhere (another tab of the browser, another linked device) shows
the game as it stands, says so in one sentence, drops the messages that no longer hold and
offers 撤销 only for a box it wrote itself. A tap the network loses is never sent later
behind the player's back: the page says it was not done, and once the server answers again
it shows the game as it stands, so the next tap is the player's own choice.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from e2e.helpers import NO_SERVICE_WORKER, ConsoleWatch, Table, routes_requests, sized_context
from e2e.test_rooms import _create, _join
from e2e.test_rooms import _page as _room_page

pytestmark = pytest.mark.e2e

MOVED_ON = "这一局在别的窗口或设备上接着下了"
NOT_SENT = "刚才那一步没有得到回答，页面也不会替你再送"
BACK_SAME = "又连上服务器了：刚才那一步没有送到"
RESEND_PROMISE = re.compile("自动再送|正在送出")


def _second_tab(ui: Table) -> Table:
    other = ui.page.context.new_page()
    other.set_default_timeout(10_000)
    other.goto(ui.base_url + "/game")
    tab = Table(other, ui.base_url)
    expect(tab.by("roll")).to_be_enabled()
    return tab


def test_u14_a_stale_tab_shows_the_game_as_it_went_on(ui: Table, console: ConsoleWatch) -> None:
    console.allowed += ["/roll", "/score", "/undo"]
    ui.start_solo()
    stale = _second_tab(ui)
    expect(stale.by("message")).to_contain_text("继续上次的游戏：第 1 回合")
    # The first tab plays two rounds: its last box may be taken back (its own 撤销).
    ui.play_round(1)
    box = ui.play_round(2)
    expect(ui.by("undo")).to_be_visible()

    # The stale tab's tap is refused by the server: the tab shows round 3 and says why.
    stale.by("roll").click()
    expect(stale.by("round")).to_have_text("第 3 / 13 回合")
    expect(stale.by("message")).to_contain_text(MOVED_ON)
    expect(stale.by("message")).not_to_contain_text("继续上次的游戏")
    expect(stale.by("message")).not_to_have_attribute("data-kind", "error")
    expect(stale.by("rolls-left")).to_have_text("剩余 3 次")  # the tap did nothing
    assert stale.shown_points(box) is not None
    # 撤销 is the other tab's to offer: this one never wrote that box.
    expect(stale.by("undo")).to_be_hidden()

    # Now this tab plays: its own box may be taken back here, and only here.
    stale.roll()
    mine = stale.best_box()
    stale.score(mine)
    expect(stale.by("undo")).to_be_visible()
    expect(stale.by("message")).to_contain_text("你把")

    # The first tab notices when it is looked at again (focus), without a tap.
    ui.page.evaluate("() => window.dispatchEvent(new Event('focus'))")
    expect(ui.by("round")).to_have_text("第 4 / 13 回合")
    expect(ui.by("message")).to_contain_text(MOVED_ON)
    expect(ui.by("undo")).to_be_hidden()
    assert ui.shown_points(mine) is not None
    stale.page.close()


def test_u14_a_reload_keeps_this_tabs_own_undo(ui: Table) -> None:
    """The tab's own box is remembered in its sessionStorage: a reload still offers 撤销."""
    ui.start_solo()
    ui.roll()
    box = ui.best_box()
    ui.score(box)
    expect(ui.by("undo")).to_be_visible()
    ui.page.reload()
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    expect(ui.by("undo")).to_be_visible()
    ui.by("undo").click()
    expect(ui.by("message")).to_contain_text("已撤销")
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")


def test_u14_a_tab_shown_again_reads_the_game(ui: Table) -> None:
    """visibilitychange: a tab brought back to the front shows the game as it stands."""
    ui.start_solo()
    other = _second_tab(ui)
    other.roll()
    dice = other.dice()
    ui.page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    expect(ui.by("message")).to_contain_text(MOVED_ON)
    assert ui.dice() == dice
    # Nothing moved on: looking again says nothing new.
    other.page.close()
    said = ui.message()
    ui.page.evaluate("() => window.dispatchEvent(new Event('focus'))")
    ui.page.wait_for_timeout(500)
    assert ui.message() == said


def _offline_tap(ui: Table, tap: str) -> None:
    ui.start_solo()
    ui.roll()
    ui.page.context.set_offline(True)
    if tap == "score":
        box = ui.best_box()
        ui.cell(box).click()
    else:
        ui.by("roll").click()
    expect(ui.by("message")).to_contain_text(NOT_SENT)
    expect(ui.by("message")).not_to_have_text(RESEND_PROMISE)
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")


@pytest.mark.parametrize("tap", ["score", "roll"])
def test_u14_a_tap_lost_offline_is_dropped_and_said(
    ui: Table, console: ConsoleWatch, tap: str
) -> None:
    console.allowed += ["/roll", "/score", "/api/games/"]
    _offline_tap(ui, tap)
    dice = ui.dice()
    ui.page.context.set_offline(False)
    # Back: the page reads the game and says the tap was not done; nothing is sent later.
    expect(ui.by("message")).to_contain_text(BACK_SAME, timeout=15_000)
    ui.page.wait_for_timeout(3_500)  # longer than any old resend timer
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    assert ui.dice() == dice
    game = ui.page.evaluate("async () => (await fetch('/api/games/current')).json()")
    assert game["rolls_left"] == 2
    assert game["round"] == 1
    # The player's next tap is theirs, and does what it says.
    ui.roll()
    expect(ui.by("rolls-left")).to_have_text("剩余 1 次")


UNAVAILABLE = {
    "error": {
        "code": "unavailable",
        "message": "服务器没有及时回答，这一步可能没有生效：请看一眼现在的局面再试。",
    }
}


@routes_requests
@pytest.mark.parametrize("how", ["refused", "nginx_503"])
def test_u14_a_tap_while_the_server_is_down_is_dropped_and_said(
    ui: Table, console: ConsoleWatch, how: str
) -> None:
    """The server unreachable (every /api/ request fails: the connection refused, or nginx's
    503 `unavailable` when no app process answers) while the network looks up."""
    console.allowed += ["/score", "/api/games/"]
    page: Page = ui.page
    ui.start_solo()
    ui.roll()
    box = ui.best_box()

    def down(route: Route) -> None:
        if how == "refused":
            route.abort("connectionrefused")
        else:
            route.fulfill(
                status=503,
                content_type="application/json",
                headers={"Retry-After": "1"},
                body=json.dumps(UNAVAILABLE),
            )

    page.route(re.compile(r"/api/"), down)
    ui.cell(box).click()
    expect(ui.by("message")).to_contain_text(NOT_SENT)
    expect(ui.by("message")).not_to_have_text(RESEND_PROMISE)
    page.wait_for_timeout(1_000)
    page.unroute(re.compile(r"/api/"), down)
    # The page notices the server is back by itself (no tap, no online event).
    expect(ui.by("message")).to_contain_text(BACK_SAME, timeout=15_000)
    assert ui.cell(box).get_attribute("data-selectable") == "true"
    assert ui.shown_points(box) is not None  # its preview, not a written score
    game = page.evaluate("async () => (await fetch('/api/games/current')).json()")
    assert game["players"]["human"]["boxes"][box] is None
    ui.score(box)
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")


def _table_tabs(ui: Table, tabs: int) -> list[Table]:
    """A 多人同屏 game of two people (甲, 乙) opened in `tabs` tabs of one browser (two
    devices of one player)."""
    page = ui.page
    status = page.evaluate(
        """() => fetch("/api/games", {method: "POST",
             headers: {"Content-Type": "application/json"},
             body: JSON.stringify({mode: "table", seats: [
               {kind: "human", name: "甲"}, {kind: "human", name: "乙"}]})})
           .then((r) => r.status)"""
    )
    assert status == 201
    opened = []
    for i in range(tabs):
        p = page if i == 0 else page.context.new_page()
        p.set_default_timeout(10_000)
        p.goto(f"{ui.base_url}/table")
        tab = Table(p, ui.base_url)
        tab.by("handover-go").click()  # 继续游戏 at the start of a turn: the handover first
        expect(tab.by("roll")).to_be_enabled()
        opened.append(tab)
    return opened


def test_u14_a_stale_table_tab_says_the_game_went_on(ui: Table, console: ConsoleWatch) -> None:
    """多人同屏 on two devices (two tabs): the stale one's tap shows the game and says so,
    and offers no 撤销 for the box the other device wrote."""
    console.allowed += ["/roll"]
    page = ui.page
    here, there = _table_tabs(ui, 2)
    there.by("roll").click()
    expect(there.by("rolls-left")).to_contain_text("2")
    there.page.locator('[data-testid="cell-0-chance"] .cell-btn').click()
    expect(there.by("handover-undo")).to_be_visible()  # its own box: 撤销 there
    there.by("handover-go").click()
    expect(there.by("undo")).to_be_visible()

    here.by("roll").click()
    expect(here.by("message")).to_contain_text(MOVED_ON)
    expect(here.by("turn")).to_contain_text("乙")
    expect(here.by("rolls-left")).to_contain_text("3")  # the tap did nothing
    expect(here.by("undo")).to_be_hidden()  # 甲's box was written on the other device
    game = page.evaluate("async () => (await fetch('/api/games/current')).json()")
    assert game["rolls_left"] == 3
    assert game["undo"] is not None  # the server would allow it: the other tab's to offer
    there.page.close()


def test_u14_a_table_tab_looked_at_again_reads_the_game(ui: Table) -> None:
    """多人同屏, like the solo table: a tab that gets the focus or is shown again reads the
    game, and shows it as it went on on the other device, without a tap."""
    here, there = _table_tabs(ui, 2)
    there.by("roll").click()
    expect(there.by("rolls-left")).to_contain_text("2")
    dice = [there.by(f"die-{i}").get_attribute("data-value") for i in range(5)]
    here.page.evaluate("() => window.dispatchEvent(new Event('focus'))")
    expect(here.by("rolls-left")).to_contain_text("2")
    expect(here.by("message")).to_contain_text(MOVED_ON)
    assert [here.by(f"die-{i}").get_attribute("data-value") for i in range(5)] == dice

    there.page.locator('[data-testid="cell-0-chance"] .cell-btn').click()
    expect(there.by("handover-go")).to_be_visible()
    here.page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    expect(here.by("turn")).to_contain_text("乙")
    expect(here.by("rolls-left")).to_contain_text("3")
    expect(here.by("undo")).to_be_hidden()  # 甲's box was written on the other device
    # Nothing moved on: looking again says nothing new.
    there.page.close()
    said = here.message()
    here.page.evaluate("() => window.dispatchEvent(new Event('focus'))")
    here.page.wait_for_timeout(500)
    assert here.message() == said


def test_u14_a_table_tap_lost_offline_is_dropped_and_said(ui: Table, console: ConsoleWatch) -> None:
    """多人同屏, like the solo table: a roll the network lost is said as not sent, and once
    the network is back the table reads the game and says the position is the same."""
    console.allowed += ["/roll", "/api/games/"]
    (here,) = _table_tabs(ui, 1)
    here.by("roll").click()
    expect(here.by("rolls-left")).to_contain_text("2")
    dice = [here.by(f"die-{i}").get_attribute("data-value") for i in range(5)]
    here.page.context.set_offline(True)
    here.by("roll").click()
    expect(here.by("message")).to_contain_text(NOT_SENT)
    expect(here.by("message")).not_to_have_text(RESEND_PROMISE)
    expect(here.by("rolls-left")).to_contain_text("2")
    here.page.context.set_offline(False)
    expect(here.by("message")).to_contain_text(BACK_SAME, timeout=15_000)
    here.page.wait_for_timeout(3_500)  # longer than any old resend timer
    expect(here.by("rolls-left")).to_contain_text("2")
    assert [here.by(f"die-{i}").get_attribute("data-value") for i in range(5)] == dice
    game = here.page.evaluate("async () => (await fetch('/api/games/current')).json()")
    assert game["rolls_left"] == 2
    # The next tap is the player's own, and does what it says.
    here.by("roll").click()
    expect(here.by("rolls-left")).to_contain_text("1")


# -- 好友房间: the room's stream keeps the game current; a tap can still be faster than it


ROOM_MOVED_ON = "这一局已经接着下了"
STALE_ADVICE = "请刷新后再试"


def _started_room(browser: Browser, server_url: str, console: ConsoleWatch) -> tuple[Page, Page]:
    """A room of two people (房主 and 朋友), started: the host's page (on turn) and the
    friend's."""
    host = _room_page(sized_context(browser, 1280, 800, **NO_SERVICE_WORKER), console)
    friend = _room_page(sized_context(browser, 1280, 800, **NO_SERVICE_WORKER), console)
    invite = _create(host, server_url, "房主", friends=1, computers=0, turn=300)
    _join(friend, invite, "朋友")
    host.get_by_test_id("start-room").click()
    expect(host.get_by_test_id("roll")).to_be_enabled()
    return host, friend


def test_u14_a_stale_room_tap_reads_the_room_and_says_the_game_went_on(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    """The same seat in a second window whose stream is behind: its tap is refused as stale,
    and the page reads the room itself (no advice to refresh) and says the game went on."""
    console.allowed += ["/roll"]
    host, friend = _started_room(browser, server_url, console)
    # A second window of the host whose stream never gets through (it stays behind).
    behind = host.context.new_page()
    behind.set_default_timeout(20_000)
    behind.route(re.compile(r"/api/rooms/[^/]+/events"), lambda route: route.abort())
    behind.goto(host.url)
    expect(behind.get_by_test_id("roll")).to_have_text("掷骰子")
    host.get_by_test_id("roll").click()
    expect(host.get_by_test_id("rolls-left")).to_have_text("剩余 2 次")
    faces = [host.get_by_test_id(f"die-{i}").get_attribute("data-value") for i in range(5)]

    behind.get_by_test_id("roll").click()
    expect(behind.get_by_test_id("message")).to_contain_text(ROOM_MOVED_ON)
    expect(behind.get_by_test_id("rolls-left")).to_have_text("剩余 2 次")
    expect(behind.get_by_test_id("room-error")).to_have_count(0)
    assert STALE_ADVICE not in behind.locator("#view-room").inner_text()
    for i, face in enumerate(faces):
        expect(behind.get_by_test_id(f"die-{i}")).to_have_attribute("data-value", face or "")
    # The tap did nothing: the host's roll is the only one.
    expect(friend.get_by_test_id("turn")).to_contain_text("房主")
    assert _room_game(host)["rolls_left"] == 2
    host.context.close()
    friend.context.close()


def test_u14_a_room_tap_lost_offline_is_said_and_the_room_read_again(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    """A roll the network lost in a room: said as not sent (never sent later), and once the
    network is back the room is read again and the page says the position is the same."""
    console.allowed += ["/roll", "/events", "/api/rooms/"]
    host, friend = _started_room(browser, server_url, console)
    host.context.set_offline(True)
    host.get_by_test_id("roll").click()
    expect(host.get_by_test_id("message")).to_contain_text(NOT_SENT)
    expect(host.locator("#view-room")).not_to_contain_text(RESEND_PROMISE)
    host.context.set_offline(False)
    expect(host.get_by_test_id("message")).to_contain_text(BACK_SAME, timeout=15_000)
    expect(host.get_by_test_id("room-error")).to_have_count(0)
    host.wait_for_timeout(3_500)  # longer than any old resend timer
    expect(host.get_by_test_id("roll")).to_have_text("掷骰子")
    assert _room_game(host)["rolls_left"] == 3
    # The next tap is the player's own, and does what it says.
    host.get_by_test_id("roll").click()
    expect(host.get_by_test_id("rolls-left")).to_have_text("剩余 2 次")
    host.context.close()
    friend.context.close()


def _room_game(page: Page) -> dict[str, Any]:
    """The room's game as the server has it now."""
    room = page.evaluate(
        "async () => (await fetch(`/api/rooms/${location.pathname.split('/')[2]}`)).json()"
    )
    game: dict[str, Any] = room["room"]["game"]
    return game
