"""The game table: previews, zero confirmation, top bar, hints, continue (U1-U4, U6)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from e2e.conftest import ConsoleWatch
from e2e.helpers import CATEGORIES, Table

pytestmark = pytest.mark.e2e

GREEN = "rgb(21, 122, 60)"  # --green in app.css
GREY_RED = "rgb(160, 106, 102)"  # --zero in app.css


def test_u1_preview_after_each_roll_green_points_grey_red_zero(table: Table) -> None:
    table.start_solo()
    # Before the first roll nothing can be written and no preview is shown (R1).
    assert table.selectable() == []
    assert all(table.shown_points(c) is None for c in CATEGORIES)

    table.roll()
    previews = table.previews()
    assert set(previews) == set(CATEGORIES), "every open box previews after a roll"
    # 机会 always scores the dice sum: the page shows what the server computed.
    assert previews["chance"] == sum(table.dice())
    zero = next(c for c, p in previews.items() if p == 0)
    positive = next(c for c, p in previews.items() if p > 0)
    assert table.cell(positive).locator("button").evaluate("e => getComputedStyle(e).color") == (
        GREEN
    )
    assert table.cell(zero).locator("button").evaluate("e => getComputedStyle(e).color") == (
        GREY_RED
    )

    # A second roll refreshes the previews.
    table.roll()
    previews = table.previews()
    assert previews["chance"] == sum(table.dice())

    # A filled box shows its score and is no longer selectable.
    table.score("chance")
    expect(table.by("round")).to_have_text("第 2 / 13 回合")
    expect(table.cell("chance")).to_have_attribute("data-selectable", "false")
    assert table.shown_points("chance") == previews["chance"]
    assert table.selectable() == []


def test_u1_joker_forbidden_boxes_are_not_selectable(
    page: Page, joker_server_url: str, console: ConsoleWatch
) -> None:
    console.watch(page)
    table = Table(page, joker_server_url)
    table.open_lobby()
    table.start_solo()
    assert table.roll() == [3, 3, 3, 3, 3]
    table.score("yahtzee")
    expect(table.by("round")).to_have_text("第 2 / 13 回合")
    expect(table.cell("yahtzee")).to_have_text("50")
    assert table.roll() == [3, 3, 3, 3, 3]
    # Forced Joker (R6): the matching upper box 三点 is open, so it is the only choice.
    assert table.selectable() == ["threes"]
    forbidden = table.cell("full_house")
    expect(forbidden).to_have_attribute("data-selectable", "false")
    expect(forbidden.locator("button")).to_be_disabled()
    forbidden.click(force=True)
    expect(table.by("round")).to_have_text("第 2 / 13 回合")
    # The Yahtzee bonus is announced in the preview.
    expect(table.cell("threes")).to_contain_text("+100")
    table.score("threes")
    expect(table.by("yahtzee-bonus-human")).to_have_text("100")
    assert console.errors == []


def test_u2_zero_confirmation_cancel_changes_nothing_then_confirm_writes_zero(
    table: Table,
) -> None:
    table.start_solo()
    table.roll()
    previews = table.previews()
    zero = next(c for c, p in previews.items() if p == 0)
    assert any(p > 0 for p in previews.values())
    dice = table.dice()

    # Cancel: the dialog closes and nothing changed.
    table.cell(zero).click()
    dialog = table.by("confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("0")
    table.by("confirm-no").click()
    expect(dialog).to_be_hidden()
    assert table.dice() == dice
    assert table.previews() == previews
    assert table.rolls_left() == 2
    assert table.round() == 1

    # Esc cancels too (B3).
    table.cell(zero).click()
    expect(dialog).to_be_visible()
    table.page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert table.previews() == previews

    # Confirm: the 0 is written and the box is used for good (U2, R3).
    table.cell(zero).click()
    expect(dialog).to_be_visible()
    table.by("confirm-yes").click()
    expect(table.by("round")).to_have_text("第 2 / 13 回合")
    expect(table.cell(zero)).to_have_text("0")
    expect(table.cell(zero)).to_have_attribute("data-selectable", "false")
    table.roll()
    assert zero not in table.selectable(), "a registered box can never be changed"


def test_u2_zero_without_a_better_box_is_not_confirmed_no_window_confirm(table: Table) -> None:
    # The page must never fall back to window.confirm/alert.
    dialogs: list[str] = []
    table.page.on("dialog", lambda d: dialogs.append(d.message))
    table.start_solo()
    table.roll()
    positive = table.best_box()
    table.score(positive)
    expect(table.by("round")).to_have_text("第 2 / 13 回合")
    assert dialogs == []


def test_u3_top_bar_restart_hint_counter_and_lobby(table: Table) -> None:
    table.start_vs("novice")
    expect(table.by("hint")).to_have_text("提示 (3)")
    expect(table.cell("chance", "computer")).to_be_visible()
    table.play_round(1)
    table.roll()
    table.page.keyboard.press("h")
    expect(table.by("hint")).to_have_text("提示 (2)")

    # 重新开始: abandons at once (no question) and starts the same mode afresh.
    table.by("restart").click()
    expect(table.by("round")).to_have_text("第 1 / 13 回合")
    expect(table.by("rolls-left")).to_have_text("剩余 3 次")
    expect(table.by("hint")).to_have_text("提示 (3)")
    expect(table.cell("chance", "computer")).to_be_visible()
    assert table.total("human") == 0
    assert all(table.shown_points(c) is None for c in CATEGORIES)
    expect(table.by("confirm-dialog")).to_be_hidden()

    # 大厅: back to the lobby with the game kept for 「继续游戏」.
    table.roll()
    table.by("lobby").click()
    expect(table.by("start-solo")).to_be_visible()
    expect(table.by("continue")).to_be_visible()


def test_u4_hints_three_per_game_by_button_and_h_key(table: Table) -> None:
    table.start_solo()
    hint = table.by("hint")
    expect(hint).to_be_disabled()  # no dice yet
    table.roll()

    hint.click()
    expect(hint).to_have_text("提示 (2)")
    _assert_hint_marked(table)

    table.page.keyboard.press("H")
    expect(hint).to_have_text("提示 (1)")
    _assert_hint_marked(table)

    table.page.keyboard.press("h")
    expect(hint).to_have_text("提示 (0)")
    expect(hint).to_be_disabled()
    table.page.keyboard.press("h")
    expect(table.by("message")).to_contain_text("用完")
    expect(hint).to_have_text("提示 (0)")

    # A new game has three hints again.
    table.by("restart").click()
    expect(hint).to_have_text("提示 (3)")


def _assert_hint_marked(table: Table) -> None:
    """A hint marks either the dice to keep (gold, and held) or the box to write (gold)."""
    gold_dice = table.page.locator(".die.hint")
    gold_cell = table.page.locator("td.cell-human.hint")
    expect(gold_dice.or_(gold_cell).first).to_be_visible()
    if gold_cell.count():
        assert gold_cell.count() == 1
        assert gold_cell.get_attribute("data-selectable") == "true"
    else:
        for i in range(gold_dice.count()):
            expect(gold_dice.nth(i)).to_have_attribute("aria-pressed", "true")


def test_u4_hint_after_last_roll_marks_a_box(table: Table) -> None:
    table.start_solo()
    for _ in range(3):
        table.roll()
    table.by("hint").click()
    marked = table.page.locator("td.cell-human.hint")
    expect(marked).to_have_count(1)
    assert marked.get_attribute("data-selectable") == "true"
    expect(table.by("message")).to_contain_text("提示")


def test_u6_continue_from_lobby_restarts_the_turn_scores_stay(table: Table) -> None:
    table.start_solo()
    table.play_round(1)
    written = [c for c in CATEGORIES if table.shown_points(c) is not None]
    total = table.total()
    table.roll()
    table.die(0).click()
    table.roll()
    assert table.rolls_left() == 1

    table.by("lobby").click()
    expect(table.by("continue")).to_be_visible()
    table.by("continue").click()
    expect(table.by("round")).to_have_text("第 2 / 13 回合")
    # The turn starts over: three rolls again, no dice, no holds; scores are kept.
    expect(table.by("rolls-left")).to_have_text("剩余 3 次")
    expect(table.by("roll")).to_have_text("掷骰子")
    assert table.dice() == [0, 0, 0, 0, 0]
    assert [c for c in CATEGORIES if table.shown_points(c) is not None] == written
    assert table.total() == total
    table.roll()
    assert all(table.die(i).get_attribute("aria-pressed") == "false" for i in range(5))


def test_starting_new_game_while_one_is_saved_asks_first(table: Table) -> None:
    table.start_solo()
    table.roll()
    table.by("lobby").click()
    table.by("start-vs").click()
    dialog = table.by("confirm-dialog")
    expect(dialog).to_be_visible()
    table.by("confirm-no").click()
    expect(dialog).to_be_hidden()
    expect(table.by("continue")).to_be_visible()
    table.by("start-vs").click()
    table.by("confirm-yes").click()
    expect(table.by("round")).to_have_text("第 1 / 13 回合")
    expect(table.cell("chance", "computer")).to_be_visible()


def test_dice_hold_toggle_labels_and_lock_after_third_roll(table: Table) -> None:
    table.start_solo()
    expect(table.die(0)).to_have_attribute("aria-label", "第 1 颗：还没掷")
    first = table.roll()
    die = table.die(0)
    expect(die).to_have_attribute("aria-pressed", "false")
    expect(die).to_have_attribute("aria-label", f"第 1 颗：{first[0]} 点")
    die.click()
    expect(die).to_have_attribute("aria-pressed", "true")
    expect(die).to_have_attribute("aria-label", f"第 1 颗：{first[0]} 点，已保留")
    # Held differs by shape, not colour alone: rounder corners and a 「保留」 tag.
    free_radius = table.die(1).evaluate("e => getComputedStyle(e).borderTopLeftRadius")
    held_radius = die.evaluate("e => getComputedStyle(e).borderTopLeftRadius")
    assert held_radius != free_radius
    expect(die.locator(".hold-tag")).to_have_text("保留")
    die.click()
    expect(die).to_have_attribute("aria-pressed", "false")
    die.click()

    second = table.roll()
    assert second[0] == first[0], "a held die keeps its face"
    third = table.roll()
    assert third[0] == first[0]
    expect(table.by("roll")).to_be_disabled()
    for i in range(5):
        expect(table.die(i)).to_have_attribute("aria-label", re.compile("已锁定$"))
    # Locked dice cannot be toggled any more.
    table.die(3).click(force=True)
    expect(table.die(3)).to_have_attribute("aria-label", re.compile("已锁定$"))


def test_roll_animates_even_when_values_repeat(table: Table) -> None:
    table.start_solo()
    table.roll()
    for i in range(4):
        table.die(i).click()
    table.by("roll").click()
    # The unheld die tumbles; held ones do not.
    expect(table.die(4)).to_have_class(re.compile(r"\brolling\b"))
    expect(table.die(4)).not_to_have_class(re.compile(r"\brolling\b"), timeout=3000)
    assert "rolling" not in (table.die(0).get_attribute("class") or "")
    # The animation restarts on every roll, whatever the new face.
    table.by("roll").click()
    expect(table.die(4)).to_have_class(re.compile(r"\brolling\b"))


def test_reduced_motion_replaces_the_tumble(table: Table) -> None:
    table.page.emulate_media(reduced_motion="reduce")
    table.start_solo()
    table.by("roll").click()
    expect(table.die(0)).to_have_class(re.compile(r"\brolling\b"))
    name = table.die(0).evaluate("e => getComputedStyle(e).animationName")
    assert name == "flash", name
