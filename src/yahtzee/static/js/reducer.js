// The page's one mutation funnel: `reduce(state, action)` returns the next state and never
// touches its input, the DOM or the network (unit-tested with `node --test`). Actions are
// plain objects `{type, ...}`; the effects (requests, timers, focus) live in actions.js.

import * as say from "./messages.js";
import { canAct } from "./state.js";

const NO_HOLD = Object.freeze([false, false, false, false, false]);

function message(state, text, kind = "info", view = "game", short = null) {
  // P3: a message belongs to the view it was said for. `short`: the same message in fewer
  // words for the phone table's three-line message area (render.js shows one of the two).
  const serial = state.message.serial + 1;
  const m = { text, kind, view, serial };
  return { ...state, message: short ? { ...m, short } : m };
}

function clearTurnMarks(state) {
  return { ...state, hold: NO_HOLD, hintHold: null, hintCategory: null, rolledMask: null };
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

  say(state, { text, kind = "info", view = "game" }) {
    return message(state, text, kind, view);
  },

  /** F2: the lobby's buttons act only on this visit's data. */
  lobbyReady(state, { ready }) {
    return state.lobbyReady === ready ? state : { ...state, lobbyReady: ready };
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
      showGameOver: game.status === "finished",
    };
  },

  leaveGame(state) {
    return { ...state, replay: null, showGameOver: false };
  },

  noGame(state) {
    return { ...state, game: null, replay: null, showGameOver: false };
  },

  /** The game as the server has it now (after an error): keep the marks of this turn. */
  resync(state, { game }) {
    const old = state.game;
    const turnChanged =
      !old || game.round !== old.round || game.current_player !== old.current_player;
    const next = turnChanged || game.dice === null ? clearTurnMarks(state) : state;
    return { ...next, game, showGameOver: game.status === "finished" };
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
      },
      say.scored(before.dice, category, game.players.human.boxes[category]),
    );
    return replayed ? next : turnEnded(next);
  },

  hinted(state, { res }) {
    const next = { ...state, game: res.game };
    const marks = res.hold
      ? { hold: res.hold.slice(), hintHold: res.hold.slice(), hintCategory: null }
      : { hintHold: null, hintCategory: res.category };
    return message({ ...next, ...marks }, say.hinted(res), "info", "game", say.hintedShort(res));
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

  /** The replay is over (or skipped: then its last step is said at once). */
  replayEnd(state, { skipped = false }) {
    const r = state.replay;
    let next = { ...state, replay: null };
    if (skipped && r) {
      const last = r.steps.length - 1;
      next = message(next, say.describeStep(r.steps[last], last));
    }
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

/** The next state after `action`. An unknown action type is a programming error. */
export function reduce(state, action) {
  const fn = reducers[action.type];
  if (!fn) throw new Error(`unknown action ${action.type}`);
  return fn(state, action);
}
