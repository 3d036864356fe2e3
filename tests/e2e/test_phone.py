"""Phone-first table and polish (issue 8): P1 one screen, P2 hints and focus, P3 messages
per view, P4 upper progress, turn log and preview zeros.

Layout is asserted with bounding boxes against the viewport, never with screenshots.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, FloatRect, Page, Route, expect

from e2e.helpers import (
    CATEGORIES,
    NO_SERVICE_WORKER,
    ConsoleWatch,
    Table,
    routes_requests,
    sized_context,
    table_at,
)

pytestmark = pytest.mark.e2e

PHONES = [(375, 667), (360, 640), (390, 844)]
TOP_BAR = ("restart", "hint", "lobby", "rules-link-game", "turn-log-toggle", "settings-open-game")


@pytest.fixture
def phone_ui(request: pytest.FixtureRequest, browser: Browser, server_url: str) -> Iterator[Table]:
    """A fresh phone-sized context (``request.param`` = (width, height)) on the lobby."""
    width, height = request.param
    with table_at(browser, server_url, width, height, timeout_ms=10_000) as ui:
        yield ui


def _box(ui: Table, testid: str) -> FloatRect:
    box = ui.by(testid).bounding_box()
    assert box is not None, f"{testid} is not rendered"
    return box


def _assert_whole_turn_on_screen(ui: Table, where: str) -> None:
    """P1: dice, roll, the 13 boxes with their previews and the totals, no scrolling."""
    page = ui.page
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    scroll = page.evaluate(
        "() => [scrollY, document.documentElement.scrollHeight,"
        " document.documentElement.scrollWidth]"
    )
    assert scroll[0] == 0, f"{where}: the page scrolled to {scroll[0]}"
    assert scroll[2] <= vw, f"{where}: the page is {scroll[2]} px wide for {vw}"
    if vw < 600:  # a phone's table is exactly one screen; a desktop may list the log below
        assert scroll[1] <= vh, f"{where}: the page is {scroll[1]} px tall for {vh}"
    testids = [f"die-{i}" for i in range(5)] + ["roll", "total-0"]
    testids += [f"cell-0-{c}" for c in CATEGORIES]
    for testid in testids:
        b = _box(ui, testid)
        inside = (
            0 <= b["x"] <= b["x"] + b["width"] <= vw and 0 <= b["y"] <= b["y"] + b["height"] <= vh
        )
        assert inside, f"{where}: {testid} is not inside the {vw}x{vh} screen: {b}"
    assert len(ui.previews()) >= 1, f"{where}: no preview shown"


def _assert_touch_targets(ui: Table) -> None:
    """P1: dice, roll, boxes and the top bar's buttons are at least 44 CSS px each way."""
    testids = [f"die-{i}" for i in range(5)] + ["roll", *TOP_BAR]
    testids += [f"cell-0-{c}" for c in CATEGORIES]
    for testid in testids:
        loc = ui.by(testid)
        if testid.startswith("cell-0-"):
            loc = loc.locator("button")
        b = loc.bounding_box()
        assert b is not None, testid
        assert min(b["height"], b["width"]) >= 44, f"{testid} is {b['width']}x{b['height']}"


@pytest.mark.parametrize("phone_ui", PHONES, indirect=True, ids=lambda p: f"{p[0]}x{p[1]}")
def test_p1_whole_turn_fits_one_phone_screen_solo_and_vs(phone_ui: Table) -> None:
    ui = phone_ui
    ui.start_solo()
    ui.roll()
    _assert_whole_turn_on_screen(ui, "solo, first roll")
    _assert_touch_targets(ui)
    ui.die(0).click()
    ui.roll()
    _assert_whole_turn_on_screen(ui, "solo, second roll")
    # Scoring the lowest box does not jump the page anywhere.
    ui.score("chance")
    expect(ui.by("rolls-left")).to_have_text("剩余 3 次")
    assert ui.page.evaluate("() => scrollY") == 0

    ui.by("lobby").click()
    ui.start_vs("novice")
    ui.roll()
    _assert_whole_turn_on_screen(ui, "vs, round 1")
    ui.score("chance")
    # The computer's turn plays over the tray: its dice stay on screen, skip is reachable.
    expect(ui.by("skip-replay")).to_be_visible()
    assert ui.page.evaluate("() => scrollY") == 0
    skip = _box(ui, "skip-replay")
    assert skip["y"] + skip["height"] <= ui.page.viewport_size["height"]  # type: ignore[index]
    assert skip["height"] >= 44
    ui.wait_for_my_turn(2)
    ui.roll()
    _assert_whole_turn_on_screen(ui, "vs, round 2")
    _assert_touch_targets(ui)
    # The computer's full log (and both players' turns) is one tap away.
    ui.by("turn-log-toggle").click()
    log = ui.by("turn-log")
    expect(log).to_be_visible()
    expect(log.locator("li")).to_have_count(2)
    ui.by("turn-log-close").click()
    expect(log).to_be_hidden()
    assert ui.page.evaluate("() => document.activeElement.dataset.testid") == "turn-log-toggle"


# The phone board's parts (viewport px) and the message's line and padding.
_BOARD_JS = """() => {
  const v = document.getElementById('view-game');
  const box = (s) => { const b = v.querySelector(s).getBoundingClientRect();
    return {top: b.top, bottom: b.bottom, height: b.height}; };
  const m = getComputedStyle(document.getElementById('message'));
  return {inner: innerHeight, scroll: document.documentElement.scrollHeight,
    board: box('.board'), felt: box('.felt'), slot: box('.message-slot'),
    card: box('.card-area'), line: parseFloat(m.lineHeight),
    pad: parseFloat(m.paddingTop) + parseFloat(m.paddingBottom)};
}"""


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_p1_g4_the_message_takes_the_free_height_first_and_the_board_grows_past_two_lines(
    browser: Browser, server_url: str, locale: str
) -> None:
    """In every language: where the card's rows and three lines of message fit the screen,
    the board is that screen and the message has its three lines (the card's rows take the
    rest); on a screen too short for even two lines beside the card, the board grows past
    the screen with the message at two lines, nothing drawn over anything."""
    context = browser.new_context(
        viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True, locale=locale
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    page.goto(server_url + "/")
    expect(page.get_by_test_id("start-solo")).to_be_enabled()
    page.get_by_test_id("start-solo").click()
    expect(page.get_by_test_id("roll")).to_be_enabled()
    page.get_by_test_id("roll").click()
    expect(page.locator('[data-testid^="cell-0-"][data-selectable="true"]').first).to_be_visible()

    def lines(b: dict[str, Any]) -> float:
        return float((b["slot"]["height"] - b["pad"]) / b["line"])

    b = page.evaluate(_BOARD_JS)
    assert b["scroll"] == b["inner"], f"{locale}: not one screen: {b}"
    assert abs(b["board"]["height"] - b["inner"]) <= 0.5, b
    assert abs(lines(b) - 3) <= 0.05, f"{locale}: the message has {lines(b):.2f} lines: {b}"
    assert 0 <= b["card"]["top"] - b["slot"]["bottom"] <= 12, b  # no band, nothing over
    assert b["card"]["bottom"] <= b["inner"], b

    page.set_viewport_size({"width": 375, "height": 560})  # a short phone, or a browser's bars
    b = page.evaluate(_BOARD_JS)
    assert b["scroll"] > b["inner"], f"{locale}: the board did not grow: {b}"
    assert abs(lines(b) - 2) <= 0.05, f"{locale}: the message has {lines(b):.2f} lines: {b}"
    assert b["felt"]["bottom"] <= b["slot"]["top"] <= b["slot"]["bottom"] <= b["card"]["top"], b
    assert b["card"]["bottom"] <= b["board"]["bottom"], f"{locale}: the card leaves its board: {b}"
    context.close()
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)


def test_p1_desktop_keeps_dice_and_card_side_by_side(ui: Table) -> None:
    ui.start_vs("novice")
    ui.roll()
    _assert_whole_turn_on_screen(ui, "desktop vs")
    felt = ui.page.locator(".felt").bounding_box()
    card = ui.page.locator(".card-area").bounding_box()
    assert felt is not None
    assert card is not None
    assert card["x"] >= felt["x"] + felt["width"], "the card sits beside the dice"
    # The turn log is shown in the page on a desktop (no sheet to open).
    expect(ui.by("turn-log-toggle")).to_be_hidden()
    expect(ui.page.locator("#turn-log-panel")).to_be_visible()
    ui.score("chance")
    ui.wait_for_my_turn(2)
    expect(ui.by("turn-log").locator("li")).to_have_count(2)
    expect(ui.by("turn-log")).to_be_visible()


def _focused(page: Page) -> str:
    value: str = page.evaluate(
        "() => document.activeElement === document.body ? 'BODY'"
        " : document.activeElement.dataset.testid || document.activeElement.id"
    )
    return value


def test_p2_focus_stays_on_the_roll_button_and_never_falls_to_the_body(ui: Table) -> None:
    page = ui.page
    ui.start_solo()
    # Record every moment the focus falls to the page body.
    page.evaluate(
        """() => { window.__bodyFocus = 0;
            document.addEventListener('focusout', (e) => {
              if (!e.relatedTarget) setTimeout(() => {
                if (document.activeElement === document.body) window.__bodyFocus += 1; }, 0);
            }, true); }"""
    )
    ui.by("roll").click()
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    assert _focused(page) == "roll"
    ui.by("roll").press("Enter")
    expect(ui.by("rolls-left")).to_have_text("剩余 1 次")
    assert _focused(page) == "roll"
    ui.by("roll").click()
    expect(ui.by("rolls-left")).to_have_text("剩余 0 次")
    # The roll button is spent: focus moves to the first die, not the body.
    expect(ui.by("roll")).to_be_disabled()
    assert _focused(page) == "die-0"
    ui.score(ui.best_box())
    expect(ui.by("rolls-left")).to_have_text("剩余 3 次")
    assert _focused(page) == "roll"
    # A hint keeps the focus on 提示.
    ui.by("roll").click()
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    ui.by("hint").click()
    expect(ui.by("hint")).to_have_text("提示 (2)")
    assert _focused(page) == "hint"
    assert page.evaluate("() => window.__bodyFocus") == 0


def test_p2_hint_scrolls_its_box_into_view_and_its_gap_adds_up(
    browser: Browser, server_url: str
) -> None:
    # A short window where the card does not fit: the hinted box must be brought on screen.
    context = sized_context(browser, 1000, 460, **NO_SERVICE_WORKER)
    page = context.new_page()
    ui = Table(page, server_url)
    ui.open_lobby()
    ui.start_solo()

    # A hint whose values round apart: 241.84 and 239.66 show as 241.8 and 239.7, so the
    # gap shown must be 2.1 (the difference of the shown values), not 2.2.
    def skewed(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        body["value"] = 241.84
        if body.get("alternative"):
            body["alternative"]["value"] = 239.66
        route.fulfill(response=response, body=json.dumps(body))

    page.route(re.compile(r"/api/games/[^/]+/hint$"), skewed)
    for _ in range(3):
        ui.roll()
    page.evaluate("() => window.scrollTo(0, 0)")
    ui.by("hint").click()
    hinted = page.locator(".cell.hint")
    expect(hinted).to_have_count(1)
    page.wait_for_function(
        """() => { const r = document.querySelector('.cell.hint').getBoundingClientRect();
                   return r.top >= 0 && r.bottom <= innerHeight; }"""
    )
    # L15: two short sentences, the gain first; the full figures one tap away.
    said = re.search(r"多得 ([\d.]+) 分", ui.message())
    assert said, ui.message()
    ui.by("message-detail-toggle").click()
    text = ui.by("message-detail").inner_text()
    match = re.search(r"照提示做 ([\d.]+) 分.*，([\d.]+) 分（少 ([\d.]+) 分）", text)
    assert match, text
    best, alt, gap = (float(g) for g in match.groups())
    assert (best, alt) == (241.8, 239.7)
    assert round(best - alt, 1) == gap == float(said.group(1)) == 2.1
    context.close()


@routes_requests
def test_p3_a_message_belongs_to_its_view(ui: Table) -> None:
    page = ui.page
    ui.start_solo()
    ui.roll()
    expect(ui.by("message")).to_contain_text("你掷出了")
    ui.by("rules-link-game").click()
    expect(page.locator("#view-rules")).to_be_visible()
    expect(ui.by("message")).to_have_text("")
    expect(ui.by("message")).to_be_hidden()
    ui.by("rules-back").click()
    expect(ui.by("message")).to_contain_text("你掷出了")
    ui.by("lobby").click()
    expect(ui.by("message")).to_have_text("")

    # A roll answered after the player left for the rules page says nothing there.
    ui.by("continue").click()
    expect(ui.by("roll")).to_be_visible()

    def late(route: Route) -> None:
        page.wait_for_timeout(400)
        route.continue_()

    page.route(re.compile(r"/api/games/[^/]+/roll$"), late)
    ui.by("roll").click()
    ui.by("rules-link-game").click()
    page.wait_for_timeout(700)
    expect(ui.by("message")).to_have_text("")
    ui.by("rules-back").click()
    expect(ui.by("message")).to_contain_text("你掷出了")


def _assert_preview_shapes(ui: Table, previews: dict[str, int]) -> None:
    """A preview reads "+N" in italics; a 0 preview is "+0" (a written 0 is an upright "0")."""
    assert previews
    zeros = [c for c, p in previews.items() if p == 0]
    assert zeros, "a roll that fits every box: no zero to look at"
    for category in (zeros[0], max(previews, key=lambda c: previews[c])):
        button = ui.cell(category).locator("button")
        assert button.inner_text().startswith(f"+{previews[category]}")
        assert button.evaluate("e => getComputedStyle(e).fontStyle") == "italic"


def test_p4_upper_progress_turn_log_and_preview_zero_shapes(ui: Table) -> None:
    page = ui.page
    ui.start_vs("novice")
    # U17: each seat's column has its progress (the full words in its title)
    progress = ui.by("upper-progress-0")
    expect(progress).to_have_text("0/63\u202f差\u202f63")
    expect(progress).to_have_attribute("title", "上区 0/63 · 还差 63")
    expect(ui.by("upper-progress-1")).to_have_text("0/63\u202f差\u202f63")
    ui.roll()
    previews = ui.previews()
    _assert_preview_shapes(ui, previews)
    upper = next(c for c in CATEGORIES[:6] if previews.get(c, 0) > 0)
    points = previews[upper]
    ui.score(upper)
    expect(progress).to_have_text(f"{points}/63\u202f差\u202f{63 - points}")
    written = ui.cell(upper).locator("button")
    expect(written).to_have_text(str(points))
    assert written.evaluate("e => getComputedStyle(e).fontStyle") == "normal"
    ui.wait_for_my_turn(2)
    ui.roll()
    _assert_preview_shapes(ui, ui.previews())
    # The turn log lists both players' turns, newest first, with round, dice, box, points.
    items = ui.by("turn-log").locator("li")
    expect(items).to_have_count(2)
    computer, mine = items.nth(0).inner_text(), items.nth(1).inner_text()
    assert "第 1 回合" in mine
    assert "你" in mine
    assert f"{points} 分" in mine
    assert "第 1 回合" in computer
    assert "电脑" in computer
    page.reload()
    expect(ui.by("turn-log").locator("li")).to_have_count(2)
    expect(progress).to_have_attribute("title", f"上区 {points}/63 · 还差 {63 - points}")


def test_p4_upper_progress_says_when_the_bonus_is_out_of_reach(ui: Table) -> None:
    ui.start_solo()
    progress = ui.by("upper-progress-0")
    # Write the six upper boxes at once with whatever comes: the progress line must stay
    # honest — 还差 n while 63 is reachable, and says so once it is not.
    for round_ in range(1, 7):
        ui.roll()
        box = CATEGORIES[6 - round_]  # sixes first, ones last
        ui.score(box)
        ui.wait_for_my_turn(round_ + 1)
        text = progress.inner_text()
        subtotal = ui.page.get_by_test_id("upper-subtotal-0").inner_text()
        reachable = int(subtotal) + sum(5 * f for f in range(1, 7 - round_)) >= 63
        if int(subtotal) >= 63:
            assert text.endswith("已得奖励"), text
        elif reachable:
            assert text.endswith(f"还差 {63 - int(subtotal)}"), text
        else:
            assert text.endswith("已拿不到奖励"), text


def _paper(page: Page) -> str:
    value: str = page.evaluate(
        "() => getComputedStyle(document.querySelector('.panel')).backgroundColor"
    )
    return value


LIGHT_PAPER = "rgb(253, 248, 238)"
DARK_PAPER = "rgb(36, 30, 24)"


def test_p5_settings_replay_pace_and_theme_are_remembered_across_reloads(ui: Table) -> None:
    page = ui.page
    # Defaults: 标准 pace, the theme follows the system (light here).
    ui.by("settings-open").click()
    expect(ui.by("replay-speed")).to_have_value("normal")
    expect(ui.by("theme-toggle")).to_have_value("system")
    assert [o.strip() for o in ui.by("replay-speed").locator("option").all_inner_texts()] == [
        "慢",
        "标准",
        "快",
        "直接跳过",
    ]
    assert ui.by("theme-toggle").locator("option").all_inner_texts() == [
        "跟随系统",
        "浅色",
        "深色",
    ]
    assert _paper(page) == LIGHT_PAPER
    ui.by("replay-speed").select_option("skip")
    ui.by("theme-toggle").select_option("dark")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    ui.by("settings-close").click()
    expect(ui.by("settings-dialog")).to_be_hidden()
    assert _focused(page) == "settings-open"
    page.wait_for_timeout(300)
    assert _paper(page) == DARK_PAPER

    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    ui.by("settings-open").click()
    expect(ui.by("replay-speed")).to_have_value("skip")
    expect(ui.by("theme-toggle")).to_have_value("dark")
    ui.by("settings-close").click()

    # 直接跳过: the computer's turn is not replayed; its result is told at once.
    ui.start_vs("novice")
    ui.roll()
    ui.score(ui.best_box())
    expect(ui.by("rolls-left")).to_have_text("剩余 3 次")
    expect(ui.by("skip-replay")).to_be_hidden()
    expect(ui.by("message")).to_contain_text("电脑（入门）这回合在")
    assert _focused(page) == "roll"


def test_p5_dark_theme_follows_the_system_by_default(browser: Browser, server_url: str) -> None:
    context = browser.new_context(color_scheme="dark", locale="zh-CN")
    page = context.new_page()
    ui = Table(page, server_url)
    ui.open_lobby()
    expect(page.locator("html")).not_to_have_attribute("data-theme", re.compile(".*"))
    assert _paper(page) == DARK_PAPER
    # 浅色 overrides the system.
    ui.by("settings-open").click()
    ui.by("theme-toggle").select_option("light")
    ui.by("settings-close").click()
    page.wait_for_timeout(300)
    assert _paper(page) == LIGHT_PAPER
    context.close()
