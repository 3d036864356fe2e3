// The board's state (A1): one slice of the store, `state.board`, for the one board the page
// shows (js/board/board.js) whatever the mode: solo, vs, 每日挑战 and the tutorial
// (js/solo.js), 多人同屏 (lazy/table.js) and 好友房间 (lazy/room.js). Its reducers are pure
// `(state, action) => state`, in the one funnel (reducer.js), tested with `node --test`;
// they read only the game the server sent (its seats, turn, preview, turns) and name no
// mode: what a mode adds (the table's handover, the room's seats and stream) is its own
// state, changed by its own reducers.
//
// board = {serial (one per opening), owner (the view it is on), game, mine (the seats this
// device plays: one, several people sharing it, or none for a watcher), hold, hintHold,
// hintCategory, rolled (the dice the last roll threw), rollSerial, busy (a request in flight),
// lastDice (left on the table at the end), pick (登记前确认's first tap: {version, category}),
// replay ({before, steps, index}: other seats' steps shown one by one), wrote (U14: the box this
// tab wrote last, {id, version, category}), undoHold (the holds 撤销 gives back), offline (U14:
// a lost tap's {id, version}), theirHold ({seat, hold} another device holds), declined ({category,
// count}: the zeros declined), logOpen (本局记录's sheet, phones), showEnd (the mode's end panel),
// shown (the seat whose column a phone shows)}.

import { NO_HOLD, holdable, onTurn } from "../state.js";

export { NO_HOLD, holdable, onTurn };
export const ALL_HELD = Object.freeze([true, true, true, true, true]);

const clearMarks = { hintHold: null, hintCategory: null, pick: null };

/** The seat called 「你」: the only seat this device plays (null: a device several people
 * share, or a watcher). */
export const you = (b) => (b.mine.length === 1 ? b.mine[0] : null);

/** Whether this device may act on the board now: its seat's turn, nothing replayed or sent. */
export function mayAct(b) {
  return Boolean(b) && b.mine.includes(onTurn(b.game)) && !b.replay && !b.busy;
}

/** U14: the box this tab may take back (`game.undo`, the server's word), or null: only one
 * this tab wrote itself, in the position its writing left. */
export function ownUndo(b) {
  const g = b && b.game;
  const w = b && b.wrote;
  if (!g || !g.undo || !w) return null;
  return w.id === g.id && w.version === g.version && w.category === g.undo.category ? g.undo : null;
}

/** 登记前确认's picked box while the position is the one it was picked on and the server
 * still offers it (a stale pick is never written); null otherwise. */
export function pickedBox(b) {
  const p = b.pick;
  if (!p || !mayAct(b) || p.version !== b.game.version) return null;
  const option = b.game.preview && b.game.preview[p.category];
  return option && option.allowed ? p.category : null;
}

/** The step on show, or null. */
export const replayStep = (replay) => (replay ? replay.steps[replay.index] : null);

/** The steps of the computers' turns in a game's answer (`game.computer_turns`), each with
 * its seat and round. */
export const computerSteps = (game) =>
  (game.computer_turns || []).flatMap((t) => t.steps.map((s) => ({ ...s, seat: t.seat, round: t.round })));

/** Seat `i`'s card while a replay runs: as it was before the replay until the step where
 * that seat writes its box (a replay shows the past, then the present). */
export function shownCard(replay, game, i) {
  if (!replay) return game.seats[i];
  const last = replay.steps.findLastIndex((s) => s.seat === i && s.action === "score");
  if (last < 0 || replay.index >= last) return game.seats[i];
  if (replay.before) return replay.before.seats[i];
  const seat = game.seats[i];
  const scores = Object.fromEntries(Object.keys(seat.scores).map((c) => [c, null]));
  return { ...seat, scores, upper_subtotal: 0, upper_bonus: 0, lower_total: 0, yahtzee_bonus: 0, total: 0 };
}

/** The turn log as far as a replay has shown it: a box not yet reached is left out. */
export function shownTurns(turns, replay) {
  if (!replay) return turns;
  const ahead = replay.steps.slice(replay.index + 1).filter((s) => s.action === "score");
  return turns.filter((t) => !ahead.some((s) => s.seat === t.seat && s.category === t.category && s.round === t.round));
}

/** What the dice tray shows: the step replayed, the last dice of a game over, the holds of
 * the seat on turn (this device's, or another device's as it says). */
export function diceView(b) {
  const g = b.game;
  const step = replayStep(b.replay);
  if (step) {
    const roll = step.action === "roll";
    return { dice: step.dice, held: roll ? step.hold : ALL_HELD, locked: !roll, computer: true, roll };
  }
  if (g.status !== "in_progress" && b.lastDice) return { dice: b.lastDice, held: ALL_HELD, locked: true };
  const theirs = b.theirHold && b.theirHold.seat === g.turn && !b.mine.includes(g.turn) ? b.theirHold.hold : null;
  return { dice: g.dice, held: theirs || b.hold, locked: g.dice !== null && g.rolls_left === 0 };
}

/** The board a mode opens on `game` (the reducer numbers it). */
export function openBoard({ owner, game, mine, hold = null, wrote = null }) {
  return {
    owner,
    game,
    mine,
    hold: hold ? hold.slice() : NO_HOLD,
    hintHold: null,
    hintCategory: null,
    pick: null,
    rolled: null,
    rollSerial: 0,
    busy: false,
    lastDice: null,
    replay: null,
    wrote,
    undoHold: null,
    offline: null,
    theirHold: null,
    declined: { category: null, count: 0 },
    logOpen: false,
    showEnd: game.status === "finished",
    shown: null,
  };
}

/** `game` as read from the server in place of a position this board no longer shows truly:
 * this turn's marks gone, the holds `hold` (stored for exactly this position) or none, no
 * replay, no lost tap. */
function standing(b, game, hold) {
  const next = { ...b, ...clearMarks, game, rolled: null, replay: null, offline: null };
  return { ...next, hold: hold ? hold.slice() : NO_HOLD, showEnd: game.status === "finished", shown: null };
}

/** A newer position of the same game, never an older one (a stream and an answer may bring
 * the same position in either order). */
const newer = (b, game) => !b.game || game.id !== b.game.id || game.version > b.game.version;

/** The board's named actions: `fn(board, action)` → the next board (the funnel wraps them). */
const slice = {
  boardBusy: (b, { busy }) => (b.busy === busy ? b : { ...b, busy }),

  /** The game as the server has it now (after an error, a resync): this turn's marks stay
   * while the turn is the same. */
  boardGame(b, { game, hold = null }) {
    const g = b.game;
    const same = g && g.id === game.id && g.round === game.round && g.turn === game.turn && game.dice !== null;
    const marks = same ? {} : { ...clearMarks, hold: hold ? hold.slice() : NO_HOLD, rolled: null };
    return { ...b, ...marks, game, showEnd: game.status === "finished" };
  },

  /** U14: the game went on elsewhere (another tab or device). */
  boardMovedOn: (b, { game, hold = null }) => standing(b, game, hold),

  /** U14: a tap the network lost, on position `version` of game `id`: never sent later. */
  boardOffline: (b, { id, version }) => ({ ...b, offline: { id, version } }),

  /** U14: the server answers again: the same position keeps the board; another is shown. */
  boardBack(b, { game, hold = null }) {
    const lost = b.offline;
    if (!lost) return b;
    if (lost.id !== game.id || b.game.id !== game.id) return { ...b, offline: null };
    return game.version === lost.version ? { ...b, game, offline: null } : standing(b, game, hold);
  },

  boardOfflineOver: (b) => (b.offline ? { ...b, offline: null } : b),

  /** A roll answered: the dice not held tumble; a replay still shown is over. */
  boardRolled: (b, { game, hold }) => ({
    ...b,
    ...clearMarks,
    game: newer(b, game) ? game : b.game,
    hold: hold.slice(),
    rolled: hold.map((h) => !h),
    rollSerial: b.rollSerial + 1,
    replay: null,
    theirHold: null,
  }),

  /** One die held or let go, while this device may (dice thrown, rolls left). */
  boardToggle(b, { index }) {
    const g = b.game;
    if (!mayAct(b) || g.dice === null || g.rolls_left === 0) return b;
    const hold = b.hold.slice();
    hold[index] = !hold[index];
    return { ...b, hold };
  },

  /** 登记前确认: the box a first tap picked, for the position `version`. */
  boardPick: (b, { version, category }) => ({ ...b, pick: { version, category } }),

  /** A box written (`before`: the game it was written in; `steps`: the other seats' steps
   * that followed, replayed from here; `wrote`, U14: the box this tab wrote). The last dice
   * stay on the table when the game is over; 撤销 gives the holds back. */
  boardScored(b, { before, game, wrote, steps = [] }) {
    const fresh = newer(b, game);
    const replay = fresh && steps.length ? { before, steps, index: 0 } : null;
    const lastDice = replay ? steps[steps.length - 1].dice : before.dice;
    return {
      ...b,
      ...clearMarks,
      game: fresh ? game : b.game,
      hold: NO_HOLD,
      undoHold: b.hold,
      rolled: null,
      lastDice,
      wrote,
      replay: replay || b.replay,
      shown: null,
    };
  },

  /** A hint's answer: the dice to keep (gold, and held), or the box to write (gold). */
  boardHinted: (b, { game, hold = null, category = null }) =>
    hold
      ? { ...b, game, hold: hold.slice(), hintHold: hold.slice(), hintCategory: null }
      : { ...b, game, hintHold: null, hintCategory: category },

  /** 撤销: the position before the box, the holds as they were. */
  boardUndone: (b, { game }) => ({
    ...b,
    ...clearMarks,
    game,
    hold: b.undoHold || NO_HOLD,
    rolled: null,
    lastDice: null,
    showEnd: false,
    wrote: null,
  }),

  /** Other seats' steps to show one by one (`before`: the game as it was before them);
   * steps arriving while a replay runs join its end. */
  boardReplayAdd(b, { steps, before = null }) {
    if (!steps.length) return b;
    if (b.replay) return { ...b, replay: { ...b.replay, steps: [...b.replay.steps, ...steps] } };
    return { ...b, replay: { before, steps, index: 0 } };
  },

  boardReplayStep(b) {
    const r = b.replay;
    if (!r || r.index + 1 >= r.steps.length) return b;
    return { ...b, replay: { ...r, index: r.index + 1 } };
  },

  boardReplayEnd: (b) => (b.replay ? { ...b, replay: null } : b),

  /** A live feed's news (another device acted): a newer position, its steps replayed. */
  boardFeed(b, { game, steps = [] }) {
    if (!newer(b, game)) return b;
    const before = b.replay ? b.replay.before : b.game;
    const replay = steps.length
      ? { before, steps: [...(b.replay ? b.replay.steps : []), ...steps], index: b.replay ? b.replay.index : 0 }
      : b.replay;
    const turned = !b.game || game.turn !== b.game.turn || game.round !== b.game.round;
    return { ...b, game, replay, ...(turned ? { ...clearMarks, hold: NO_HOLD, theirHold: null } : {}) };
  },

  /** The holds another device shows for the seat on turn (a room's live holds). */
  boardTheirHold: (b, { seat, hold }) => ({ ...b, theirHold: { seat, hold: hold.slice() } }),

  /** U2: the player said 「再想想」 to a 0 in `category` (a tutorial step waits for it). */
  boardDeclined: (b, { category }) => ({ ...b, declined: { category, count: b.declined.count + 1 } }),

  boardShowEnd: (b, { show }) => (b.showEnd === show ? b : { ...b, showEnd: show }),

  /** 本局记录's sheet opened or closed (phones). */
  boardLog: (b, { open }) => (b.logOpen === open ? b : { ...b, logOpen: open }),

  /** The seat whose column a phone shows (a tap on the seats' strip). */
  boardShown: (b, { seat }) => ({ ...b, shown: seat }),
};

/** The board's reducers for the funnel: each changes `state.board` only, and nothing when no
 * board is open; `boardOpen` opens one (a new serial), `boardClose` closes the one of
 * `serial` (a board opened since is left alone). */
export const boardReducers = {
  boardOpen(state, { board }) {
    const serial = (state.boardSerial || 0) + 1;
    return { ...state, board: { ...board, serial }, boardSerial: serial };
  },
  boardClose(state, { serial }) {
    return state.board && state.board.serial === serial ? { ...state, board: null } : state;
  },
  ...Object.fromEntries(
    Object.entries(slice).map(([type, fn]) => [
      type,
      (state, action) => {
        if (!state.board) return state;
        const board = fn(state.board, action);
        return board === state.board ? state : { ...state, board };
      },
    ]),
  ),
};
