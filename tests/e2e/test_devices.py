"""我的设备 in the browser (I1-I3): a desktop browser plays, opens 我的设备 from 设置 and
shows a link code and its QR code; a phone opens the QR code's link, links, and continues
the very game from the lobby's 「继续游戏」; a third browser types a code; the desktop sees
the three devices and removes one, which is a stranger on its next load; a fourth browser
comes back with the recovery code."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.checks import check_view
from e2e.helpers import ConsoleWatch, Table, sized_context

pytestmark = pytest.mark.e2e


PHONE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)


def _page(
    browser: Browser, width: int, height: int, console: ConsoleWatch, **extra: object
) -> Page:
    page = sized_context(browser, width, height, **extra).new_page()
    page.set_default_timeout(20_000)
    console.watch(page)
    return page


def _show_code(page: Page) -> str:
    page.get_by_test_id("show-link-code").click()
    code = page.get_by_test_id("link-code")
    expect(code).to_have_text(re.compile(r"^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$"))
    qr = page.locator(".dv-qr")
    expect(qr).to_be_visible()
    assert (qr.get_attribute("src") or "").startswith("data:image/svg+xml;base64,")
    return code.inner_text()


def test_i1_i3_link_by_qr_link_and_by_code_continue_the_game_remove_a_device(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    desk = _page(browser, 1280, 800, console)
    table = Table(desk, server_url)
    table.open_lobby()
    table.start_solo()
    table.roll()
    first = table.selectable()[0]
    table.score(first)
    expect(table.by("round")).to_have_text("第 2 / 13 回合")

    # 设置 → 我的设备 → a code and its QR code
    desk.get_by_test_id("settings-open-game").or_(
        desk.get_by_test_id("settings-open")
    ).first.click()
    desk.get_by_test_id("settings-devices-link").click()
    expect(desk.get_by_test_id("settings-dialog")).not_to_be_visible()
    expect(desk).to_have_url(re.compile(r"/devices$"))
    code = _show_code(desk)
    failures: list[str] = []
    check_view(desk, "我的设备 (desktop)", failures)  # axe and AA contrast, both themes
    assert not failures, failures

    # a phone opens the QR code's link: the code is filled in, one tap links
    phone = _page(browser, 375, 667, console, user_agent=PHONE_UA)
    phone.goto(f"{server_url}/devices#code={code}")
    expect(phone.get_by_test_id("link-code-input")).to_have_value(code)
    wider = phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wider <= 0, f"the phone's 我的设备 is {wider} px wider than the window"
    phone.get_by_test_id("link-device").click()
    expect(phone.get_by_test_id("continue")).to_be_visible()  # the lobby, as the same player
    phone.get_by_test_id("continue").click()
    on_phone = Table(phone, server_url)
    expect(on_phone.by("round")).to_have_text("第 2 / 13 回合")
    assert on_phone.shown_points(first) is not None  # the box the desktop wrote
    on_phone.roll()
    rolled = on_phone.dice()

    # back on the desktop: the phone's roll is there
    table.open_lobby()
    table.by("continue").click()
    expect(table.by("rolls-left")).to_have_text("剩余 2 次")
    assert table.dice() == rolled

    # a third browser types a fresh code (lower case, no hyphen: as a child might)
    desk.goto(f"{server_url}/devices")
    typed = _show_code(desk)
    third = _page(browser, 1280, 800, console)
    third.goto(f"{server_url}/devices")
    third.get_by_test_id("link-code-input").fill(typed.replace("-", "").lower())
    third.get_by_test_id("link-device").click()
    expect(third.get_by_test_id("continue")).to_be_visible()

    # the devices list: three, this one marked; remove the third browser
    desk.goto(f"{server_url}/devices")
    devices = desk.get_by_test_id("device")
    expect(devices).to_have_count(3)
    expect(devices.filter(has_text="这台设备")).to_have_count(1)
    expect(devices.filter(has_text="手机 · ")).to_have_count(1)
    desk.get_by_test_id("remove-device").last.click()
    desk.get_by_test_id("confirm-yes").click()
    expect(devices).to_have_count(2)
    # whichever was removed is a stranger at its next load: no game to continue
    third.goto(f"{server_url}/")
    phone.goto(f"{server_url}/")
    expect(third.get_by_test_id("start-solo")).to_be_enabled()
    expect(phone.get_by_test_id("start-solo")).to_be_enabled()
    strangers = [p for p in (third, phone) if p.get_by_test_id("continue").is_hidden()]
    assert len(strangers) == 1

    # I2: a recovery code, shown once, brings the player back on a browser that forgot
    desk.get_by_test_id("make-recovery").click()
    recovery = desk.get_by_test_id("recovery-code")
    expect(recovery).to_have_text(re.compile(r"^([2-9A-HJKMNP-Z]{4}-){4}[2-9A-HJKMNP-Z]{4}$"))
    forgot = _page(browser, 1280, 800, console)
    forgot.goto(f"{server_url}/devices")
    forgot.get_by_test_id("recover-code-input").fill(recovery.inner_text())
    forgot.get_by_test_id("recover").click()
    expect(forgot.get_by_test_id("continue")).to_be_visible()
    assert not console.errors, console.errors
