"""The game table: previews, zero confirmation, top bar, hints, continue (U1-U4, U6)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from e2e.helpers import CATEGORIES, ConsoleWatch, Table

pytestmark = pytest.mark.e2e

GREEN = "rgb(18, 110, 54)"  # --green in app.css (4.9:1 on the win chip, polish 1)
GREY_RED = "rgb(143, 79, 74)"  # --zero in app.css (darkened for contrast, P6)


def test_u1_preview_after_each_roll_green_points_grey_red_zero(ui: Table) -> None:
    ui.start_solo()
    # Before the first roll nothing can be written and no preview is shown (R1).
    assert ui.selectable() == []
    assert all(ui.shown_points(c) is None for c in CATEGORIES)

    ui.roll()
    previews = ui.previews()
    assert set(previews) == set(CATEGORIES), "every open box previews after a roll"
    # 机会 always scores the dice sum: the page shows what the server computed.
    assert previews["chance"] == sum(ui.dice())
    zero = next(c for c, p in previews.items() if p == 0)
    positive = next(c for c, p in previews.items() if p > 0)
    assert ui.cell(positive).locator("button").evaluate("e => getComputedStyle(e).color") == (GREEN)
    assert ui.cell(zero).locator("button").evaluate("e => getComputedStyle(e).color") == (GREY_RED)

    # A second roll refreshes the previews.
    ui.roll()
    previews = ui.previews()
    assert previews["chance"] == sum(ui.dice())

    # A filled box shows its score and is no longer selectable.
    ui.score("chance")
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    expect(ui.cell("chance")).to_have_attribute("data-selectable", "false")
    assert ui.shown_points("chance") == previews["chance"]
    assert ui.selectable() == []


def test_u1_joker_forbidden_boxes_are_not_selectable(
    page: Page, joker_server_url: str, console: ConsoleWatch
) -> None:
    console.watch(page)
    ui = Table(page, joker_server_url)
    ui.open_lobby()
    ui.start_solo()
    assert ui.roll() == [3, 3, 3, 3, 3]
    ui.score("yahtzee")
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    expect(ui.cell("yahtzee")).to_have_text("50")
    assert ui.roll() == [3, 3, 3, 3, 3]
    # Forced Joker (R6): the matching upper box 三点 is open, so it is the only choice.
    assert ui.selectable() == ["threes"]
    forbidden = ui.cell("full_house")
    expect(forbidden).to_have_attribute("data-selectable", "false")
    expect(forbidden.locator("button")).to_be_disabled()
    forbidden.click(force=True)
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    expect(ui.page.locator("#dice-help")).to_contain_text("百搭")
    # The Yahtzee bonus is announced in the preview.
    expect(ui.cell("threes")).to_contain_text("+100")
    ui.score("threes")
    expect(ui.by("yahtzee-bonus-0")).to_have_text("100")
    assert console.errors == []


def test_u2_zero_confirmation_cancel_changes_nothing_then_confirm_writes_zero(
    ui: Table,
) -> None:
    ui.start_solo()
    ui.roll()
    previews = ui.previews()
    zero = next(c for c, p in previews.items() if p == 0)
    assert any(p > 0 for p in previews.values())
    dice = ui.dice()

    # Cancel: the dialog closes and nothing changed.
    ui.cell(zero).click()
    dialog = ui.by("confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("0")
    ui.by("confirm-no").click()
    expect(dialog).to_be_hidden()
    assert ui.dice() == dice
    assert ui.previews() == previews
    assert ui.rolls_left() == 2
    assert ui.round() == 1

    # Esc cancels too (B3).
    ui.cell(zero).click()
    expect(dialog).to_be_visible()
    ui.page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert ui.previews() == previews

    # Confirm: the 0 is written and the box is used for good (U2, R3).
    ui.cell(zero).click()
    expect(dialog).to_be_visible()
    ui.by("confirm-yes").click()
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    expect(ui.cell(zero)).to_have_text("0")
    expect(ui.cell(zero)).to_have_attribute("data-selectable", "false")
    ui.roll()
    assert zero not in ui.selectable(), "a registered box can never be changed"


def test_u2_zero_without_a_better_box_is_not_confirmed_no_window_confirm(ui: Table) -> None:
    # The page must never fall back to window.confirm/alert.
    dialogs: list[str] = []
    ui.page.on("dialog", lambda d: dialogs.append(d.message))
    ui.start_solo()
    ui.roll()
    positive = ui.best_box()
    ui.score(positive)
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    assert dialogs == []


def test_u3_top_bar_restart_hint_counter_and_lobby(ui: Table) -> None:
    ui.start_vs("novice")
    expect(ui.by("hint")).to_have_text("提示 (3)")
    expect(ui.cell("chance", "computer")).to_be_visible()
    ui.play_round(1)
    ui.roll()
    ui.page.keyboard.press("h")
    expect(ui.by("hint")).to_have_text("提示 (2)")

    # 重新开始 once a box is scored: one tap confirms (F2); 「继续这局」 changes nothing.
    ui.by("restart").click()
    expect(ui.by("confirm-dialog")).to_be_visible()
    expect(ui.by("confirm-dialog")).to_contain_text("第 2 回合")
    ui.by("confirm-no").click()
    expect(ui.by("confirm-dialog")).to_be_hidden()
    expect(ui.by("round")).to_have_text("第 2 / 13 回合")
    expect(ui.by("hint")).to_have_text("提示 (2)")
    # Confirmed: the same mode starts afresh.
    ui.by("restart").click()
    ui.by("confirm-yes").click()
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    expect(ui.by("rolls-left")).to_have_text("剩余 3 次")
    expect(ui.by("hint")).to_have_text("提示 (3)")
    expect(ui.cell("chance", "computer")).to_be_visible()
    assert ui.total("human") == 0
    assert all(ui.shown_points(c) is None for c in CATEGORIES)
    expect(ui.by("confirm-dialog")).to_be_hidden()
    # Before any box is scored, 重新开始 is immediate (U3: 立刻).
    ui.roll()
    ui.by("restart").click()
    expect(ui.by("rolls-left")).to_have_text("剩余 3 次")
    expect(ui.by("confirm-dialog")).to_be_hidden()

    # 大厅: back to the lobby with the game kept for 「继续游戏」.
    ui.roll()
    ui.by("lobby").click()
    expect(ui.by("start-solo")).to_be_visible()
    expect(ui.by("continue")).to_be_visible()


def test_u4_hints_three_per_game_by_button_and_h_key(ui: Table) -> None:
    ui.start_solo()
    hint = ui.by("hint")
    expect(hint).to_be_disabled()  # no dice yet
    ui.roll()

    hint.click()
    expect(hint).to_have_text("提示 (2)")
    _assert_hint_marked(ui)
    # The hint teaches expected value in two sentences (L15): what to do, how much better on
    # average; the expected final scores one tap away.
    expect(ui.by("message")).to_contain_text(re.compile(r"多得 \d+\.\d 分|差不多一样好"))
    ui.by("message-detail-toggle").click()
    expect(ui.by("message-detail")).to_contain_text(re.compile(r"照提示做 \d+\.\d 分"))

    ui.page.keyboard.press("H")
    expect(hint).to_have_text("提示 (1)")
    _assert_hint_marked(ui)

    ui.page.keyboard.press("h")
    expect(hint).to_have_text("提示 (0)")
    expect(hint).to_be_disabled()
    ui.page.keyboard.press("h")
    expect(ui.by("message")).to_contain_text("用完")
    expect(hint).to_have_text("提示 (0)")

    # A new game has three hints again.
    ui.by("restart").click()
    expect(hint).to_have_text("提示 (3)")


def _assert_hint_marked(ui: Table) -> None:
    """A hint marks either the dice to keep (gold, and held) or the box to write (gold).

    When the expert would reroll all five there is nothing to mark: the message says so.
    """
    gold_dice = ui.page.locator(".die.hint")
    gold_cell = ui.page.locator("td.cell.seat-human.hint")
    expect(ui.by("message")).to_contain_text("提示")
    if "全部重掷" in ui.message():
        assert gold_dice.count() + gold_cell.count() == 0
        return
    expect(gold_dice.or_(gold_cell).first).to_be_visible()
    if gold_cell.count():
        assert gold_cell.count() == 1
        assert gold_cell.get_attribute("data-selectable") == "true"
    else:
        for i in range(gold_dice.count()):
            expect(gold_dice.nth(i)).to_have_attribute("aria-pressed", "true")


def test_u4_hint_after_last_roll_marks_a_box(ui: Table) -> None:
    ui.start_solo()
    for _ in range(3):
        ui.roll()
    ui.by("hint").click()
    marked = ui.page.locator("td.cell.seat-human.hint")
    expect(marked).to_have_count(1)
    assert marked.get_attribute("data-selectable") == "true"
    expect(ui.by("message")).to_contain_text("提示")


def _held(ui: Table) -> list[bool]:
    return [ui.die(i).get_attribute("aria-pressed") == "true" for i in range(5)]


def test_u6_continue_and_reload_return_to_the_exact_position_with_holds(ui: Table) -> None:
    """U6 (changed), F1, P3: dice, rolls left, holds and scores exactly as left."""
    ui.start_solo()
    ui.play_round(1)
    written = [c for c in CATEGORIES if ui.shown_points(c) is not None]  # no dice: no previews
    points = {c: ui.shown_points(c) for c in written}
    total = ui.total()
    ui.roll()
    ui.die(0).click()
    dice = ui.roll()
    ui.die(3).click()  # holds now: 0 (kept from the roll) and 3 (toggled since)
    expect(ui.die(3)).to_have_attribute("aria-pressed", "true")
    holds = [True, False, False, True, False]
    assert _held(ui) == holds

    def assert_as_left() -> None:
        expect(ui.by("round")).to_have_text("第 2 / 13 回合")
        expect(ui.by("rolls-left")).to_have_text("剩余 1 次")
        assert ui.dice() == dice
        for i, held in enumerate(holds):
            expect(ui.die(i)).to_have_attribute("aria-pressed", "true" if held else "false")
        scored = {c: ui.shown_points(c) for c in written}
        assert scored == points  # the boxes already written keep their scores
        assert ui.selectable() == [c for c in CATEGORIES if c not in written]
        assert ui.total() == total

    ui.by("lobby").click()
    ui.by("continue").click()
    expect(ui.by("roll")).to_be_visible()
    assert_as_left()
    ui.page.reload()  # a reload on the table
    expect(ui.by("roll")).to_be_visible()
    assert_as_left()
    ui.page.goto(ui.base_url + "/")  # another visit: the lobby, then 「继续游戏」
    ui.by("continue").click()
    expect(ui.by("roll")).to_be_visible()
    assert_as_left()
    # The last roll rerolls only the unheld dice, and then the turn is locked.
    last = ui.roll()
    assert [last[i] for i in (0, 3)] == [dice[i] for i in (0, 3)]
    expect(ui.by("rolls-left")).to_have_text("剩余 0 次")
    # Scoring ends the turn: no holds are kept for it any more (stale entries go).
    ui.score(ui.best_box())
    expect(ui.by("round")).to_have_text("第 3 / 13 回合")
    assert ui.page.evaluate("() => localStorage.getItem('yahtzee.hold')") is None


def test_starting_new_game_while_one_is_saved_asks_first(ui: Table) -> None:
    ui.start_solo()
    ui.roll()
    ui.by("lobby").click()
    ui.by("start-vs").click()
    dialog = ui.by("confirm-dialog")
    expect(dialog).to_be_visible()
    ui.by("confirm-no").click()
    expect(dialog).to_be_hidden()
    expect(ui.by("continue")).to_be_visible()
    ui.by("start-vs").click()
    ui.by("confirm-yes").click()
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    expect(ui.cell("chance", "computer")).to_be_visible()


def test_dice_hold_toggle_labels_and_lock_after_third_roll(ui: Table) -> None:
    ui.start_solo()
    expect(ui.die(0)).to_have_attribute("aria-label", "第 1 颗：还没掷")
    first = ui.roll()
    die = ui.die(0)
    expect(die).to_have_attribute("aria-pressed", "false")
    expect(die).to_have_attribute("aria-label", f"第 1 颗：{first[0]} 点")
    die.click()
    expect(die).to_have_attribute("aria-pressed", "true")
    expect(die).to_have_attribute("aria-label", f"第 1 颗：{first[0]} 点，已保留")
    # Held differs by shape, not colour alone: rounder corners and a 「保留」 tag.
    # The corners change with a 0.15 s transition: read them once it has run.
    settled = """e => Promise.all(e.getAnimations().map((a) => a.finished))
                   .then(() => getComputedStyle(e).borderTopLeftRadius)"""
    free_radius = ui.die(1).evaluate(settled)
    held_radius = die.evaluate(settled)
    assert held_radius != free_radius
    expect(die.locator(".hold-tag")).to_have_text("保留")
    die.click()
    expect(die).to_have_attribute("aria-pressed", "false")
    die.click()

    second = ui.roll()
    assert second[0] == first[0], "a held die keeps its face"
    third = ui.roll()
    assert third[0] == first[0]
    expect(ui.by("roll")).to_be_disabled()
    for i in range(5):
        expect(ui.die(i)).to_have_attribute("aria-label", re.compile("已锁定$"))
    # Locked dice cannot be toggled any more.
    ui.die(3).click(force=True)
    expect(ui.die(3)).to_have_attribute("aria-label", re.compile("已锁定$"))


_LISTEN_ANIMATIONS = """() => {
    window.__anims = [];
    document.querySelectorAll('.die').forEach((die, i) =>
        die.addEventListener('animationstart', (e) => window.__anims.push([i, e.animationName])));
}"""


def _animations(ui: Table) -> list[list[Any]]:
    anims: list[list[Any]] = ui.page.evaluate("() => window.__anims")
    return anims


def test_roll_animates_even_when_values_repeat(ui: Table) -> None:
    ui.start_solo()
    ui.roll()
    ui.page.evaluate(_LISTEN_ANIMATIONS)
    for i in range(4):
        ui.die(i).click()
    for _ in range(2):
        # Each roll tumbles the unheld die, whatever face it lands on; held dice stay still.
        ui.page.evaluate("() => { window.__anims = []; }")
        ui.roll()
        ui.page.wait_for_function("() => window.__anims.some(([i]) => i === 4)")
        assert {i for i, _ in _animations(ui)} == {4}
        assert _animations(ui)[0][1] == "tumble"


def test_reduced_motion_replaces_the_tumble(ui: Table) -> None:
    ui.page.emulate_media(reduced_motion="reduce")
    ui.start_solo()
    ui.page.evaluate(_LISTEN_ANIMATIONS)
    ui.roll()
    ui.page.wait_for_function("() => window.__anims.length === 5")
    assert {name for _, name in _animations(ui)} == {"flash"}
