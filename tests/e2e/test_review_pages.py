"""复盘 and 统计 pages (L1-L5): content, keyboard, text alternatives, 375 px and desktop.

Games are finished quickly through the page's own origin (fetch from the page, so the
browser's cookie and the same-origin rules apply); one test plays through the table to
reach the end panel's 「复盘」 button.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.helpers import ConsoleWatch, Table, finish_game, table_at

pytestmark = pytest.mark.e2e


VIEWPORTS = [pytest.param((1280, 800), id="desktop"), pytest.param((375, 667), id="phone")]


@pytest.fixture
def sized(request: pytest.FixtureRequest, browser: Browser, server_url: str) -> Iterator[Table]:
    """A fresh context of ``request.param`` = (width, height) on the lobby."""
    width, height = request.param
    with table_at(browser, server_url, width, height, timeout_ms=15_000) as ui:
        yield ui


def _finish(page: Page, mode: str = "solo", difficulty: str | None = None) -> str:
    return finish_game(page, mode, difficulty)


def _review(page: Page, game_id: str) -> Any:
    return page.evaluate("async (id) => (await fetch(`/api/games/${id}/review`)).json()", game_id)


def _no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.viewport_size
    assert viewport is not None
    assert width <= viewport["width"], f"page is {width} px wide in a {viewport['width']} px view"


@pytest.mark.parametrize("sized", VIEWPORTS, indirect=True)
def test_l1_review_page_summary_chart_decisions_position(sized: Table) -> None:
    page = sized.page
    game_id = _finish(page)
    review = _review(page, game_id)
    page.goto(f"{sized.base_url}/review/{game_id}")
    expect(page).to_have_title("快艇骰子 · 复盘")
    expect(page.locator("#review-title")).to_be_focused()
    expect(sized.by("review-accuracy")).to_have_text(f"{review['accuracy']:.1f}%")
    expect(sized.by("review-final")).to_have_text(f"{review['final_score']} 分")
    for mark, n in review["counts"].items():
        expect(sized.by(f"count-{mark}")).to_contain_text(str(n))
    # L4: the chart is an image with a title and a description, and its data as a table.
    chart = sized.by("review-chart")
    expect(chart).to_be_visible()
    assert chart.get_attribute("role") == "img"
    expect(chart.locator(":scope > title")).to_have_text("每回合后的预计终局")
    expect(page.locator(".rv-data table tr")).to_have_count(15)  # header + 14 points
    markers = page.locator(".chart-marker")
    assert markers.count() == sum(1 for d in review["decisions"] if d["mark"] != "best")
    # The decision list: one button each; the costliest is shown first.
    items = sized.by("decision-list").locator("button")
    expect(items).to_have_count(len(review["decisions"]))
    losses = [d["loss"] for d in review["decisions"]]
    worst = losses.index(max(losses))
    expect(sized.by(f"decision-{worst}")).to_have_attribute("aria-pressed", "true")
    # Keyboard: focus the first decision, arrow down, Enter shows that position.
    sized.by("decision-0").focus()
    page.keyboard.press("ArrowDown")
    expect(sized.by("decision-1")).to_be_focused()
    page.keyboard.press("Enter")
    expect(sized.by("decision-1")).to_have_attribute("aria-pressed", "true")
    d = review["decisions"][1]
    position = sized.by("review-position")
    expect(position.locator("h2")).to_contain_text(f"第 {d['round']} 回合")
    expect(position.locator("h2")).to_be_focused()
    expect(position.locator(".rv-die")).to_have_count(5)
    values = [die.get_attribute("data-value") for die in position.locator(".rv-die").all()]
    assert values == [str(f) for f in d["dice"]]
    # U11: drawn with the table's pips, not numerals
    assert position.locator(".rv-die .pip").count() == sum(d["dice"])
    rows = sized.by("review-options").locator("tr")
    assert rows.count() >= min(3, len(d["options"])) + 1
    expect(sized.by("review-options").locator(".rv-mine")).to_have_count(1)
    expect(sized.by("review-verdict")).to_contain_text(
        {"best": "最佳", "inaccuracy": "欠佳", "mistake": "失误", "blunder": "大错"}[d["mark"]]
    )
    _no_sideways_scroll(page)
    # Back to the lobby: the finished game is listed with its own 复盘 link.
    sized.by("review-back").click()
    expect(sized.by("start-solo")).to_be_visible()
    link = sized.by("recent-review").first
    expect(link).to_have_attribute("href", f"/review/{game_id}")
    link.click()
    expect(page).to_have_url(f"{sized.base_url}/review/{game_id}")
    expect(sized.by("review-accuracy")).to_be_visible()


def test_l4_vs_review_draws_the_win_probability(ui: Table) -> None:
    page = ui.page
    game_id = _finish(page, "vs_computer", "novice")
    review = _review(page, game_id)
    page.goto(f"{ui.base_url}/review/{game_id}")
    chart = ui.by("review-chart")
    expect(chart.locator(":scope > title")).to_have_text("每回合后你的胜率")
    first = review["timeline"][0]["win_probability"]
    expect(chart.locator(":scope > desc")).to_contain_text(f"开局胜率 {round(first * 100)}%")
    expect(page.locator(".rv-data table tr").nth(1)).to_contain_text(f"{first * 100:.1f}%")


def test_l1_end_panel_review_button(ui: Table) -> None:
    ui.start_solo()
    ui.play_to_end()
    ui.by("game-over-review").click()
    expect(ui.page).to_have_url(f"{ui.base_url}/review/" + ui.page.url.rsplit("/", 1)[-1])
    assert "/review/" in ui.page.url
    expect(ui.by("game-over")).to_be_hidden()
    expect(ui.by("review-accuracy")).to_be_visible()
    ui.page.go_back()
    expect(ui.by("review-body")).to_be_hidden()


def test_l1_review_of_a_game_in_progress_says_so(ui: Table, console: ConsoleWatch) -> None:
    ui.start_solo()
    ui.roll()
    game_id = ui.page.evaluate(
        "async () => (await (await fetch('/api/records')).json()).current_game.id"
    )
    console.allowed.append("/review")
    ui.page.goto(f"{ui.base_url}/review/{game_id}")
    expect(ui.by("review-error")).to_contain_text("还没有结束")


@pytest.mark.parametrize("sized", VIEWPORTS, indirect=True)
def test_l5_stats_page_empty_then_filled(sized: Table) -> None:
    page = sized.page
    sized.by("stats-link").click()
    expect(page).to_have_url(f"{sized.base_url}/stats")
    expect(page).to_have_title("快艇骰子 · 统计")
    # Empty states say what to do; the expert's distribution is drawn anyway.
    expect(sized.by("stats-empty-solo")).to_contain_text("开一局")
    expect(sized.by("stats-empty-vs")).to_be_visible()
    expect(sized.by("stats-histogram")).to_be_visible()
    expect(sized.by("stats-histogram").locator(".chart-ref")).to_have_count(1)
    _no_sideways_scroll(page)
    for _ in range(2):
        _finish(page)
    _finish(page, "vs_computer", "novice")
    page.reload()
    expect(sized.by("stats-solo-games")).to_have_text("2")
    expect(sized.by("stats-empty-solo")).to_have_count(0)
    expect(sized.by("stats-histogram").locator(".chart-bar")).not_to_have_count(0)
    expect(sized.by("stats-accuracy")).to_be_visible()
    expect(sized.by("stats-boxes").locator("tr")).to_have_count(14)
    expect(sized.by("stats-vs").locator("tr").nth(1)).to_contain_text("入门")
    expect(sized.by("stats-vs").locator("tr").nth(1).locator("td").first).to_have_text("1")
    _no_sideways_scroll(page)


def test_l4_live_meter_shows_hides_and_remembers(ui: Table) -> None:
    page = ui.page
    ui.start_solo()
    text = ui.by("live-meter-text")
    expect(text).to_have_text("预计终局 254.6")
    ui.roll()
    expect(text).not_to_have_text("预计终局 254.6")
    expect(text).to_contain_text("预计终局 ")
    # Hidden on request, and still hidden after a reload (this browser remembers).
    ui.by("live-meter-toggle").click()
    expect(text).to_be_hidden()
    expect(ui.by("live-meter-toggle")).to_have_text("显示预计")
    page.reload()
    expect(ui.by("live-meter-toggle")).to_have_text("显示预计")
    expect(text).to_be_hidden()
    ui.by("live-meter-toggle").click()
    expect(text).to_contain_text("预计终局 ")
    # vs: the chance to win, with a bar.
    ui.by("lobby").click()
    ui.by("difficulty").locator('input[value="expert"]').check()
    ui.by("start-vs").click()
    dialog = ui.by("confirm-dialog")
    if dialog.is_visible():
        ui.by("confirm-yes").click()
    expect(text).to_contain_text("胜率 50%")
    expect(page.locator("#live-meter-bar")).to_be_visible()


@pytest.mark.parametrize("sized", VIEWPORTS, indirect=True)
def test_l11_l15_review_words_a_child_can_read(sized: Table) -> None:
    """L11: the terms' 「?」 open by keyboard with the glossary's words; L12: a decision
    that was not best says why; L13: the verdict beside 准确率; L15: one decimal."""
    page = sized.page
    game_id = _finish(page, "solo", None)
    review = _review(page, game_id)
    page.goto(f"{sized.base_url}/review/{game_id}")
    expect(sized.by("review-skill-loss")).to_have_text(f"{review['skill_loss']:.1f} 分")
    # The verdict: stars from the points lost, read out as stars for a screen reader.
    verdict = page.locator(".rv-verdict-line [data-testid=verdict]")
    expect(verdict).to_contain_text(f"少得 {review['skill_loss']:.1f} 分")
    label = verdict.locator("[role=img]").get_attribute("aria-label") or ""
    assert label.endswith(verdict.locator(".verdict-word").inner_text().split("：")[0]), label
    # A 「?」: reached with Tab (a summary), named, opened with Enter, showing its words.
    q = page.locator(".rv-summary [data-testid=term-accuracy]")
    expect(q).to_have_attribute("aria-label", "准确率是什么意思？")
    q.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".rv-summary [data-term=accuracy] .term-pop")).to_be_visible()
    expect(page.locator(".rv-summary [data-term=accuracy] .term-pop")).to_contain_text("100%")
    # The costliest decision is shown first: it was not best, so it says why.
    worst = max(review["decisions"], key=lambda d: d["loss"])
    if worst["mark"] != "best":
        why = sized.by("review-why")
        expect(why).to_be_visible()
        for line in worst["why"]:
            expect(why).to_contain_text(line)
        expect(sized.by("review-verdict")).to_contain_text(f"{worst['loss']:.1f} 分")
    # One decimal for points everywhere on the page (no 254.59, no −17.27).
    text = page.locator("#view-review").inner_text()
    assert not re.search(r"\d+\.\d\d(?!%)", text), re.findall(r"\d+\.\d\d", text)
    # The keyboard's advice is not given on a touch screen (the phone context has touch).
    advice = page.locator(".rv-decisions .kb-only")
    if sized.page.viewport_size and sized.page.viewport_size["width"] < 500:
        expect(advice).to_be_hidden()
    else:
        expect(advice).to_be_visible()
