"""Polish 2, 5, 6, 7: what a player notices — tables whose figures sit under their headers,
one point for one game, the computer's move said once, 44 px targets, and Chinese that
breaks where it should (and says what the board shows)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.helpers import Table, finish_game, table_at

pytestmark = pytest.mark.e2e

# The text's lines: how many line boxes `needle` takes inside the element `selector`.
LINES_JS = """
([selector, needle]) => {
  const el = document.querySelector(selector);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf(needle);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + needle.length);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return tops.size;
  }
  return -1;
}
"""


def _lines(page: Page, selector: str, needle: str) -> int:
    count: int = page.evaluate(LINES_JS, [selector, needle])
    assert count > 0, f"「{needle}」 is not in {selector}"
    return count


def test_polish2_headers_sit_over_their_numbers_and_one_game_is_a_point(
    browser: Browser, server_url: str
) -> None:
    with table_at(browser, server_url, 1280, 800, timeout_ms=20_000) as ui:
        finish_game(ui.page, "vs_computer", "novice")
        finish_game(ui.page, "solo")
        ui.page.goto(f"{server_url}/stats")
        for table in ("stats-vs", "stats-boxes"):
            expect(ui.by(table)).to_be_visible(timeout=30_000)
            # Each column's header ends where its figures end (all right-aligned).
            edges = ui.by(table).evaluate(
                """(t) => [...t.rows].map((row) => [...row.cells].slice(1)
                      .map((c) => { const r = document.createRange(); r.selectNodeContents(c);
                                    return Math.round(r.getBoundingClientRect().right); }))"""
            )
            head, *rows = edges
            for row in rows:
                assert len(row) == len(head)
                for h, cell in zip(head, row, strict=True):
                    assert abs(h - cell) <= 2, (table, head, row)
        # U15: one solo game is no distribution: no single 100% bar, a sentence instead.
        expect(ui.by("stats-histogram").locator(".chart-bar")).to_have_count(0)
        expect(ui.by("stats-histogram").locator(".chart-ref")).to_have_count(1)
        expect(ui.by("stats-one-game")).to_contain_text("你打完了 1 局")
        # One solo game so far: the accuracy chart is one point, not a line across.
        chart = ui.by("stats-accuracy")
        expect(chart.locator(".chart-point")).to_have_count(1)
        path = chart.locator(".chart-line").get_attribute("d") or ""
        assert "L" not in path, path
        point = chart.locator(".chart-point").bounding_box()
        frame = chart.bounding_box()
        assert point is not None
        assert frame is not None
        middle = point["x"] + point["width"] / 2 - frame["x"]
        assert 0.3 * frame["width"] < middle < 0.7 * frame["width"]


def test_polish5_the_computers_move_is_said_once(ui: Table) -> None:
    ui.page.evaluate("() => localStorage.setItem('yahtzee.settings', '{\"replay\":\"slow\"}')")
    ui.open_lobby()
    ui.start_vs("novice")
    ui.roll()
    ui.score(ui.best_box())
    expect(ui.by("message")).to_contain_text("电脑（入门） 掷出")
    said = ui.by("message").inner_text()
    # Nowhere else on the page while it is being replayed.
    body = ui.page.evaluate(
        """() => [...document.querySelectorAll('body *')]
                .filter((e) => e.offsetParent !== null && !e.closest('[data-testid=message]'))
                .map((e) => [...e.childNodes].filter((n) => n.nodeType === 3)
                             .map((n) => n.textContent).join(''))
                .join('\\n')"""
    )
    assert said.strip() not in body
    expect(ui.page.locator("#computer-log")).to_be_hidden()
    # Once over: the record of the turn beside the table, and one line of what it scored.
    expect(ui.by("skip-replay")).to_be_hidden(timeout=15_000)
    expect(ui.page.locator("#computer-log")).to_be_visible()
    expect(ui.by("message")).to_contain_text("电脑（入门）这回合在")
    steps = ui.page.locator("#computer-log-steps li")
    assert steps.count() >= 2
    assert ui.by("message").inner_text().strip() not in [s.strip() for s in steps.all_inner_texts()]


@pytest.mark.parametrize("size", [(375, 667), (360, 640)], ids=["375", "360"])
def test_polish6_7_phone_targets_and_chinese_lines(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    with table_at(browser, server_url, *size, timeout_ms=20_000) as ui:
        page = ui.page
        game = finish_game(page, "solo")
        ui.open_lobby()
        # 6: the lobby's links and a recent game's 复盘 are 44 px targets in the page's style.
        for target in (
            page.locator(".site-header .brand"),  # U15: the header's targets too
            ui.by("settings-open"),
            ui.by("rules-link"),
            ui.by("stats-link"),
            ui.by("recent-review").first,
        ):
            box = target.bounding_box()
            assert box is not None
            assert box["height"] >= 44, box
            assert box["width"] >= 44, box
        colour = ui.by("recent-review").first.evaluate("(a) => getComputedStyle(a).color")
        assert colour not in ("rgb(0, 0, 238)", "rgb(85, 26, 139)"), colour  # the defaults
        # 7: a saved game's round is one unit in the continue box.
        page.evaluate("() => localStorage.setItem('yahtzee.settings', '{\"replay\":\"skip\"}')")
        ui.open_lobby()
        ui.start_vs("novice")
        ui.roll()
        ui.score(ui.best_box())
        ui.wait_for_my_turn(2)
        ui.by("lobby").click()
        expect(ui.by("continue")).to_be_visible()
        assert _lines(page, "#continue-summary", "第\u00a02\u00a0/\u00a013\u00a0回合") == 1
        # ...and a reload on the table says where the game stands, not an empty gap.
        ui.by("continue").click()
        expect(page).to_have_url(f"{server_url}/game")
        expect(ui.by("roll")).to_be_visible()
        page.reload()
        expect(ui.by("message")).to_contain_text("继续上次的游戏：第 2 回合")
        # 7: 预计终局 never breaks inside the word on the review.
        page.goto(f"{server_url}/review/{game}")
        expect(ui.by("review-options")).to_be_visible(timeout=30_000)
        assert _lines(page, "[data-testid=review-options]", "预计终局") == 1


def test_polish7_skip_label_and_the_rules_zero(browser: Browser, server_url: str) -> None:
    with table_at(browser, server_url, 1280, 800, timeout_ms=20_000) as ui:
        page = ui.page
        page.evaluate("() => localStorage.setItem('yahtzee.settings', '{\"replay\":\"slow\"}')")
        ui.open_lobby()
        ui.start_vs("novice")
        ui.roll()
        # The board's zero preview and the rules' words for it are the same: 「+0」.
        zeros = [c for c, points in ui.previews().items() if points == 0]
        assert zeros, "a first roll that fits every box"  # 快艇 alone is 0 but for 5 alike
        expect(ui.cell(zeros[0])).to_have_text("+0")
        ui.score(ui.best_box())
        skip = ui.by("skip-replay")
        expect(skip).to_be_visible()
        assert skip.inner_text() == "跳过电脑回合"  # no gap between its two halves
        skip.click()
        ui.by("rules-link-game").click()
        expect(page.locator(".demo-zero")).to_have_text("灰红色的 +0")
