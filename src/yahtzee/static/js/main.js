// Wiring: one store (the state, the funnel, one render a frame), its effects, the page's one
// board, and the DOM's events → actions. Nothing else lives here: the state changes in
// reducer.js, the effects in effects.js, the lobby's actions in actions.js, a game's in its
// mode's board (board/board.js, given its mode by solo.js or a lazy view), the copy in
// messages.js, the addresses in paths.js, the lazy views in views.js.

import { api, onBusy, onNotice } from "./api.js";
import { createActions } from "./actions.js";
import { meterEffect, remember } from "./effects.js";
import { installMessageFit } from "./fit.js";
import { start as startLanguage } from "./i18n.js";
import * as say from "./messages.js";
import { href, match } from "./paths.js";
import { addReducers, reduce } from "./reducer.js";
import { loadLanguage, loadSettings, loadTutorialSeen, saveLanguage } from "./remember.js";
import { render } from "./render.js";
import { installSettings } from "./settings.js";
import { createSolo } from "./solo.js";
import { initialState } from "./state.js";
import { createStore } from "./store.js";
import { LAZY, installLazyViews, installOverlays } from "./views.js";

const messageFit = installMessageFit();

/** The render callback: state → DOM, and the phone table's message fitted to its room (P1).
 * Pure: nothing here fetches or writes storage (effects.js does, on each change). */
export function draw(state) {
  lazy.render(state);
  render(state);
  if (board) board.render(state);
  solo.render(state);
  if (overlays) overlays.render(state);
  messageFit.fit();
}

let overlays = null; // the lazy overlays (views.js), installed once the actions exist
export const store = createStore(reduce, initialState(loadSettings(), loadTutorialSeen()), {
  render: draw,
  effects: [remember, meterEffect(api), (...change) => overlays && overlays.effect(...change)],
});
// The page's one board (board/board.js): its code loads once the page is up, not with it
// (P6: the lobby, the first view, needs none of it); a game waits for it.
let board = null;
let boardLoading = null;
function loadBoard() {
  boardLoading ??= import("./board/board.js").then((m) => {
    addReducers(m.boardReducers);
    board = m.createBoard(store);
    return board;
  });
  return boardLoading;
}
const boards = { get: () => board, load: loadBoard };
const actions = createActions(store, { open: (path) => open(path), boards, table: () => solo });
const solo = createSolo(store, { boards, lobby: actions, open: (path) => open(path) });
onBusy((seconds) => store.dispatch({ type: "retrying", seconds })); // S4: said, then sent again
onNotice((reason) => store.dispatch({ type: "notice", reason })); // U20: said once
const lazy = installLazyViews(store, { open, play: solo.playDaily, boards });
overlays = installOverlays(store, { ...actions, startNew: solo.startNew });

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
    if (LAZY[view].back !== "return" && board) board.leave();
    lazy.open(view, params);
  } else {
    actions.route();
  }
}

function wire() {
  // The lobby's start buttons (index.html: data-start, the kind of game each starts).
  for (const button of document.querySelectorAll("[data-start]")) {
    button.addEventListener("click", () => solo.startNew(button.dataset.start, store.state.settings.difficulty));
  }
  const on = (testid, handler) => document.querySelector(`[data-testid="${testid}"]`).addEventListener("click", handler);
  on("continue", actions.continueGame);
  on("tutorial-offer-dismiss", () => store.dispatch({ type: "tutorialSeen" }));
  on("rules-back", actions.rulesBack);
  document.addEventListener("click", (event) => {
    if (!event.target.closest || event.defaultPrevented || event.ctrlKey || event.metaKey || event.shiftKey) return;
    // Links between views stay in the page (no reload, the game in memory is kept): the
    // lobby and 规则 (data-nav), and the lazy views anywhere (data-page).
    const nav = event.target.closest("a[data-nav]");
    if (nav) {
      event.preventDefault();
      if (nav.dataset.nav === "rules") open(href("rules"));
      else actions.goLobby();
      return;
    }
    const a = event.target.closest("a[data-page]");
    if (!a) return;
    event.preventDefault();
    const dialog = a.closest("dialog"); // (设置's 「我的设备」: the dialog goes with it)
    if (dialog && dialog.open) dialog.close();
    open(a.getAttribute("href"));
  });
  window.addEventListener("popstate", route);
  // Back online in the lobby: its records again (the message said the server was needed).
  window.addEventListener("online", async () => {
    if (store.state.view !== "lobby" || store.state.message.kind !== "error") return;
    const said = store.state.message.serial;
    await actions.route();
    // Nothing new went wrong: the error shown is over.
    if (store.state.message.serial === said) {
      store.dispatch({ type: "say", text: say.backOnlineLobby(), view: "lobby" });
    }
  });
  installSettings(store, { remembered: loadLanguage(), keep: saveLanguage });
}

// G3: the first view's words in the page's language (preloaded with the page) before its
// first render; the page's own words are in index.html already.
await startLanguage();
lazy.translate(); // (the lazy views' sections, built above before their words were in)
wire();
store.flush();
route();

// The board's code comes with the player's first touch or key (a start's request and the
// code then travel together; a page that is only looked at loads none of it), and once the
// page has loaded, the home-screen app (polish 10: its service worker), so the first load
// is the same with or without them (the awaits above may outlast the load event).
for (const type of ["pointerdown", "keydown"]) {
  window.addEventListener(type, () => loadBoard().catch((err) => console.warn(err)), { capture: true, once: true });
}
function loaded() {
  if ("serviceWorker" in navigator) {
    import("./lazy/pwa.js").then((pwa) => pwa.start()).catch((err) => console.warn(err));
  }
}
if (document.readyState === "complete") loaded();
else window.addEventListener("load", loaded);
