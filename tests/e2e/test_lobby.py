"""The lobby and the rules page (U5, U9, U10, B1)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Route, expect

from e2e.helpers import NO_SERVICE_WORKER, Table, sized_context
from yahtzee.i18n import Lang, text
from yahtzee.players import SUGGESTED_DIFFICULTY, Difficulty

pytestmark = pytest.mark.e2e


def test_u5_lobby_offers_both_modes_difficulties_and_records(ui: Table) -> None:
    page = ui.page
    expect(page).to_have_title("快艇骰子")
    expect(ui.by("start-solo")).to_have_text("开始单人挑战")
    expect(ui.by("start-vs")).to_have_text("开始人机对战")
    # B1/P5: every level of the registry, one click each, weakest first (入门 普通 高手);
    # 普通 (intermediate) for a new player.
    picker = ui.by("difficulty")
    radios = picker.locator("input[type=radio]")
    expect(radios).to_have_count(len(Difficulty))
    values = [radios.nth(i).get_attribute("value") for i in range(len(Difficulty))]
    assert values == [d.value for d in Difficulty]
    names = [text(Lang.ZH_HANS, d.name_key) for d in Difficulty]
    assert picker.locator("label").all_inner_texts() == names
    assert {"入门", "普通", "高手"} <= set(names)
    expect(picker.locator("input:checked")).to_have_value(SUGGESTED_DIFFICULTY.value)
    # A new browser has empty records and nothing to continue.
    expect(ui.by("continue")).to_be_hidden()
    expect(ui.by("best-score")).to_have_text("—")
    for key in ("wins", "losses", "draws"):
        expect(ui.by(key)).to_have_text("0")
    expect(ui.by("rules-link")).to_be_visible()
    # U16: 好友房间 is a card like the other modes, and every card says in one line what it is
    cards = page.locator(".start-card")
    titles = cards.locator("h3").all_inner_texts()
    assert titles == ["单人挑战", "人机对战", "多人同屏", "好友房间", "同骰竞速"], titles
    for i in range(cards.count()):
        assert cards.nth(i).locator("p").first.inner_text().strip(), titles[i]
    expect(cards.nth(3).get_by_test_id("rooms-link")).to_be_visible()
    expect(cards.nth(4).get_by_test_id("race-link")).to_be_visible()

    # 「继续游戏」 appears once a game is saved, and says which one.
    ui.start_vs("intermediate")
    ui.roll()
    ui.by("lobby").click()
    expect(ui.by("continue")).to_be_visible()
    expect(page.locator("#continue-summary")).to_contain_text("人机对战（普通）")


def test_p5_new_player_meets_intermediate_expert_one_click_away_choice_remembered(
    ui: Table,
) -> None:
    ui.by("start-vs").click()
    expect(ui.page.locator(".col-head.seat-computer").first).to_have_text("电脑（普通）")
    expect(ui.page.locator("#mode-badge")).to_have_text("人机对战 · 普通")
    ui.by("lobby").click()
    ui.by("difficulty").get_by_label("高手").click()  # one click
    ui.page.reload()
    expect(ui.by("difficulty").locator("input:checked")).to_have_value("expert")
    ui.by("start-vs").click()
    ui.by("confirm-yes").click()
    expect(ui.page.locator("#mode-badge")).to_have_text("人机对战 · 高手")


def test_u9_records_persist_across_visits_in_this_browser(ui: Table) -> None:
    ui.start_solo()
    ui.play_to_end()
    total = ui.total()
    # A new tab of the same browser (same cookie) sees the record; the old page is closed.
    context = ui.page.context
    ui.page.close()
    visit = context.new_page()
    visit.goto(ui.base_url + "/")
    expect(visit.get_by_test_id("best-score")).to_have_text(str(total))
    expect(visit.locator("#recent-list li")).to_have_count(1)
    visit.close()
    # Another browser (no cookie) has records of its own.
    other = context.browser.new_context() if context.browser else None
    assert other is not None
    stranger = other.new_page()
    stranger.goto(ui.base_url + "/")
    expect(stranger.get_by_test_id("best-score")).to_have_text("—")
    other.close()


def test_u10_rules_page_from_lobby_and_game_in_chinese(ui: Table) -> None:
    page = ui.page
    ui.by("rules-link").click()
    expect(page).to_have_url(ui.base_url + "/rules")
    rules = page.locator("#view-rules")
    expect(rules).to_be_visible()
    for heading in ("简介", "怎么玩", "计分表", "术语", "常见问题"):
        expect(rules.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    # Our behaviour, not just any Yahtzee: forced Joker, zero confirmation, 3 hints, H key,
    # continuing keeps the turn exactly as it was (U6 changed), never a re-roll.
    for phrase in ("必须", "再问你一次", "3 次提示", "H 键", "原样保留", "63", "35"):
        expect(rules).to_contain_text(phrase)
    for stale in ("重新掷", "从头开始"):
        expect(rules).not_to_contain_text(stale)
    # L11: the glossary, the words every 「?」 shows.
    expect(rules.get_by_role("heading", name="看懂这些数", exact=True)).to_be_visible()
    terms = ("预计终局", "运气", "技术损失", "准确率", "胜率", "练习分", "难度分", "托管", "小组")
    for term in terms:
        expect(rules.locator("[data-glossary] dt", has_text=term).first).to_be_visible()
    expect(rules.locator("#term-zero")).to_have_text("写 0")
    page.get_by_test_id("rules-back").click()
    expect(ui.by("start-solo")).to_be_visible()

    # From the table, and back to the same game.
    ui.start_solo()
    dice = ui.roll()
    ui.by("rules-link-game").click()
    expect(rules).to_be_visible()
    page.get_by_test_id("rules-back").click()
    expect(ui.by("roll")).to_be_visible()
    assert ui.dice() == dice
    assert ui.rolls_left() == 2

    # A direct visit (bookmark, reload) works too.
    page.goto(ui.base_url + "/rules")
    expect(rules).to_be_visible()


def test_f2_the_levels_wait_with_the_start_buttons_for_the_lobbys_data(
    browser: Browser, server_url: str
) -> None:
    """Back in the lobby from a game, 继续游戏's card appears above the levels once the
    records are in: until then the levels take no tap (one would land on whichever level slid
    under the finger), and they are enabled in the frame the card appears."""
    context = sized_context(browser, 360, 640, **NO_SERVICE_WORKER)
    page = context.new_page()
    ui = Table(page, server_url)
    ui.open_lobby()
    ui.start_solo()
    ui.roll()
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route(re.compile(r"/api/records$"), hold)
    ui.by("lobby").click()
    picker = ui.by("difficulty")
    novice = picker.locator('input[value="novice"]')
    expect(picker).to_be_visible()
    expect(novice).to_be_disabled()
    expect(ui.by("start-solo")).to_be_disabled()
    expect(page.locator("#continue-box")).to_be_hidden()
    while not held:
        page.wait_for_timeout(20)
    held[0].continue_()
    expect(page.locator("#continue-box")).to_be_visible()
    expect(novice).to_be_enabled()
    novice.check()
    expect(novice).to_be_checked()
    context.close()
