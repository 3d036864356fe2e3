// The page's one mutation funnel: `reduce(state, action)` returns the next state and never
// touches its input, the DOM, the storage or the network (unit-tested with `node --test`).
// Actions are plain objects `{type, ...}`; the effects live in actions.js (what a click
// asks the server) and effects.js (what follows from a new state: storage, the meter).

import * as say from "./messages.js";
import { CHOICES } from "./settings.js";

function message(state, text, kind = "info", view = "game", short = null, detail = null, again = null) {
  // P3: a message belongs to the view it was said for. `short`: the same message in fewer
  // words for the phone table's three-line message area (render.js shows one of the two).
  // `detail`: figures one tap away under the message (a hint's expected final scores, L15).
  // `again` (G3): says the same again, in the language the page speaks when it is drawn (a
  // text, or {text, short, detail}), so a change of language redraws the message too.
  const serial = state.message.serial + 1;
  const m = { text, kind, view, serial };
  if (short) m.short = short;
  if (detail) m.detail = detail;
  if (again) m.again = again;
  return { ...state, message: m };
}

const reducers = {
  navigate(state, { view }) {
    if (state.view === view) return state;
    return { ...state, view, previousView: state.view };
  },

  busy(state, { busy }) {
    return { ...state, busy };
  },

  say(state, { text, kind = "info", view = "game", short = null, detail = null, again = null }) {
    return message(state, text, kind, view, short, detail, again);
  },

  /** Arriving in the lobby: its buttons wait for this visit's data (F2). */
  lobbyVisit(state) {
    return { ...state, lobbyVisit: state.lobbyVisit + 1, lobbyReady: false };
  },

  /** F2: the lobby's buttons act only on this visit's data (`visit`: the visit it was
   * asked for; an answer for an earlier visit changes nothing). */
  lobbyReady(state, { visit }) {
    if (visit !== state.lobbyVisit || state.lobbyReady) return state;
    return { ...state, lobbyReady: true };
  },

  /** P5/L4: one setting changed (unknown names and values are ignored). Showing the meter
   * again asks for a fresh figure, not said aloud (`asking` forgotten). */
  setting(state, { name, value }) {
    if (!CHOICES[name] || !CHOICES[name].includes(value) || state.settings[name] === value) {
      return state;
    }
    const next = { ...state, settings: { ...state.settings, [name]: value } };
    return name === "meter" ? { ...next, meter: { ...next.meter, asking: null } } : next;
  },

  /** L4: the figure of position `key` ("id:version") is being asked for. Said aloud once a
   * turn: a new turn of the same game (its dice not rolled yet), never on the first figure
   * after a load, a switch of games or showing the meter again, nor at the end. */
  meterAsk(state, { key, game }) {
    const m = state.meter;
    const sameGame = m.asking !== null && m.asking.key.startsWith(`${game.id}:`);
    const turnStart = game.dice === null && game.status === "in_progress";
    const asking = { serial: m.asks + 1, key, game: game.id, announce: sameGame && turnStart };
    return { ...state, meter: { ...m, asks: m.asks + 1, asking } };
  },

  /** L4: the meter's answer; only the last one asked for counts. */
  meterFigures(state, { serial, figures }) {
    const m = state.meter;
    if (!m.asking || m.asking.serial !== serial) return state;
    const shown = { game: m.asking.game, ...figures };
    const text = m.asking.announce ? say.meterSaid(shown) : "";
    const said = { text, serial: m.said.serial + 1, game: m.asking.game };
    return { ...state, meter: { ...m, figures: shown, said } };
  },

  /** A lazy view's address (views.js): its page starts loading; the view shows at once. */
  pageOpen(state, { view, params }) {
    const serial = state.page ? state.page.serial + 1 : 1;
    const page = { view, params, serial, status: "loading", data: null, error: null, ui: {} };
    const next = state.view === view ? state : { ...state, view, previousView: state.view };
    return { ...next, page };
  },

  /** The page's data arrived (`serial`: the opening it belongs to; a later one wins). */
  pageLoaded(state, { serial, data }) {
    const p = state.page;
    if (!p || p.serial !== serial) return state;
    return { ...state, page: { ...p, status: "ready", data } };
  },

  pageFailed(state, { serial, error }) {
    const p = state.page;
    if (!p || p.serial !== serial) return state;
    return { ...state, page: { ...p, status: "error", error } };
  },

  /** S4: the server was too busy for a request, which api.js sends once more in `seconds`:
   * said where the player is (an open lazy view's `ui.notice`, else the message bar). */
  retrying(state, { seconds }) {
    const text = say.busyRetrying(seconds);
    const p = state.page;
    if (p && p.view === state.view) return { ...state, page: { ...p, ui: { ...p.ui, notice: text } } };
    return message(state, text, "info", state.view);
  },

  /** L10: the tutorial was offered (started or declined): not offered again. */
  tutorialSeen(state) {
    return state.tutorialSeen ? state : { ...state, tutorialSeen: true };
  },

  /** U20: the server says this browser's device ended (api.js onNotice). */
  notice(state, { reason }) {
    return state.notice === reason ? state : { ...state, notice: reason };
  },

  /** A lazy overlay's data arrived (views.js OVERLAYS). */
  overlayLoaded(state, { id, data }) {
    return { ...state, overlays: { ...state.overlays, [id]: data } };
  },

  records(state, { records }) {
    const current = records.current_game;
    const saved = current && current.status === "in_progress" ? current : null;
    return { ...state, records, saved };
  },

  /** A game's board opens: the lobby's saved game is on it now. */
  gameEntered(state) {
    return state.saved ? { ...state, saved: null } : state;
  },
};

/** Add a lazy module's own actions to the funnel (a view's, views.js; the board's, when its
 * module loads: main.js). Pure
 * functions `(state, action) => state`, like the ones above; a name is never taken twice. */
export function addReducers(more) {
  for (const [type, fn] of Object.entries(more)) {
    if (reducers[type] && reducers[type] !== fn) throw new Error(`action ${type} exists`);
    reducers[type] = fn;
  }
}

/** The next state after `action`. An unknown action type is a programming error. */
export function reduce(state, action) {
  const fn = Object.hasOwn(reducers, action.type) ? reducers[action.type] : null;
  if (!fn) throw new Error(`unknown action ${action.type}`);
  return fn(state, action);
}
