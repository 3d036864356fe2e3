"""The page's render is pure (chessground's shape): drawing the same state again changes
no node, starts no request and writes no storage — on every view, eager and lazy.

``main.js`` exports its store and its render callback ``draw``; importing the module the
page loaded (same URL) gives the page's own instances, not new ones.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from e2e.helpers import Table

pytestmark = pytest.mark.e2e

DRAW_TWICE = """async () => {
  const { draw, store } = await import(document.querySelector('script[type=module]').src);
  store.flush();  // the DOM shows the current state
  const calls = [];
  const fetch = window.fetch;
  const { setItem, removeItem } = Storage.prototype;
  const spy = () => {
    window.fetch = (...args) => (calls.push(`fetch ${args[0]}`), fetch(...args));
    Storage.prototype.setItem = function (k, v) {
      calls.push(`set ${k}`);
      setItem.call(this, k, v);
    };
    Storage.prototype.removeItem = function (k) {
      calls.push(`remove ${k}`);
      removeItem.call(this, k);
    };
  };
  const unspy = () => {
    window.fetch = fetch;
    Object.assign(Storage.prototype, { setItem, removeItem });
  };
  // A change is a node added or removed, or a value that ends up different (writing the
  // value an attribute already has is not a change).
  const watch = new MutationObserver(() => {});
  watch.observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, characterData: true,
    attributeOldValue: true, characterDataOldValue: true,
  });
  const state = store.state;
  spy();
  try {
    draw(state);
    draw(state);
  } finally {
    unspy();
  }
  const name = (n) => `${n.nodeName}#${n.id || (n.dataset && n.dataset.testid) || ""}`;
  const changed = watch.takeRecords().flatMap((r) => {
    if (r.type === "childList") return [`${name(r.target)}: nodes replaced`];
    const now = r.type === "attributes" ? r.target.getAttribute(r.attributeName) : r.target.data;
    const what = `${name(r.target)} ${r.attributeName || "text"}`;
    return now === r.oldValue ? [] : [`${what}: ${r.oldValue} → ${now}`];
  });
  watch.disconnect();
  // A state never drawn before (the game's next version, other holds) is drawn without a
  // request or a write too; then the page's own state again.
  if (state.game) {
    spy();
    try {
      const game = { ...state.game, version: state.game.version + 1 };
      draw({ ...state, game, hold: state.hold.map((h) => !h) });
    } finally {
      unspy();
    }
    draw(state);
  }
  return { calls, changed, same: store.state === state, view: state.view };
}"""


def _draw_twice(ui: Table, view: str) -> None:
    out: dict[str, Any] = ui.page.evaluate(DRAW_TWICE)
    assert out["view"] == view
    assert out["calls"] == [], f"{view}: the render asked or stored: {out['calls']}"
    assert out["changed"] == [], f"{view}: drawing the same state changed the DOM: {out['changed']}"
    assert out["same"], f"{view}: the render dispatched"


def test_render_twice_from_one_state_changes_nothing_on_any_view(ui: Table) -> None:
    page = ui.page
    expect(ui.by("start-solo")).to_be_enabled()
    _draw_twice(ui, "lobby")
    ui.start_vs("novice")
    _draw_twice(ui, "game")
    ui.roll()
    ui.die(0).click()
    expect(ui.die(0)).to_have_attribute("aria-pressed", "true")
    expect(ui.by("live-meter-text")).not_to_contain_text("—", timeout=30_000)
    _draw_twice(ui, "game")
    ui.by("rules-link-game").click()
    expect(page.locator("#view-rules h2").first).to_be_visible()
    _draw_twice(ui, "rules")
    ui.by("rules-back").click()
    ui.by("lobby").click()
    ui.by("stats-link").click()
    expect(ui.by("stats-vs")).to_be_visible()
    _draw_twice(ui, "stats")
