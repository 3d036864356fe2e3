"""Polish 8, mis-taps: 「撤销」 takes back the box just written until the next roll (solo and
多人同屏; not vs), and 设置's 「登记前确认」 makes a first tap pick a box and a second tap (or
「确定」) write it; remembered in the browser. At 1280x800 and on a 375x667 phone.

The server referees the undo (tests/api/test_undo.py); here the page is played as a person
plays it.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.helpers import Table, table_at

pytestmark = pytest.mark.e2e

PICKED = re.compile(r"\bpicked\b")
HOSTILE = "<img src=x>"  # a name is at most 12 characters


def _setting(ui: Table, testid: str, value: str) -> None:
    phone = (ui.page.viewport_size or {"width": 1280})["width"] < 600
    opener = "settings-open-game" if phone and ui.by("roll").is_visible() else "settings-open"
    ui.by(opener).click()
    ui.by(testid).select_option(value)
    ui.by("settings-close").click()


def _written(ui: Table, category: str) -> bool:
    return (
        ui.cell(category).get_attribute("data-selectable") == "false"
        and ui.shown_points(category) is not None
    )


def _answer_zero(ui: Table) -> None:
    """A 0 while another box scores still asks (U2), after the pick too: yes."""
    ui.page.wait_for_timeout(150)
    if ui.by("confirm-dialog").is_visible():
        ui.by("confirm-yes").click()


def _assert_on_screen(page: Page, testid: str) -> None:
    box = page.get_by_test_id(testid).bounding_box()
    assert box is not None
    size = page.viewport_size
    assert size is not None
    assert box["x"] >= 0, box
    assert box["y"] >= 0, box
    assert box["x"] + box["width"] <= size["width"]
    assert box["y"] + box["height"] <= size["height"]
    assert box["height"] >= 44, box  # a touch target
    assert box["width"] >= 44, box


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (375, 667)])
def test_polish8_undo_the_box_just_written_until_the_next_roll(
    browser: Browser, server_url: str, width: int, height: int
) -> None:
    with table_at(browser, server_url, width, height, timeout_ms=15_000) as ui:
        ui.start_solo()
        expect(ui.by("undo")).to_be_hidden()
        dice = ui.roll()
        box = ui.best_box()
        ui.score(box)
        expect(ui.by("undo")).to_be_visible()
        assert _written(ui, box)
        if width < 600:
            _assert_on_screen(ui.page, "undo")
        ui.by("undo").click()
        expect(ui.by("undo")).to_be_hidden()
        expect(ui.by("message")).to_contain_text("已撤销")
        expect(ui.by("rolls-left")).to_have_text("剩余 2 次")  # the same turn, the same dice
        assert ui.dice() == dice
        assert ui.cell(box).get_attribute("data-selectable") == "true"
        # the box written again is final this turn
        other = next(c for c in ui.selectable() if c != box)
        ui.score(other)
        expect(ui.by("round")).to_have_text("第 2 / 13 回合")
        expect(ui.by("undo")).to_be_hidden()
        # next turn: undone again is allowed, until a roll
        ui.roll()
        ui.score(ui.best_box())
        expect(ui.by("undo")).to_be_visible()
        ui.roll()
        expect(ui.by("undo")).to_be_hidden()
        # to the end: the review judges the boxes written and counts the undo
        ui.score(ui.best_box())
        ui.wait_for_my_turn(4)
        ui.play_to_end(4)
        ui.by("game-over-review").click()
        expect(ui.by("review-undos")).to_have_text(
            "这局撤销了 1 次登记：复盘按最后登记的那一项来评。"
        )


def test_polish8_no_undo_against_the_computer(ui: Table) -> None:
    ui.start_vs("novice")
    ui.roll()
    ui.score(ui.best_box())
    ui.wait_for_my_turn(2)
    expect(ui.by("undo")).to_be_hidden()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (375, 667)])
def test_polish8_confirm_before_writing_picks_then_writes(
    browser: Browser, server_url: str, width: int, height: int
) -> None:
    with table_at(browser, server_url, width, height, timeout_ms=15_000) as ui:
        _setting(ui, "confirm-setting", "on")
        ui.start_solo()
        ui.roll()
        first, second = ui.selectable()[:2]
        ui.cell(first).click()
        expect(ui.cell(first)).to_have_class(PICKED)
        expect(ui.by("confirm-score")).to_be_visible()
        expect(ui.by("message")).to_contain_text("再点一次")
        assert not _written(ui, first)
        ui.cell(second).click()  # the pick moves
        expect(ui.cell(second)).to_have_class(PICKED)
        expect(ui.cell(first)).not_to_have_class(PICKED)
        assert not _written(ui, second)
        ui.cell(second).click()  # the second tap writes it
        _answer_zero(ui)
        expect(ui.by("round")).to_have_text("第 2 / 13 回合")
        assert _written(ui, second)
        expect(ui.by("confirm-score")).to_be_hidden()
        # 「确定」 writes the picked box too
        ui.roll()
        box = ui.selectable()[0]
        ui.cell(box).click()
        if width < 600:
            _assert_on_screen(ui.page, "confirm-score")
        ui.by("confirm-score").click()
        _answer_zero(ui)
        expect(ui.by("round")).to_have_text("第 3 / 13 回合")
        assert _written(ui, box)
        # remembered in this browser
        ui.page.reload()
        expect(ui.by("roll")).to_be_visible()
        ui.by("settings-open-game" if width < 600 else "settings-open").click()
        expect(ui.by("confirm-setting")).to_have_value("on")
        ui.by("settings-close").click()


def test_polish8_a_table_undo_from_the_handover_screen(browser: Browser, server_url: str) -> None:
    with table_at(browser, server_url, 1280, 800, timeout_ms=15_000) as ui:
        page = ui.page
        status = page.evaluate(
            """(name) => fetch("/api/games", {method: "POST",
                 headers: {"Content-Type": "application/json"},
                 body: JSON.stringify({mode: "table", seats: [
                   {kind: "human", name}, {kind: "human", name: "乙"}]})}).then((r) => r.status)""",
            HOSTILE,
        )
        assert status == 201
        page.goto(f"{ui.base_url}/table")
        roll = ui.by("roll")
        go = ui.by("handover-go")
        expect(go.or_(roll).first).to_be_visible()  # 继续游戏: the handover first (T7)
        if go.is_visible():
            go.click()
        expect(roll).to_be_enabled()
        roll.click()
        expect(ui.by("rolls-left")).to_contain_text("2")
        dice = [ui.by(f"die-{i}").get_attribute("data-value") for i in range(5)]
        cell = page.locator('[data-testid="cell-0-chance"] .cell-btn')
        cell.click()
        expect(ui.by("handover")).to_be_visible()
        undo = ui.by("handover-undo")
        expect(undo).to_have_text(f"撤销 {HOSTILE} 的「机会」")  # the name as text
        undo.click()
        expect(ui.by("handover")).to_be_hidden()
        expect(ui.by("turn")).to_contain_text(HOSTILE)
        assert [ui.by(f"die-{i}").get_attribute("data-value") for i in range(5)] == dice
        expect(cell).to_be_enabled()
        expect(page.locator("#main img")).to_have_count(0)  # text, never markup
        # the box written again is final: no undo, the next person's turn
        cell.click()
        expect(ui.by("handover")).to_be_visible()
        expect(ui.by("handover-undo")).to_be_hidden()
        # 登记前确认 at the table too: 乙's first tap picks, 「确定」 writes
        go.click()
        _setting(ui, "confirm-setting", "on")
        roll.click()
        expect(ui.by("rolls-left")).to_contain_text("2")
        mine = page.locator('[data-testid="cell-1-chance"]')
        mine.locator(".cell-btn").click()
        expect(mine).to_have_class(PICKED)
        expect(ui.by("confirm-score")).to_be_visible()
        expect(ui.by("handover")).to_be_hidden()
        ui.by("confirm-score").click()
        expect(ui.by("handover")).to_be_visible()  # written: 甲's turn next
        expect(ui.by("handover-undo")).to_have_text("撤销 乙 的「机会」")
