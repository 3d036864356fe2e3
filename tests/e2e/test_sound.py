"""Polish 9, sound and touch: a rattle on a roll, a tick on a box written, a fanfare for a
快艇, made with the Web Audio API (no sound file is downloaded), and a short vibration on a
roll where the device has one; silent until the first gesture; 设置 声音 开/关 (on by
default), remembered; the code loads lazily (the first load does not carry it).

What the page asks of the Web Audio API and of navigator.vibrate is recorded by a script
run before the page's own (the sounds themselves cannot be heard in a test).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.helpers import Table, sized_context

pytestmark = pytest.mark.e2e

# Wraps AudioContext (created, notes and noise bursts started, by wave type) and
# navigator.vibrate, counting into window.__sound.
RECORDER = """
(() => {
  const log = { contexts: 0, notes: [], bursts: 0, vibrations: [] };
  window.__sound = log;
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    constructor(...args) { super(...args); log.contexts += 1; }
    createOscillator() {
      const osc = super.createOscillator();
      const start = osc.start.bind(osc);
      osc.start = (...a) => { log.notes.push(osc.type); return start(...a); };
      return osc;
    }
    createBufferSource() {
      const src = super.createBufferSource();
      const start = src.start.bind(src);
      src.start = (...a) => { log.bursts += 1; return start(...a); };
      return src;
    }
  };
  navigator.vibrate = (pattern) => { log.vibrations.push(pattern); return true; };
})();
"""


def _log(page: Page) -> dict[str, Any]:
    log: dict[str, Any] = page.evaluate("({...window.__sound, notes: [...window.__sound.notes]})")
    return log


def _open(browser: Browser, url: str, width: int = 375, height: int = 667) -> Table:
    context = sized_context(browser, width, height)
    context.add_init_script(RECORDER)
    page = context.new_page()
    page.set_default_timeout(15_000)
    ui = Table(page, url)
    ui.open_lobby()
    return ui


def test_polish9_sounds_and_a_vibration_after_the_first_gesture(
    browser: Browser, server_url: str
) -> None:
    ui = _open(browser, server_url)
    page = ui.page
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    expect(ui.by("settings-open")).to_be_visible()
    page.wait_for_function("() => document.getElementById('sound-setting') !== null")
    assert _log(page)["contexts"] == 0  # nothing before a gesture
    ui.start_solo()
    ui.roll()
    page.wait_for_function("() => window.__sound.bursts > 0")
    log = _log(page)
    assert log["contexts"] == 1
    assert log["vibrations"] == [35]
    ui.score(ui.best_box())
    page.wait_for_function("() => window.__sound.notes.includes('square')")  # the tick
    assert "triangle" not in _log(page)["notes"]  # no fanfare for an ordinary box
    # no sound file came down: the sounds are made in the page
    assert not [u for u in requests if u.rsplit(".", 1)[-1] in ("mp3", "ogg", "wav", "m4a")]
    # 声音 关: silence, and no vibration; remembered after a reload
    ui.by("settings-open-game").click()
    expect(ui.by("sound-setting")).to_have_value("on")  # on by default
    ui.by("sound-setting").select_option("off")
    ui.by("settings-close").click()
    before = _log(page)
    ui.roll()
    page.wait_for_timeout(400)
    after = _log(page)
    assert after["bursts"] == before["bursts"]
    assert after["vibrations"] == before["vibrations"]
    page.reload()
    expect(ui.by("roll")).to_be_visible()
    page.wait_for_function("() => document.getElementById('sound-setting') !== null")
    ui.by("settings-open-game").click()
    expect(ui.by("sound-setting")).to_have_value("off")
    ui.by("settings-close").click()
    assert _log(page)["contexts"] == 0
    page.context.close()


def test_polish9_a_yahtzee_plays_the_fanfare(browser: Browser, joker_server_url: str) -> None:
    ui = _open(browser, joker_server_url, 1280, 800)
    ui.start_solo()
    assert ui.roll() == [3, 3, 3, 3, 3]
    ui.score("yahtzee")
    ui.page.wait_for_function(
        "() => window.__sound.notes.filter((t) => t === 'triangle').length === 4"
    )
    ui.page.context.close()


def test_polish9_the_first_load_does_not_carry_the_sounds(
    browser: Browser, server_url: str
) -> None:
    """The module comes after the page's own files (a dynamic import), never preloaded."""
    context = sized_context(browser, 1280, 800)
    page = context.new_page()
    page.goto(server_url + "/")
    html = page.content()
    assert "sound.js" not in html
    assert "mistap.js" not in html
    page.wait_for_function("() => document.getElementById('sound-setting') !== null")
    context.close()
