// Plain data: what the page knows — all of it, in one object held by the store (store.js).
// No DOM, no fetch. Everything about the rules (previews, legality, totals, the computer's
// moves) lives in `game`, exactly as the server sent it.

import { CONFIG } from "./config.js";
import { named, namedPair } from "./i18n.js";
import { DEFAULT_SETTINGS } from "./settings.js";

// [id, name] of each box, in card order; names of levels, modes and results. The server
// gives each name as a catalog key (G1): read, it is said in the page's language (named).
export const UPPER = CONFIG.categories.filter((c) => c.upper).map((c) => namedPair(c.id, c.name_key));
export const LOWER = CONFIG.categories.filter((c) => !c.upper).map((c) => namedPair(c.id, c.name_key));
export const FACES = Object.fromEntries(CONFIG.categories.map((c) => [c.id, c.face]));

export const CATEGORY_NAMES = named(Object.fromEntries(CONFIG.categories.map((c) => [c.id, c.name_key])));

export const DIFFICULTY_NAMES = named(Object.fromEntries(CONFIG.difficulties.map((d) => [d.id, d.name_key])));

export const RESULT_NAMES = named(CONFIG.results);

export const MODE_NAMES = named(CONFIG.modes);

/** What each kind of game is called (K2): 单人挑战, 每日挑战, 好友房间… */
export const KIND_NAMES = named(CONFIG.kinds);

export const LIMITS = CONFIG.limits;

export const ROUNDS = LIMITS.rounds;

/** A fresh state object; `settings` as remembered in this browser (settings.js). */
export function initialState(settings = DEFAULT_SETTINGS, tutorialSeen = false, wrote = null) {
  // (The comments stand on their own lines: the server drops whole-line comments, P6.)
  return {
    // lobby | game | rules | a lazy view's id (views.js)
    view: "lobby",
    // where 「返回」 on the rules page goes
    previousView: "lobby",
    // P5: {replay, theme, difficulty, meter}, saved by an effect (effects.js)
    settings,
    // GET /api/records
    records: null,
    // the unfinished game (GET /api/games/current), for 「继续游戏」
    saved: null,
    // bumps on every arrival in the lobby: its data must be this visit's (F2)
    lobbyVisit: 0,
    // this lobby visit's data has loaded: only then may its buttons act (F2)
    lobbyReady: false,
    // U20: why this browser's device ended, to say once (lazy/notice.js), else null
    notice: null,
    // the game object being played
    game: null,
    // the player's holds, sent with 「再掷」
    hold: [false, false, false, false, false],
    // dice the last hint suggested keeping (gold)
    hintHold: null,
    // the box the last hint suggested (gold)
    hintCategory: null,
    // the turn log sheet is open (phones; always shown on a desktop)
    turnLogOpen: false,
    // a request is in flight: further clicks are ignored
    busy: false,
    // bumps on every roll so the animation replays even for equal values
    rollSerial: 0,
    // which dice the last roll threw (held ones do not tumble)
    rolledMask: null,
    // U14: the box this tab itself wrote last, {id, version, category} (the game's version
    // right after it): 撤销 is offered only for it, never for a box another tab wrote
    wrote,
    // U14: a tap the network lost, {id, version} of the position it was tapped on, until the
    // server answers again (then the game is read and shown; the tap is never sent later)
    offline: null,
    // the dice of the last scored turn, left on the table when the game ends
    lastDice: null,
    // {before, steps, index}: the computer's turn being shown step by step
    replay: null,
    message: { text: "", kind: "info", serial: 0, view: "game" },
    showGameOver: false,
    // L4, the live meter: `asks` counts the figures asked for, `asking` is the last one
    // ({serial, key, game, mode, announce});
    // `figures` = the last answer ({game, expected_final, win_probability}); `said` = what
    // its hidden live region says (a new serial is a new announcement, even of equal words).
    meter: { asks: 0, asking: null, figures: null, said: { text: "", serial: 0, game: null } },
    // L10 新手教程: whether this browser was offered it (remembered), the last 0 the player
    // declined to confirm (a tutorial step waits for one), the tutorial's own state (its
    // overlay module adds to it; `closedFor`: the tutorial game it was ended for) and the
    // data of the lazy overlays (views.js OVERLAYS), by id.
    tutorialSeen,
    declined: { category: null, count: 0 },
    tutorial: { closedFor: null },
    overlays: {},
    // A lazy view's page (views.js): {view, params, serial, status: loading|ready|error,
    // data, error, ui}; `ui` is that view's own small state (changed by the view's named actions).
    page: null,
  };
}

/** Whether the holds of `g` are the player's to keep (U6): the player's turn, dice thrown,
 * rolls left. */
export function holdable(g) {
  return (
    g !== null &&
    g.status === "in_progress" &&
    g.current_player === "human" &&
    g.dice !== null &&
    g.rolls_left > 0
  );
}

/** U14: the box `state.game` lets this tab take back (`game.undo`), or null: only one this
 * tab wrote itself, in the position its writing left (a box another tab or device wrote is
 * that one's to take back). */
export function ownUndo(state) {
  const g = state.game;
  const w = state.wrote;
  if (!g || !g.undo || !w) return null;
  return w.id === g.id && w.version === g.version && w.category === g.undo.category ? g.undo : null;
}

/** Whether the player may act on the table right now. */
export function canAct(state) {
  const g = state.game;
  return (
    g !== null &&
    g.status === "in_progress" &&
    g.current_player === "human" &&
    state.replay === null &&
    !state.busy
  );
}
