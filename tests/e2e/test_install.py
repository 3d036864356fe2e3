"""Polish 10: the game installs to the home screen and opens without a network; a move the
network loses is never sent later (U14), and never made twice.

Installability is Chromium's own verdict (``Page.getInstallabilityErrors``, the check behind
its install prompt and Lighthouse's "installable manifest"): no error. The offline checks use
the browser context's offline switch.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, BrowserType, Page, Route, expect

from e2e.helpers import Table, sized_context

pytestmark = pytest.mark.e2e

# Resolves once the service worker controls the page and has kept the page itself.
SHELL_KEPT = """async () => {
  await navigator.serviceWorker.ready;
  for (let i = 0; i < 100; i++) {
    const cache = await caches.open("yahtzee-shell");
    const keys = (await cache.keys()).map((r) => new URL(r.url).pathname);
    if (navigator.serviceWorker.controller && keys.includes("/") &&
        keys.some((k) => k.endsWith("/js/main.js"))) return keys;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the service worker kept nothing");
}"""


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    context = sized_context(browser, 375, 667)
    yield context
    context.close()


def _installed(page: Page, server_url: str) -> Table:
    ui = Table(page, server_url)
    page.set_default_timeout(15_000)
    ui.open_lobby()
    kept = page.evaluate(SHELL_KEPT)
    assert "/" in kept
    return ui


def test_polish10_installable_with_icons_and_theme_colours(
    browser_type: BrowserType,
    browser_type_launch_args: dict[str, Any],
    server_url: str,
    tmp_path: Path,
) -> None:
    # A profile on disk: Chromium offers no install in an incognito-like context, which is
    # what a test's browser context is.
    phone = browser_type.launch_persistent_context(
        tmp_path / "profile",
        **browser_type_launch_args,
        viewport={"width": 375, "height": 667},
        locale="zh-CN",
    )
    page = phone.pages[0] if phone.pages else phone.new_page()
    _installed(page, server_url)
    cdp = phone.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert errors == [], errors
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href
    response = page.request.get(server_url + href)
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(response.text())
    assert manifest["name"] == "快艇骰子"
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/"
    sizes = set()
    for icon in manifest["icons"]:
        png = page.request.get(server_url + icon["src"]).body()
        width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
        assert f"{width}x{height}" == icon["sizes"]
        sizes.add(width)
    assert {192, 512} <= sizes
    assert any(i.get("purpose") == "maskable" for i in manifest["icons"])
    themes = page.locator('meta[name="theme-color"]')
    expect(themes).to_have_count(2)
    media = {themes.nth(i).get_attribute("media") for i in range(2)}
    assert media == {"(prefers-color-scheme: light)", "(prefers-color-scheme: dark)"}
    phone.close()


def test_polish10_offline_it_opens_and_says_the_server_is_needed(
    phone: BrowserContext, server_url: str
) -> None:
    page = phone.new_page()
    ui = _installed(page, server_url)
    phone.set_offline(True)
    page.reload()
    expect(ui.by("start-solo")).to_be_visible()  # the page itself, from the worker's cache
    expect(ui.by("message")).to_contain_text("要联网才能玩")
    phone.set_offline(False)
    expect(ui.by("message")).to_have_text("又连上服务器了。", timeout=15_000)


# Resolves with the language of the page the service worker keeps once it is `lang`.
KEPT_IN = """async (lang) => {
  for (let i = 0; i < 100; i++) {
    const kept = await (await caches.open("yahtzee-shell")).match("/", { ignoreVary: true });
    const text = kept ? await kept.text() : "";
    if (text.includes(`<html lang="${lang}"`)) return lang;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the service worker did not keep the page in ${lang}`);
}"""


def test_g2_offline_the_game_opens_in_the_language_chosen_last(
    phone: BrowserContext, server_url: str
) -> None:
    """The worker kept the page in the language of the first visit: after a change in 设置,
    the game opened offline in the old one. It now keeps it in the language chosen, and
    the home-screen app's manifest follows."""
    page = phone.new_page()
    ui = _installed(page, server_url)
    ui.by("settings-open").click()
    ui.by("language-setting").select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert page.evaluate(KEPT_IN, "en") == "en"
    link = page.locator('link[rel="manifest"]')
    expect(link).to_have_attribute("href", re.compile(r"/i18n/en/manifest\.webmanifest$"))
    phone.set_offline(True)
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(ui.by("start-solo")).to_be_visible()
    assert page.locator("#lobby-title").text_content() == "Lobby"
    phone.set_offline(False)


def test_u14_a_move_lost_offline_is_never_sent_later(
    phone: BrowserContext, server_url: str
) -> None:
    """Polish 10 kept the move and sent it on reconnect, behind the player's back: the
    player's next 「再掷」 then spent a roll they did not see go. U14: dropped and said."""
    page = phone.new_page()
    ui = _installed(page, server_url)
    ui.start_solo()
    ui.roll()
    phone.set_offline(True)
    ui.by("roll").click()
    expect(ui.by("message")).to_contain_text("刚才那一步没有得到回答，页面也不会替你再送")
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")
    phone.set_offline(False)
    expect(ui.by("message")).to_contain_text("又连上服务器了", timeout=15_000)
    page.wait_for_timeout(3_500)
    expect(ui.by("rolls-left")).to_have_text("剩余 2 次")


def test_polish10_a_move_whose_answer_was_lost_is_not_made_twice(
    phone: BrowserContext, server_url: str
) -> None:
    page = phone.new_page()
    ui = _installed(page, server_url)
    ui.start_solo()
    ui.roll()
    lost: list[str] = []

    def arrive_then_lose_the_answer(route: Route) -> None:
        if not lost:
            route.fetch()  # the server makes the roll...
            lost.append(route.request.url)
            route.abort()  # ...and its answer never reaches the page
        else:
            route.continue_()

    page.route(re.compile(r"/api/games/[^/]+/roll$"), arrive_then_lose_the_answer)
    ui.by("roll").click()
    # Never sent again (U14): the page reads the game as soon as the server answers and
    # shows the one roll, saying the game changed while the answer was lost.
    expect(ui.by("rolls-left")).to_have_text("剩余 1 次", timeout=15_000)
    expect(ui.by("message")).to_contain_text("刚才那一步可能已经送到")
    game = page.evaluate("async () => (await fetch('/api/games/current')).json()")
    assert game["rolls_left"] == 1
    assert lost
