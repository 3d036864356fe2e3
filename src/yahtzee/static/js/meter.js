// The live meter (L4): 「预计终局 248.3」 in solo, the chance to win in vs, from the same
// models as the review (GET /api/games/{id}/meter, asked after each roll and score while
// the meter is shown). The player can hide it — with its own button on a desktop, in 设置
// everywhere (the phone table has no room for a 44 px button); the choice is remembered in
// this browser.
//
// Screen readers: the figure itself is not a live region (it changes on every roll, which
// would talk over the roll's own message). Once per turn — when a new turn starts, after
// the player's score (and, in vs, after the computer's turn) — a hidden polite live region
// says the new figure. Nothing is said on load, at the end, or while the meter is hidden.
//
// No layout shift: the numbers sit in boxes of a fixed minimum width (css), so 99.5 and
// 248.3, 5% and 100% take the same room; on a phone the meter has a fixed width.

import { meterSaid, meterText } from "./messages.js";

const KEY = "yahtzee.meter";
const $ = (id) => document.getElementById(id);

function shownPref() {
  try {
    return localStorage.getItem(KEY) !== "hidden";
  } catch {
    return true;
  }
}

/** A text span, with a fixed-width number box (class meter-num) inside it. */
function figure(cls, parts) {
  const span = document.createElement("span");
  span.className = cls;
  const num = document.createElement("span");
  num.className = "meter-num";
  num.textContent = parts.num;
  span.append(parts.before, num, parts.after);
  return span;
}

export function installMeter() {
  const view = $("view-game");
  const box = $("live-meter");
  const text = $("live-meter-text");
  const bar = $("live-meter-bar");
  const said = $("live-meter-said");
  const toggle = $("live-meter-toggle");
  const setting = $("meter-setting");
  let shown = shownPref();
  let lastKey = null;
  let serial = 0;
  let last = null; // the figures shown: {game, expected_final, win_probability}
  let current = null;

  function paint() {
    const visible = current !== null && !box.hidden;
    box.classList.toggle("meter-off", !shown);
    view.classList.toggle("meter-shown", shown && visible);
    text.hidden = !shown;
    toggle.textContent = shown ? "隐藏" : "显示预计";
    toggle.setAttribute("aria-expanded", String(shown));
    setting.value = shown ? "shown" : "hidden";
    const vs = current && current.game ? current.game.mode === "vs_computer" : false;
    bar.hidden = !shown || !vs;
  }

  /** The figures as text: before the first answer for this game, dashes of the same width. */
  function write(game) {
    const vs = game.mode === "vs_computer";
    const mine = last && last.game === game.id ? last : null;
    const t = meterText(mine, vs);
    const nodes = [];
    if (t.chance) nodes.push(figure("meter-chance", t.chance), sep());
    nodes.push(figure("meter-ef", t.expected));
    text.replaceChildren(...nodes);
    if (vs) bar.value = mine && mine.win_probability !== null ? mine.win_probability : 0.5;
  }

  function sep() {
    const s = document.createElement("span");
    s.className = "meter-sep";
    s.textContent = " · ";
    return s;
  }

  async function load(game, announce) {
    const mine = ++serial;
    let body;
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(game.id)}/meter`, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!r.ok || mine !== serial) return;
      body = await r.json();
    } catch {
      return;
    }
    if (mine !== serial) return;
    last = { game: game.id, ...body };
    write(game);
    // A fresh node each time, so that the same words said twice are heard twice; emptied
    // (which says nothing) when the figure is not to be announced.
    if (announce) said.replaceChildren(document.createTextNode(meterSaid(last, game)));
    else said.replaceChildren();
    paint();
  }

  function setShown(value) {
    shown = value;
    try {
      localStorage.setItem(KEY, shown ? "shown" : "hidden");
    } catch {
      /* private mode: not remembered */
    }
    lastKey = null; // asked again when shown: nothing is fetched while hidden
    paint();
    if (shown && current) refresh(current);
  }

  toggle.addEventListener("click", () => setShown(!shown));
  setting.addEventListener("change", () => setShown(setting.value !== "hidden"));

  function refresh(state) {
    const g = state.game;
    const before = current && current.game;
    current = state;
    box.hidden = !g || state.view !== "game";
    if (g && (!before || before.id !== g.id)) {
      write(g); // another game: no stale figure, nothing left to be read out
      said.replaceChildren();
    }
    // While the computer's turn is being shown, its outcome must not leak through the meter.
    if (!g || state.view !== "game" || state.replay || !shown) {
      paint();
      return;
    }
    const key = `${g.id}:${g.version}`;
    if (key === lastKey) {
      paint();
      return;
    }
    // Said aloud once a turn: a new turn of the same game (its dice not rolled yet) —
    // never on the first figure after a load or a switch of games, nor at the end (the end
    // panel says the result).
    const sameGame = lastKey !== null && lastKey.startsWith(`${g.id}:`);
    const turnStart = g.dice === null && g.status === "in_progress";
    lastKey = key;
    paint();
    load(g, sameGame && turnStart);
  }
  paint();
  return { refresh };
}
