"""What every view is checked for, in both themes: no serious or critical axe-core
violation (P6), and every text at WCAG AA against what is really behind it (Polish 1, U15),
under each 外观 setting on a light and a dark system.

axe-core leaves text over the wood texture "incomplete" rather than failing it, so the
contrast check measures what a person sees itself (``contrast.js``): for each piece of text,
the colours painted under its middle — the stacked elements' backgrounds composited, each
colour of a gradient counted, the worst one taken — against the text's colour and opacity.
Text over the texture (the wood's repeating grain) with no solid backing of its own fails
outright. The thresholds are WCAG's: 4.5:1, and 3:1 for large text (24 px, or 18.66 px
bold). axe's ``incomplete`` colour-contrast items count as failures too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

MEASURE = Path(__file__).with_name("contrast.js").read_text(encoding="utf-8")
AXE = Axe()
# Each 外观 setting on each kind of system: (the system's colour scheme, the page's
# data-theme — None for 跟随系统). A style that only a dark system's media query brings
# (the 复盘 marks' bright colours) is measured too, and so is 浅色 on a dark system.
APPEARANCES = (
    ("light", None),
    ("dark", None),
    ("dark", "light"),
    ("light", "dark"),
)
# The themes switch as the settings switch them; the buttons' colour transition would
# otherwise be measured halfway.
NO_TRANSITIONS = "*, *::before, *::after { transition: none !important; }"
# True once no CSS transition is running or pending (a theme switch starts them on the next
# style recalculation, which getAnimations() forces).
TRANSITIONS_DONE = """() => !document.getAnimations().some((a) =>
    a instanceof CSSTransition && a.playState !== 'finished' && a.playState !== 'idle')"""
# Reasons axe gives for leaving an item incomplete that say nothing about its colours:
# SVG chart labels ("contains an image node"), one-character texts it takes for icons, and
# text under the end panel's backdrop. The measure judges exactly these by the pixels.
NOT_ABOUT_COLOUR = ("image node", "too short", "obscured")


def run_axe(page: Page, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """axe-core's results on the page as it is now (violations and incomplete items in
    full). The script goes into the page once per document, not at every run."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.axe_script)
    merged = {"resultTypes": ["violations", "incomplete"], **(options or {})}
    results: dict[str, Any] = page.evaluate("(options) => axe.run(document, options)", merged)
    return results


def serious_axe(page: Page, results: dict[str, Any] | None = None) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now (or in
    ``results``, a :func:`run_axe` of it), one line each."""
    out = []
    for v in (results if results is not None else run_axe(page))["violations"]:
        if v["impact"] in ("serious", "critical"):
            targets = [n["target"] for n in v["nodes"][:4]]
            summary = v["nodes"][0].get("failureSummary", "").replace("\n", " ")
            out.append(f"{v['id']} ({v['impact']}): {targets} {summary[:300]}")
    return out


def _set_theme(page: Page, theme: str | None) -> None:
    if theme is None:
        page.evaluate("() => { delete document.documentElement.dataset.theme; }")
    else:
        page.evaluate(f"() => {{ document.documentElement.dataset.theme = {json.dumps(theme)}; }}")


def _no_transitions(page: Page) -> None:
    # A constructed style sheet: the page's CSP (style-src 'self') refuses a <style> tag.
    page.evaluate(
        """(css) => { const sheet = new CSSStyleSheet(); sheet.replaceSync(css);
            document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]; }""",
        NO_TRANSITIONS,
    )


def contrast_failures(page: Page, where: str, results: dict[str, Any] | None = None) -> list[str]:
    """The texts below AA in the current theme, measured a screenful at a time (the
    measure sees what is on the screen), and axe's colour-contrast items (of ``results``,
    a whole :func:`run_axe` of the page as it is, or of a run of that rule alone)."""
    found: dict[tuple[str, str], str] = {}
    measured = 0
    height, screen = page.evaluate("() => [document.documentElement.scrollHeight, innerHeight]")
    for top in range(0, max(height, 1), max(screen - 40, 100)):
        page.evaluate("(y) => window.scrollTo(0, y)", top)
        result = page.evaluate(MEASURE)
        measured += result["measured"]
        for f in result["failures"]:
            what = "on the wood's texture" if f["texture"] else f"{f['ratio']}:1 < {f['needed']}:1"
            found.setdefault((f["where"], f["text"]), what)
    page.evaluate("() => window.scrollTo(0, 0)")
    print(f"{where}: {measured} texts measured")
    assert measured >= 8, f"{where}: only {measured} texts measured"
    failures = [f"{where} {el} 「{text}」 {what}" for (el, text), what in found.items()]
    if results is None:
        results = run_axe(page, {"runOnly": ["color-contrast"]})
    for kind in ("violations", "incomplete"):
        for item in results[kind]:
            if item["id"] != "color-contrast":
                continue
            for node in item["nodes"]:
                summary = node.get("any", [{}])[0].get("message", "")
                if kind == "incomplete" and any(r in summary for r in NOT_ABOUT_COLOUR):
                    continue
                failures.append(f"{where} axe {kind}: {node['target']} {summary}")
    return failures


def check_view(
    page: Page, where: str, failures: list[str], *, axe: bool = True, contrast: bool = True
) -> None:
    """Add to ``failures`` what the view on screen fails under each 外观 setting on a light
    and a dark system (``APPEARANCES``): axe's serious violations and (``contrast``) the
    texts below AA, with the page's transitions off from then on (a colour is measured where
    it ends, never halfway). The system's scheme is left as it was found."""
    if contrast:
        _no_transitions(page)
    system = page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches")
    for scheme, theme in APPEARANCES:
        page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        _set_theme(page, theme)
        label = f"{scheme} system, {theme or 'system'} theme"
        # Without the transitions off (axe alone leaves the page as a person has it), the
        # buttons' colour transitions must end before axe reads the colours: wait for them
        # to finish rather than for a fixed time, which a loaded machine overran.
        page.wait_for_function(TRANSITIONS_DONE)
        # One axe run serves both checks (the contrast rule is one of axe's rules).
        results = run_axe(page) if axe else None
        if results is not None:
            failures += [f"{where} [{label}]: {v}" for v in serious_axe(page, results)]
        if contrast:
            failures += contrast_failures(page, f"{where} [{label}]", results)
    page.emulate_media(color_scheme="dark" if system else "light")
    _set_theme(page, None)
