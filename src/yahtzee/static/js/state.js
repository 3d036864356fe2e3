// Plain data: what the page knows — all of it, in one object held by the store (store.js).
// No DOM, no fetch. Everything about the rules (previews, legality, totals, the other seats'
// moves) lives in the board's `game` (board/state.js), exactly as the server sent it.

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
export function initialState(settings = DEFAULT_SETTINGS, tutorialSeen = false) {
  // (The comments stand on their own lines: the server drops whole-line comments, P6.)
  return {
    // lobby | game | rules | a lazy view's id (views.js)
    view: "lobby",
    // where 「返回」 on the rules page goes
    previousView: "lobby",
    // P5: {replay, theme, difficulty, meter, …}, saved by an effect (effects.js)
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
    // a request of the lobby's is in flight: further clicks are ignored
    busy: false,
    // the one board on the page, whatever the mode (board/state.js), and its openings' count
    board: null,
    boardSerial: 0,
    message: { text: "", kind: "info", serial: 0, view: "game" },
    // L4, the live meter: `asks` counts the figures asked for, `asking` is the last one
    // ({serial, key, game, announce});
    // `figures` = the last answer ({game, expected_final, win_probability, …}); `said` = what
    // its hidden live region says (a new serial is a new announcement, even of equal words).
    meter: { asks: 0, asking: null, figures: null, said: { text: "", serial: 0, game: null } },
    // L10 新手教程: whether this browser was offered it (the lobby's offer, remembered), and
    // the data of the lazy overlays (views.js OVERLAYS), by id; an overlay's own state is
    // its own (the tutorial's `state.tutorial`, its reducers').
    tutorialSeen,
    overlays: {},
    // A lazy view's page (views.js): {view, params, serial, status: loading|ready|error,
    // data, error, ui}; `ui` is that view's own small state (changed by the view's named actions).
    page: null,
    // W2, 「轮到你了」 (lazy/turns.js): the player's room games in play, and how many wait
    // for the player (the page's title says it)
    turns: null,
    titleCount: 0,
  };
}

export const NO_HOLD = Object.freeze([false, false, false, false, false]);

/** The seat on turn, or null once the game is over. */
export const onTurn = (game) => (game && game.status === "in_progress" ? game.turn : null);

/** Whether `game`'s dice are this device's to hold (U6): one of `mine`'s turn, rolls left. */
export const holdable = (game, mine) => mine.includes(onTurn(game)) && game.dice !== null && game.rolls_left > 0;

/** The board on the view shown, or null (another view, or no board open). */
export const boardShown = (state) => (state.board && state.board.owner === state.view ? state.board : null);
