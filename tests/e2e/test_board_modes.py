"""A1/A4: the board's browser tests written once, run for each mode on its one board —
单人挑战, 人机对战, 每日挑战, the 新手教程, 多人同屏 and 好友房间 (two browsers) — on a desktop
(1280×800, light) and a phone (390×844, dark). What every mode gets from the board (U17,
U19, U21): every row of the card in every seat's column, the whole card on the screen after
a roll, each box's rule and each sum's meaning one tap away, 预计终局 with its 「?」 on every
size, 规则 in the top bar, 本局记录 with the box just written and the same words after a
roll and a write.

Layout is asserted with bounding boxes against the viewport, never with screenshots.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from e2e.helpers import CATEGORIES, ConsoleWatch, sized_context

pytestmark = pytest.mark.e2e

MODES = ["solo", "vs", "daily", "tutorial", "table", "room"]
SIZES = {"desktop": (1280, 800, "light"), "phone": (390, 844, "dark")}
SUMS = ("upper-subtotal", "upper-progress", "upper-bonus", "yahtzee-bonus", "total")


@dataclass
class Board:
    """A board shown in ``page``: ``seats`` columns, this page plays seat ``mine`` (the
    one whose turn it is now); ``writes``: whether the test may write a box (the tutorial
    holds its boxes for its steps)."""

    page: Page
    seats: int
    mine: int
    writes: bool = True


def _page(context: BrowserContext, console: ConsoleWatch) -> Page:
    page = context.new_page()
    page.set_default_timeout(20_000)
    console.watch(page)
    return page


def _lobby(page: Page, url: str) -> None:
    page.goto(url + "/")
    expect(page.get_by_test_id("start-solo")).to_be_enabled()


def _start(page: Page, button: str) -> None:
    page.get_by_test_id(button).click()
    expect(page.get_by_test_id("roll")).to_be_enabled()


def _open(mode: str, new: Callable[[], Page], url: str) -> Board:
    """The board of ``mode`` opened from the lobby, on this page's turn."""
    page = new()
    _lobby(page, url)
    if mode in ("solo", "vs", "tutorial"):
        page.get_by_test_id("difficulty").locator('input[value="novice"]').check()
        _start(page, {"solo": "start-solo", "vs": "start-vs", "tutorial": "start-tutorial"}[mode])
        return Board(page, 2 if mode == "vs" else 1, 0, writes=mode != "tutorial")
    if mode == "daily":
        page.get_by_test_id("daily-link").click()
        expect(page.get_by_test_id("start-daily")).to_be_visible()
        name = page.locator("#dl-name")
        if name.count():
            name.fill("小红")
        _start(page, "start-daily")
        return Board(page, 1, 0)
    if mode == "table":
        page.get_by_test_id("open-table").click()
        page.get_by_test_id("add-seat").click()
        page.get_by_test_id("seat-kind-2").select_option("computer")
        page.get_by_test_id("start-table").click()
        expect(page.get_by_test_id("roll")).to_be_enabled()
        return Board(page, 3, 0)
    # 好友房间: the host creates, a friend opens the host's address bar (U17: a friend can
    # open it) and joins; the host plays.
    page.get_by_test_id("rooms-link").click()
    page.get_by_test_id("room-your-name").fill("房主")
    page.get_by_test_id("room-computers").select_option("1")
    page.get_by_test_id("create-room").click()
    expect(page.get_by_test_id("invite-link")).to_have_value(re.compile("#t="))
    assert re.search(r"/rooms/[0-9a-f]{16}#t=[A-Za-z0-9_-]{22}$", page.url), page.url
    friend = new()
    friend.goto(page.url)
    friend.get_by_test_id("join-name").fill("小明")
    friend.get_by_test_id("join-room").click()
    expect(page.get_by_test_id("room-seat-1")).to_contain_text("小明")
    page.get_by_test_id("start-room").click()
    expect(page.get_by_test_id("roll")).to_be_enabled()
    expect(friend.get_by_test_id("turn")).to_have_text("轮到 房主 了")
    return Board(page, 3, 0)


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int, str]:
    return SIZES[request.param]


@pytest.fixture
def opened(
    browser: Browser, server_url: str, size: tuple[int, int, str]
) -> Iterator[Callable[[str], Board]]:
    """``opened(mode)``: its board, in fresh contexts of this size and theme; no console
    error may be logged on any of them."""
    width, height, theme = size
    console = ConsoleWatch()
    with ExitStack() as stack:

        def new() -> Page:
            context = sized_context(browser, width, height, color_scheme=theme)
            stack.callback(context.close)
            return _page(context, console)

        yield lambda mode: _open(mode, new, server_url)
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)


def _on_screen(page: Page, testid: str) -> None:
    vw, vh = _viewport(page)
    b = page.get_by_test_id(testid).bounding_box()
    assert b is not None, f"{testid} is not rendered"
    assert b["x"] >= 0, f"{testid} is off the screen: {b}"
    assert b["y"] >= 0, f"{testid} is off the screen: {b}"
    assert b["x"] + b["width"] <= vw + 0.5, f"{testid} is off the screen: {b}"
    assert b["y"] + b["height"] <= vh + 0.5, f"{testid} is off the screen: {b}"


def _viewport(page: Page) -> tuple[int, int]:
    size = page.viewport_size
    assert size is not None
    return size["width"], size["height"]


@pytest.mark.parametrize("mode", MODES)
def test_a1_u17_u19_u21_the_board_of_every_mode(opened: Callable[[str], Board], mode: str) -> None:
    board = opened(mode)
    page, me = board.page, board.mine
    width, height = _viewport(page)
    phone = width < 600

    # U17: every row of the solo card in every seat's column.
    for seat in range(board.seats):
        for c in CATEGORIES:
            expect(page.get_by_test_id(f"cell-{seat}-{c}")).to_have_count(1)
        for row in SUMS:
            expect(page.get_by_test_id(f"{row}-{seat}")).to_have_count(1)
    expect(page.get_by_test_id(f"total-{me}")).to_have_text("0")
    expect(page.get_by_test_id(f"upper-progress-{me}")).to_contain_text("0/63")

    # A roll: the same words in every mode, the previews in the seat's own column, and
    # the whole card on one screen (P1; U17: 1280×800 shows the whole card after a roll).
    page.get_by_test_id("roll").click()
    expect(page.get_by_test_id("rolls-left")).to_have_text("剩余 2 次")
    dice = "、".join(
        page.get_by_test_id(f"die-{i}").get_attribute("data-value") or "" for i in range(5)
    )
    words = "你" if board.seats == 1 or mode in ("vs", "room") else "玩家1 "
    expect(page.get_by_test_id("message")).to_contain_text(f"{words}掷出了 {dice}。")
    expect(
        page.locator(f'[data-testid^="cell-{me}-"][data-selectable="true"]').first
    ).to_be_visible()
    for testid in ["roll", "die-4", f"total-{me}", *(f"cell-{me}-{c}" for c in CATEGORIES)]:
        _on_screen(page, testid)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width

    # U19: a box's rule and score, a sum's meaning, one tap away, on the screen (the
    # tutorial's box covers the foot of a phone's card: a box of the upper half there).
    covered = mode == "tutorial" and phone
    name, rule = (
        ("sixes", r"^六点：只算点数是 6 的骰子")
        if covered
        else ("full_house", r"^葫芦：三颗一样加另一对.*记 25 分。$")
    )
    page.get_by_test_id(f"box-help-{name}").click()
    pop = page.locator(f'[data-box="{name}"] .term-pop')
    expect(pop).to_have_text(re.compile(rule))
    box = pop.bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= height, box
    pop.click()  # a tap on the words closes them
    expect(pop).to_be_hidden()
    if not covered:
        page.get_by_test_id("box-help-total").click()
        total = page.locator('[data-box="total"] .term-pop')
        expect(total).to_contain_text("上区小计 + 上区奖励")
        total.click()
    # U19: 预计终局 with its 「?」 on every size; U17, U21: 规则 in the top bar.
    meter = page.get_by_test_id("live-meter-text")
    expect(meter).to_have_text(re.compile(r"\d"))
    term = page.locator('#live-meter [data-testid^="term-"]')
    expect(term).to_be_visible()
    if not covered:
        term.click()
        meaning = page.locator("#live-meter .term-pop")
        expect(meaning).to_contain_text("：")
        meaning.click()
        expect(meaning).to_be_hidden()
    expect(page.get_by_test_id("rules-link-game")).to_have_attribute("href", "/rules")
    if board.seats > 1:
        expect(page.get_by_test_id("standings") if board.seats > 2 else meter).to_be_visible()

    if not board.writes:
        return
    # A write: 「…把 … 登记在…」, as in solo; 本局记录 has it (U17, U21).
    chance = page.get_by_test_id(f"cell-{me}-chance")
    points = re.search(r"\d+", chance.inner_text())
    assert points, chance.inner_text()
    chance.locator("button").click()
    if mode != "vs":  # (in vs the computer's turn is said right after)
        expect(page.get_by_test_id("message")).to_contain_text(
            f"登记在「机会」，得 {points[0]} 分。"
        )
    expect(chance).to_have_attribute("data-selectable", "false")
    handover = page.get_by_test_id("handover")  # (多人同屏: the next person's turn)
    if handover.count():
        expect(handover).to_be_visible()
        page.get_by_test_id("handover-go").click()
    if phone:
        page.get_by_test_id("turn-log-toggle").click()
    log = page.get_by_test_id("turn-log").locator("li").last
    expect(log).to_contain_text("机会")
    expect(log).to_contain_text(f"{points[0]} 分")
