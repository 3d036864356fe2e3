"""P6 and Polish 1 on every view: no serious axe-core violation, and every text at WCAG AA
against what is really behind it (``checks.py`` says how it is measured), in the light and
dark themes, at 1280×800 and on a 375×667 phone. One walk through the views runs both checks
at each stop.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.checks import MEASURE, check_view, contrast_failures, run_axe, serious_axe
from e2e.helpers import ConsoleWatch, Table, sized_context

pytestmark = pytest.mark.e2e


def test_the_measure_sees_what_it_measures(browser: Browser) -> None:
    """The measure fails grey on grey, text on a texture and text on a light gradient stop,
    and passes ink on paper: a checker that could pass anything proves nothing."""
    context = sized_context(browser, 800, 600)
    page = context.new_page()
    page.set_content(
        """<body style="margin:0;background:#fff">
        <p id="ok" style="color:#222;background:#fff">好</p>
        <p id="grey" style="color:#999;background:#aaa">灰</p>
        <div style="background:repeating-linear-gradient(90deg,#000 0 2px,#333 2px 4px)">
          <p id="texture" style="color:#fff">木纹</p></div>
        <div style="background:linear-gradient(90deg,#111,#ddd)">
          <p id="gradient" style="color:#fff;text-align:center">渐变</p></div>
        <div style="background:#123"><p id="veil" style="color:#fff;opacity:.3">半透明</p></div>
        </body>"""
    )
    result = page.evaluate(MEASURE)
    found = {f["text"]: f for f in result["failures"]}
    context.close()
    assert set(found) == {"灰", "木纹", "渐变", "半透明"}, found
    assert result["measured"] == 5, result
    assert found["木纹"]["texture"] is True
    assert found["灰"]["ratio"] == pytest.approx(1.23, abs=0.01)  # #999 on #aaa


def test_one_axe_run_serves_both_checks_and_finds_what_it_should(browser: Browser) -> None:
    """An image without a text alternative (critical) and grey on grey (serious) are found
    by the one run that :func:`check_view` shares between its two checks; a second run on
    the same document (the script is injected once) says the same."""
    context = sized_context(browser, 800, 600)
    page = context.new_page()
    page.set_content(
        """<html lang="zh"><head><title>t</title></head><body><main>
        <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
        <p style="color:#999;background:#aaa">灰色的字</p>"""
        + "".join(f"<p>第 {n} 行</p>" for n in range(8))
        + "</main></body></html>"
    )
    results = run_axe(page)
    assert page.evaluate("() => typeof window.axe") == "object"
    serious = serious_axe(page, results)
    assert any(line.startswith("image-alt (critical)") for line in serious), serious
    assert any(line.startswith("color-contrast (serious)") for line in serious), serious
    axe_contrast = [f for f in contrast_failures(page, "t", results) if " axe " in f]
    assert len(axe_contrast) == 1, axe_contrast
    assert "axe violations" in axe_contrast[0]
    assert serious_axe(page) == serious
    context.close()


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])
def test_p6_polish1_every_view_passes_axe_and_every_text_reaches_aa_in_both_themes(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    width, height = size
    phone = width < 600
    context = sized_context(browser, width, height)
    context.add_init_script(
        "localStorage.setItem('yahtzee.settings', JSON.stringify({replay: 'slow'}))"
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    console = ConsoleWatch()
    console.watch(page)
    ui = Table(page, server_url)
    failures: list[str] = []

    ui.open_lobby()
    check_view(page, "lobby", failures)
    ui.by("settings-open").click()
    expect(ui.by("settings-dialog")).to_be_visible()
    check_view(page, "settings", failures)
    ui.by("settings-close").click()
    ui.by("rules-link").click()
    expect(page.locator("#rules-faq")).to_be_visible()
    check_view(page, "rules", failures)
    ui.by("rules-back").click()

    ui.start_solo()
    ui.roll()
    ui.die(0).click()
    check_view(page, "solo table after a roll", failures)
    ui.by("lobby").click()
    ui.start_vs("novice")
    ui.roll()
    check_view(page, "vs table after a roll", failures)
    ui.score(ui.best_box())
    expect(ui.by("skip-replay")).to_be_visible()
    check_view(page, "the computer's turn", failures)
    ui.wait_for_my_turn(2)
    if phone:
        ui.by("turn-log-toggle").click()
        check_view(page, "turn log sheet", failures)
        ui.by("turn-log-close").click()
    page.evaluate(
        "() => localStorage.setItem('yahtzee.settings', JSON.stringify({replay: 'skip'}))"
    )
    page.reload()
    expect(ui.by("roll")).to_be_enabled()
    ui.play_to_end(first_round=2)
    check_view(page, "end panel", failures)
    ui.by("game-over-review").click()
    expect(ui.by("review-accuracy")).to_be_visible(timeout=60_000)
    check_view(page, "review", failures)
    ui.by("review-back").click()
    ui.open_lobby()
    expect(ui.by("recent-review").first).to_be_visible()
    check_view(page, "lobby with a finished game", failures)
    ui.by("stats-link").click()
    expect(ui.by("stats-vs")).to_be_visible(timeout=30_000)
    check_view(page, "stats", failures)
    ui.open_lobby()
    ui.by("start-practice").click()
    expect(ui.by("puzzle")).to_be_visible(timeout=30_000)
    check_view(page, "practice", failures)
    context.close()
    assert failures == [], "\n".join(failures)
    assert console.errors == []


def _room_page(browser: Browser, width: int, height: int, console: ConsoleWatch) -> Page:
    context = sized_context(browser, width, height)
    page = context.new_page()
    page.set_default_timeout(20_000)
    console.watch(page)
    return page


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])
def test_u15_rooms_and_error_pages_reach_aa_under_every_appearance(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    """好友房间's form, its waiting room and its table from the seat whose turn it is (the
    status lines over the wood: 「对局中 · 每回合 60 秒」, the board's 「轮到你了」), and
    the pages a broken link opens, measured like every other view."""
    console = ConsoleWatch()
    failures: list[str] = []
    host = _room_page(browser, *size, console)
    guest = _room_page(browser, *size, console)
    host.goto(server_url + "/rooms/new")
    expect(host.get_by_test_id("create-room")).to_be_visible()
    check_view(host, "room form", failures)
    host.get_by_test_id("room-your-name").fill("甲")
    host.get_by_test_id("create-room").click()
    invite = host.get_by_test_id("invite-link")
    expect(invite).to_have_value(re.compile(r"#t="))
    guest.goto(invite.input_value())
    guest.get_by_test_id("join-name").fill("乙")
    guest.get_by_test_id("join-room").click()
    expect(host.get_by_test_id("room-seat-1")).to_contain_text("乙")
    check_view(host, "waiting room", failures)
    host.get_by_test_id("start-room").click()
    for p in (host, guest):
        expect(p.get_by_test_id("turn")).to_have_text(re.compile("^轮到"))
    mine = next(p for p in (host, guest) if p.get_by_test_id("turn").inner_text() == "轮到你了")
    expect(mine.get_by_test_id("roll")).to_be_visible()
    expect(mine.locator("#view-room")).to_contain_text("点「掷骰子」开始这一回合。")
    check_view(mine, "room table, my turn", failures)
    other = guest if mine is host else host
    check_view(other, "room table, their turn", failures)
    console.allowed += ["/api/rooms/0000000000000000", "/api/groups/0000000000000000"]
    console.allowed.append("/api/games/nope/review")
    for path in ("/rooms/0000000000000000", "/groups/0000000000000000", "/review/nope"):
        console.allowed.append(path)
        other.goto(server_url + path)
        expect(other.locator("[role=alert]").first).to_be_visible()
        check_view(other, f"error page {path}", failures)
    host.context.close()
    guest.context.close()
    assert failures == [], "\n".join(failures)
    assert console.errors == []
