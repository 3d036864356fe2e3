// Wiring: the store, the DOM's events and keys → actions. Nothing else lives here: the
// state changes in reducer.js, the effects in actions.js, the copy in messages.js, the
// addresses in router.js, the replay timer in replay.js.

import { createActions } from "./actions.js";
import { installMessageFit } from "./fit.js";
import { installKeyboard } from "./keyboard.js";
import { installMeter } from "./meter.js";
import { installPageLinks } from "./pages.js";
import { reduce } from "./reducer.js";
import { buildScorecard, render } from "./render.js";
import { chosenDifficulty, installSettings } from "./settings.js";
import { initialState, rememberHold } from "./state.js";
import { createStore } from "./store.js";

const meter = installMeter();
const messageFit = installMessageFit();
// Each render also keeps this turn's holds in the browser (U6/P3: they survive a reload),
// fits the message to the phone table (P1) and lets the live meter (L4) ask for the new
// position's figure.
const store = createStore(reduce, initialState(), (state) => {
  rememberHold(state);
  render(state);
  messageFit.fit();
  meter.refresh(state);
});
const actions = createActions(store);
// 复盘 and 统计 (loaded on first visit): they change the view through the store too.
const pages = installPageLinks({
  get state() {
    return store.state;
  },
  show(view) {
    store.dispatch({ type: "navigate", view });
    store.dispatch({ type: "showGameOver", show: false });
  },
  afterRender: (fn) => store.afterRender(fn),
});

/** The address changed (load, reload, back/forward): 复盘/统计, else the game's views. */
function route() {
  if (pages.route(location.pathname.replace(/\/+$/, "") || "/")) actions.stopReplay();
  else actions.route();
}

const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

function on(testid, handler) {
  byTestId(testid).addEventListener("click", handler);
}

function wire() {
  on("start-solo", () => actions.startNew("solo", null));
  on("start-vs", () => actions.startNew("vs_computer", chosenDifficulty()));
  on("continue", actions.continueGame);
  // The second click of a double click (detail 2) is the same intent as the first: one roll,
  // however fast the first request came back. Keyboard activation has detail 0.
  on("roll", (event) => {
    if (event.detail <= 1) actions.roll();
  });
  on("hint", actions.hint);
  on("restart", actions.restart);
  on("lobby", () => actions.goLobby());
  on("play-again", actions.restart);
  on("game-over-lobby", () => actions.goLobby());
  on("skip-replay", actions.skipReplay);
  on("show-result", () => actions.showResult(true));
  on("rules-back", actions.rulesBack);
  on("turn-log-toggle", () => actions.turnLog(!store.state.turnLogOpen));
  on("turn-log-close", () => actions.turnLog(false));
  // Links between views stay in the page (no reload, the game in memory is kept).
  for (const a of document.querySelectorAll("a[data-nav]")) {
    a.addEventListener("click", (event) => {
      event.preventDefault();
      if (a.dataset.nav === "rules") actions.rules();
      else actions.goLobby();
    });
  }
  // In-page anchors on the rules page: scroll without changing the address.
  for (const a of document.querySelectorAll("[data-anchor]")) {
    a.addEventListener("click", (event) => {
      event.preventDefault();
      const target = document.getElementById(a.dataset.anchor);
      target.scrollIntoView();
      target.setAttribute("tabindex", "-1");
      target.focus({ preventScroll: true });
    });
  }
  document.getElementById("dice-row").addEventListener("click", (event) => {
    const die = event.target.closest(".die");
    if (die) actions.toggleDie(Number(die.dataset.index));
  });
  document.getElementById("scorecard").addEventListener("click", (event) => {
    const btn = event.target.closest(".cell-btn");
    if (btn && !btn.disabled) actions.score(btn.dataset.category);
  });
  for (const die of document.querySelectorAll(".die")) {
    die.addEventListener("animationend", () => die.classList.remove("rolling"));
  }
  installKeyboard({
    onTable: () => store.state.view === "game",
    gameOverShown: () => store.state.view === "game" && store.state.showGameOver,
    closeGameOver: () => actions.showResult(false),
    roll: actions.roll,
    toggleDie: actions.toggleDie,
    hint: actions.hint,
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && store.state.turnLogOpen) actions.turnLog(false);
  });
  window.addEventListener("popstate", route);
  installSettings();
}

buildScorecard();
wire();
store.flush();
route();
