"""Keyboard and screen readers (B3), phone layout, errors and re-sync, a clean console."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from e2e.conftest import ConsoleWatch
from e2e.helpers import Table

pytestmark = pytest.mark.e2e


def _focused_testid(page: Page) -> str:
    value: str = page.evaluate(
        "() => document.activeElement.closest('[data-testid]')?.dataset.testid ?? ''"
    )
    return value


def test_b3_keyboard_only_turn(table: Table) -> None:
    page = table.page
    # Start a game with the keyboard: Tab to 「开始单人挑战」 and press Enter.
    for _ in range(10):
        page.keyboard.press("Tab")
        if _focused_testid(page) == "start-solo":
            break
    assert _focused_testid(page) == "start-solo"
    page.keyboard.press("Enter")
    expect(table.by("roll")).to_be_visible()
    expect(table.by("round")).to_have_text("第 1 / 13 回合")

    # Space rolls, digits hold, Enter rolls again.
    page.keyboard.press("Space")
    expect(table.by("rolls-left")).to_have_text("剩余 2 次")
    first = table.dice()
    page.keyboard.press("1")
    page.keyboard.press("3")
    expect(table.die(0)).to_have_attribute("aria-pressed", "true")
    expect(table.die(2)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("3")
    expect(table.die(2)).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("Enter")
    expect(table.by("rolls-left")).to_have_text("剩余 1 次")
    assert table.dice()[0] == first[0]

    # Tab reaches the scorecard; arrows move between choosable boxes; Enter writes.
    for _ in range(25):
        page.keyboard.press("Tab")
        if _focused_testid(page).startswith("cell-human-"):
            break
    start = _focused_testid(page)
    assert start.startswith("cell-human-"), start
    # Visible focus: the focused box has an outline.
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", ""), outline
    page.keyboard.press("ArrowDown")
    target = _focused_testid(page)
    assert target != start
    assert target.startswith("cell-human-")
    category = target.removeprefix("cell-human-")
    previews = table.previews()
    page.keyboard.press("Enter")
    if table.by("confirm-dialog").is_visible():
        # The zero confirmation has focus on 「再想想」; Tab to 「确定写 0」 and confirm.
        assert _focused_testid(page) == "confirm-no"
        page.keyboard.press("Tab")
        assert _focused_testid(page) == "confirm-yes"
        page.keyboard.press("Enter")
    expect(table.by("round")).to_have_text("第 2 / 13 回合")
    assert table.shown_points(category) == previews[category]


def test_b3_screen_reader_labels_and_live_region(table: Table) -> None:
    table.start_solo()
    message = table.by("message")
    expect(message).to_have_attribute("aria-live", "polite")
    dice = table.roll()
    expect(message).to_contain_text("你掷出了 " + "、".join(str(d) for d in dice))
    for i in range(5):
        expect(table.die(i)).to_have_attribute("aria-label", f"第 {i + 1} 颗：{dice[i]} 点")
        expect(table.die(i)).to_have_attribute("aria-pressed", "false")
        assert table.die(i).evaluate("e => e.tagName") == "BUTTON"
    button = table.cell("chance").locator("button")
    expect(button).to_have_attribute("aria-label", re.compile(r"^机会：可得 \d+ 分"))


def test_phone_viewport_has_no_horizontal_scroll(browser: Browser, server_url: str) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 667}, locale="zh-CN")
    page = context.new_page()
    console = ConsoleWatch()
    console.watch(page)
    table = Table(page, server_url)

    def no_sideways_scroll(where: str) -> None:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 375, f"{where}: page is {width}px wide"

    table.open_lobby()
    no_sideways_scroll("lobby")
    table.start_vs("novice")
    table.roll()
    table.die(1).click()
    no_sideways_scroll("vs table")
    table.score(table.best_box())
    no_sideways_scroll("computer replay")
    table.wait_for_my_turn(2)
    # The dice and the roll button fit on the first screen.
    box = table.by("roll").bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= 667
    table.by("rules-link-game").click()
    no_sideways_scroll("rules")
    context.close()
    assert console.errors == []


def test_errors_are_shown_readably_and_the_page_resyncs(
    table: Table, console: ConsoleWatch
) -> None:
    console.allowed.append("/roll")
    table.start_solo()
    page = table.page
    reply = {"error": {"code": "illegal_action", "message": "服务器说：现在不能掷骰子。"}}

    def refuse(route: Route) -> None:
        route.fulfill(status=409, content_type="application/json", body=json.dumps(reply))

    page.route("**/api/games/*/roll", refuse)
    with page.expect_request(re.compile(r"/api/games/[^/]+$")):  # the re-sync GET
        table.by("roll").click()
    expect(table.by("message")).to_have_text("服务器说：现在不能掷骰子。")
    expect(table.by("message")).to_have_attribute("data-kind", "error")
    page.unroute("**/api/games/*/roll")
    # Not stuck: the same button works once the server agrees.
    table.roll()
    expect(table.by("message")).to_have_attribute("data-kind", "info")

    # A network failure is explained too.
    page.route("**/api/games/*/roll", lambda route: route.abort())
    table.by("roll").click()
    expect(table.by("message")).to_contain_text("连不上服务器")
    page.unroute("**/api/games/*/roll")
    table.roll()


def test_stale_version_from_a_double_click_or_second_tab_is_silent(
    table: Table, console: ConsoleWatch
) -> None:
    console.allowed += ["/roll", "/score"]
    table.start_solo()
    # A double click rolls once, with no error shown.
    table.by("roll").dblclick()
    expect(table.by("rolls-left")).to_have_text("剩余 2 次")
    expect(table.by("message")).to_have_attribute("data-kind", "info")

    # A second tab plays on; this tab's next action is stale: it re-syncs without a word.
    other = table.page.context.new_page()
    other.goto(table.base_url + "/game")
    second = Table(other, table.base_url)
    expect(other.get_by_test_id("rolls-left")).to_have_text("剩余 2 次")
    second.roll()
    fresh = second.dice()
    table.by("roll").click()
    expect(table.by("rolls-left")).to_have_text("剩余 1 次")
    expect(table.by("message")).not_to_have_attribute("data-kind", "error")
    assert table.dice() == fresh
    other.close()


def test_no_console_errors_on_any_page(table: Table, console: ConsoleWatch) -> None:
    page = table.page
    table.by("rules-link").click()
    expect(page.locator("#view-rules")).to_be_visible()
    page.get_by_test_id("rules-back").click()
    table.start_vs("novice")
    table.roll()
    table.by("hint").click()
    expect(table.by("hint")).to_have_text("提示 (2)")
    table.score(table.best_box())
    table.wait_for_my_turn(2)
    page.goto(table.base_url + "/game")  # a reload on the table
    expect(table.by("round")).to_have_text("第 2 / 13 回合")
    page.goto(table.base_url + "/rules")
    page.goto(table.base_url + "/")
    expect(table.by("continue")).to_be_visible()
    assert console.errors == []
