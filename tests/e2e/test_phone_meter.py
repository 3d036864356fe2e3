"""The live meter on a phone (L4 with P1) and long messages on the phone table (P1, P3).

Issue 9 point 2 on phones: the meter is merged into the totals line of the one-screen table
(375x667, 360x640, 390x844), updates after each roll and score, is hidden from 设置 and stays
hidden after a reload, is said to screen readers once a turn (not on every roll), and moves
nothing when its figure changes. Issue 8's weak spot: at 360x640 a long hint scrolled inside a
~50 px message box; now it has phone words that fit, and any message that still does not fit
is cut at a whole line and opened with 「全文」.

Layout is asserted with bounding boxes against the viewport, never with screenshots.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, FloatRect, Page, Response, Route, expect

from e2e.helpers import NO_SERVICE_WORKER, ConsoleWatch, Table, sized_context
from e2e.test_phone import PHONES, _assert_touch_targets, _assert_whole_turn_on_screen

pytestmark = pytest.mark.e2e

METER = re.compile(r"/api/games/[^/]+/meter$")


class Phone:
    """A phone-sized context on the lobby, with its console watch."""

    def __init__(self, browser: Browser, server_url: str, width: int, height: int) -> None:
        self.context = sized_context(browser, width, height, **NO_SERVICE_WORKER)
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.console = ConsoleWatch()
        self.console.watch(self.page)
        self.ui = Table(self.page, server_url)
        self.ui.open_lobby()


@pytest.fixture
def phone(request: pytest.FixtureRequest, browser: Browser, server_url: str) -> Iterator[Phone]:
    """A fresh phone context (``request.param`` = (width, height), 360x640 by default)."""
    width, height = getattr(request, "param", (360, 640))
    p = Phone(browser, server_url, width, height)
    yield p
    p.context.close()
    assert p.console.errors == [], "console errors:\n" + "\n".join(p.console.errors)


def _is_meter(response: Response) -> bool:
    return bool(METER.search(response.url)) and response.request.method == "GET"


def _box(page: Page, selector: str) -> FloatRect:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not rendered"
    return box


def _assert_meter_on_the_totals_line(ui: Table, where: str) -> None:
    """The meter sits on the totals line, right of the totals, inside the screen."""
    page = ui.page
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    meter = _box(page, "#live-meter")
    totals = _box(page, "#scorecard-totals")
    card = _box(page, ".card-area")
    assert meter["x"] >= 0, f"{where}: {meter}"
    assert meter["x"] + meter["width"] <= vw, f"{where}: {meter}"
    assert meter["y"] >= 0, f"{where}: {meter}"
    assert meter["y"] + meter["height"] <= vh, f"{where}: {meter}"
    # Same band as the totals row, within a pixel; beside the totals, never over them.
    assert abs(meter["y"] - totals["y"]) <= 1, f"{where}: meter {meter}, totals {totals}"
    assert abs(meter["height"] - totals["height"]) <= 1, f"{where}: {meter} / {totals}"
    assert meter["x"] >= totals["x"] + totals["width"] - 0.5, f"{where}: overlaps the totals"
    assert meter["x"] + meter["width"] <= card["x"] + card["width"] + 0.5, where
    for testid in ("total-0", "live-meter-text"):
        b = ui.by(testid).bounding_box()
        assert b is not None
        assert b["width"] > 0, f"{where}: {testid} has no room"


def _percent(chance: float) -> int:
    """The page's whole percent: JavaScript's Math.round rounds halves up, Python's round()
    to even (0.885 shows as 89 %, round(88.5) is 88)."""
    return math.floor(chance * 100 + 0.5)


def _shown_chance(ui: Table) -> str:
    text: str = ui.page.locator(".meter-chance").inner_text()
    return text


@pytest.mark.parametrize("phone", PHONES, indirect=True, ids=lambda p: f"{p[0]}x{p[1]}")
def test_l4_p1_phone_meter_fits_the_one_screen_table_and_updates_after_roll_and_score(
    phone: Phone,
) -> None:
    ui, page = phone.ui, phone.page
    said = ui.by("live-meter-said")
    text = ui.by("live-meter-text")

    # Solo: 「预计终局」 on the totals line, the whole turn still on one screen.
    ui.start_solo()
    expect(text).to_have_text("预计终局 254.6")
    expect(text).to_be_visible()
    expect(ui.by("live-meter-bar")).to_be_hidden()
    with page.expect_response(_is_meter) as rolled:
        ui.roll()
    figure = rolled.value.json()["expected_final"]
    expect(text).to_have_text(f"预计终局 {figure:.1f}")
    _assert_whole_turn_on_screen(ui, "solo with the meter")
    _assert_touch_targets(ui)
    _assert_meter_on_the_totals_line(ui, "solo")
    # A roll is not announced by the meter (the roll's own message says enough).
    expect(said).to_have_text("")
    with page.expect_response(_is_meter) as scored:
        ui.score(ui.best_box())
    figure = scored.value.json()["expected_final"]
    expect(text).to_have_text(f"预计终局 {figure:.1f}")
    # Once a turn, politely: the new figure after the score.
    expect(said).to_have_text(f"预计终局 {figure:.1f} 分。")
    assert said.get_attribute("aria-live") == "polite"
    assert text.get_attribute("aria-live") is None
    assert page.evaluate("() => scrollY") == 0

    # Vs: the chance to win as a bar and its percentage.
    ui.by("lobby").click()
    ui.start_vs("novice")
    bar = ui.by("live-meter-bar")
    expect(bar).to_be_visible()
    expect(page.locator(".meter-chance")).to_have_text(re.compile(r"^胜率 +\d+%$"))
    # The expected score stays in the review and on a desktop: no room for both here.
    expect(page.locator(".meter-ef")).to_be_hidden()
    with page.expect_response(_is_meter) as rolled:
        ui.roll()
    chance = rolled.value.json()["win_probability"]
    expect(page.locator(".meter-chance")).to_have_text(re.compile(rf"^胜率 +{_percent(chance)}%$"))
    assert abs(float(bar.evaluate("m => m.value")) - chance) < 1e-9
    _assert_whole_turn_on_screen(ui, "vs with the meter")
    _assert_touch_targets(ui)
    _assert_meter_on_the_totals_line(ui, "vs")
    expect(said).to_have_text("")  # a new game: nothing said on its first figure
    with page.expect_response(_is_meter, timeout=20_000) as after_turn:
        ui.score(ui.best_box())
        ui.wait_for_my_turn(2)
    chance = after_turn.value.json()["win_probability"]
    expect(said).to_have_text(f"胜率 {_percent(chance)}%。")
    expect(page.locator(".meter-chance")).to_have_text(re.compile(rf"^胜率 +{_percent(chance)}%$"))
    ui.roll()
    _assert_whole_turn_on_screen(ui, "vs round 2 with the meter")
    _assert_meter_on_the_totals_line(ui, "vs round 2")


def test_l4_phone_meter_is_hidden_from_settings_and_stays_hidden_after_reload(
    phone: Phone,
) -> None:
    ui, page = phone.ui, phone.page
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if METER.search(r.url) else None)
    ui.start_solo()
    meter = ui.by("live-meter")
    expect(ui.by("live-meter-text")).to_have_text("预计终局 254.6")
    full = _box(page, ".card-area")["width"]
    narrow = _box(page, "#scorecard-totals")["width"]
    assert narrow < full - 100, "the totals make room for the meter"
    # The desktop's 「隐藏」 button has no 44 px room here: 设置 holds the choice.
    expect(ui.by("live-meter-toggle")).to_be_hidden()
    ui.by("settings-open-game").click()
    expect(ui.by("meter-setting")).to_have_value("shown")
    ui.by("meter-setting").select_option("hidden")
    ui.by("settings-close").click()
    expect(meter).to_be_hidden()
    # The totals take the whole line again.
    assert _box(page, "#scorecard-totals")["width"] > narrow + 100

    page.reload()
    expect(ui.by("roll")).to_be_enabled()
    asked.clear()
    ui.roll()
    expect(meter).to_be_hidden()
    _assert_whole_turn_on_screen(ui, "meter hidden")
    ui.score(ui.best_box())
    expect(ui.by("rolls-left")).to_have_text("剩余 3 次")
    expect(meter).to_be_hidden()
    page.wait_for_timeout(300)  # a request would have left by now
    assert asked == [], "nothing is asked while the meter is hidden"
    ui.by("settings-open-game").click()
    expect(ui.by("meter-setting")).to_have_value("hidden")
    with page.expect_response(_is_meter) as shown:
        ui.by("meter-setting").select_option("shown")
    ui.by("settings-close").click()
    figure = shown.value.json()["expected_final"]
    expect(ui.by("live-meter-text")).to_have_text(f"预计终局 {figure:.1f}")
    expect(meter).to_be_visible()
    _assert_meter_on_the_totals_line(ui, "shown again")
    # Shown again from 设置: nothing is said (only a new turn is announced).
    expect(ui.by("live-meter-said")).to_have_text("")


def _fixed_meter(page: Page, answers: list[dict[str, Any]]) -> None:
    """Answer the meter's requests with ``answers`` in turn (the last one repeats)."""
    queue = list(answers)

    def answer(route: Route) -> None:
        body = queue.pop(0) if len(queue) > 1 else queue[0]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route(METER, answer)


def _layout(page: Page) -> dict[str, FloatRect]:
    selectors = ("#live-meter", "#live-meter-bar", "#scorecard-totals", ".card-area")
    out = {s: _box(page, s) for s in selectors if page.locator(s).is_visible()}
    out["total"] = _box(page, '[data-testid="total-0"]')
    return out


def test_l4_phone_meter_moves_nothing_when_its_figure_changes(phone: Phone) -> None:
    ui, page = phone.ui, phone.page
    # Solo: one-, two- and three-digit figures.
    _fixed_meter(
        page,
        [
            {"expected_final": 254.59, "win_probability": None},
            {"expected_final": 7.0, "win_probability": None},
            {"expected_final": 99.54, "win_probability": None},
            {"expected_final": 999.9, "win_probability": None},
        ],
    )
    ui.start_solo()
    text = ui.by("live-meter-text")
    expect(text).to_have_text("预计终局 254.6")
    first = _layout(page)
    for shown in ("7.0", "99.5", "999.9"):
        ui.roll()
        expect(text).to_have_text(f"预计终局 {shown}")
        assert _layout(page) == first, f"the page moved when the meter read {shown}"
    page.unroute(METER)

    # Vs: 0 %, 100 % and a figure in between take the same room; the bar too.
    _fixed_meter(
        page,
        [
            {"expected_final": 254.59, "win_probability": 0.5},
            {"expected_final": 250.0, "win_probability": 0.004},
            {"expected_final": 250.0, "win_probability": 1.0},
            {"expected_final": 250.0, "win_probability": 0.62},
        ],
    )
    ui.by("lobby").click()
    ui.start_vs("novice")
    chance = page.locator(".meter-chance")
    expect(chance).to_have_text(re.compile(r"^胜率 +50%$"))
    first = _layout(page)
    for shown in ("0%", "100%", "62%"):
        ui.roll()
        expect(chance).to_have_text(re.compile(rf"^胜率 +{shown}$"))
        assert _layout(page) == first, f"the page moved when the meter read {shown}"


def _message_fits(page: Page) -> dict[str, Any]:
    value: dict[str, Any] = page.evaluate(
        """() => { const m = document.getElementById('message');
            return {scroll: m.scrollHeight, client: m.clientHeight, top: m.scrollTop,
                    overflow: getComputedStyle(m).overflowY, cls: m.className,
                    text: m.innerText}; }"""
    )
    return value


def test_p1_a_long_hint_fits_the_360x640_message_without_scrolling(phone: Phone) -> None:
    ui, page = phone.ui, phone.page
    ui.start_solo()

    # The longest hints there are: four dice to keep, and four others the other way; then a
    # box hint with a box the other way. Every figure is as the server's hint would give it.
    def longest(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        if body.get("hold") is not None or body["game"]["rolls_left"] > 0:
            body.update(hold=[True, True, True, True, False], category=None, value=253.94)
            body["alternative"] = {
                "hold": [False, True, True, True, True],
                "category": None,
                "value": 251.81,
            }
        route.fulfill(response=response, body=json.dumps(body))

    page.route(re.compile(r"/api/games/[^/]+/hint$"), longest)
    ui.roll()
    ui.by("hint").click()
    expect(ui.by("hint")).to_have_text("提示 (2)")
    fit = _message_fits(page)
    dice = ui.dice()
    kept = "、".join(str(d) for d in dice[:4])
    other = "、".join(str(d) for d in dice[1:])
    # L15: what to do and how much better, the figures one tap away (「看数字」).
    said = f"提示（剩 2 次）：留 {kept} 再掷。平均多得 2.1 分。"
    assert fit["text"].startswith(said), fit["text"]
    detail = ui.by("message-detail").text_content() or ""
    assert f"次好的是保留 {other} 再掷，251.8 分（少 2.1 分）" in detail, detail
    assert fit["scroll"] <= fit["client"], f"the hint overflows its box: {fit}"
    assert "clamped" not in fit["cls"]
    expect(ui.by("message-more")).to_be_hidden()
    # The full sentence is still what a desktop shows (and is the one too long for here).
    full = page.locator("#message .msg-full")
    expect(full).to_be_hidden()
    assert "这样平均比次好的做法多得 2.1 分" in (full.text_content() or "")
    _assert_whole_turn_on_screen(ui, "long hint")

    page.unroute(re.compile(r"/api/games/[^/]+/hint$"))
    ui.roll()
    ui.roll()
    ui.by("hint").click()
    expect(ui.by("hint")).to_have_text("提示 (1)")
    fit = _message_fits(page)
    assert fit["text"].startswith("提示（剩 1 次）：记「"), fit["text"]
    assert fit["scroll"] <= fit["client"], f"the box hint overflows its box: {fit}"
    expect(ui.by("message-more")).to_be_hidden()


def test_p1_a_message_too_long_for_the_phone_is_cut_at_a_line_and_opens_with_a_tap(
    phone: Phone,
) -> None:
    ui, page = phone.ui, phone.page
    ui.start_solo()
    ui.roll()
    long_text = "这一局出了点问题，请看完这段说明再继续：" + "骰子和分数都已保存，没有丢失。" * 6

    def refuse(route: Route) -> None:
        body = {"error": {"code": "illegal_action", "message": long_text}}
        route.fulfill(status=409, content_type="application/json", body=json.dumps(body))

    phone.console.allowed.append("/roll")
    page.route(re.compile(r"/api/games/[^/]+/roll$"), refuse)
    ui.by("roll").click()
    message = ui.by("message")
    expect(message).to_have_text(long_text)
    expect(message).to_have_class(re.compile(r"\bclamped\b"))
    fit = _message_fits(page)
    # No scrolling inside: clipped (never scrollable), cut after a whole line.
    assert fit["overflow"] == "hidden"
    assert fit["top"] == 0
    line = float(message.evaluate("m => parseFloat(getComputedStyle(m).lineHeight)"))
    lines = int(message.evaluate("m => getComputedStyle(m).webkitLineClamp"))
    assert lines >= 2
    assert lines * line <= fit["client"] + 0.5, fit
    more = ui.by("message-more")
    expect(more).to_be_visible()
    expect(more).to_have_text("全文")
    b = more.bounding_box()
    assert b is not None
    assert min(b["width"], b["height"]) >= 44, b
    _assert_whole_turn_on_screen(ui, "a cut message")

    # 全文: the whole text over the card, nothing cut, nothing to scroll.
    more.click()
    expect(more).to_have_text("收起")
    expect(more).to_have_attribute("aria-expanded", "true")
    fit = _message_fits(page)
    assert "clamped" not in fit["cls"]
    assert fit["scroll"] <= fit["client"], fit
    # Escape closes it and keeps the focus on the button.
    page.keyboard.press("Escape")
    expect(more).to_have_text("全文")
    expect(message).to_have_class(re.compile(r"\bclamped\b"))
    assert page.evaluate("() => document.activeElement.dataset.testid") == "message-more"
    more.click()
    expect(message).to_have_class(re.compile(r"\bexpanded\b"))

    # The next message starts closed; one that fits needs no button. A hint asked with H
    # while 收起 has the focus: the button goes, and the focus with it to 再掷 (P2).
    page.unroute(re.compile(r"/api/games/[^/]+/roll$"))
    more.focus()
    page.keyboard.press("h")
    expect(ui.by("hint")).to_have_text("提示 (2)")
    expect(more).to_be_hidden()
    expect(message).not_to_have_class(re.compile(r"\b(clamped|expanded)\b"))
    assert page.evaluate("() => document.activeElement.dataset.testid") == "roll"
    ui.roll()
    expect(message).to_contain_text("你掷出了")
    expect(more).to_be_hidden()
    expect(message).not_to_have_class(re.compile(r"\b(clamped|expanded)\b"))
    _assert_whole_turn_on_screen(ui, "after the cut message")
