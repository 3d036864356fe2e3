"""Polish 3 and 4: the scorecard is one grid for both halves, and the desktop live meter has
a place of its own.

3. In solo and vs, at 1280x800 and on 375x667 / 360x640 phones: the upper half's boxes are
   as wide as the lower half's, every row's cells reach its table's right edge (row
   backgrounds full width) and the 你 column has the same edges in both halves (desktop: one
   column down the card; phone, halves side by side: the same place within each half).
4. At 1280x800 the meter lies over nothing and nothing over it — not 本局记录, the message or
   the card — from round 6 on and at the end.

Measured with bounding boxes, never with screenshots.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, FloatRect, Page, expect

from e2e.helpers import Table, table_at

pytestmark = pytest.mark.e2e

SIZES = [(1280, 800), (375, 667), (360, 640)]

# Every row of the card's two halves: its table's left/right edges, the 你 cell's, its box
# button's width, and where the row's last shown cell ends.
GRID_JS = """
() => ["#scorecard-upper", "#scorecard-lower"].map((sel) => {
  const table = document.querySelector(sel);
  const t = table.getBoundingClientRect();
  return {
    left: t.left, right: t.right,
    rows: [...table.tBodies].flatMap((b) => [...b.rows]).map((row) => {
      const shown = [...row.cells].filter((c) => c.getClientRects().length);
      const you = row.querySelector('[data-seat="0"]:not([colspan])');
      const btn = row.querySelector(".cell-btn");
      const y = you && you.getBoundingClientRect();
      return {
        name: row.dataset.category || row.dataset.sum || row.className,
        end: shown[shown.length - 1].getBoundingClientRect().right,
        you: y && [y.left - t.left, y.right - t.left],
        box: btn && btn.getBoundingClientRect().width,
      };
    }),
  };
})
"""

# k turns of the page's player through the API (its cookie), quickly: roll, write the
# first open box allowed; then the page is reloaded on its game.
_PLAY_JS = """
async ([mode, turns]) => {
  const post = async (path, body) => {
    await new Promise((resolve) => setTimeout(resolve, 60)); // under the action limit
    const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                 body: JSON.stringify(body)});
    if (!r.ok) throw new Error(path + " " + r.status + " " + await r.text());
    return r.json();
  };
  let g = await post("/api/games", mode === "solo" ? {mode} : {mode, difficulty: "novice"});
  for (let i = 0; i < turns && g.status === "in_progress"; i++) {
    const none = [false, false, false, false, false];
    g = await post(`/api/games/${g.id}/roll`, {version: g.version, hold: none});
    const cat = Object.keys(g.preview).find((c) => g.preview[c].allowed);
    const body = {version: g.version, category: cat, confirm_zero: true};
    g = await post(`/api/games/${g.id}/score`, body);
  }
  return g.status;
}
"""


def _grid(page: Page) -> list[dict[str, Any]]:
    halves: list[dict[str, Any]] = page.evaluate(GRID_JS)
    return halves


def _assert_one_grid(page: Page, desktop: bool) -> None:
    # The board is drawn into its view a frame before the view shows (one render a frame):
    # its texts are there while nothing of it is laid out yet.
    for table in ("#scorecard-upper", "#scorecard-lower"):
        expect(page.locator(table)).to_be_visible()
    upper, lower = _grid(page)
    for half in (upper, lower):
        for row in half["rows"]:
            # the row's background reaches the card's edge: no cell short of the table's end
            assert abs(row["end"] - half["right"]) <= 1, (row, half["right"])
    you = {tuple(round(x) for x in r["you"]) for h in (upper, lower) for r in h["rows"] if r["you"]}
    if desktop:  # one column down the whole card
        assert abs(upper["left"] - lower["left"]) <= 1
        assert abs(upper["right"] - lower["right"]) <= 1
    lefts = sorted({x for x, _ in you})
    rights = sorted({x for _, x in you})
    assert lefts[-1] - lefts[0] <= 1, you  # the 你 column's edges, in both halves
    assert rights[-1] - rights[0] <= 1, you
    boxes = [r["box"] for h in (upper, lower) for r in h["rows"] if r["box"]]
    assert max(boxes) - min(boxes) <= 1, boxes  # upper boxes as wide as lower ones


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("mode", ["solo", "vs_computer"])
def test_polish3_the_scorecard_is_one_grid(
    browser: Browser, server_url: str, width: int, height: int, mode: str
) -> None:
    with table_at(browser, server_url, width, height, timeout_ms=20_000) as ui:
        ui.page.evaluate(_PLAY_JS, [mode, 2])
        ui.page.goto(f"{server_url}/game")
        expect(ui.by("round")).to_have_text("第 3 / 13 回合")
        _assert_one_grid(ui.page, width >= 600)
        ui.roll()  # previews in the boxes: the same grid
        _assert_one_grid(ui.page, width >= 600)


def _overlaps(a: FloatRect, b: FloatRect) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def _assert_meter_has_its_place(ui: Table) -> None:
    page = ui.page
    meter = ui.by("live-meter")
    expect(meter).to_be_visible()  # (its figure keeps its room whatever it is: not waited for)
    box = meter.bounding_box()
    assert box is not None
    others = {
        "本局记录": "#turn-log-panel",
        "message": ".play-area .message-slot",
        "card": "#scorecard",
        "board": ".felt",
        "computer": "#computer-log",
    }
    for name, selector in others.items():
        other = page.locator(selector)
        if not other.is_visible():
            continue
        rect = other.bounding_box()
        assert rect is not None
        assert not _overlaps(box, rect), (name, box, rect)
    # nothing is laid over it: the element at its middle (viewport coordinates, as the box)
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    inside = page.evaluate(
        "([x, y]) => { const top = document.elementFromPoint(x, y);"
        " return top !== null && document.getElementById('live-meter').contains(top); }",
        [x, y],
    )
    assert inside, box


@pytest.mark.parametrize("mode", ["solo", "vs_computer"])
def test_polish4_the_desktop_meter_has_its_own_place(
    browser: Browser, server_url: str, mode: str
) -> None:
    with table_at(browser, server_url, 1280, 800, timeout_ms=30_000) as ui:
        ui.page.evaluate(_PLAY_JS, [mode, 7])
        ui.page.goto(f"{server_url}/game")
        expect(ui.by("round")).to_have_text("第 8 / 13 回合")
        expect(ui.by("turn-log").locator("li")).not_to_have_count(0)
        ui.by("live-meter").scroll_into_view_if_needed()
        _assert_meter_has_its_place(ui)
        # to the end: the result panel closed, the board as it ended
        ui.play_to_end(8)
        expect(ui.by("game-over")).to_be_visible()
        ui.page.keyboard.press("Escape")
        expect(ui.by("game-over")).to_be_hidden()
        ui.by("live-meter").scroll_into_view_if_needed()
        _assert_meter_has_its_place(ui)
