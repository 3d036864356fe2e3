"""U21: the narrowest phone at the bigger 字号 (大 and 特大). Nothing wraps inside a word or
a control (``wraps.js`` measures each short text's lines) and nothing is drawn over anything
else (``overlaps.js``), the choice of level stays one row, the phone table has no empty band
over its scorecard, and the tablet's dice are big and its screen used. The same walk at the
standard 字号 at every width people have (U15: 1280, 820, 390, 375 and 360 px) runs in every
language: ``test_language_walks.py`` (G4)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.helpers import Table, finish_game, table_at
from e2e.test_seats import set_seats, wait_for_person

pytestmark = pytest.mark.e2e

WRAPS = Path(__file__).with_name("wraps.js").read_text(encoding="utf-8")
OVERLAPS = Path(__file__).with_name("overlaps.js").read_text(encoding="utf-8")
# A label, a header, a badge or a button's words: this many visible characters or fewer
# are one line at every width (「第 1 / 13 回合」, 「技术损失」, 「高手」).
SHORT = 8
# U21: the narrowest phone at 大 and 特大 (every width at the standard 字号, in every
# language, is test_language_walks.py's).
WALKS = [(360, 640, "large"), (360, 640, "xlarge")]
ROOT_SIZE = {"standard": "16px", "large": "18px", "xlarge": "20px"}


def _broken(page: Page, where: str, failures: list[str]) -> None:
    for b in page.evaluate(WRAPS, SHORT):
        failures.append(f"{where}: 「{b['text']}」 in {b['where']} on {b['lines']} lines")
    failures.extend(f"{where}: {o}" for o in page.evaluate(OVERLAPS))


def test_the_wrap_measure_sees_a_word_broken_in_two(browser: Browser) -> None:
    """A header squeezed to one character a line and a level alone on its row are found;
    the same words with room are not: a measure that passes anything proves nothing."""
    with table_at_blank(browser) as page:
        page.set_content(
            """<body><table><tr><th id="a" style="width:1em;font-size:16px">名次</th>
            <th>技术损失</th></tr></table>
            <fieldset style="width:7em"><legend>难度</legend>
            <label><input type="radio" name="l">入门</label>
            <label><input type="radio" name="l">普通</label>
            <label><input type="radio" name="l">高手</label></fieldset>
            <p style="width:5em">这是一句很长的话，可以在任何地方换行。</p></body>"""
        )
        found = page.evaluate(WRAPS, SHORT)
    assert [(f["text"], f["lines"]) for f in found] == [("名次", 2), ("入门 普通 高手", 2)]


class table_at_blank:  # noqa: N801 - a context manager read as a phrase
    """A blank 800×600 page of its own context."""

    def __init__(self, browser: Browser) -> None:
        self.context = browser.new_context(viewport={"width": 800, "height": 600})

    def __enter__(self) -> Page:
        return self.context.new_page()

    def __exit__(self, *exc: object) -> None:
        self.context.close()


@pytest.mark.parametrize(
    ("width", "height", "text"),
    WALKS,
    ids=[f"{w}-{t}" for w, _, t in WALKS],
)
def test_u15_u21_nothing_wraps_inside_a_word_or_overlaps_at_any_width_and_text_size(
    browser: Browser, server_url: str, width: int, height: int, text: str
) -> None:
    """The lobby (fresh, and with a saved game to continue), the settings, a vs table after
    a roll, 统计 and 复盘 of a finished game, 规则, 练习, 每日挑战, 小组 and the room form."""
    failures: list[str] = []
    with table_at(browser, server_url, width, height, timeout_ms=30_000) as ui:
        page = ui.page
        settings = {"replay": "skip", "text": text}
        page.evaluate(
            "(s) => localStorage.setItem('yahtzee.settings', JSON.stringify(s))", settings
        )
        ui.open_lobby()
        root = "() => getComputedStyle(document.documentElement).fontSize"
        assert page.evaluate(root) == ROOT_SIZE[text]  # the walk is at the 字号 it names
        _broken(page, "lobby", failures)
        game = finish_game(page, "solo")
        ui.by("settings-open").click()
        expect(ui.by("settings-dialog")).to_be_visible()
        _broken(page, "settings", failures)
        ui.by("settings-close").click()
        ui.start_vs("novice")
        ui.roll()
        _broken(page, "vs table", failures)
        ui.score(ui.best_box())
        ui.wait_for_my_turn(2)
        ui.by("lobby").click()
        expect(ui.by("continue")).to_be_visible()
        _broken(page, "lobby with a saved game", failures)
        page.goto(f"{server_url}/stats")
        expect(ui.by("stats-boxes")).to_be_visible()
        _broken(page, "stats", failures)
        page.goto(f"{server_url}/review/{game}")
        expect(ui.by("review-accuracy")).to_be_visible()
        _broken(page, "review", failures)
        page.goto(f"{server_url}/rules")
        expect(page.locator("#rules-faq")).to_be_visible()
        _broken(page, "rules", failures)
        page.goto(f"{server_url}/practice")
        expect(ui.by("puzzle")).to_be_visible()
        _broken(page, "practice", failures)
        page.goto(f"{server_url}/daily")
        expect(ui.by("start-daily")).to_be_visible()
        _broken(page, "daily", failures)
        page.goto(f"{server_url}/groups")
        expect(ui.by("create-group")).to_be_visible()
        _broken(page, "groups", failures)
        page.goto(f"{server_url}/rooms/new")
        expect(ui.by("create-room")).to_be_visible()
        # U16: the turn's seconds say what they mean, in one line a child can read.
        expect(ui.by("room-turn-note")).to_contain_text("时间到了")
        expect(ui.by("room-turn-seconds")).to_have_attribute("aria-describedby", "rm-turn-note")
        _broken(page, "room form", failures)
    assert failures == [], "\n".join(failures)


def test_u15_the_tablet_uses_its_screen(browser: Browser, server_url: str) -> None:
    """At 820×1180 (a tablet held upright) the dice are at least 72 px, in the solo game and
    in 多人同屏, and the table reaches the screen's bottom third."""
    with table_at(browser, server_url, 820, 1180, timeout_ms=20_000) as ui:
        page = ui.page
        set_seats(page, [("human", "甲"), ("human", "乙")])
        ui.by("start-table").click()
        wait_for_person(page)
        ui.by("roll").click()
        expect(ui.by("rolls-left")).to_contain_text("剩余 2 次")
        dice = page.evaluate(
            """() => [...document.querySelectorAll('.table-view .die')]
                .map((d) => d.offsetWidth)"""
        )
        assert len(dice) == 5, dice
        assert min(dice) >= 72, dice
        bottom = page.evaluate(
            "() => document.querySelector('.table-view').getBoundingClientRect().bottom"
        )
        assert bottom >= 1180 * 2 / 3, bottom
        ui.open_lobby()
        ui.start_solo()
        ui.roll()
        size = ui.die(0).evaluate("(d) => d.offsetWidth")  # its size, not a tumble's frame
        assert size >= 72, size


@pytest.mark.parametrize("size", [(390, 844), (375, 667), (360, 640)], ids=str)
def test_u15_no_empty_band_over_the_phone_scorecard(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    """P1's one-screen table on a phone: the scorecard follows the message; the room a
    taller phone has left goes to the card's rows, not to a band of wood above them."""
    with table_at(browser, server_url, *size, timeout_ms=20_000) as ui:
        page = ui.page
        page.evaluate("() => localStorage.setItem('yahtzee.settings', '{\"replay\":\"skip\"}')")
        ui.start_vs("novice")
        ui.roll()
        gap = page.evaluate(
            """() => document.querySelector('#view-game .card-area').getBoundingClientRect().top
                   - document.getElementById('message').getBoundingClientRect().bottom"""
        )
        assert gap <= 12, gap
        below = page.evaluate(
            """() => innerHeight - document.querySelector('#view-game .card-area')
                                     .getBoundingClientRect().bottom"""
        )
        assert below <= 24, below  # nor a band under the card: the screen is used


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_u16_a_yahtzee_and_a_new_record_are_celebrated(
    browser: Browser, joker_server_url: str, motion: Literal["no-preference", "reduce"]
) -> None:
    """Five 3s every roll: the 快艇 at 50, then a 快艇 bonus each turn, and a first solo game
    is a 新纪录. Each gets its short celebration over the table, gone by itself; with
    减少动态效果 the word alone, nothing flying. A first visit never loads it."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, locale="zh-CN", reduced_motion=motion
    )
    context.add_init_script("localStorage.setItem('yahtzee.settings', '{\"replay\":\"skip\"}')")
    page = context.new_page()
    page.set_default_timeout(15_000)
    loaded: list[str] = []
    page.on("request", lambda r: loaded.append(r.url))
    ui = Table(page, joker_server_url)
    ui.open_lobby()
    assert not any("celebrate" in url for url in loaded), loaded
    party = ui.by("celebration")
    ui.start_solo()
    assert ui.roll() == [3, 3, 3, 3, 3]
    ui.score("yahtzee")
    expect(party).to_be_visible()
    expect(party).to_contain_text("快艇！")
    pieces = party.locator(".celebration-piece")
    if motion == "reduce":
        expect(pieces).to_have_count(0)
    else:
        expect(pieces).not_to_have_count(0)
    expect(party).to_be_hidden(timeout=4_000)  # short, and gone by itself
    for r in range(2, 14):
        ui.roll()
        ui.score(ui.best_box())
        if r < 13:
            ui.wait_for_my_turn(r + 1)
    expect(ui.by("game-over")).to_be_visible()
    expect(ui.by("new-record")).to_be_visible()
    expect(party).to_contain_text("新纪录！")
    expect(party).to_be_hidden(timeout=4_000)
    context.close()
