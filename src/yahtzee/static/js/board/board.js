// One board on the page (A1): `createBoard(store)` makes it once (main.js) and every mode
// puts it on its view with `mount(root, mode, opening)`: solo, vs, 每日挑战 and the tutorial
// (js/solo.js), 多人同屏 (lazy/table.js), 好友房间 (lazy/room.js). Only one is on the page at a
// time: mounting it elsewhere takes it from where it was (its timer, its lost tap's asking).
//
// It owns what every mode shares: the dice and their holds, the card's columns with the
// server's previews, the Joker strike, the zero confirmation and 登记前确认 (`scoreFlow`),
// 撤销, hints, 本局记录, the replay of other seats' turns (one timer, one describeStep), the
// announcements (the message bar of the mode's view), the keys (keyboard.js) and U14's
// answers to a lost tap or a game that went on elsewhere (reconnect.js). Its state is the
// store's `state.board` (board/state.js); its drawing is board/draw.js.
//
// A mode is described by plain data and functions, never named here:
//   owner        the view the board is on (its messages are said there)
//   transport    {roll(game, hold), score(game, category, confirmZero), hint?(game),
//                undo?(game), read(game) → the game as it stands now (or null),
//                hold?(game, hold): a hold to share with other devices}
//   hints(game)  whether it has 提示; noHints: what a press of H says where it has none
//   confirm(game) whether 登记前确认 applies (设置 turns it on)
//   buttons      [{text, testid, onClick, hidden(game)}] of its own in the top bar
//   lobby()      what 「大厅」 does
//   paused(state) whether something of its own covers the board now (a handover screen)
//   turnOver(game, lastPerson), ended(game), resynced(game): what follows a turn, the end, a
//                game read again; endButton: the testid of its end panel's first button
//                (endOverlay: that panel covers the board, Escape closes it)
//   feed(board)  a live feed of other devices' moves: started at mount, returns its stop; it
//                calls board.feed(game, steps) and board.theirHold(seat, hold)
//   movedOn      the words when the game went on elsewhere

import { ApiError } from "../api.js";
import { confirmDialog } from "../dialog.js";
import { installKeyboard } from "../keyboard.js";
import * as say from "../messages.js";
import { language } from "../i18n.js";
import { createLookAgain, createReconnect, onLookedAt, unanswered } from "../reconnect.js";
import { storedHold } from "../remember.js";
import { REPLAY_STEP_MS } from "../settings.js";
import { build, draw, seatLabel } from "./draw.js";
import { NO_HOLD, computerSteps, mayAct, openBoard, ownUndo, pickedBox, you } from "./state.js";

export { boardReducers } from "./state.js";

const smooth = () => (matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth");
const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

/** A tap on the offered box `category` (U2, polish 8), in every mode: under 登记前确认
 * (`confirmOn`) a first tap only picks it (`pick`, `said`); a 0 while another box would
 * score asks first (`declined` when the player says 「再想想」); else `send(category,
 * confirmZero)`. `picked`: the box picked before, if any. Returns what was done. */
export async function scoreFlow({ category, option, confirmOn, picked, pick, said, send, declined }) {
  if (!option || !option.allowed) return "none";
  if (confirmOn && picked !== category) {
    pick(category);
    said(say.pickedBox(category, option.points));
    return "picked";
  }
  if (option.needs_confirmation) {
    if (!(await confirmDialog(say.confirmZero(category, option.final !== false)))) {
      declined();
      return "declined";
    }
    await send(category, true);
    return "sent";
  }
  await send(category, false);
  return "sent";
}

/** The replay's timer (U8): `pace()` the milliseconds between two steps now (设置 may change
 * meanwhile; 0 shows the outcome at once), `step()` shows the next step (false when there
 * was none: then `end()`). The next step is due `pace` after this one is drawn (the store
 * draws in an animation frame), never on a fixed clock whose late ticks would fire back to
 * back after a stall. */
export function createReplayTimer({ pace, step, end }) {
  let timer = null;
  let frame = null;
  const stop = () => {
    if (timer !== null) clearTimeout(timer);
    if (frame !== null) cancelAnimationFrame(frame);
    timer = frame = null;
  };
  const finish = () => {
    stop();
    end();
  };
  const schedule = () => {
    const ms = pace();
    if (ms === 0) return finish();
    frame = requestAnimationFrame(() => {
      frame = null;
      timer = setTimeout(() => {
        timer = null;
        if (step()) schedule();
        else finish();
      }, ms);
    });
  };
  return {
    /** Start (or keep running: steps added to a running replay are reached in turn). */
    run: () => timer === null && frame === null && schedule(),
    stop,
    get running() {
      return timer !== null || frame !== null;
    },
  };
}

export function createBoard(store) {
  const S = () => store.state;
  const dispatch = (action) => store.dispatch(action);
  let mode = null; // the mode whose board is on the page
  let root = null;
  let builtIn = null; // the language its built words are in (G3: built again on a change)
  let serial = null; // the opening of state.board this mounting made
  let stopFeed = null;
  let lastPerson = null; // who acted before the replay running now

  /** The board of opening `at`, while it is still the one open. */
  const live = (at) => (S().board && S().board.serial === at ? S().board : null);
  const current = () => (mode ? live(serial) : null);
  const paused = () => Boolean(mode && mode.paused && mode.paused(S()));
  /** Say `text` in the board's view: a text, or (G3) a function that says it (a text or
   * {text, short, detail}), called again when the page changes its language. */
  const tell = (text, kind = "info", more = {}) => {
    if (!mode) return;
    const again = typeof text === "function" ? text : null;
    const said = again ? again() : text;
    dispatch({ type: "say", kind, view: mode.owner, ...more, ...(typeof said === "string" ? { text: said } : said), again });
  };
  /** The seats' names of the board as it is now, said when called (in the language then). */
  const labels = () => {
    const b = current();
    return (i) => seatLabel(b, i);
  };
  const pace = () => REPLAY_STEP_MS[S().settings.replay];

  // ------------------------------------------------------------------- focus (P2)

  /** Put the focus on the roll button when it would otherwise be lost (B3, P2): never the
   * page body. */
  function focusBoard() {
    const active = document.activeElement;
    const lost = !active || active === document.body || active.disabled || active.closest("[hidden]");
    if (!lost || !mode || S().view !== mode.owner || !root) return;
    const roll = byTestId("roll");
    const b = current();
    if (roll && !roll.disabled && !roll.hidden) roll.focus({ preventScroll: true });
    else if (b && b.game.dice !== null) byTestId("die-0").focus({ preventScroll: true });
    else document.getElementById("main").focus({ preventScroll: true });
  }
  const keepFocus = () => store.afterRender(focusBoard);
  const focusOn = (testid) =>
    store.afterRender(() => {
      const target = byTestId(testid);
      if (target && !target.disabled && target.offsetParent !== null) target.focus({ preventScroll: true });
    });

  /** P2: bring the hinted dice or box on screen (nothing moves when it already is). */
  function showHinted() {
    const b = current();
    const target = b && b.hintCategory
      ? document.querySelector(`.board .cell.hint`)
      : document.querySelector(".board .die.hint") || byTestId("die-0");
    if (!target) return;
    const box = target.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) target.scrollIntoView({ block: "center", behavior: smooth() });
  }

  // ------------------------------------------------------------------ server actions

  /** One server action; on failure say why and show the game as it stands ("never stuck").
   * U14: nothing is ever sent again later: a tap the network lost is dropped and said, and
   * the game read again as soon as the server answers. */
  async function act(fn) {
    const b = current();
    if (!b || b.busy) return null;
    const at = b.serial;
    const shown = b.game;
    dispatch({ type: "boardBusy", busy: true });
    try {
      const result = await fn(shown, at);
      if (live(at) && live(at).offline) dispatch({ type: "boardOfflineOver" });
      return result;
    } catch (err) {
      if (!live(at)) return null;
      if (unanswered(err)) {
        dispatch({ type: "boardOffline", id: shown.id, version: shown.version });
        tell(say.offlineNotSent(), "error");
        reconnect();
      } else {
        await recover(err, shown, at);
      }
      return null;
    } finally {
      if (live(at)) dispatch({ type: "boardBusy", busy: false });
      keepFocus();
    }
  }

  const read = (game) => Promise.resolve(mode.transport.read(game)).catch(() => null);

  async function recover(err, shown, at) {
    if (!(err instanceof ApiError)) console.warn(err);
    // U14: a stale version means the game went on in another tab, on another device, or a
    // friend or 托管 played first: shown as it is now, and said.
    const stale = err instanceof ApiError && err.code === "stale_version";
    if (!stale) tell(err instanceof ApiError ? err.message : say.pageResynced(), "error");
    const fresh = await read(shown);
    if (!fresh || !live(at)) return;
    if (stale && fresh.version !== shown.version) movedOn(fresh);
    else {
      dispatch({ type: "boardGame", game: fresh, hold: storedHold(fresh) });
      if (mode.resynced) mode.resynced(fresh);
    }
  }

  function movedOn(fresh) {
    dispatch({ type: "boardMovedOn", game: fresh, hold: storedHold(fresh) });
    tell(mode.movedOn || say.movedOn());
    if (mode.resynced) mode.resynced(fresh);
  }

  const lost = () => {
    const b = current();
    return b && b.offline && b.game.id === b.offline.id ? b.offline : null;
  };
  const reconnect = createReconnect({
    lost,
    busy: () => Boolean(current() && current().busy),
    read: () => read(current().game),
    back: (fresh, waiting) => {
      dispatch({ type: "boardBack", game: fresh, hold: storedHold(fresh) });
      tell(fresh.version === waiting.version ? say.backSame() : say.backChanged());
      if (mode.resynced) mode.resynced(fresh);
    },
  });
  const lookAgain = createLookAgain({
    lost,
    reconnect,
    shown: () => {
      const b = current();
      const still = b && S().view === mode.owner && b.game.status === "in_progress" && !b.busy && !S().busy && !b.replay;
      return still ? b.game : null;
    },
    read,
    movedOn,
  });
  onLookedAt(() => mode && lookAgain());

  async function roll() {
    const b = current();
    if (!b || !mayAct(b) || paused()) return;
    const g = b.game;
    const hold = g.dice === null ? NO_HOLD : b.hold.slice();
    if (g.rolls_left <= 0 || hold.every(Boolean)) return;
    await act(async (shown, at) => {
      const game = await mode.transport.roll(shown, hold);
      if (!live(at)) return;
      dispatch({ type: "boardRolled", game, hold });
      const who = labels();
      tell(() => say.rolled(game, who(game.turn)));
    });
  }

  function toggle(index) {
    const before = current();
    if (!before || paused()) return;
    dispatch({ type: "boardToggle", index });
    const b = current();
    if (b !== before && mode.transport.hold) mode.transport.hold(b.game, b.hold);
  }

  /** A tap on a box (or 「确定」): picked, confirmed or written (scoreFlow). */
  function score(category) {
    const b = current();
    if (!b || !mayAct(b) || paused()) return;
    const before = b.game;
    return scoreFlow({
      category,
      option: before.preview && before.preview[category],
      confirmOn: S().settings.confirm === "on" && (!mode.confirm || mode.confirm(before)),
      picked: pickedBox(b),
      pick: (c) => dispatch({ type: "boardPick", version: before.version, category: c }),
      said: (text) => tell(text),
      declined: () => declined(category),
      send: (c, confirmZero) => send(before, c, confirmZero),
    });
  }

  function declined(category) {
    dispatch({ type: "boardDeclined", category });
    tell(say.zeroCancelled);
  }

  async function send(before, category, confirmZero) {
    // U2: the server marks each box it would refuse without confirmation (it answers
    // zero_needs_confirmation, which also opens the dialog, should the two disagree).
    let needsConfirm = false;
    await act(async (shown, at) => {
      let game;
      try {
        game = await mode.transport.score(shown, category, confirmZero);
      } catch (err) {
        if (err instanceof ApiError && err.code === "zero_needs_confirmation") {
          needsConfirm = true;
          return;
        }
        throw err;
      }
      if (!live(at)) return;
      const who = labels();
      const wrote = { id: game.id, version: game.version, category };
      dispatch({ type: "boardScored", before, game, wrote, steps: computerSteps(game) });
      tell(() => say.scored(before.dice, category, game.seats[before.turn].scores[category], who(before.turn)));
      lastPerson = before.turn;
      if (current().replay) runReplay();
      else turnOver();
    });
    if (!needsConfirm) return;
    if (await confirmDialog(say.confirmZero(category, before.preview?.[category]?.final !== false))) {
      const b = current();
      if (b) await send(b.game, category, true);
    } else declined(category);
  }

  async function hint() {
    const b = current();
    if (!b || S().view !== mode.owner || !mayAct(b) || paused()) return;
    const g = b.game;
    if (!mode.hints || !mode.hints(g)) return mode.noHints && tell(mode.noHints, "error");
    if (g.seats[g.turn].hints_left <= 0) return tell(say.noHintsLeft, "error");
    if (g.dice === null) return tell(say.rollFirst);
    await act(async (shown, at) => {
      const [res, words] = await Promise.all([mode.transport.hint(shown), import("../lazy/hint_messages.js")]);
      if (!live(at)) return;
      dispatch({ type: "boardHinted", game: res.game, hold: res.hold, category: res.hold ? null : res.category });
      // The sentences come with the answer (lazy/hint_messages.js, loaded with it).
      tell(() => words.hintSaid(res));
      store.afterRender(showHinted);
    });
  }

  /** 撤销 (polish 8): the box this tab just wrote is taken back (the server says which, and
   * whether it may: `game.undo`); its seat plays on with the same dice. */
  async function undo() {
    const b = current();
    const u = ownUndo(b);
    if (!u || b.replay || !mode.transport.undo) return;
    await act(async (shown, at) => {
      const game = await mode.transport.undo(shown);
      if (!live(at)) return;
      dispatch({ type: "boardUndone", game });
      const who = labels();
      tell(() => say.undone(u.category, who(u.seat), game.rolls_left));
      focusOn("roll");
    });
  }

  // ------------------------------------------------------------------- the replay

  /** Show a replay set in the state (`boardScored`, `boardReplayAdd`, `boardFeed`): its first
   * step said now, the rest at the pace of 设置 (直接跳过: the outcome at once). */
  function runReplay() {
    const b = current();
    const r = b && b.replay;
    if (!r) return;
    if (pace() === 0) return endReplay();
    if (timer.running) return;
    const who = labels();
    if (r.index === 0) tell(() => say.describeStep(r.steps, 0, who(r.steps[0].seat)));
    timer.run();
    store.afterRender(() => {
      // The box just chosen is disabled now; a keyboard player lands on 「跳过」 instead.
      const active = document.activeElement;
      if (!active || active === document.body || active.disabled) byTestId("skip-replay").focus({ preventScroll: true });
      // Keep the tray in view for the other seats' turn ("nearest": no jump when it is).
      const felt = root && root.querySelector(".felt");
      if (felt) felt.scrollIntoView({ block: "nearest", behavior: smooth() });
    });
  }

  const timer = createReplayTimer({
    pace,
    step: () => {
      const b = current();
      const r = b && b.replay;
      if (!r || r.index + 1 >= r.steps.length) return false;
      dispatch({ type: "boardReplayStep" });
      const who = labels();
      tell(() => say.describeStep(r.steps, r.index + 1, who(r.steps[r.index + 1].seat)));
      return true;
    },
    end: () => endReplay(),
  });

  /** The replay is over (played out or skipped): what the other seats scored, once, and
   * whose turn it is; then what follows the turn. */
  function endReplay() {
    timer.stop();
    const b = current();
    const r = b && b.replay;
    if (!r) return;
    dispatch({ type: "boardReplayEnd" });
    const g = current().game;
    const who = labels();
    const scored = r.steps.filter((s) => s.action === "score");
    const said = () => {
      const next = g.status === "in_progress" ? say.turnNow(who(g.turn)) : "";
      return say.othersDone(scored.map((s) => [who(s.seat), s]), next);
    };
    if (scored.length) tell(said);
    turnOver();
  }

  /** A turn is over (and the other seats' replayed): the end, or the next turn. */
  function turnOver() {
    const b = current();
    if (!b) return;
    const g = b.game;
    if (g.status === "finished") {
      dispatch({ type: "boardShowEnd", show: true });
      const who = labels();
      tell(() => say.gameOver(g, who));
      if (mode.ended) mode.ended(g);
      if (mode.endButton) focusOn(mode.endButton);
      return;
    }
    if (mode.turnOver) mode.turnOver(g, lastPerson);
    keepFocus();
  }

  // ---------------------------------------------------------------- small controls

  function showEnd(show) {
    dispatch({ type: "boardShowEnd", show });
    focusOn(show ? mode.endButton : "show-result");
  }

  function log(open) {
    if (!current() || current().logOpen === open) return;
    dispatch({ type: "boardLog", open });
    focusOn(open ? "turn-log-close" : "turn-log-toggle");
  }

  const on = {
    roll,
    toggle,
    hint,
    undo,
    skip: () => endReplay(),
    showEnd,
    log,
    lobby: () => mode && mode.lobby(),
    confirm: () => {
      const c = current() && pickedBox(current());
      if (c) score(c);
    },
    meter: () => dispatch({ type: "setting", name: "meter", value: S().settings.meter === "shown" ? "hidden" : "shown" }),
  };

  // Every board's keys (B3): space/enter roll, 1–5 hold, H hint, arrows, Esc.
  const onBoard = () => Boolean(mode && S().view === mode.owner && current());
  installKeyboard({
    onTable: () => onBoard() && !paused(),
    gameOverShown: () => onBoard() && Boolean(mode.endOverlay && current().showEnd && current().game.status === "finished"),
    closeGameOver: () => showEnd(false),
    roll,
    toggleDie: toggle,
    hint,
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && onBoard() && current().logOpen) log(false);
  });

  function stop() {
    timer.stop();
    if (stopFeed) stopFeed();
    stopFeed = null;
    if (serial !== null) dispatch({ type: "boardClose", serial });
    serial = null;
  }

  const board = {
    /** Put the board on `el` for `m` (a mode, see above), open on `game`: `mine` the seats
     * this device plays, `hold` and `wrote` as remembered (U6, U14). Returns the opening. */
    mount(el, m, { game, mine, hold = null, wrote = null }) {
      stop();
      if (root !== el || mode !== m) {
        if (root && root !== el) root.replaceChildren();
        build(el, m, on);
        builtIn = language();
      }
      mode = m;
      root = el;
      lastPerson = null;
      dispatch({ type: "boardOpen", board: openBoard({ owner: m.owner, game, mine, hold, wrote }) });
      serial = S().board.serial;
      if (m.feed) stopFeed = m.feed(board);
      store.flush(); // drawn at once: its controls never show before the state they act on
      return serial;
    },
    /** Take the board off the page (its view was left): no replay runs behind it. `at`: only
     * if it is still that opening. */
    stop(at = serial) {
      if (at === serial) stop();
    },
    /** The element the board is drawn in (a lazy view puts it in its body). */
    get root() {
      return root;
    },
    /** Draw the state (main.js's render, once per frame). */
    render(state) {
      const b = state.board;
      if (!mode || !b || b.serial !== serial || !root.firstChild) return;
      // G3: the words built once (its buttons, headings, labels) in the language now.
      if (builtIn !== language()) {
        // (the page's one message element stands in the board's bar: kept, not rebuilt)
        const message = root.querySelector('[data-testid="message"]');
        build(root, mode, on);
        builtIn = language();
        const slot = root.querySelector(".message-slot");
        if (message && slot) slot.append(message);
      }
      const m = state.meter.figures;
      const chances = state.settings.meter === "shown" && m && m.game === b.game.id ? m.win_probabilities : null;
      draw(root, b, mode, { paused: paused(), chances, select: (seat) => dispatch({ type: "boardShown", seat }), pick: score });
    },
    /** Other seats' steps to show (a new game whose computers played first). */
    replay(before, steps) {
      dispatch({ type: "boardReplayAdd", before, steps });
      runReplay();
    },
    /** A live feed's news: the game as another device's move left it, its steps replayed. */
    feed(game, steps = []) {
      const b = current();
      if (!b) return;
      const was = b.replay;
      dispatch({ type: "boardFeed", game, steps });
      // A page nobody looks at shows the present: a replay would wait for it (its timer
      // runs on animation frames) and play a long backlog once it is looked at again.
      if (document.hidden && current().replay) return endReplay();
      if (current().replay && !was) runReplay();
      else if (current().replay) timer.run();
      else if (current() !== b) keepFocus();
    },
    /** The holds another device shows for the seat on turn. */
    theirHold: (seat, hold) => current() && dispatch({ type: "boardTheirHold", seat, hold }),
    /** Say `text` in the board's view. */
    say: tell,
    /** Leave the view for a page of its own (复盘, 统计): no replay runs behind it, the end
     * panel is closed. */
    leave() {
      timer.stop();
      if (current()) {
        dispatch({ type: "boardReplayEnd" });
        dispatch({ type: "boardShowEnd", show: false });
      }
    },
    undo,
    showEnd,
    keepFocus,
    /** The seat called 「你」 on this board, or null. */
    you: () => (current() ? you(current()) : null),
    /** The board's current state (null when another mode's board is open). */
    get state() {
      return current();
    },
  };
  return board;
}
