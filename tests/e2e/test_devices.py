"""我的设备 in the browser (I1-I4, F20, U20): a desktop browser plays, opens 我的设备 from
设置, makes its recovery code and shows a link code and its QR code; a phone opens the QR
code's link, links, and continues the very game from the lobby's 「继续游戏」; the desktop
is asked 「这是你吗？」 of it; a new recovery code asked without the old one waits, in view
of the phone, which refuses it; a third browser types a code; the desktop removes it, and
it is told so once on its next load; the export's summary is read before its file is
downloaded; a fourth browser comes back with the recovery code and signs out; the data is
deleted, and both the desktop and the phone are told so (not an empty lobby)."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
    expect(code).to_have_text(re.compile(r"^[2-9A-HJKMNP-Z]{5}-[2-9A-HJKMNP-Z]{5}$"))
    qr = page.get_by_test_id("devices-pair").locator(".dv-qr")
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
    # I2: the recovery code first (one device, no code yet: it works at once), shown once
    desk.get_by_test_id("make-recovery").click()
    recovery = desk.get_by_test_id("recovery-code")
    expect(recovery).to_have_text(re.compile(r"^([2-9A-HJKMNP-Z]{4}-){4}[2-9A-HJKMNP-Z]{4}$"))
    recovery_code = recovery.inner_text()
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

    # F20: the desktop is asked 「这是你吗？」 of the phone; 「是我」 answers it
    desk.goto(f"{server_url}/devices")
    expect(desk.get_by_test_id("new-device")).to_have_count(1)
    expect(desk.get_by_test_id("new-device")).to_contain_text("手机 · Chrome")
    desk.get_by_test_id("confirm-device").click()
    expect(desk.get_by_test_id("devices-new")).to_have_count(0)
    # a new recovery code asked without the old one waits; the phone sees it and refuses
    desk.get_by_test_id("make-recovery").click()
    desk.get_by_test_id("confirm-yes").click()
    expect(desk.get_by_test_id("recovery-later")).to_be_visible()
    expect(desk.get_by_test_id("pending-request")).to_have_count(1)
    check_view(desk, "我的设备, a request waiting (desktop)", failures)
    phone.goto(f"{server_url}/devices")
    waiting = phone.get_by_test_id("pending-request")
    expect(waiting).to_contain_text("换一个新的恢复码")
    phone.get_by_test_id("refuse-request").click()
    expect(phone.get_by_test_id("pending-request")).to_have_count(0)

    # a third browser types a fresh code (lower case, no hyphen: as a child might)
    desk.goto(f"{server_url}/devices")
    typed = _show_code(desk)
    third = _page(browser, 1280, 800, console)
    third.goto(f"{server_url}/devices")
    third.get_by_test_id("link-code-input").fill(typed.replace("-", "").lower())
    third.get_by_test_id("link-device").click()
    expect(third.get_by_test_id("continue")).to_be_visible()

    # the devices list: three, this one marked; the third browser, a newcomer
    # (「这是你吗？」), removed with one tap (F20)
    desk.goto(f"{server_url}/devices")
    devices = desk.get_by_test_id("device")
    expect(devices).to_have_count(3)
    expect(devices.filter(has_text="这台设备")).to_have_count(1)
    expect(devices.filter(has_text="手机 · ")).to_have_count(1)
    expect(desk.get_by_test_id("new-device")).to_have_count(1)
    desk.get_by_test_id("remove-new-device").click()
    expect(devices).to_have_count(2)
    expect(desk.get_by_test_id("devices-new")).to_have_count(0)
    # the removed browser is a stranger at its next load, and told so once (U20)
    third.goto(f"{server_url}/")
    expect(third.get_by_test_id("start-solo")).to_be_enabled()
    expect(third.get_by_test_id("continue")).to_be_hidden()
    notice = third.get_by_test_id("device-notice")
    expect(notice).to_contain_text("已经在「我的设备」里被移除了")
    check_view(third, "the lobby telling a removed device", failures)
    assert not failures, failures
    third.get_by_test_id("device-notice-ok").click()
    expect(notice).to_have_count(0)
    third.reload()
    expect(third.get_by_test_id("start-solo")).to_be_enabled()
    expect(third.get_by_test_id("device-notice")).to_have_count(0)

    # U20: the export's summary, read before its file (indented, one time format)
    desk.get_by_test_id("export-data").click()
    expect(desk.get_by_test_id("export-summary")).to_contain_text("1 局游戏")
    expect(desk.get_by_test_id("export-summary")).to_contain_text("2 台设备")
    with desk.expect_download() as download:
        desk.get_by_test_id("export-download").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert text.startswith('{\n  "format": "yahtzee-export-v2"')
    assert json.loads(text)["summary"]["devices"] == 2

    # I2: the recovery code brings the player back on a browser that forgot; that browser
    # (a shared computer) then signs out, and is told so
    forgot = _page(browser, 1280, 800, console)
    forgot.goto(f"{server_url}/devices")
    forgot.get_by_test_id("recover-code-input").fill(recovery_code)
    forgot.get_by_test_id("recover").click()
    expect(forgot.get_by_test_id("continue")).to_be_visible()
    forgot.goto(f"{server_url}/devices")
    forgot.get_by_test_id("sign-out").click()
    forgot.get_by_test_id("confirm-yes").click()
    expect(forgot.get_by_test_id("device-notice")).to_contain_text("已经退出这台设备")
    expect(forgot.get_by_test_id("continue")).to_be_hidden()

    # I4: deleted with the recovery code (at once): the lobby says so and keeps saying
    # it (before: 「已经全部删除了」 for 0.6 s, then a silent lobby); the phone too
    desk.goto(f"{server_url}/devices")
    desk.get_by_test_id("proof-input").fill(recovery_code)
    desk.get_by_test_id("delete-data").click()
    desk.get_by_test_id("confirm-yes").click()
    desk.get_by_test_id("confirm-yes").click()
    expect(desk.get_by_test_id("start-solo")).to_be_enabled()
    expect(desk.get_by_test_id("device-notice")).to_contain_text("已经全部删除了")
    expect(desk.get_by_test_id("continue")).to_be_hidden()
    phone.goto(f"{server_url}/")
    expect(phone.get_by_test_id("device-notice")).to_contain_text("已经全部删除了")
    assert not console.errors, console.errors
