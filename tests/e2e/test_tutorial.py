"""新手教程 in the browser (L10): a new browser is offered it; the guided game plays through
on the server's fixed dice with each step highlighted on the real table (desktop 1280x800
and phone 375x667); other game controls wait while a step is shown; skip at any step,
reopen from the lobby, pick up after a reload; it never shows in the records; axe clean."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Locator, expect

from e2e.checks import serious_axe as _serious
from e2e.helpers import ConsoleWatch, Table, sized_context

pytestmark = pytest.mark.e2e

TARGET = re.compile(r"\btutorial-target\b")
OFFER = re.compile(r"\boffer\b")


def _at_step(ui: Table, n: int, words: str) -> None:
    step = ui.by("tutorial-step")
    expect(step).to_be_visible()
    expect(step).to_contain_text(f"第 {n} / 11 步")
    expect(step).to_contain_text(words)


def _not_in_view_of_the_box(ui: Table, testid: str, target: Locator | None = None) -> None:
    """The step's box never covers what the step points at (or ``target``)."""
    box = ui.by("tutorial-step").bounding_box()
    where = (target or ui.by(testid)).bounding_box()
    assert box is not None
    assert where is not None
    overlap = not (
        where["y"] + where["height"] <= box["y"] or box["y"] + box["height"] <= where["y"]
    ) and not (where["x"] + where["width"] <= box["x"] or box["x"] + box["width"] <= where["x"])
    assert not overlap, (testid, box, where)


# Each ringed die's ring at its widest (the pulse's middle), against every other die, by
# their places in the row (offsets: a die still tumbling from the roll is not moved).
RINGS_JS = """
() => {
  const place = (d) => ({ left: d.offsetLeft, top: d.offsetTop, right: d.offsetLeft + d.offsetWidth,
                          bottom: d.offsetTop + d.offsetHeight });
  const dice = [...document.querySelectorAll('[data-testid^="die-"]')];
  const hits = [];
  for (const die of dice.filter((d) => d.classList.contains("tutorial-target"))) {
    for (const a of die.getAnimations()) {
      a.pause();
      a.currentTime = a.effect.getTiming().duration / 2;
    }
    const s = getComputedStyle(die);
    const out = Math.max(0, parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth));
    const r = place(die);
    for (const other of dice) {
      if (other === die) continue;
      const o = place(other);
      const across = r.left - out < o.right && o.left < r.right + out;
      if (across && r.top - out < o.bottom && o.top < r.bottom + out) {
        hits.push(`${die.dataset.testid} over ${other.dataset.testid} (${out}px)`);
      }
    }
    for (const a of die.getAnimations()) a.play();
  }
  return hits;
}
"""


def _rings_clear_of_the_other_dice(ui: Table) -> None:
    """U15: the ring around a die the step points at never lies over the next die."""
    hits = ui.page.evaluate(RINGS_JS)
    assert hits == [], hits


def _log_in_view(ui: Table) -> None:
    """U15: where 本局记录 shows beside the dice (not a phone's sheet), the box leaves it seen."""
    log = ui.page.locator("#turn-log-panel")
    if log.is_visible():
        _not_in_view_of_the_box(ui, "本局记录", log)


def _roll(ui: Table, left: int) -> None:
    ui.by("roll").click()
    expect(ui.by("rolls-left")).to_have_text(f"剩余 {left} 次")


def play_the_tutorial(ui: Table) -> list[str]:
    """Follow every step as a child would; returns the serious axe findings on the way."""
    page = ui.page
    _at_step(ui, 1, "掷骰子")
    expect(ui.by("roll")).to_have_class(TARGET)
    _not_in_view_of_the_box(ui, "roll")
    _log_in_view(ui)
    failures = _serious(page)
    _roll(ui, 2)
    assert ui.dice() == [6, 2, 6, 3, 6]  # the server's fixed dice
    _at_step(ui, 2, "三个 6")
    for i in (0, 2, 4):
        expect(ui.die(i)).to_have_class(TARGET)
    expect(ui.die(1)).not_to_have_class(TARGET)
    _rings_clear_of_the_other_dice(ui)
    _log_in_view(ui)
    # While the step waits for the holds, the other controls do nothing.
    ui.by("roll").click()
    ui.die(1).click()
    expect(ui.die(1)).to_have_attribute("aria-pressed", "false")
    assert ui.rolls_left() == 2
    for i in (0, 2, 4):
        ui.die(i).click()
    _at_step(ui, 3, "再掷")
    _roll(ui, 1)
    _roll(ui, 0)
    assert ui.dice() == [6, 6, 6, 5, 6]
    _at_step(ui, 4, "+N")
    expect(ui.cell("sixes")).to_have_class(TARGET)
    expect(ui.cell("sixes")).to_contain_text("+24")
    _not_in_view_of_the_box(ui, "cell-0-sixes")
    ui.cell("chance").click()  # not this step's box: nothing is written
    ui.cell("sixes").click()
    expect(ui.cell("sixes")).to_have_text("24")
    assert ui.shown_points("chance") is None  # chance stayed open
    _at_step(ui, 5, "63")
    expect(ui.by("upper-progress-0")).to_have_class(TARGET)
    failures += _serious(page)
    ui.by("tutorial-next").click()
    _at_step(ui, 6, "第 2 回合")
    _roll(ui, 2)
    assert ui.dice() == [2, 3, 4, 5, 5]
    _at_step(ui, 7, "提示")
    expect(ui.by("hint")).to_have_class(TARGET)
    ui.by("hint").click()
    expect(ui.by("hint")).to_contain_text("2")
    _at_step(ui, 8, "金色")
    expect(ui.die(3)).to_have_class(re.compile(r"\bhint\b"))
    expect(ui.die(4)).to_have_attribute("aria-pressed", "false")
    _roll(ui, 1)
    assert ui.dice() == [2, 3, 4, 5, 6]
    _at_step(ui, 9, "再想想")
    expect(ui.cell("yahtzee")).to_contain_text("+0")
    ui.cell("yahtzee").click()
    dialog = ui.by("confirm-dialog")
    expect(dialog).to_be_visible()
    expect(ui.by("tutorial-step")).to_be_visible()  # still readable behind the dialog
    failures += _serious(page)
    ui.by("confirm-no").click()
    expect(dialog).to_be_hidden()
    _at_step(ui, 10, "大顺")
    expect(ui.cell("yahtzee")).to_contain_text("+0")  # nothing was written
    ui.cell("large_straight").click()
    expect(ui.cell("large_straight")).to_have_text("40")
    _at_step(ui, 11, "教程完成")
    expect(ui.by("tutorial-next")).to_have_text("开始单人挑战")
    failures += _serious(page)
    return failures


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])
def test_l10_the_tutorial_plays_through(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    context = sized_context(browser, *size)
    page = context.new_page()
    page.set_default_timeout(10_000)
    console = ConsoleWatch()
    console.watch(page)
    ui = Table(page, server_url)
    ui.open_lobby()
    panel = page.locator("#tutorial-panel")
    expect(panel).to_have_class(OFFER)  # a new browser is offered it
    expect(ui.by("tutorial-offer-dismiss")).to_be_visible()
    failures = _serious(page)
    ui.by("start-tutorial").click()
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    failures += play_the_tutorial(ui)
    # Finished: 开始单人挑战 starts a real game (the tutorial is replaced without asking).
    ui.by("tutorial-next").click()
    expect(ui.by("tutorial-step")).to_be_hidden()
    expect(ui.by("round")).to_have_text("第 1 / 13 回合")
    expect(page.locator("#mode-badge")).to_have_text("单人挑战")
    ui.by("lobby").click()
    expect(panel).not_to_have_class(OFFER)  # offered once
    expect(ui.by("best-score")).to_have_text("—")
    assert page.locator("#recent-list li").count() == 0
    assert not failures, failures
    assert not console.errors, console.errors
    context.close()


def test_l10_skip_reopen_and_pick_up_after_a_reload(ui: Table) -> None:
    page = ui.page
    panel = page.locator("#tutorial-panel")
    expect(panel).to_have_class(OFFER)
    ui.by("tutorial-offer-dismiss").click()
    expect(panel).not_to_have_class(OFFER)
    ui.open_lobby()  # remembered
    expect(panel).not_to_have_class(OFFER)
    expect(ui.by("start-tutorial")).to_be_visible()
    # Reopened from the lobby, skipped at its third step: back in the lobby, nothing saved.
    ui.by("start-tutorial").click()
    _at_step(ui, 1, "掷骰子")
    _roll(ui, 2)
    for i in (0, 2, 4):
        ui.die(i).click()
    _at_step(ui, 3, "再掷")
    ui.by("tutorial-skip").click()
    expect(ui.by("start-solo")).to_be_visible()
    expect(page.locator("#continue-box")).to_be_hidden()
    # Again from the start; a reload in the middle picks the steps up where the game is.
    ui.by("start-tutorial").click()
    _at_step(ui, 1, "掷骰子")
    _roll(ui, 2)
    for i in (0, 2, 4):
        ui.die(i).click()
    _roll(ui, 1)
    _roll(ui, 0)
    ui.cell("sixes").click()
    _at_step(ui, 5, "63")
    page.reload()
    _at_step(ui, 5, "63")
    ui.by("tutorial-next").click()
    _at_step(ui, 6, "第 2 回合")
    # 大厅 keeps it (a real game), 「继续游戏」 brings it back, steps and all.
    ui.by("lobby").click()
    expect(page.locator("#continue-summary")).to_contain_text("新手教程")
    ui.by("continue").click()
    _at_step(ui, 6, "第 2 回合")
    # A solo game from the lobby replaces a saved tutorial without asking.
    ui.by("lobby").click()
    ui.by("start-solo").click()
    expect(ui.by("confirm-dialog")).to_be_hidden()
    expect(page.locator("#mode-badge")).to_have_text("单人挑战")
    expect(ui.by("tutorial-step")).to_be_hidden()
