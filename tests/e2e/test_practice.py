"""练习 in the browser (L6-L8): the practice view from the lobby, an answer graded with its
explanation, options and rating, 「专项练习」, 「练习这一步」 from 复盘, and progress in 统计;
desktop and phone, no serious axe violation."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from e2e.checks import serious_axe as _serious
from e2e.helpers import ConsoleWatch, Table, sized_context

pytestmark = pytest.mark.e2e


def _answer_any(ui: Table) -> None:
    """Answer the puzzle on screen the way a child would: stop, or the first box."""
    stop = ui.by("puzzle-stop")
    if stop.count():
        stop.click()
    else:
        ui.page.locator('[data-testid^="puzzle-box-"]:enabled').first.click()


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])
def test_practice_from_the_lobby(browser: Browser, server_url: str, size: tuple[int, int]) -> None:
    context = sized_context(browser, *size)
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    ui = Table(page, server_url)
    ui.open_lobby()
    ui.by("start-practice").click()
    expect(ui.by("puzzle")).to_be_visible(timeout=15_000)
    expect(ui.by("puzzle-rating")).to_contain_text("练习分")
    die = ui.by("puzzle-die-0")  # U11: the table's die, drawn with pips
    expect(die.locator(".pip")).to_have_count(int(die.get_attribute("data-value") or 0))
    first = ui.by("puzzle").inner_text()
    _answer_any(ui)
    feedback = ui.by("puzzle-answer-feedback")
    expect(feedback).to_be_visible(timeout=15_000)
    expect(feedback).to_contain_text("分")
    expect(ui.by("puzzle-options")).to_be_visible()
    assert ui.by("puzzle-options").locator("li").count() >= 1
    failures = _serious(page)
    ui.by("puzzle-next").click()
    expect(ui.by("puzzle-answer-feedback")).to_have_count(0, timeout=15_000)
    assert ui.by("puzzle").inner_text() != first
    # 专项练习: a theme gives puzzles of that theme (its name is shown on the puzzle).
    ui.by("practice-theme").select_option("straights")
    expect(ui.by("puzzle")).to_contain_text("顺子", timeout=15_000)
    failures += _serious(page)
    assert not failures, failures
    # 统计 shows the practice progress.
    page.goto(f"{server_url}/stats")
    expect(ui.by("stats-practice")).to_be_visible()
    expect(ui.by("stats-practice-answers")).to_have_text("1")
    assert not console.errors, console.errors
    context.close()


def test_practice_this_step_from_the_review(ui: Table) -> None:
    ui.open_lobby()
    ui.start_solo()
    ui.play_to_end()
    ui.by("game-over-review").click()
    expect(ui.by("review-position")).to_be_visible()
    ui.by("practice-this").click()
    expect(ui.by("puzzle")).to_be_visible(timeout=15_000)
    expect(ui.by("puzzle")).to_contain_text("来自你自己的对局")
    _answer_any(ui)
    expect(ui.by("puzzle-answer-feedback")).to_be_visible(timeout=15_000)


def test_l14_practice_numbers_hold_still_and_settle(ui: Table) -> None:
    """L14: a new 练习分 and a new puzzle's 难度分 read 「定级中」, the same before and after
    the answer; every answer gets its explanation; the terms have their 「?」."""
    ui.open_lobby()
    ui.by("start-practice").click()
    expect(ui.by("puzzle")).to_be_visible(timeout=15_000)
    expect(ui.by("puzzle-rating")).to_contain_text("我的练习分 定级中")
    shown = re.search(r"难度分 (定级中|\d+)", ui.by("puzzle-difficulty").inner_text())
    assert shown is not None
    before = shown.group(1)
    _answer_any(ui)
    feedback = ui.by("puzzle-answer-feedback")
    expect(feedback).to_be_visible(timeout=15_000)
    after = ui.by("puzzle-rating-after")
    expect(after).to_contain_text("练习分")
    plain = re.sub(r"\s*\?", "", after.inner_text())
    assert f"这道题的难度分 {before}。" in plain, plain
    assert "练习分 定级中" in plain, plain
    # U18: each 「?」 right after its own word, never 「…定级中。???」.
    assert "??" not in re.sub(r"\s", "", after.inner_text())
    helped = after.evaluate(
        """(p) => [...p.querySelectorAll('details.term-help')]
            .map((d) => [d.dataset.term, d.previousSibling.textContent.trim()])"""
    )
    words = {"practice_rating": "练习分", "difficulty": "难度分", "settling": "定级中"}
    assert helped, helped
    assert all(text.endswith(words[term]) for term, text in helped), helped
    # Every wrong answer says why (a sentence beyond how many points it lost).
    if "答对了" not in feedback.inner_text():
        assert feedback.locator("p").count() >= 3
    # 「?」 beside 难度分: keyboard-reachable, opens the glossary's words.
    q = ui.by("puzzle-difficulty").locator("[data-testid=term-difficulty]")
    q.focus()
    ui.page.keyboard.press("Enter")
    expect(ui.by("puzzle-difficulty").locator(".term-pop")).to_contain_text("难度分：")
