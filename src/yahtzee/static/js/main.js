// Wiring: one store (the state, the funnel, one render per frame), its effects, and the
// DOM's events and keys → actions. Nothing else lives here: the state changes in
// reducer.js, the effects in actions.js (clicks) and effects.js (new states), the copy in
// messages.js, the addresses in paths.js, the lazy views in views.js.

import { api, onBusy, onNotice } from "./api.js";
import { createActions } from "./actions.js";
import { meterEffect, remember } from "./effects.js";
import { installMessageFit } from "./fit.js";
import { start as startLanguage } from "./i18n.js";
import { installKeyboard } from "./keyboard.js";
import * as say from "./messages.js";
import { href, match } from "./paths.js";
import { reduce } from "./reducer.js";
import { onLookedAt } from "./reconnect.js";
import {
  loadLanguage,
  loadSettings,
  loadTutorialSeen,
  loadWrote,
  saveLanguage,
} from "./remember.js";
import { buildScorecard, render } from "./render.js";
import { installSettings } from "./settings.js";
import { initialState } from "./state.js";
import { createStore } from "./store.js";
import { LAZY, installLazyViews, installOverlays } from "./views.js";

const messageFit = installMessageFit();

/** The render callback: state → DOM, and the phone table's message fitted to its room (P1).
 * Pure: nothing here fetches or writes storage (effects.js does, on each change). */
export function draw(state) {
  render(state);
  lazy.render(state);
  if (overlays) overlays.render(state);
  messageFit.fit();
}

let overlays = null; // the lazy overlays (views.js), installed once the actions exist
export const store = createStore(reduce, initialState(loadSettings(), loadTutorialSeen(), loadWrote()), {
  render: draw,
  effects: [remember, meterEffect(api), (...change) => overlays && overlays.effect(...change)],
});
const actions = createActions(store, (path) => open(path));
onBusy((seconds) => store.dispatch({ type: "retrying", seconds })); // S4: said, then sent again
onNotice((reason) => store.dispatch({ type: "notice", reason })); // U20: said once
const lazy = installLazyViews(store, { open, play: actions.playDaily });
overlays = installOverlays(store, actions);

/** Go to an address of the page (a link, the end panel's 复盘) without reloading it. */
function open(path) {
  if (location.pathname !== path) history.pushState(null, "", path);
  route();
}

/** The address changed (load, reload, back/forward): a lazy view, else the game's views. */
function route() {
  const { view, params } = match(location.pathname);
  if (LAZY[view]) {
    // Leaving the table for a page of its own: no replay runs behind it — unless the page
    // returns to the table (规则), which then is just as it was.
    if (LAZY[view].back !== "return") actions.leaveTable();
    lazy.open(view, params);
  } else {
    actions.route();
  }
}

const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

function on(testid, handler) {
  byTestId(testid).addEventListener("click", handler);
}

function wire() {
  on("start-solo", () => actions.startNew("solo", null));
  on("start-vs", () => actions.startNew("vs_computer", store.state.settings.difficulty));
  on("continue", actions.continueGame);
  on("start-tutorial", () => actions.startNew("tutorial", null));
  on("tutorial-offer-dismiss", () => store.dispatch({ type: "tutorialSeen" }));
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
      if (a.dataset.nav === "rules") open(href("rules"));
      else actions.goLobby();
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
  // Links to the lazy views anywhere (the lobby's recent games, 「我的统计」) stay in the page.
  document.addEventListener("click", (event) => {
    const a = event.target.closest && event.target.closest("a[data-page]");
    if (!a || event.defaultPrevented || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    const dialog = a.closest("dialog"); // (设置's 「我的设备」: the dialog goes with it)
    if (dialog && dialog.open) dialog.close();
    open(a.getAttribute("href"));
  });
  on("game-over-daily", () => open(href("daily")));
  on("game-over-review", () => {
    if (store.state.game) open(href("review", { id: store.state.game.id }));
  });
  window.addEventListener("popstate", route);
  // Back online in the lobby: its records again (the message said the server was needed).
  window.addEventListener("online", async () => {
    if (store.state.view !== "lobby" || store.state.message.kind !== "error") return;
    const said = store.state.message.serial;
    await actions.route();
    // Nothing new went wrong: the error shown is over.
    if (store.state.message.serial === said) {
      store.dispatch({ type: "say", text: say.BACK_ONLINE_LOBBY, view: "lobby" });
    }
  });
  // U14: a tab looked at again shows the game as it stands if it went on elsewhere.
  onLookedAt(actions.lookAgain);
  installSettings(store, { remembered: loadLanguage(), keep: saveLanguage });
}

// G3: the first view's words in the page's language (preloaded with the page) before its
// first render; the page's own words are in index.html already.
await startLanguage();
buildScorecard();
wire();
store.flush();
route();

// The service worker (polish 10) once the page has loaded; the awaits above may outlast
// the load event.
if ("serviceWorker" in navigator) {
  const pwa = () => import("./lazy/pwa.js").then((m) => m.start()).catch(console.warn);
  if (document.readyState === "complete") pwa();
  else addEventListener("load", pwa, { once: true });
}
