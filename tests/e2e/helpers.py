"""Drive the game page the way a player does: only through what is on the screen.

Everything is located by the stable ``data-testid`` hooks of issue 4. The helpers read the
previews the page shows (which come from the server) to pick boxes; they never compute a
score themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Error,
    Locator,
    Page,
    expect,
)

from yahtzee.rules import LOWER as RULES_LOWER
from yahtzee.rules import UPPER as RULES_UPPER

UPPER = tuple(c.value for c in RULES_UPPER)
LOWER = tuple(c.value for c in RULES_LOWER)
CATEGORIES = UPPER + LOWER
_NUMBER = re.compile(r"-?\d+")


def seat_of(who: str | int) -> int:
    """A seat's index: ``human`` is a one-person game's seat 0, ``computer`` its seat 1."""
    if isinstance(who, int):
        return who
    return {"human": 0, "computer": 1}[who]


class Table:
    """The game page at ``base_url`` in ``page``."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url

    # -- locators -----------------------------------------------------------------------

    def by(self, testid: str) -> Locator:
        """The element with ``data-testid=testid``."""
        return self.page.get_by_test_id(testid)

    def die(self, i: int) -> Locator:
        """Die ``i`` (0..4)."""
        return self.by(f"die-{i}")

    def cell(self, category: str, who: str | int = "human") -> Locator:
        """The scorecard cell of ``who`` for ``category``: a seat's index, or on a table of
        one person and a computer ``human`` (seat 0) / ``computer`` (seat 1)."""
        return self.by(f"cell-{seat_of(who)}-{category}")

    # -- reading the page ---------------------------------------------------------------

    def dice(self) -> list[int]:
        """The five faces shown (0 for a die not rolled yet)."""
        values = [self.die(i).get_attribute("data-value") or "0" for i in range(5)]
        return [int(v) for v in values]

    def rolls_left(self) -> int:
        """The rolls-left counter (剩余 n 次)."""
        match = _NUMBER.search(self.by("rolls-left").inner_text())
        assert match, self.by("rolls-left").inner_text()
        return int(match.group())

    def round(self) -> int:
        """The round shown in 第 n / 13 回合."""
        match = _NUMBER.search(self.by("round").inner_text())
        assert match
        return int(match.group())

    def hints_left(self) -> int:
        """The number on the 提示 (n) button."""
        match = _NUMBER.search(self.by("hint").inner_text())
        assert match
        return int(match.group())

    def selectable(self) -> list[str]:
        """The categories whose human cell is selectable now, in card order."""
        return list(self.previews())

    def shown_points(self, category: str, who: str = "human") -> int | None:
        """The number shown in a cell (preview or score), ``None`` when empty."""
        match = _NUMBER.search(self.cell(category, who).inner_text())
        return int(match.group()) if match else None

    def previews(self) -> dict[str, int]:
        """The preview points of every selectable cell, in card order.

        Read in one round trip (the tests call this every turn).
        """
        rows: list[list[str]] = self.page.evaluate(
            """() => [...document.querySelectorAll('[data-testid^="cell-"]')]
                .filter((td) => td.dataset.selectable === "true")
                .map((td) => [td.dataset.category, td.innerText])"""
        )
        out: dict[str, int] = {}
        for category, text in rows:
            match = _NUMBER.search(text)
            assert match, f"selectable cell {category} shows no preview: {text!r}"
            out[category] = int(match.group())
        return {c: out[c] for c in CATEGORIES if c in out}

    def total(self, who: str | int = "human") -> int:
        """The 总分 row of ``who`` (as in :meth:`cell`)."""
        return int(self.by(f"total-{seat_of(who)}").inner_text())

    def message(self) -> str:
        """The announcement / error area's text."""
        return self.by("message").inner_text()

    # -- actions ------------------------------------------------------------------------

    def open_lobby(self) -> None:
        """Load the page at / and wait until the records are shown."""
        self.page.goto(self.base_url + "/")
        expect(self.by("start-solo")).to_be_visible()
        # Enabled once the lobby's records are in: the browser has its player cookie, so a
        # request a test makes next is this player's (two first requests would each get an id).
        expect(self.by("start-solo")).to_be_enabled()

    def _start(self, button: str) -> None:
        self.by(button).click()
        # Starting a new game while one is saved asks first (issue 4, lobby).
        dialog = self.by("confirm-dialog")
        if dialog.is_visible():
            self.by("confirm-yes").click()
        # The table is in the page from the start, hidden: wait until it is shown.
        expect(self.by("roll")).to_be_visible()
        expect(self.by("roll")).to_be_enabled()
        expect(self.by("round")).to_have_text("第 1 / 13 回合")

    def start_solo(self) -> None:
        """单人挑战 from the lobby."""
        self._start("start-solo")

    def start_vs(self, difficulty: str = "novice") -> None:
        """人机对战 against ``difficulty`` from the lobby."""
        self.by("difficulty").locator(f'input[value="{difficulty}"]').check()
        self._start("start-vs")

    def roll(self) -> list[int]:
        """Click 掷骰子/再掷 and wait for the new dice."""
        before = self.rolls_left()
        self.by("roll").click()
        expect(self.by("rolls-left")).to_have_text(f"剩余 {before - 1} 次")
        return self.dice()

    def wait_for_my_turn(self, round_: int) -> None:
        """Skip the computer's replay if one runs, then wait for round ``round_`` to start."""
        skip = self.by("skip-replay")
        if skip.is_visible():
            skip.click()
        expect(self.by("round")).to_have_text(f"第 {round_} / 13 回合")
        expect(self.by("rolls-left")).to_have_text("剩余 3 次")

    def score(self, category: str, *, confirm: bool = True) -> None:
        """Click a cell; answer the zero confirmation (U2) with ``confirm`` when it comes.

        The dialog is expected exactly when the cell previews 0 while another selectable
        cell previews more.
        """
        previews = self.previews()
        asks = previews.get(category) == 0 and any(
            p > 0 for c, p in previews.items() if c != category
        )
        self.cell(category).click()
        dialog = self.by("confirm-dialog")
        if not asks:
            return
        expect(dialog).to_be_visible()
        self.by("confirm-yes" if confirm else "confirm-no").click()
        expect(dialog).to_be_hidden()

    def best_box(self) -> str:
        """The selectable box with the highest preview (a simple greedy player)."""
        previews = self.previews()
        assert previews, "no selectable box"
        return max(previews, key=lambda c: previews[c])

    def play_round(self, round_: int, *, rolls: int = 1) -> str:
        """Roll ``rolls`` times, write the best-previewed box; return the box chosen."""
        for _ in range(rolls):
            self.roll()
        box = self.best_box()
        self.score(box, confirm=True)
        expect(self.cell(box)).to_have_attribute("data-selectable", "false")
        if round_ < 13:
            self.wait_for_my_turn(round_ + 1)
        return box

    def play_to_end(self, first_round: int = 1) -> None:
        """Play every remaining round greedily until the end-of-game panel shows."""
        for r in range(first_round, 14):
            self.play_round(r)
        skip = self.by("skip-replay")
        if skip.is_visible():
            skip.click()
        expect(self.by("game-over")).to_be_visible()


class ConsoleWatch:
    """Collects console errors and uncaught exceptions of a page.

    Chromium logs every non-2xx fetch as "Failed to load resource"; tests that provoke an
    error response on purpose add its URL to ``allowed``. Normal play logs none.
    """

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[str] = []

    def on_console(self, msg: ConsoleMessage) -> None:
        if msg.type != "error":
            return
        url = str(msg.location.get("url", ""))
        if msg.text.startswith("Failed to load resource") and any(
            url.split("?")[0].endswith(a) or a in url for a in self.allowed
        ):
            return
        self.errors.append(f"{msg.text} ({url})")

    def on_page_error(self, error: Error) -> None:
        self.errors.append(f"uncaught: {error}")

    def watch(self, page: Page) -> None:
        page.on("console", self.on_console)
        page.on("pageerror", self.on_page_error)


# A test that routes the page's requests (page.route) blocks the service worker: once the worker
# controls the page, the requests it lets through to the network (all of /api/) can bypass
# the page's routes (test_phone_meter's fixed meter read the server's real figure 1 run in 10).
NO_SERVICE_WORKER: dict[str, object] = {"service_workers": "block"}
routes_requests = pytest.mark.browser_context_args(**NO_SERVICE_WORKER)
"""Marks a test on the default ``ui``/``page`` context that routes the page's requests."""


def sized_context(browser: Browser, width: int, height: int, **extra: object) -> BrowserContext:
    """A Chinese-locale context of this viewport; below 600 px wide a touch phone."""
    phone = width < 600
    return browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
        locale="zh-CN",
        **extra,  # type: ignore[arg-type]
    )


@contextmanager
def table_at(
    browser: Browser, server_url: str, width: int, height: int, *, timeout_ms: int
) -> Iterator[Table]:
    """The lobby in a fresh context of this size; on leaving, no console error may have
    been logged."""
    context = sized_context(browser, width, height)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    console = ConsoleWatch()
    console.watch(page)
    ui = Table(page, server_url)
    ui.open_lobby()
    yield ui
    context.close()
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)


# A whole game played through the API from the page (its cookie), quickly: each turn rolls,
# rerolls keeping the 5s and 6s, and writes the first open box the server allows.
_FINISH_JS = """
async ([mode, difficulty, holdSome]) => {
  const post = async (path, body) => {
    // Paced under the server's 20 actions a second per player (a 429 would be logged).
    await new Promise((resolve) => setTimeout(resolve, 60));
    const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                 body: JSON.stringify(body)});
    if (!r.ok) throw new Error(path + " " + r.status + " " + await r.text());
    return r.json();
  };
  const order = ["ones","twos","threes","fours","fives","sixes","three_of_a_kind",
    "four_of_a_kind","full_house","small_straight","large_straight","yahtzee","chance"];
  let g = await post("/api/games", mode === "solo" ? {mode} : {mode, difficulty});
  while (g.status === "in_progress") {
    const none = [false, false, false, false, false];
    g = await post(`/api/games/${g.id}/roll`, {version: g.version, hold: none});
    if (holdSome && g.rolls_left > 0) {
      const six = g.dice.map((d) => d >= 5);
      if (!six.every(Boolean)) {
        g = await post(`/api/games/${g.id}/roll`, {version: g.version, hold: six});
      }
    }
    const boxes = g.players.human.boxes;
    const cat = order.find((c) => boxes[c] === null && g.preview[c].allowed);
    const body = {version: g.version, category: cat, confirm_zero: true};
    g = await post(`/api/games/${g.id}/score`, body);
  }
  return g.id;
}
"""


def finish_game(page: Page, mode: str = "solo", difficulty: str | None = None) -> str:
    """Play a game of ``mode`` to its end for the page's player; its id."""
    game_id: str = page.evaluate(_FINISH_JS, [mode, difficulty, True])
    return game_id
