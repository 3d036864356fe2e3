"""P6: no serious or critical axe-core violation on any view, in the light and dark themes.

axe-core (bundled by ``axe-playwright-python``) runs inside the page on the lobby, the
rules page and the table after a roll, during the computer's turn and with the end panel,
once per theme (the theme is switched the way the settings do it: ``data-theme``).
"""

from __future__ import annotations

import json
import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from e2e.helpers import ConsoleWatch, Table, sized_context

pytestmark = pytest.mark.e2e

AXE = Axe()


def _serious(page: Page) -> list[str]:
    results = AXE.run(page)
    out = []
    for v in results.response["violations"]:
        if v["impact"] in ("serious", "critical"):
            targets = [n["target"] for n in v["nodes"][:4]]
            summary = v["nodes"][0].get("failureSummary", "").replace("\n", " ")
            out.append(f"{v['id']} ({v['impact']}): {targets} {summary[:300]}")
    return out


def _check(page: Page, where: str, failures: list[str]) -> None:
    for theme in ("light", "dark"):
        page.evaluate(f"() => {{ document.documentElement.dataset.theme = {json.dumps(theme)}; }}")
        page.wait_for_timeout(300)  # the buttons' colour transition (0.15 s) has ended
        failures += [f"{where} [{theme}]: {v}" for v in _serious(page)]
    page.evaluate("() => { delete document.documentElement.dataset.theme; }")


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])
def test_p6_no_serious_axe_violation_on_any_view_in_either_theme(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    width, height = size
    phone = width < 600
    context = sized_context(browser, width, height)
    # A slow replay, so that the computer's turn can be checked while it is shown.
    context.add_init_script(
        "localStorage.setItem('yahtzee.settings', JSON.stringify({replay: 'slow'}))"
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    ui = Table(page, server_url)
    failures: list[str] = []

    ui.open_lobby()
    _check(page, "lobby", failures)
    ui.by("settings-open").click()
    expect(ui.by("settings-dialog")).to_be_visible()
    _check(page, "settings", failures)
    ui.by("settings-close").click()
    ui.by("rules-link").click()
    expect(page.locator("#rules-faq")).to_be_visible()  # the lazy view's text has arrived
    _check(page, "rules", failures)
    ui.by("rules-back").click()

    ui.start_vs("novice")
    ui.roll()
    ui.die(0).click()
    _check(page, "table after a roll", failures)
    ui.score(ui.best_box())
    expect(ui.by("skip-replay")).to_be_visible()
    _check(page, "computer's turn", failures)
    ui.wait_for_my_turn(2)
    if phone:
        ui.by("turn-log-toggle").click()
        _check(page, "turn log sheet", failures)
        ui.by("turn-log-close").click()
    page.evaluate(
        "() => localStorage.setItem('yahtzee.settings', JSON.stringify({replay: 'skip'}))"
    )
    page.reload()
    expect(ui.by("roll")).to_be_enabled()
    ui.play_to_end(first_round=2)
    _check(page, "end panel", failures)
    context.close()
    assert failures == [], "\n".join(failures)
    assert console.errors == []


def test_p6_l4_phone_meter_and_a_cut_message_have_no_serious_axe_violation(
    browser: Browser, server_url: str
) -> None:
    """The phone table with the live meter on its totals line (solo, then vs with the bar),
    and with a message too long for it, cut and then opened (「全文」), in both themes."""
    context = sized_context(browser, 360, 640)
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    console.allowed.append("/roll")
    ui = Table(page, server_url)
    failures: list[str] = []
    ui.open_lobby()
    ui.start_solo()
    ui.roll()
    expect(ui.by("live-meter-text")).to_contain_text("预计终局")
    _check(page, "phone solo with the meter", failures)

    refusal = {"error": {"code": "illegal_action", "message": "请把这一段说明读完：" * 12}}
    page.route(
        re.compile(r"/api/games/[^/]+/roll$"),
        lambda route: route.fulfill(
            status=409, content_type="application/json", body=json.dumps(refusal)
        ),
    )
    ui.by("roll").click()
    expect(ui.by("message-more")).to_be_visible()
    _check(page, "phone, a cut message", failures)
    ui.by("message-more").click()
    expect(ui.by("message-more")).to_have_text("收起")
    _check(page, "phone, the message opened", failures)
    page.unroute(re.compile(r"/api/games/[^/]+/roll$"))

    ui.by("lobby").click()
    ui.start_vs("novice")
    ui.roll()
    expect(ui.by("live-meter-bar")).to_be_visible()
    _check(page, "phone vs with the meter", failures)
    context.close()
    assert failures == [], "\n".join(failures)
    assert console.errors == []
