"""Whole games played by clicking, the end panels and the records (U7, U8, U9)."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from e2e.helpers import Table

pytestmark = pytest.mark.e2e


def test_u7_whole_solo_game_by_clicking_new_record_and_lobby_records(ui: Table) -> None:
    expect(ui.by("best-score")).to_have_text("—")
    ui.start_solo()
    ui.play_to_end()

    total = ui.total()
    over = ui.by("game-over")
    expect(over).to_be_visible()
    expect(ui.by("result")).to_have_text(f"本局得分 {total}")
    # The breakdown: upper subtotal, bonus, lower, Yahtzee bonus, total.
    for label in ("上区小计", "上区奖励", "下区", "快艇加成", "总分"):
        expect(over).to_contain_text(label)
    expect(ui.by("final-total-human")).to_have_text(str(total))
    # The first finished game of this browser is a record (U7).
    expect(ui.by("new-record")).to_be_visible()
    expect(ui.by("new-record")).to_contain_text("新纪录")
    expect(ui.by("roll")).to_be_disabled()
    # Esc closes the panel to look at the card (B3); 「查看结算」 brings it back.
    ui.page.keyboard.press("Escape")
    expect(over).to_be_hidden()
    ui.by("show-result").click()
    expect(over).to_be_visible()

    # Records in the lobby, after a reload (U9).
    ui.page.reload()
    expect(ui.by("best-score")).to_have_text(str(total))
    expect(ui.page.locator("#recent-list li")).to_have_count(1)
    expect(ui.page.locator("#recent-list li").first).to_contain_text(f"{total} 分")
    expect(ui.by("continue")).to_be_hidden()


def test_u7_second_lower_solo_game_is_not_a_record(ui: Table) -> None:
    """A game that does not beat the best score shows no 新纪录: score everything as 0s."""
    ui.start_solo()
    ui.play_to_end()
    best = ui.total()
    ui.by("play-again").click()
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    for r in range(1, 14):
        ui.roll()
        worst = min(ui.previews().items(), key=lambda kv: kv[1])[0]
        ui.score(worst)
        if r < 13:
            ui.wait_for_my_turn(r + 1)
    expect(ui.by("game-over")).to_be_visible()
    worse = ui.total()
    assert worse < best, (worse, best)
    expect(ui.by("new-record")).to_be_hidden()
    expect(ui.by("result")).to_have_text(f"本局得分 {worse}")
    ui.by("game-over-lobby").click()
    expect(ui.by("best-score")).to_have_text(str(best))
    expect(ui.page.locator("#recent-list li")).to_have_count(2)
    expect(ui.page.locator("#recent-list li").first).to_contain_text(f"{worse} 分")


def test_u8_whole_vs_game_against_novice_end_panel_and_records(ui: Table) -> None:
    ui.start_vs("novice")
    expect(ui.page.locator(".col-head.seat-computer").first).to_have_text("电脑（入门）")
    ui.play_to_end()

    human, computer = ui.total("human"), ui.total("computer")
    expect(ui.by("final-total-human")).to_have_text(str(human))
    expect(ui.by("final-total-computer")).to_have_text(str(computer))
    expected = "你赢了！" if human > computer else "电脑赢了" if human < computer else "平局"
    expect(ui.by("result")).to_have_text(expected)
    # U7: a vs game is never a record, not even this browser's first finished game.
    expect(ui.by("new-record")).to_be_hidden()
    assert "新纪录" not in ui.message()
    # All 13 boxes of both columns are filled.
    for seat in (0, 1):
        filled = ui.page.locator(f'[data-testid^="cell-{seat}-"]')
        expect(filled).to_have_count(13)
        for i in range(13):
            expect(filled.nth(i)).to_have_text(re.compile(r"\d"))

    # 再来一局 starts the same mode and difficulty.
    ui.by("play-again").click()
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    expect(ui.page.locator(".col-head.seat-computer").first).to_have_text("电脑（入门）")

    # The lobby counts the result (U9), and keeps it across visits (same browser).
    ui.by("lobby").click()
    counts = {k: int(ui.by(k).inner_text()) for k in ("wins", "losses", "draws")}
    key = "wins" if human > computer else "losses" if human < computer else "draws"
    assert counts[key] == 1, counts
    assert sum(counts.values()) == 1, counts
    expect(ui.by("best-score")).to_have_text("—")  # 单人最高分: vs totals do not count (U7)
    again = ui.page.context.new_page()
    again.goto(ui.base_url + "/")
    expect(again.get_by_test_id(key)).to_have_text("1")
    again.close()


def test_u8_computer_turn_is_replayed_step_by_step_with_skip(ui: Table) -> None:
    ui.start_vs("novice")
    ui.roll()
    # Timestamp every announcement in the page itself, so the pace measured is the page's
    # and not the test's polling.
    ui.page.evaluate(
        """() => {
            window.__steps = [];
            const el = document.querySelector('[data-testid="message"]');
            new MutationObserver(() => window.__steps.push([performance.now(), el.innerText]))
                .observe(el, {childList: true, characterData: true, subtree: true});
        }"""
    )
    ui.score(ui.best_box())
    skip = ui.by("skip-replay")
    expect(skip).to_be_visible()
    expect(ui.by("rolls-left")).to_have_text("电脑回合")
    expect(ui.by("roll")).to_be_disabled()
    # The first step is the computer's first roll, announced in the live region; the steps
    # advance on their own, ending with the box it chose.
    expect(ui.by("message")).to_contain_text("电脑（入门） 掷出")
    expect(ui.by("message")).to_contain_text("电脑（入门） 把", timeout=5000)
    steps: list[list[Any]] = ui.page.evaluate("() => window.__steps")
    computer = [(t, text) for t, text in steps if text.startswith("电脑")]
    assert len(computer) >= 2, steps
    assert computer[0][1].startswith("电脑（入门） 掷出")
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(computer)]
    # A pace a person can follow: 0.8 s a step (the bounds leave room for a busy machine).
    assert all(450 <= gap <= 1500 for gap in gaps), gaps
    expect(ui.page.locator(".cell.seat-computer.just-scored")).to_have_count(1)
    # ...and hand the turn back by themselves.
    expect(skip).to_be_hidden(timeout=5000)
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    expect(ui.by("roll")).to_be_enabled()
    computer_cells = ui.page.locator('[data-testid^="cell-1-"]')
    assert sum(1 for i in range(13) if computer_cells.nth(i).inner_text().strip()) == 1

    # Skip: jumps to the end of the computer's turn at once.
    ui.roll()
    ui.score(ui.best_box())
    expect(skip).to_be_visible()
    skip.click()
    expect(skip).to_be_hidden()
    expect(ui.by("round")).to_have_text("第 3 / 13 回合")
    written = [computer_cells.nth(i).inner_text() for i in range(13)]
    assert sum(1 for t in written if t.strip()) == 2
