"""多人同屏 in the browser (T7, T8): the seat editor, a 6-seat table at desktop and both phone
sizes, the handover screen, the computers' replay, reload and 继续游戏 mid-turn of the third
seat, the end panel with the ranking, 重新开始 with the same seats, the review's seat
switcher and the lobby's recent table game, axe on the new views.

Layout is asserted with bounding boxes against the viewport, never with screenshots. The
boxes are picked from what the page offers (the server's previews), never computed here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, FloatRect, Locator, Page, expect

from e2e.checks import check_view
from e2e.helpers import CATEGORIES, ConsoleWatch, sized_context

pytestmark = pytest.mark.e2e

HOSTILE = "<b>爸</b>"  # a person's name that is markup: it must show as these characters
SIX = [
    ("human", "妈妈"),
    ("human", HOSTILE),
    ("computer", "expert"),
    ("human", "小明"),
    ("human", "奶奶"),
    ("computer", "novice"),
]


@contextmanager
def table_page(
    browser: Browser,
    server_url: str,
    width: int = 1280,
    height: int = 800,
    allow: tuple[str, ...] = (),
    **settings: str,
) -> Iterator[Page]:
    """A fresh context of this size on the lobby, with these settings remembered (replay
    pace, handover); no console error may be logged (but the failed requests to ``allow``,
    provoked on purpose)."""
    context = sized_context(browser, width, height)
    if settings:
        context.add_init_script(
            f"localStorage.setItem('yahtzee.settings', {json.dumps(json.dumps(settings))})"
        )
    page = context.new_page()
    page.set_default_timeout(15_000)
    console = ConsoleWatch()
    console.allowed.extend(allow)
    console.watch(page)
    page.goto(server_url + "/")
    expect(page.get_by_test_id("start-solo")).to_be_enabled()
    yield page
    context.close()
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)


def by(page: Page, testid: str) -> Locator:
    """The element with ``data-testid=testid``."""
    return page.get_by_test_id(testid)


def set_seats(page: Page, seats: list[tuple[str, str]]) -> None:
    """Open the seat editor from the lobby and lay out ``seats`` ((kind, name or level))."""
    by(page, "open-table").click()
    expect(by(page, "seat-row-1")).to_be_visible()
    rows = page.locator(".seat-row")
    while (n := rows.count()) != len(seats):
        if n < len(seats):
            by(page, "add-seat").click()
        else:
            by(page, f"remove-seat-{n - 1}").click()
        expect(rows).to_have_count(n + 1 if n < len(seats) else n - 1)
    for i, (kind, what) in enumerate(seats):
        by(page, f"seat-kind-{i}").select_option(kind)
        if kind == "human":
            by(page, f"seat-name-{i}").fill(what)
        else:
            by(page, f"seat-level-{i}").select_option(what)


def start(page: Page, seats: list[tuple[str, str]]) -> None:
    set_seats(page, seats)
    by(page, "start-table").click()
    expect(by(page, "roll")).to_be_visible()


def turn_name(page: Page) -> str:
    text = by(page, "turn").inner_text()
    m = re.fullmatch(r"轮到 (.+) 了", text)
    assert m, text
    return m.group(1)


def wait_for_person(page: Page) -> None:
    """Until a person may roll: the computers' replay over, the handover passed."""
    expect(by(page, "skip-replay")).to_be_hidden()
    if by(page, "handover").is_visible():
        go(page)
    expect(by(page, "roll")).to_be_enabled()


def write_box(page: Page) -> str:
    """Write the first box the page offers that scores (else any: then every box scores 0,
    which needs no confirmation) and wait until the turn is over; returns the box."""
    offered = page.locator(".scorecard td.preview:not(.zero) .cell-btn:enabled")
    if offered.count() == 0:
        offered = page.locator(".scorecard td.preview .cell-btn:enabled")
    cell = offered.first
    category = str(cell.get_attribute("data-category"))
    cell.click()
    # The turn is over once the counter leaves this turn's 剩余 2 次 (a new turn's 剩余 3 次,
    # 电脑回合 or 已结束).
    expect(by(page, "rolls-left")).not_to_have_text("剩余 2 次")
    return category


def play_turn(page: Page) -> str:
    """Roll once and write a box (:func:`write_box`)."""
    wait_for_person(page)
    by(page, "roll").click()
    expect(by(page, "rolls-left")).to_contain_text("剩余 2 次")
    return write_box(page)


def go(page: Page) -> None:
    """Tap the handover screen's button and wait until it is gone: the page draws once per
    frame, so right after the click the screen is still up, and a caller that looked for it
    then would tap a button that is being hidden (the state is printed if it cannot be
    tapped)."""
    try:
        by(page, "handover-go").click(timeout=8_000)
        expect(by(page, "handover")).to_be_hidden()
    except Exception:
        print(
            "HANDOVER DEBUG",
            page.evaluate(
                """() => { const h = document.querySelector('.tb-handover');
                const b = h.querySelector('button'); const r = b.getBoundingClientRect();
                const hr = h.getBoundingClientRect();
                return [h.hidden, getComputedStyle(h).display, hr.width, hr.height,
                  r.x, r.y, r.width, r.height, getComputedStyle(b).display,
                  getComputedStyle(b).visibility, document.body.dataset.view,
                  document.getElementById('view-table').hidden, location.pathname,
                  h.closest('[hidden]') && h.closest('[hidden]').id]; }"""
            ),
        )
        raise


def box(page: Page, testid: str) -> FloatRect:
    b = by(page, testid).bounding_box()
    assert b is not None, f"{testid} is not rendered"
    return b


def on_screen(page: Page, testid: str) -> None:
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    b = box(page, testid)
    assert b["x"] >= 0, (testid, b)
    assert b["y"] >= 0, (testid, b)
    assert b["x"] + b["width"] <= vw + 0.5, (testid, b, vw)
    assert b["y"] + b["height"] <= vh + 0.5, (testid, b, vh)


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width  # type: ignore[index]


# ------------------------------------------------------------------------ the 6-seat table


@pytest.mark.parametrize(
    "size", [(1280, 800), (375, 667), (360, 640)], ids=["desktop", "375", "360"]
)
def test_t7_a_six_seat_table_fits_and_names_are_text(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    width, height = size
    phone = width < 600
    with table_page(browser, server_url, width, height, replay="fast") as page:
        set_seats(page, SIX)
        expect(by(page, "add-seat")).to_be_disabled()  # 6 is the most (from /api/config)
        by(page, "start-table").click()
        expect(by(page, "roll")).to_be_enabled()
        assert turn_name(page) == "妈妈"
        expect(by(page, "turn")).to_have_attribute("aria-live", "polite")
        no_sideways_scroll(page)
        standings = by(page, "standings")
        expect(standings.locator("button")).to_have_count(6)
        # The hostile name is those characters, never an element.
        heads = page.locator("#scorecard-upper thead th.col-head")
        expect(heads.nth(1)).to_have_text(HOSTILE)
        assert page.locator(".scorecard thead b, .seat-strip b").count() == 0
        by(page, "roll").click()
        expect(by(page, "rolls-left")).to_contain_text("剩余 2 次")
        for testid in ["roll", "standings", *(f"die-{i}" for i in range(5))]:
            on_screen(page, testid)
        for c in CATEGORIES:  # the current seat's 13 boxes, without scrolling
            on_screen(page, f"cell-0-{c}")
        if phone:
            # One seat's card at a time; a tap on a seat in the strip shows its card.
            expect(by(page, "cell-1-ones")).to_be_hidden()
            by(page, "standing-1").click()
            expect(by(page, "cell-1-ones")).to_be_visible()
            expect(by(page, "cell-0-ones")).to_be_hidden()
            expect(by(page, "standing-1")).to_have_attribute("aria-pressed", "true")
            by(page, "standing-0").click()
        else:
            for i in range(6):  # every seat's column, side by side, inside the window
                on_screen(page, f"cell-{i}-chance")
                on_screen(page, f"total-{i}")
        no_sideways_scroll(page)
        # 妈妈 writes a box; the next seat is a person: the handover screen, one tap.
        write_box(page)
        handover = by(page, "handover")
        expect(handover).to_be_visible()
        expect(handover.locator("h2")).to_have_text(f"轮到 {HOSTILE} 了")
        expect(by(page, "handover-go")).to_be_focused()
        on_screen(page, "handover-go")
        go(page)
        expect(handover).to_be_hidden()
        expect(by(page, "roll")).to_be_enabled()
        assert turn_name(page) == HOSTILE
        # After her, the 高手 computer plays on its own, then 小明 (a handover again).
        play_turn(page)
        expect(handover).to_be_visible()
        expect(handover.locator("h2")).to_have_text("轮到 小明 了")
        # The computer's column now has one box written.
        assert (
            page.locator(
                "#scorecard-upper [data-seat='2'].filled, #scorecard-lower [data-seat='2'].filled"
            ).count()
            == 1
        )


def test_t7_editor_reorders_removes_shuffles_and_remembers_the_last_table(
    browser: Browser, server_url: str
) -> None:
    with table_page(browser, server_url, allow=("/api/games",)) as page:
        set_seats(page, [("human", "甲"), ("human", "乙"), ("computer", "intermediate")])
        by(page, "seat-down-0").click()
        expect(by(page, "seat-name-1")).to_have_value("甲")
        expect(by(page, "seat-name-0")).to_have_value("乙")
        by(page, "seat-up-2").click()
        expect(by(page, "seat-level-1")).to_have_value("intermediate")
        by(page, "shuffle-seats").click()
        names = sorted(page.locator(".seat-name").evaluate_all("(xs) => xs.map((x) => x.value)"))
        assert names == ["乙", "甲"]
        assert page.locator(".seat-level").count() == 1
        by(page, "remove-seat-2").click()
        expect(page.locator(".seat-row")).to_have_count(2)
        expect(by(page, "remove-seat-0")).to_be_disabled()  # 2 is the least
        # Two equal names: the server's 422 invalid_seats, said as it words it.
        by(page, "seat-kind-0").select_option("human")
        by(page, "seat-kind-1").select_option("human")
        by(page, "seat-name-0").fill("丙")
        by(page, "seat-name-1").fill("丙")
        by(page, "start-table").click()
        expect(by(page, "message")).to_contain_text("重名")
        by(page, "seat-name-1").fill("丁")
        by(page, "start-table").click()
        expect(by(page, "roll")).to_be_visible()
        page.goto(server_url + "/table/new")
        expect(by(page, "seat-name-0")).to_have_value("丙")
        expect(by(page, "seat-name-1")).to_have_value("丁")


def test_t7_computers_replayed_step_by_step_skip_and_no_handover_when_off(
    browser: Browser, server_url: str
) -> None:
    with table_page(browser, server_url, replay="slow", handover="off") as page:
        start(
            page, [("human", "甲"), ("computer", "expert"), ("computer", "novice"), ("human", "乙")]
        )
        play_turn(page)
        skip = by(page, "skip-replay")
        expect(skip).to_be_visible()
        expect(by(page, "rolls-left")).to_have_text("电脑回合")
        expect(by(page, "turn")).to_contain_text("正在打")
        by(page, "die-0").wait_for()
        skip.click()
        expect(skip).to_be_hidden()
        expect(by(page, "handover")).to_be_hidden()
        expect(by(page, "turn")).to_have_text("轮到 乙 了")
        expect(by(page, "roll")).to_be_enabled()
        for seat in (1, 2):
            assert int(by(page, f"total-{seat}").inner_text()) >= 0


def test_t7_computers_first_then_two_people_in_a_row(browser: Browser, server_url: str) -> None:
    with table_page(browser, server_url, replay="skip") as page:
        start(page, [("computer", "novice"), ("human", "甲"), ("human", "乙")])
        # The computer has played its first turn before 甲's; no handover for the first person.
        expect(by(page, "handover")).to_be_hidden()
        assert turn_name(page) == "甲"
        assert page.locator(".scorecard [data-seat='0'].filled").count() == 1
        # T5 in the standings (the meter is shown by default): each seat's chance of first
        # place, the server's figures, which sum to 100% up to rounding.
        chances = page.locator(".seat-chance")
        for i in range(3):
            expect(chances.nth(i)).to_have_text(re.compile(r"^\d+%$"), timeout=30_000)
        total = sum(int(t.removesuffix("%")) for t in chances.all_inner_texts())
        assert 98 <= total <= 102, total
        expect(page.locator(".chance-note")).to_contain_text("得第一的机会")  # U13
        play_turn(page)
        expect(by(page, "handover")).to_be_visible()  # 甲 then 乙: two people in a row
        # U13: the handover says what 甲 just wrote before it covers the table
        expect(by(page, "handover-last")).to_have_text(re.compile(r"^甲 刚在「.+」登记了 \d+ 分"))
        expect(by(page, "handover-go")).to_have_text("我是 乙，开始")
        # A reload at the start of 乙's turn shows the handover again (the device may have
        # changed hands); after the tap, 乙 rolls.
        page.reload()
        expect(by(page, "handover-go")).to_have_text("我是 乙，开始")
        expect(by(page, "handover-go")).to_be_focused()
        go(page)
        expect(by(page, "roll")).to_be_enabled()


def test_t3_reload_and_continue_mid_turn_of_the_third_seat(
    browser: Browser, server_url: str
) -> None:
    with table_page(browser, server_url, handover="off") as page:
        start(page, [("human", "甲"), ("human", "乙"), ("human", "丙")])
        play_turn(page)
        play_turn(page)
        assert turn_name(page) == "丙"
        by(page, "roll").click()
        expect(by(page, "rolls-left")).to_contain_text("剩余 2 次")
        dice = [by(page, f"die-{i}").get_attribute("data-value") for i in range(5)]
        by(page, "die-0").click()
        by(page, "die-3").click()
        expect(by(page, "die-3")).to_have_attribute("aria-pressed", "true")
        page.reload()
        expect(by(page, "roll")).to_be_enabled()
        assert turn_name(page) == "丙"
        assert [by(page, f"die-{i}").get_attribute("data-value") for i in range(5)] == dice
        expect(by(page, "rolls-left")).to_contain_text("剩余 2 次")
        pressed = [by(page, f"die-{i}").get_attribute("aria-pressed") for i in range(5)]
        assert pressed == ["true", "false", "false", "true", "false"]
        by(page, "lobby").click()
        expect(by(page, "continue")).to_be_enabled()
        expect(page.locator("#continue-summary")).to_contain_text("多人同屏")
        by(page, "continue").click()
        expect(by(page, "roll")).to_be_enabled()
        assert [by(page, f"die-{i}").get_attribute("data-value") for i in range(5)] == dice
        assert turn_name(page) == "丙"
        # 重新开始 with the same seats: asks once a box is written, then round 1 again.
        by(page, "restart").click()
        by(page, "confirm-yes").click()
        expect(by(page, "turn")).to_have_text("轮到 甲 了")
        expect(by(page, "round")).to_have_text("第 1 / 13 回合")
        expect(by(page, "die-0")).to_have_attribute("data-value", "")
        expect(by(page, "standings").locator("button")).to_have_count(3)


def test_t4_t6_end_panel_ranking_review_seat_switcher_and_recent_games(
    browser: Browser, server_url: str
) -> None:
    with table_page(browser, server_url, handover="off", replay="skip") as page:
        start(page, [("human", "甲"), ("human", "乙")])
        for _ in range(26):
            play_turn(page)
        ranking = by(page, "ranking")
        expect(ranking).to_be_visible()
        expect(ranking.locator("li")).to_have_count(2)
        places = ranking.locator(".tb-place-no").all_inner_texts()
        assert places[0] == "第 1 名"
        assert places[1] in ("第 1 名", "第 2 名")
        totals = [
            int(t.removesuffix(" 分")) for t in ranking.locator(".tb-place-total").all_inner_texts()
        ]
        assert totals[0] >= totals[1]
        breakdown = by(page, "table-breakdown")
        expect(breakdown).to_contain_text("上区小计")
        expect(breakdown.locator("tr.total-row td").first).to_have_text(str(totals[0]))
        by(page, "table-review").click()
        pick = by(page, "review-seat")
        expect(pick).to_be_visible(timeout=90_000)  # the first review is computed now
        expect(page.locator(".rv-intro")).to_contain_text("甲")
        pick.select_option(label="乙")
        expect(page.locator(".rv-intro")).to_contain_text("乙 第", timeout=30_000)
        assert "seat=1" in page.url
        by(page, "review-back").click()
        recent = page.locator(".recent-item").first
        expect(recent.locator(".recent-result")).to_have_text("多人")
        expect(recent).to_contain_text("多人同屏 · 2 人 · 第 1 名")
        by(page, "stats-link").click()  # 统计: table games apart, per person name
        expect(by(page, "stats-table")).to_contain_text("甲", timeout=30_000)
        expect(by(page, "stats-table")).to_contain_text("乙")


def test_t7_axe_on_a_six_seat_editor_table_handover_and_replay(
    browser: Browser, server_url: str
) -> None:
    """axe on what only six seats show (the end panel and the review: the next test)."""
    failures: list[str] = []
    for width, height in ((1280, 800), (375, 667)):
        with table_page(browser, server_url, width, height, replay="slow") as page:
            set_seats(page, SIX)
            check_view(page, f"editor {width}", failures, contrast=False)
            by(page, "start-table").click()
            by(page, "roll").click()
            expect(by(page, "rolls-left")).to_contain_text("剩余 2 次")
            check_view(page, f"table {width}", failures, contrast=False)
            write_box(page)
            expect(by(page, "handover")).to_be_visible()
            check_view(page, f"handover {width}", failures, contrast=False)
            go(page)
            play_turn(page)
            expect(by(page, "skip-replay")).to_be_visible()
            check_view(page, f"replay {width}", failures, contrast=False)
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])
def test_t7_the_new_views_pass_axe_and_every_text_reaches_aa_in_both_themes(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    """axe and Polish 1's measure (``tests/e2e/checks.py``) on the editor, the table, the end
    panel and the review with its seat switcher."""
    failures: list[str] = []
    width, height = size
    with table_page(browser, server_url, width, height, replay="skip") as page:
        set_seats(page, [("human", "甲"), ("human", "乙"), ("computer", "novice")])
        check_view(page, "editor", failures)
        by(page, "start-table").click()
        by(page, "roll").click()
        expect(by(page, "rolls-left")).to_contain_text("剩余 2 次")
        check_view(page, "table", failures)
        write_box(page)
        expect(by(page, "handover")).to_be_visible()  # (too few texts to measure: axe above)
        go(page)
        for _ in range(25):
            play_turn(page)
        expect(by(page, "ranking")).to_be_visible()
        check_view(page, "end panel", failures)
        by(page, "table-review").click()
        expect(by(page, "review-seat")).to_be_visible(timeout=90_000)
        check_view(page, "review", failures)
    assert failures == [], "\n".join(failures)
