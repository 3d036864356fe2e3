// A short celebration (U16) for a 快艇 the player writes (the box at 50, or a 快艇 bonus)
// and for a 新纪录 at the end of a solo game: the word large over the table and a burst of
// gold pieces, gone by itself in under two seconds, never in the way (no pointer events,
// hidden from screen readers: the message and the end panel say the same in words). With
// 减少动态效果 (prefers-reduced-motion) nothing moves: the word fades in and out alone.
// A lazy overlay (views.js OVERLAYS): loaded once a board is shown, not on a first visit.

import { t } from "../i18n.js";
import { boardShown } from "../state.js";

const STILL = matchMedia("(prefers-reduced-motion: reduce)");
const PIECES = 16;
const SHOWN_MS = 1800;

let layer = null;
let timer = null;

/** What is celebrated on the view shown: its board's game and the seats this device plays. */
function watched(state) {
  const b = boardShown(state);
  return b ? { ...b.game, mine: b.mine } : null;
}

function show(kind, word) {
  clearTimeout(timer);
  layer.className = `celebration celebration-${kind}`;
  const text = document.createElement("p");
  text.className = "celebration-word";
  text.textContent = word;
  layer.replaceChildren(text);
  if (!STILL.matches) {
    for (let i = 0; i < PIECES; i++) {
      const piece = document.createElement("span");
      piece.className = "celebration-piece";
      // Each piece's direction around the word (CSSOM, which the page's CSP allows).
      piece.style.setProperty("--turn", `${(i / PIECES).toFixed(3)}turn`);
      piece.style.setProperty("--far", `${120 + (i % 3) * 40}px`);
      layer.append(piece);
    }
  }
  layer.hidden = false;
  timer = setTimeout(() => {
    layer.hidden = true;
    layer.replaceChildren();
  }, SHOWN_MS);
}

function effect(state, previous) {
  const now = watched(state);
  const before = previous && watched(previous);
  if (!now || !before || now.id !== before.id) return;
  if (now.new_record && !before.new_record) {
    show("record", t("core.celebrate.record"));
    return;
  }
  const turns = now.turns || [];
  if (turns.length > (before.turns || []).length) {
    const last = turns[turns.length - 1];
    if (now.mine.includes(last.seat) && ((last.category === "yahtzee" && last.points === 50) || last.yahtzee_bonus > 0)) {
      show("yahtzee", t("core.celebrate.yacht"));
    }
  }
}

function install() {
  layer = document.createElement("div");
  layer.className = "celebration";
  layer.setAttribute("aria-hidden", "true");
  layer.dataset.testid = "celebration";
  layer.hidden = true;
  document.body.append(layer);
}

function render() {}

export const overlay = { render, effect, install };
