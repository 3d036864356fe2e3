"""Polish 1: every text on every view reaches WCAG AA against what is really behind it.

axe-core leaves text over the wood texture "incomplete" rather than failing it, so this test
measures what a person sees itself (``contrast.js``): for each piece of text, the colours
painted under its middle — the stacked elements' backgrounds composited, each colour of a
gradient counted, the worst one taken — against the text's colour and opacity. Text over the
texture (the wood's repeating grain) with no solid backing of its own fails outright. The
thresholds are WCAG's: 4.5:1, and 3:1 for large text (24 px, or 18.66 px bold). axe's
``incomplete`` colour-contrast items count as failures too.

Every view, in the light and dark themes, at 1280×800 and on a 375×667 phone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from e2e.helpers import ConsoleWatch, Table, sized_context

pytestmark = pytest.mark.e2e

MEASURE = Path(__file__).with_name("contrast.js").read_text(encoding="utf-8")
AXE = Axe()
# The themes switch as the settings switch them; the buttons' colour transition would
# otherwise be measured halfway.
NO_TRANSITIONS = "*, *::before, *::after { transition: none !important; }"


# Reasons axe gives for leaving an item incomplete that say nothing about its colours:
# SVG chart labels ("contains an image node"), one-character texts it takes for icons, and
# text under the end panel's backdrop. The measure above judges exactly these by the pixels.
NOT_ABOUT_COLOUR = ("image node", "too short", "obscured")


def _measure(page: Page, where: str, failures: list[str]) -> None:
    # A constructed style sheet: the page's CSP (style-src 'self') refuses a <style> tag.
    page.evaluate(
        """(css) => { const sheet = new CSSStyleSheet(); sheet.replaceSync(css);
            document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]; }""",
        NO_TRANSITIONS,
    )
    for theme in ("light", "dark"):
        page.evaluate(f"() => {{ document.documentElement.dataset.theme = {json.dumps(theme)}; }}")
        page.wait_for_timeout(50)
        found: dict[tuple[str, str], str] = {}
        measured = 0
        # The measure sees what is on the screen: the page is measured a screenful at a time.
        height, screen = page.evaluate("() => [document.documentElement.scrollHeight, innerHeight]")
        for top in range(0, max(height, 1), max(screen - 40, 100)):
            page.evaluate("(y) => window.scrollTo(0, y)", top)
            result = page.evaluate(MEASURE)
            measured += result["measured"]
            for f in result["failures"]:
                what = (
                    "on the wood's texture" if f["texture"] else f"{f['ratio']}:1 < {f['needed']}:1"
                )
                found.setdefault((f["where"], f["text"]), what)
        page.evaluate("() => window.scrollTo(0, 0)")
        print(f"{where} [{theme}]: {measured} texts measured")
        assert measured >= 8, f"{where} [{theme}]: only {measured} texts measured"
        failures += [
            f"{where} [{theme}] {el} 「{text}」 {what}" for (el, text), what in found.items()
        ]
        results = AXE.run(page, options={"runOnly": ["color-contrast"]}).response
        for kind in ("violations", "incomplete"):
            for item in results[kind]:
                for node in item["nodes"]:
                    summary = node.get("any", [{}])[0].get("message", "")
                    if kind == "incomplete" and any(r in summary for r in NOT_ABOUT_COLOUR):
                        continue
                    failures.append(f"{where} [{theme}] axe {kind}: {node['target']} {summary}")
    page.evaluate("() => { delete document.documentElement.dataset.theme; }")


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


@pytest.mark.parametrize("size", [(1280, 800), (375, 667)], ids=["desktop", "phone"])
def test_polish1_every_text_reaches_aa_on_every_view_in_both_themes(
    browser: Browser, server_url: str, size: tuple[int, int]
) -> None:
    width, height = size
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
    _measure(page, "lobby", failures)
    ui.by("settings-open").click()
    expect(ui.by("settings-dialog")).to_be_visible()
    _measure(page, "settings", failures)
    ui.by("settings-close").click()
    ui.by("rules-link").click()
    expect(page.locator("#rules-faq")).to_be_visible()
    _measure(page, "rules", failures)
    ui.by("rules-back").click()

    ui.start_solo()
    ui.roll()
    ui.die(0).click()
    _measure(page, "solo table after a roll", failures)
    ui.by("lobby").click()
    ui.start_vs("novice")
    ui.roll()
    _measure(page, "vs table after a roll", failures)
    ui.score(ui.best_box())
    expect(ui.by("skip-replay")).to_be_visible()
    _measure(page, "the computer's turn", failures)
    ui.wait_for_my_turn(2)
    page.evaluate(
        "() => localStorage.setItem('yahtzee.settings', JSON.stringify({replay: 'skip'}))"
    )
    page.reload()
    expect(ui.by("roll")).to_be_enabled()
    ui.play_to_end(first_round=2)
    _measure(page, "end panel", failures)
    ui.by("game-over-review").click()
    expect(ui.by("review-accuracy")).to_be_visible(timeout=60_000)
    _measure(page, "review", failures)
    ui.by("review-back").click()
    ui.open_lobby()
    expect(ui.by("recent-review").first).to_be_visible()
    _measure(page, "lobby with a finished game", failures)
    ui.by("stats-link").click()
    expect(ui.by("stats-vs")).to_be_visible(timeout=30_000)
    _measure(page, "stats", failures)
    ui.open_lobby()
    ui.by("start-practice").click()
    expect(ui.by("puzzle")).to_be_visible(timeout=30_000)
    _measure(page, "practice", failures)
    context.close()
    assert failures == [], "\n".join(failures)
    assert console.errors == []
