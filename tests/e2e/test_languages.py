"""G3 in the browser: the first visit's language from Accept-Language, and 设置's language
changing the page at once, mid-game, without a reload losing anything."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Request, expect

from e2e.helpers import ConsoleWatch, Table

pytestmark = pytest.mark.e2e


def test_g3_the_language_changes_mid_game_without_a_reload(ui: Table) -> None:
    page = ui.page
    ui.start_solo()
    ui.roll()
    ui.die(0).click()
    ui.die(2).click()
    held = [ui.die(i).get_attribute("aria-pressed") for i in range(5)]
    assert held == ["true", "false", "true", "false", "false"]
    dice, rolls = ui.dice(), ui.rolls_left()
    page.evaluate("window.sameDocument = true")  # (gone if the page were loaded again)
    sent: list[Request] = []
    page.on("request", lambda r: sent.append(r) if "/api/settings/language" in r.url else None)
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "zh-Hans")

    ui.by("settings-open").click()
    dialog = ui.by("settings-dialog")
    expect(dialog).to_be_visible()
    choice = ui.by("language-setting")
    expect(choice).to_have_value("zh-Hans")
    assert choice.locator("option").all_inner_texts() == ["简体中文", "繁體中文", "English"]

    choice.select_option("en")
    expect(html).to_have_attribute("lang", "en")
    expect(page.locator("#settings-title")).to_have_text("Settings")
    expect(ui.by("settings-close")).to_have_text("Done")
    expect(dialog).to_be_visible()  # the open dialog stays open
    # The lobby's words (hidden behind the table) and the level picker's, at once.
    assert page.locator("#lobby-title").text_content() == "Lobby"
    assert page.locator('[data-testid="difficulty"] label span').all_text_contents() == [
        "Beginner",
        "Normal",
        "Expert",
    ]
    # Nothing lost: the same document, the game, its dice and holds.
    assert page.evaluate("window.sameDocument") is True
    assert (ui.dice(), ui.rolls_left()) == (dice, rolls)
    assert [ui.die(i).get_attribute("aria-pressed") for i in range(5)] == held

    choice.select_option("zh-Hant")
    expect(html).to_have_attribute("lang", "zh-Hant")
    expect(page.locator("#settings-title")).to_have_text("設定")
    assert page.locator("#lobby-title").text_content() == "大廳"
    assert page.evaluate("window.sameDocument") is True
    ui.by("settings-close").click()
    expect(dialog).to_be_hidden()
    assert [ui.die(i).get_attribute("aria-pressed") for i in range(5)] == held
    # The game goes on: the holds go with the next roll.
    after = ui.roll()
    assert (after[0], after[2]) == (dice[0], dice[2])

    # Kept for the player on the server (every linked device) and in this browser.
    assert [r.post_data_json for r in sent] == [{"language": "en"}, {"language": "zh-Hant"}]
    page.wait_for_function("() => localStorage.getItem('yahtzee.lang') === 'zh-Hant'")
    page.reload()
    expect(html).to_have_attribute("lang", "zh-Hant")
    expect(html).to_have_attribute("data-lang-chosen", "")
    expect(ui.by("settings-open")).to_have_text("設定")


def test_g3_a_first_visit_from_taiwan_is_in_traditional_chinese(
    browser: Browser, server_url: str
) -> None:
    context = browser.new_context(locale="zh-TW")  # Accept-Language: zh-TW
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/i18n/" in r.url else None)
    ui = Table(page, server_url)
    page.goto(server_url + "/")
    expect(ui.by("start-solo")).to_be_enabled()
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "zh-Hant")
    assert html.get_attribute("data-lang-chosen") is None
    expect(page.locator("#lobby-title")).to_have_text("大廳")
    expect(ui.by("settings-open")).to_have_text("設定")
    expect(ui.by("start-solo")).to_have_text("開始單人挑戰")
    assert page.locator('[data-testid="difficulty"] label span').all_text_contents() == [
        "入門",
        "普通",
        "高手",
    ]
    assert page.title() == "快艇骰子"
    expect(ui.by("language-setting")).to_have_value("zh-Hant")
    # One chunk, the first view's, in its language: preloaded with the page. (设置's 「提醒我」
    # row, W4, loads its own chunk once the service worker is up, in the language too.)
    chunks = [url.rsplit("/i18n/", 1)[1] for url in asked]
    assert [c for c in chunks if c != "zh-Hant/push.js"] == ["zh-Hant/core.js"], chunks
    context.close()
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)
