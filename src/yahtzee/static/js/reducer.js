// The page's one mutation funnel: `reduce(state, action)` returns the next state and never
// touches its input, the DOM, the storage or the network (unit-tested with `node --test`).
// Actions are plain objects `{type, ...}`; the effects live in actions.js (what a click
// asks the server) and effects.js (what follows from a new state: storage, the meter).

import * as say from "./messages.js";
import { CHOICES } from "./settings.js";
import { canAct } from "./state.js";

const NO_HOLD = Object.freeze([false, false, false, false, false]);

function message(state, text, kind = "info", view = "game", short = null, detail = null) {
  // P3: a message belongs to the view it was said for. `short`: the same message in fewer
  // words for the phone table's three-line message area (render.js shows one of the two).
  // `detail`: figures one tap away under the message (a hint's expected final scores, L15).
  const serial = state.message.serial + 1;
  const m = { text, kind, view, serial };
  if (short) m.short = short;
  if (detail) m.detail = detail;
  return { ...state, message: m };
}

function clearTurnMarks(state) {
  return { ...state, hold: NO_HOLD, hintHold: null, hintCategory: null, rolledMask: null };
}

/** U14: `game` as read from the server replaces a position this tab no longer shows truly:
 * the marks of the old turn go, the holds are `hold` (stored for exactly this position) or
 * none, no replay runs and no lost tap is pending. */
function standing(state, game, hold) {
  const next = { ...clearTurnMarks(state), game, replay: null, offline: null };
  return { ...next, hold: hold ? hold.slice() : NO_HOLD, showGameOver: game.status === "finished" };
}

/** The end of the player's turn (after the replay, if any): the end panel when over. */
function turnEnded(state) {
  const g = state.game;
  if (g.status !== "finished") return state;
  return message({ ...state, showGameOver: true }, say.gameOver(g));
}

const reducers = {
  navigate(state, { view }) {
    if (state.view === view) return state;
    return { ...state, view, previousView: state.view };
  },

  busy(state, { busy }) {
    return { ...state, busy };
  },

  /** 登记前确认's first tap (polish 8): `pick` {id, version, category}; said by the flow. */
  pick(state, { pick }) {
    return { ...state, pick };
  },

  say(state, { text, kind = "info", view = "game" }) {
    return message(state, text, kind, view);
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
    const asking = {
      serial: m.asks + 1,
      key,
      game: game.id,
      mode: game.mode,
      announce: sameGame && turnStart,
    };
    return { ...state, meter: { ...m, asks: m.asks + 1, asking } };
  },

  /** L4: the meter's answer; only the last one asked for counts. */
  meterFigures(state, { serial, figures }) {
    const m = state.meter;
    if (!m.asking || m.asking.serial !== serial) return state;
    const shown = { game: m.asking.game, ...figures };
    const text = m.asking.announce ? say.meterSaid(shown, { mode: m.asking.mode }) : "";
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

  /** L10: the tutorial of the game on the table is over (skipped, finished): no overlay. */
  tutorialClose(state) {
    const id = state.game ? state.game.id : null;
    return { ...state, tutorial: { ...state.tutorial, closedFor: id } };
  },

  /** U2: the player said 「再想想」 to a 0 in `category` (a tutorial step waits for it). */
  zeroDeclined(state, { category }) {
    const declined = { category, count: state.declined.count + 1 };
    return message({ ...state, declined }, say.ZERO_CANCELLED);
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

  enterGame(state, { game, hold = null }) {
    const next = clearTurnMarks(state);
    return {
      ...next,
      hold: hold ? hold.slice() : next.hold,
      game,
      lastDice: null,
      replay: null,
      saved: null,
      offline: null,
      showGameOver: game.status === "finished",
    };
  },

  // (Leaving the table drops a lost tap's wait for the server, U14: there is no position
  // to show again; the lobby reads its own data.)
  leaveGame(state) {
    return { ...state, replay: null, showGameOver: false, offline: null };
  },

  noGame(state) {
    return { ...state, game: null, replay: null, showGameOver: false, offline: null };
  },

  /** The game as the server has it now (after an error): keep the marks of this turn. */
  resync(state, { game }) {
    const old = state.game;
    const turnChanged =
      !old || game.round !== old.round || game.current_player !== old.current_player;
    const next = turnChanged || game.dice === null ? clearTurnMarks(state) : state;
    return { ...next, game, showGameOver: game.status === "finished" };
  },

  /** U14: the server refused a tap because the game went on elsewhere (another tab, another
   * linked device): the game as it stands now, this turn's marks gone (the holds `hold` as
   * stored for its position, if any), and one sentence saying so in place of whatever the
   * message said about the old position. */
  movedOn(state, { game, hold = null }) {
    return message(standing(state, game, hold), say.MOVED_ON);
  },

  /** U14: a tap the network lost (tapped on position `version` of game `id`): dropped, and
   * said; nothing is sent later. */
  offline(state, { id, version, view = "game" }) {
    return message({ ...state, offline: { id, version } }, say.OFFLINE_NOT_SENT, "error", view);
  },

  /** U14: the server answers again (`game`: read just now): shown, and said whether the
   * position is the one the lost tap was made on. Nothing when no tap was lost, or the
   * table shows another game now. */
  reconnected(state, { game, hold = null }) {
    const lost = state.offline;
    if (!lost) return state;
    if (!state.game || lost.id !== game.id || state.game.id !== game.id) return { ...state, offline: null };
    if (game.version === lost.version) {
      return message({ ...state, game, offline: null }, say.BACK_SAME);
    }
    return message(standing(state, game, hold), say.BACK_CHANGED);
  },

  /** A tap went through after a lost one: the server answers, nothing more to say. */
  offlineOver(state) {
    return state.offline ? { ...state, offline: null } : state;
  },

  rolled(state, { game, hold }) {
    return message(
      {
        ...state,
        game,
        hold: hold.slice(),
        rolledMask: hold.map((h) => !h),
        rollSerial: state.rollSerial + 1,
        hintHold: null,
        hintCategory: null,
      },
      say.rolled(game),
    );
  },

  toggleHold(state, { index }) {
    const g = state.game;
    if (!canAct(state) || g.dice === null || g.rolls_left === 0) return state;
    const hold = state.hold.slice();
    hold[index] = !hold[index];
    return { ...state, hold };
  },

  scored(state, { before, game, category }) {
    const turn = game.computer_turn;
    const replayed = game.mode === "vs_computer" && turn && turn.steps.length > 0;
    const next = message(
      {
        ...clearTurnMarks(state),
        game,
        lastDice: replayed ? turn.steps[turn.steps.length - 1].dice : before.dice,
        wrote: { id: game.id, version: game.version, category },
      },
      say.scored(before.dice, category, game.players.human.boxes[category]),
    );
    return replayed ? next : turnEnded(next);
  },

  hinted(state, { res, said: words }) {
    const next = { ...state, game: res.game };
    const marks = res.hold
      ? { hold: res.hold.slice(), hintHold: res.hold.slice(), hintCategory: null }
      : { hintHold: null, hintCategory: res.category };
    // The sentences come with the action (lazy/hint_messages.js, loaded with the answer).
    const said = [words.text, "info", "game", words.short, words.detail];
    return message({ ...next, ...marks }, ...said);
  },

  replayStart(state, { before, turn }) {
    const replay = { before, steps: turn.steps, index: 0, round: turn.round };
    return message({ ...state, replay }, say.describeStep(turn.steps[0], 0));
  },

  replayStep(state) {
    const r = state.replay;
    if (!r || r.index + 1 >= r.steps.length) return state;
    const index = r.index + 1;
    return message({ ...state, replay: { ...r, index } }, say.describeStep(r.steps[index], index));
  },

  /** The replay is over (played out or skipped): what the computer scored, once. */
  replayEnd(state) {
    const r = state.replay;
    let next = { ...state, replay: null };
    if (r) next = message(next, say.computerDone(r.steps[r.steps.length - 1]));
    return turnEnded(next);
  },

  replayCancel(state) {
    return state.replay ? { ...state, replay: null } : state;
  },

  showGameOver(state, { show }) {
    return { ...state, showGameOver: show };
  },

  turnLog(state, { open }) {
    return { ...state, turnLogOpen: open };
  },
};

/** Add a lazy view's own actions to the funnel (views.js, when its module loads). Pure
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
