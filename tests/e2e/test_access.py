"""Keyboard and screen readers (B3), phone layout, errors and re-sync, a clean console."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from e2e.helpers import ConsoleWatch, Table, routes_requests

pytestmark = pytest.mark.e2e


def _focused_testid(page: Page) -> str:
    value: str = page.evaluate(
        "() => document.activeElement.closest('[data-testid]')?.dataset.testid ?? ''"
    )
    return value


def test_b3_keyboard_only_turn(ui: Table) -> None:
    page = ui.page
    # Start a game with the keyboard: Tab to 「开始单人挑战」 and press Enter.
    for _ in range(10):
        page.keyboard.press("Tab")
        if _focused_testid(page) == "start-solo":
            break
    assert _focused_testid(page) == "start-solo"
    page.keyboard.press("Enter")
    expect(ui.by("roll")).to_be_visible()
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")

    # Space rolls, digits hold, Enter rolls again.
    page.keyboard.press("Space")
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    first = ui.dice()
    page.keyboard.press("1")
    page.keyboard.press("3")
    expect(ui.die(0)).to_have_attribute("aria-pressed", "true")
    expect(ui.die(2)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("3")
    expect(ui.die(2)).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("Enter")
    expect(ui.by("rolls-left")).to_have_text("剩余 1 次")
    assert ui.dice()[0] == first[0]

    # Tab reaches the scorecard; arrows move between choosable boxes; Enter writes.
    for _ in range(25):
        page.keyboard.press("Tab")
        if _focused_testid(page).startswith("cell-0-"):
            break
    start = _focused_testid(page)
    assert start.startswith("cell-0-"), start
    # Visible focus: the focused box has an outline.
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", ""), outline
    page.keyboard.press("ArrowDown")
    target = _focused_testid(page)
    assert target != start
    assert target.startswith("cell-0-")
    category = target.removeprefix("cell-0-")
    previews = ui.previews()
    page.keyboard.press("Enter")
    if ui.by("confirm-dialog").is_visible():
        # The zero confirmation has focus on 「再想想」; Tab to 「确定写 0」 and confirm.
        assert _focused_testid(page) == "confirm-no"
        page.keyboard.press("Tab")
        assert _focused_testid(page) == "confirm-yes"
        page.keyboard.press("Enter")
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    assert ui.shown_points(category) == previews[category]


def test_b3_screen_reader_labels_and_live_region(ui: Table) -> None:
    ui.start_solo()
    message = ui.by("message")
    expect(message).to_have_attribute("aria-live", "polite")
    dice = ui.roll()
    expect(message).to_contain_text("你掷出了 " + "、".join(str(d) for d in dice))
    for i in range(5):
        expect(ui.die(i)).to_have_attribute("aria-label", f"第 {i + 1} 颗：{dice[i]} 点")
        expect(ui.die(i)).to_have_attribute("aria-pressed", "false")
        assert ui.die(i).evaluate("e => e.tagName") == "BUTTON"
    button = ui.cell("chance").locator("button")
    expect(button).to_have_attribute("aria-label", re.compile(r"^机会：可得 \d+ 分"))


def test_phone_viewport_has_no_horizontal_scroll(browser: Browser, server_url: str) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 667}, locale="zh-CN")
    page = context.new_page()
    console = ConsoleWatch()
    console.watch(page)
    ui = Table(page, server_url)

    def no_sideways_scroll(where: str) -> None:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 375, f"{where}: page is {width}px wide"

    ui.open_lobby()
    no_sideways_scroll("lobby")
    ui.start_vs("novice")
    ui.roll()
    ui.die(1).click()
    no_sideways_scroll("vs table")
    ui.score(ui.best_box())
    no_sideways_scroll("computer replay")
    ui.wait_for_my_turn(2)
    # The dice and the roll button fit on the first screen.
    box = ui.by("roll").bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= 667
    ui.by("rules-link-game").click()
    expect(ui.page.locator("#rules-faq")).to_be_visible()
    no_sideways_scroll("rules")
    context.close()
    assert console.errors == []


@routes_requests
def test_errors_are_shown_readably_and_the_page_resyncs(ui: Table, console: ConsoleWatch) -> None:
    console.allowed.append("/roll")
    ui.start_solo()
    page = ui.page
    reply = {"error": {"code": "illegal_action", "message": "服务器说：现在不能掷骰子。"}}

    def refuse(route: Route) -> None:
        route.fulfill(status=409, content_type="application/json", body=json.dumps(reply))

    page.route("**/api/games/*/roll", refuse)
    with page.expect_request(re.compile(r"/api/games/[^/]+$")):  # the re-sync GET
        ui.by("roll").click()
    expect(ui.by("message")).to_have_text("服务器说：现在不能掷骰子。")
    expect(ui.by("message")).to_have_attribute("data-kind", "error")
    page.unroute("**/api/games/*/roll")
    # Not stuck: the same button works once the server agrees.
    ui.roll()
    expect(ui.by("message")).to_have_attribute("data-kind", "info")

    # A network failure is explained too; the roll is never sent later (U14): the page reads
    # the game, says nothing changed, and the player taps again.
    page.route("**/api/games/*/roll", lambda route: route.abort())
    ui.by("roll").click()
    expect(ui.by("message")).to_contain_text("没有送到，局面没有变，请再点一次")
    page.unroute("**/api/games/*/roll")
    page.wait_for_timeout(1_500)
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    ui.roll()
    expect(ui.by("message")).to_have_attribute("data-kind", "info")


def test_stale_version_from_a_double_click_is_silent_and_from_a_second_tab_said(
    ui: Table, console: ConsoleWatch
) -> None:
    console.allowed += ["/roll", "/score"]
    ui.start_solo()
    # A double click rolls once, with no error shown.
    ui.by("roll").dblclick()
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    expect(ui.by("message")).to_have_attribute("data-kind", "info")

    # A second tab plays on; this tab's next action is stale: it re-syncs and says why (U14).
    other = ui.page.context.new_page()
    other.goto(ui.base_url + "/game")
    second = Table(other, ui.base_url)
    expect(other.get_by_test_id("rolls-left")).to_have_text("剩余 2 次")
    second.roll()
    fresh = second.dice()
    ui.by("roll").click()
    expect(ui.by("rolls-left")).to_have_text("剩余 1 次")
    expect(ui.by("message")).not_to_have_attribute("data-kind", "error")
    expect(ui.by("message")).to_contain_text("这一局在别的窗口或设备上接着下了")
    assert ui.dice() == fresh
    other.close()


def test_no_console_errors_on_any_page(ui: Table, console: ConsoleWatch) -> None:
    """Every view, at 1280x800, logs nothing and needs no sideways scrolling."""
    page = ui.page

    def fits(where: str) -> None:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 1280, f"{where}: page is {width}px wide"

    fits("lobby")
    ui.by("rules-link").click()
    expect(page.locator("#rules-faq")).to_be_visible()  # the lazy view's text has arrived
    fits("rules")
    page.get_by_test_id("rules-back").click()
    ui.start_vs("novice")
    ui.roll()
    ui.by("hint").click()
    expect(ui.by("hint")).to_have_text("提示 (2)")
    fits("table")
    ui.score(ui.best_box())
    ui.wait_for_my_turn(2)
    page.goto(ui.base_url + "/game")  # a reload on the table
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    page.goto(ui.base_url + "/rules")
    page.goto(ui.base_url + "/lobby")
    expect(ui.by("continue")).to_be_visible()
    expect(page).to_have_url(ui.base_url + "/")
    assert console.errors == []


def test_game_abandoned_in_another_tab_returns_to_the_lobby(
    ui: Table, console: ConsoleWatch
) -> None:
    console.allowed.append("/roll")
    ui.start_solo()
    ui.roll()
    other = ui.page.context.new_page()
    second = Table(other, ui.base_url)
    second.open_lobby()
    second.start_vs("novice")  # asks, then abandons the solo game (重新开始 elsewhere)
    ui.by("roll").click()
    expect(ui.by("message")).to_contain_text("已回到大厅")
    expect(ui.by("message")).to_have_attribute("data-kind", "error")
    expect(ui.by("start-solo")).to_be_visible()
    expect(ui.page.locator("#continue-summary")).to_contain_text("人机对战")
    other.close()


def test_b3_keyboard_in_vs_game_skip_replay_and_play_on(ui: Table) -> None:
    page = ui.page
    ui.start_vs("novice")
    page.keyboard.press("Space")
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    best = ui.best_box()
    ui.cell(best).locator("button").focus()
    page.keyboard.press("Enter")
    # The chosen box is disabled now: focus moves to 「跳过电脑回合」; Enter skips.
    expect(ui.by("skip-replay")).to_be_focused()
    page.keyboard.press("Enter")
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    # Back on the player's turn the roll button has focus again.
    expect(ui.by("roll")).to_be_focused()
    page.keyboard.press("Space")
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
