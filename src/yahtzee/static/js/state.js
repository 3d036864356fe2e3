// Plain data: what the page knows. No DOM, no fetch. Everything about the rules (previews,
// legality, totals, the computer's moves) lives in `game`, exactly as the server sent it.

import { CONFIG } from "./config.js";

// [id, Chinese name] of each box, in card order; names of levels, modes and results.
export const UPPER = CONFIG.categories.filter((c) => c.upper).map((c) => [c.id, c.zh]);
export const LOWER = CONFIG.categories.filter((c) => !c.upper).map((c) => [c.id, c.zh]);
export const FACES = Object.fromEntries(CONFIG.categories.map((c) => [c.id, c.face]));

export const CATEGORY_NAMES = Object.fromEntries([...UPPER, ...LOWER]);

export const DIFFICULTY_NAMES = Object.fromEntries(CONFIG.difficulties.map((d) => [d.id, d.zh]));

export const RESULT_NAMES = CONFIG.results;

export const LIMITS = CONFIG.limits;

export const ROUNDS = LIMITS.rounds;

/** A fresh state object. */
export function initialState() {
  return {
    view: "lobby", // lobby | game | rules
    previousView: "lobby", // where 「返回」 on the rules page goes
    records: null, // GET /api/records
    saved: null, // the unfinished game (GET /api/games/current), for 「继续游戏」
    lobbyReady: false, // this lobby visit's data has loaded: only then may its buttons act (F2)
    game: null, // the game object being played
    hold: [false, false, false, false, false], // the player's holds, sent with 「再掷」
    hintHold: null, // dice the last hint suggested keeping (gold)
    hintCategory: null, // the box the last hint suggested (gold)
    turnLogOpen: false, // the turn log sheet is open (phones; always shown on a desktop)
    busy: false, // a request is in flight: further clicks are ignored
    rollSerial: 0, // bumps on every roll so the animation replays even for equal values
    rolledMask: null, // which dice the last roll threw (held ones do not tumble)
    lastDice: null, // the dice of the last scored turn, left on the table when the game ends
    replay: null, // {before, steps, index}: the computer's turn being shown step by step
    message: { text: "", kind: "info", serial: 0, view: "game" },
    showGameOver: false,
  };
}

// U6/P3: the holds are the page's until the next roll. They are kept in this browser for the
// game and version they belong to (one entry: any other game's or version's is stale), so
// continuing the game or reloading the page shows them again.
const HOLD_KEY = "yahtzee.hold";

function holdable(g) {
  return (
    g !== null &&
    g.status === "in_progress" &&
    g.current_player === "human" &&
    g.dice !== null &&
    g.rolls_left > 0
  );
}

/** Store the holds of `state.game` (or drop them once that game has moved past them). Only
 * on the table: elsewhere `state.hold` may not be that game's (the lobby, before 继续游戏). */
export function rememberHold(state) {
  const g = state.game;
  if (state.view !== "game") return;
  try {
    const stored = localStorage.getItem(HOLD_KEY);
    if (holdable(g)) {
      const value = JSON.stringify({ id: g.id, version: g.version, hold: state.hold });
      if (stored !== value) localStorage.setItem(HOLD_KEY, value);
    } else if (g !== null && stored !== null && JSON.parse(stored).id === g.id) {
      localStorage.removeItem(HOLD_KEY);
    }
  } catch {
    // No storage (private mode, quota): the holds just do not survive a reload.
  }
}

/** The holds stored for exactly this game and version, or null (a stale entry is removed). */
export function storedHold(game) {
  try {
    const stored = localStorage.getItem(HOLD_KEY);
    if (stored === null) return null;
    const entry = JSON.parse(stored);
    const fits =
      holdable(game) &&
      entry.id === game.id &&
      entry.version === game.version &&
      Array.isArray(entry.hold) &&
      entry.hold.length === 5 &&
      entry.hold.every((h) => typeof h === "boolean");
    if (fits) return entry.hold.slice();
    localStorage.removeItem(HOLD_KEY);
  } catch {
    // Unreadable storage or entry: nothing to restore.
  }
  return null;
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
