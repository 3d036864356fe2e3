// 新手教程 (L10), a lazy overlay (views.js OVERLAYS) over the real table: one box with the
// step's text and its buttons, and the step's elements of the table highlighted. The
// steps come from the server (GET /api/tutorial) with the dice they were written against;
// the game is played with the ordinary actions. This module only compares what the server
// answered with what a step waits for (a roll reached, a box written, the holds picked, a
// 0 declined): it does no rules maths. While a step is shown, the table's other game
// controls do nothing, so the dice stay the ones the steps describe.

//
// Its words are chunk `tutorial` (G1), said when drawn; the steps' texts are the server's,
// said in the request's language: asked again when the language changes.

import { request } from "../api.js";
import { language, load as loadWords, t } from "../i18n.js";
import { API } from "../paths.js";

const GAME_ACTIONS = '.die, .cell-btn, [data-testid="roll"], [data-testid="hint"], [data-testid="restart"], #confirm-yes';

const sameList = (a, b) => a === b || (a !== null && b !== null && a.length === b.length && a.every((x, i) => x === b[i]));

function steps(state) {
  const data = state.overlays.tutorial;
  return data ? data.steps : null;
}

/** The tutorial's game on the board (null: none, or another game). */
function game(state) {
  const b = state.board;
  return b && b.game.kind === "tutorial" ? b.game : null;
}

/** Whether the game (or the board's holds) shows that `step` is done. */
function isDone(step, state, t) {
  const g = state.board.game;
  const u = step.until;
  if (u.next) return t.acked.includes(step.id);
  if (u.done) return false;
  if (u.round !== undefined) {
    return g.status !== "in_progress" || g.round > u.round || (g.round === u.round && g.rolls_left <= u.rolls_left);
  }
  if (u.hints_left !== undefined) return g.hints_left <= u.hints_left;
  if (u.box !== undefined) return g.seats[0].scores[u.box] !== null;
  if (u.hold !== undefined) return sameList(state.board.hold, u.hold);
  if (u.declined !== undefined) {
    const declined = state.board.declined;
    return declined.category === u.declined && declined.count > t.declinedAt;
  }
  return false;
}

/** Where a game already under way (a reload, 「继续游戏」) picks the steps up: after the
 * last step whose game condition it meets. */
function resumeAt(list, state) {
  const gameSide = (u) => u.round !== undefined || u.hints_left !== undefined || u.box !== undefined;
  const probe = { acked: [], declinedAt: Infinity };
  let at = 0;
  list.forEach((step, i) => {
    if (gameSide(step.until) && isDone(step, state, probe)) at = i + 1;
  });
  return Math.min(at, list.length - 1);
}

export const reducers = {
  /** The tutorial of the game on the table is over (skipped, finished): no overlay. */
  tutorialClose(state) {
    const g = game(state);
    return { ...state, tutorial: { ...state.tutorial, closedFor: g ? g.id : null } };
  },

  /** Follow the game: move past every step it shows done; a step entered with other dice
   * than it was written for puts the tutorial off its script. */
  tutorialSync(state) {
    const list = steps(state);
    const g = game(state);
    if (!list || !g) return state;
    let t = state.tutorial || {};
    if (t.game !== g.id) {
      const index = resumeAt(list, state);
      t = { ...t, game: g.id, index, entered: -1, acked: [], declinedAt: state.board.declined.count, offScript: false };
    }
    let index = t.index;
    while (!t.offScript && index < list.length - 1 && isDone(list[index], state, t)) index += 1;
    if (index === t.entered && t === state.tutorial) return state;
    const entering = index !== t.entered;
    const offScript = t.offScript || (entering && !sameList(list[index].dice, g.dice));
    return {
      ...state,
      tutorial: {
        ...t,
        index,
        entered: index,
        offScript,
        declinedAt: entering ? state.board.declined.count : t.declinedAt,
      },
    };
  },

  /** 「下一步」 on a step that only explains. */
  tutorialAck(state, { id }) {
    const t = state.tutorial || {};
    if (!t.acked || t.acked.includes(id)) return state;
    return { ...state, tutorial: { ...t, acked: [...t.acked, id] } };
  },
};

// ------------------------------------------------------------------------------ the DOM

let box = null;
let marked = [];
let shownKey = "";

function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.textContent = text;
  return e;
}

function button(testid, text, cls) {
  return el("button", { type: "button", class: `btn ${cls}`, "data-testid": testid }, text);
}

function build(ctx) {
  box = el("section", { class: "tutorial-box", "data-testid": "tutorial-step", "aria-labelledby": "tutorial-count" });
  const count = el("p", { class: "tutorial-count", id: "tutorial-count" });
  const text = el("p", { class: "tutorial-text", "data-testid": "tutorial-text", "aria-live": "polite" });
  const row = el("div", { class: "tutorial-buttons" });
  const next = button("tutorial-next", "", "btn-primary");
  const more = button("tutorial-continue", "", "");
  const skip = button("tutorial-skip", "", "btn-small");
  row.append(next, more, skip);
  box.append(count, text, row);
  box.hidden = true;
  document.body.append(box);
  next.addEventListener("click", () => {
    const step = current(ctx.state());
    if (step && step.until.done) end(ctx, "solo");
    else if (step) ctx.dispatch({ type: "tutorialAck", id: step.id });
  });
  more.addEventListener("click", () => end(ctx, "continue"));
  skip.addEventListener("click", () => end(ctx, "lobby"));
}

/** The end of the tutorial: "solo" starts a solo game (which replaces the tutorial),
 * "continue" plays the tutorial game on without its steps, "lobby" gives it up (nothing
 * is left saved) and goes to the lobby. */
async function end(ctx, next) {
  const g = game(ctx.state());
  ctx.dispatch({ type: "tutorialClose" });
  if (next === "solo") {
    await ctx.actions.startNew("solo", null);
  } else if (next === "lobby") {
    if (g && g.status === "in_progress") {
      // Should it fail, the lobby offers the tutorial game to continue: nothing is lost.
      await ctx.api.abandon(g).catch(() => {});
    }
    await ctx.actions.goLobby();
  } else {
    byTestId("roll").focus({ preventScroll: true });
  }
}

function current(state) {
  const list = steps(state);
  const t = state.tutorial || {};
  const g = game(state);
  if (!list || t.game !== (g && g.id) || t.index === undefined) return null;
  return list[t.index];
}

function byTestId(id) {
  return document.querySelector(`[data-testid="${id}"]`);
}

function mark(targets) {
  const now = targets.map(byTestId).filter(Boolean);
  for (const e of marked) if (!now.includes(e)) e.classList.remove("tutorial-target");
  for (const e of now) if (!e.classList.contains("tutorial-target")) e.classList.add("tutorial-target");
  marked = now;
}

/** The elements a step lets the player use: its targets and the box itself. */
function allowed(target) {
  return (box && box.contains(target)) || marked.some((e) => e.contains(target));
}

function install(ctx) {
  const active = () => box !== null && !box.hidden && !ctx.state().tutorial.offScript;
  // Capture: before the table's own handlers. Only the table's game controls are held
  // back; links, 大厅, 设置 and 规则 work as ever.
  document.addEventListener(
    "click",
    (event) => {
      if (!active() || !event.target.closest) return;
      const control = event.target.closest(GAME_ACTIONS);
      if (control && !allowed(control)) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    true,
  );
  document.addEventListener(
    "keydown",
    (event) => {
      if (!active() || event.ctrlKey || event.metaKey || event.altKey) return;
      const key = event.key;
      let wants = null; // the element the table's shortcut would act on (keyboard.js)
      if (/^[1-5]$/.test(key)) wants = byTestId(`die-${Number(key) - 1}`);
      else if (key === "h" || key === "H") wants = byTestId("hint");
      else if ((key === " " || key === "Enter") && !event.target.closest("button, a, summary")) {
        wants = byTestId("roll");
      }
      if (wants && !allowed(wants)) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    true,
  );
}

function render(state, shown, ctx) {
  if (box === null) build(ctx);
  const step = shown ? current(state) : null;
  box.hidden = step === null;
  document.body.classList.toggle("tutorial-on", step !== null);
  if (step === null) {
    mark([]);
    shownKey = "";
    return;
  }
  const list = steps(state);
  const tut = state.tutorial;
  const off = tut.offScript;
  const last = Boolean(step.until.done);
  const [count, text, row] = box.children;
  const [next, more, skip] = row.children;
  const key = `${game(state).id}:${tut.index}:${off}:${language()}:${step.text}`;
  // Every render: the table's render rewrites some classes (a box's cell) wholesale.
  mark(off ? [] : step.target);
  if (shownKey !== key) {
    shownKey = key;
    count.textContent = off ? t("tutorial.title") : t("tutorial.count", { step: tut.index + 1, steps: list.length });
    text.textContent = off ? t("tutorial.off_script") : step.text;
    next.textContent = last ? t("tutorial.start_solo") : t("tutorial.next");
    next.hidden = off || !(step.until.next || last);
    more.textContent = t("tutorial.continue");
    more.hidden = !(off || last);
    skip.textContent = off || last ? t("tutorial.lobby") : t("tutorial.skip");
    ctx.afterRender(() => bringIntoView(step, off));
  }
  place();
}

// Asked when placing (not at import: the reducers are tested where there is no window).
const wide = () => matchMedia("(min-width: 900px)").matches;

/** The box never covers what the step points at. A wide screen: in the dice's column,
 * under the message (above 本局记录, which it would cover at the bottom of the screen).
 * A phone: at the bottom of the screen, or at its top when the step's first target is in
 * the lower part. */
function place() {
  const slot = wide() && document.querySelector("#view-game .message-slot");
  if (slot && box.previousElementSibling !== slot) slot.after(box);
  else if (!slot && box.parentElement !== document.body) document.body.append(box);
  const first = marked[0];
  let top = false;
  if (first && !slot) {
    const r = first.getBoundingClientRect();
    top = r.top + r.height / 2 > window.innerHeight * 0.5;
  }
  box.classList.toggle("at-top", top);
}

function bringIntoView(step, off) {
  const first = marked[0];
  if (first) first.scrollIntoView({ block: "nearest" });
  place();
  if (document.querySelector("dialog[open]")) return; // the dialog keeps its own focus
  // The keyboard lands where the step acts: its control, else the box's first button.
  const control = first && (first.matches("button") ? first : first.querySelector("button"));
  if (!off && control && !control.disabled) {
    control.focus({ preventScroll: true });
    return;
  }
  const next = byTestId("tutorial-next");
  (next.hidden ? byTestId(off ? "tutorial-continue" : "tutorial-skip") : next).focus({ preventScroll: true });
}

let asked = null; // the language the steps were last asked in

/** After every change: follow the game (a no-op when nothing moved); in a new language,
 * the steps' texts again (the same steps: only their words change). */
function effect(state, _previous, ctx) {
  if (game(state) && steps(state)) ctx.dispatch({ type: "tutorialSync" });
  const data = state.overlays.tutorial;
  if (data && data.lang !== language() && asked !== language()) {
    asked = language();
    load().then((data) => ctx.dispatch({ type: "overlayLoaded", id: "tutorial", data }), (err) => console.warn(err));
  }
}

/** The overlay's data (views.js OVERLAYS `load`): the steps, from the server, in the
 * page's language (`lang`), with the overlay's words. */
export const load = () => {
  const lang = language();
  return Promise.all([request("GET", API.tutorial()), loadWords("tutorial")]).then(([data]) => ({ ...data, lang }));
};

export const overlay = { render, reducers, effect, install };
