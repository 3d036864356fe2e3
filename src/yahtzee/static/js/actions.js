// What the player's clicks and keys do: ask the server, then dispatch what it answered.
// The server is the referee: nothing here decides what a roll scores or whether a move is
// legal. State changes only through `store.dispatch` (reducer.js); this module owns the
// effects: requests, the replay timer, dialogs, focus and scrolling after a render.

import { ApiError, api } from "./api.js";
import { confirmDialog } from "./dialog.js";
import * as say from "./messages.js";
import { href, match } from "./paths.js";
import { storedHold } from "./remember.js";
import { createReplay } from "./replay.js";
import { scoreFlow } from "./board.js";
import { CONFIG } from "./config.js";
import { canAct } from "./state.js";
import { createLookAgain, createReconnect, unanswered } from "./reconnect.js";

const NO_HOLD = [false, false, false, false, false];
const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);
const smooth = () => (matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth");

/** Show `view` (lobby, game): the state changes through the store, the address
 * follows, and screen readers are told where they are (the view's heading takes the focus;
 * the table puts it on the roll button itself). */
function go(store, view) {
  store.dispatch({ type: "navigate", view });
  const path = href(view);
  if (location.pathname !== path) history.pushState(null, "", path);
  store.afterRender(() => {
    if (view === "lobby") document.getElementById("lobby-title").focus({ preventScroll: true });
  });
}

// `openPage(path)`: main.js's way to an address (the lazy 多人同屏 view).
export function createActions(store, openPage) {
  const S = () => store.state;
  const dispatch = (action) => store.dispatch(action);
  const tell = (text, kind = "info", view = "game") => dispatch({ type: "say", text, kind, view });
  const replay = createReplay(store, () => afterTurn());

  // ------------------------------------------------------------------------ focus (P2)

  /** Put focus on the roll button when it would otherwise be lost (B3, P2): never the body. */
  function focusTable() {
    const active = document.activeElement;
    const lost =
      !active || active === document.body || active.disabled || active.closest("[hidden]");
    if (!lost || S().view !== "game") return;
    // preventScroll: the whole turn fits the screen (P1); focusing must not jump the page.
    const roll = byTestId("roll");
    if (!roll.disabled) roll.focus({ preventScroll: true });
    else if (S().game && S().game.dice !== null) byTestId("die-0").focus({ preventScroll: true });
    else document.getElementById("main").focus({ preventScroll: true });
  }

  const keepFocus = () => store.afterRender(focusTable);

  /** P2: bring the hinted dice or box on screen (nothing moves when it already is). */
  function showHinted() {
    const category = S().hintCategory;
    const target = category
      ? byTestId(`cell-human-${category}`)
      : document.querySelector(".die.hint") || byTestId("die-0");
    if (!target) return;
    const box = target.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    target.scrollIntoView({ block: "center", behavior: smooth() });
  }

  // ------------------------------------------------------------------- server actions

  /** Run one server action; on failure show why and re-sync from the server ("never stuck").
   * U14: nothing is ever sent again later. A tap the network lost is dropped and said
   * (`offline`), and the game is read again as soon as the server answers, so the next tap
   * is the player's own, on the position they see. */
  async function act(fn) {
    if (S().busy) return null;
    const view = S().view; // an error is told where the action was asked for
    const shown = S().game;
    dispatch({ type: "busy", busy: true });
    try {
      const result = await fn();
      if (S().offline) dispatch({ type: "offlineOver" });
      return result;
    } catch (err) {
      // No answer: the network failed, or (behind nginx, 503 `unavailable`) no app process
      // answered. On the table only: elsewhere, say 继续游戏 in the lobby, there is no
      // position to show again, and recover's message asks to check the network and retry.
      if (unanswered(err) && shown && view === "game") {
        dispatch({ type: "offline", id: shown.id, version: shown.version, view });
        reconnect();
      } else {
        await recover(err, view, shown);
      }
      return null;
    } finally {
      dispatch({ type: "busy", busy: false });
      keepFocus();
    }
  }

  /** The game `g` as the server has it now, or null when it is gone (then the lobby says
   * so) or cannot be read (`quiet`: nothing said; else the error is). */
  async function readGame(g, view, quiet = false) {
    try {
      const fresh = await api.game(g.id);
      if (fresh.status !== "abandoned") return fresh;
      dispatch({ type: "resync", game: fresh });
      tell(say.GAME_GONE, "error", "lobby");
      await goLobby(true);
    } catch (again) {
      if (again instanceof ApiError && again.code === "not_found") {
        tell(say.GAME_NOT_FOUND, "error", "lobby");
        dispatch({ type: "noGame" });
        await goLobby(true);
      } else if (again instanceof ApiError && !quiet) {
        tell(again.message, "error", view);
      }
    }
    return null;
  }

  /** The game `fresh` read from the server differs from `shown`, which this tab showed:
   * it went on elsewhere (U14). */
  function movedOn(fresh) {
    dispatch({ type: "movedOn", game: fresh, hold: storedHold(fresh) });
  }

  async function recover(err, view, shown) {
    const apiErr = err instanceof ApiError ? err : new ApiError(0, "client", say.PAGE_RESYNCED);
    if (!(err instanceof ApiError)) console.warn(err);
    // U14: a stale version means the game went on in another tab or on another device (this
    // tab sends one action at a time and never one again): shown as it is now, and said.
    const stale = apiErr.code === "stale_version";
    if (!stale) tell(apiErr.message, "error", view);
    const g = S().game;
    if (!g) return;
    const fresh = await readGame(g, view);
    if (!fresh) return;
    if (stale && shown && fresh.version !== shown.version) movedOn(fresh);
    else dispatch({ type: "resync", game: fresh });
  }

  /** U14: ask for the game until the server answers, then show it (`reconnected` says
   * whether the lost tap's position is still the one). */
  const lostTap = () => {
    const lost = S().offline;
    const g = S().game;
    return lost && g && g.id === lost.id ? lost : null;
  };
  const reconnect = createReconnect({
    lost: lostTap,
    busy: () => S().busy,
    read: () => readGame(S().game, S().view, true),
    back: (fresh) => dispatch({ type: "reconnected", game: fresh, hold: storedHold(fresh) }),
  });

  /** U14: the tab is looked at again (focus, visibilitychange): if the game went on
   * elsewhere meanwhile, show it as it stands and say so. Quiet when nothing changed or the
   * server cannot be asked now. */
  const lookAgain = createLookAgain({
    lost: lostTap,
    reconnect,
    shown: () => {
      const g = S().game;
      const still = S().view === "game" && g && g.status === "in_progress" && !S().busy && !S().replay;
      return still ? g : null;
    },
    read: (g) => readGame(g, "game", true),
    movedOn,
  });

  async function roll() {
    const g = S().game;
    if (!canAct(S()) || g.rolls_left <= 0) return;
    const hold = g.dice === null ? NO_HOLD : S().hold.slice();
    if (hold.every(Boolean)) return;
    await act(async () => {
      dispatch({ type: "rolled", game: await api.roll(g, hold), hold });
    });
  }

  function toggleDie(index) {
    dispatch({ type: "toggleHold", index });
  }

  async function askZero(category, option) {
    const yes = await confirmDialog(say.confirmZero(category, option?.final !== false));
    if (!yes) dispatch({ type: "zeroDeclined", category });
    return yes;
  }

  /** A tap on a box (or 登记前确认's 「确定」): picked, asked or written, by the flow every
   * mode shares (board.js scoreFlow; no 登记前确认 in the tutorial, which says what to tap). */
  function score(category) {
    const state = S();
    const before = state.game;
    if (!canAct(state)) return;
    const pick = state.pick;
    return scoreFlow({
      category,
      option: before.preview && before.preview[category],
      confirmOn: state.settings.confirm === "on" && before.kind !== "tutorial",
      picked: pick && pick.id === before.id && pick.version === before.version ? pick.category : null,
      pick: (c) => dispatch({ type: "pick", pick: { id: before.id, version: before.version, category: c } }),
      said: (text) => dispatch({ type: "say", text }),
      declined: () => dispatch({ type: "zeroDeclined", category }),
      send: (c, confirmZero) => send(before, c, confirmZero),
    });
  }

  async function send(before, category, confirmZero) {
    // U2: the server marks each box whose score it would refuse without confirmation (it
    // answers zero_needs_confirmation, which also opens the dialog, should the two disagree).
    let needsConfirm = false;
    await act(async () => {
      let game;
      try {
        game = await api.score(before, category, confirmZero);
      } catch (err) {
        if (err instanceof ApiError && err.code === "zero_needs_confirmation") {
          needsConfirm = true;
          return;
        }
        throw err;
      }
      dispatch({ type: "scored", before, game, category });
      const turn = game.computer_turn;
      if (game.mode === "vs_computer" && turn && turn.steps.length) startReplay(before, turn);
      else afterTurn();
    });
    if (needsConfirm && (await askZero(category, before.preview?.[category]))) await send(S().game, category, true);
  }

  /** The player's turn is over (and the computer's replayed): the end, or the next turn. */
  function afterTurn() {
    if (S().game.status === "finished") {
      refreshLobbyData();
      store.afterRender(() => byTestId(endButton()).focus());
    } else {
      keepFocus();
    }
  }

  function startReplay(before, turn) {
    replay.start(before, turn);
    if (!S().replay) return; // 直接跳过: already over
    store.afterRender(() => {
      // The box just chosen is disabled now; a keyboard player lands on 「跳过」 instead.
      const active = document.activeElement;
      if (!active || active === document.body || active.disabled) {
        byTestId("skip-replay").focus({ preventScroll: true });
      }
      // Keep the tray in view for the computer's turn ("nearest": no jump when it is).
      document.querySelector(".felt").scrollIntoView({ block: "nearest", behavior: smooth() });
    });
  }

  async function hint() {
    const g = S().game;
    if (!g || S().view !== "game" || !canAct(S())) return;
    if (g.daily) return tell(say.NO_DAILY_HINTS, "error"); // D3: the server refuses too
    if (g.hints_left <= 0) return tell(say.NO_HINTS_LEFT, "error");
    if (g.dice === null) return tell(say.ROLL_FIRST);
    await act(async () => {
      const [res, words] = await Promise.all([api.hint(g), import("./lazy/hint_messages.js")]);
      dispatch({ type: "hinted", res, said: words.hintSaid(res) });
      store.afterRender(showHinted);
    });
  }

  // ------------------------------------------------------------------ lobby and games

  async function refreshLobbyData() {
    // One request: the records carry the saved game too (no probing request that 404s).
    const visit = S().lobbyVisit;
    try {
      dispatch({ type: "records", records: await api.records() });
    } catch (err) {
      if (err instanceof ApiError) tell(err.message, "error", "lobby");
    }
    // Even after a failure the buttons may act: the server's 409 game_in_progress still asks.
    dispatch({ type: "lobbyReady", visit });
  }

  /** Arriving in the lobby: its buttons wait for this visit's data (F2). */
  const newLobbyVisit = () => dispatch({ type: "lobbyVisit" });

  /** POST /api/games. A game saved meanwhile (another tab) makes the server answer 409
   * game_in_progress, naming it: ask, then replace it only on a yes (F2). */
  async function createGame(mode, difficulty, replace) {
    let savedElsewhere = null;
    const game = await act(async () => {
      try {
        return await api.create(mode, difficulty, replace);
      } catch (err) {
        if (err instanceof ApiError && err.code === "game_in_progress") {
          savedElsewhere = err.message;
          return null;
        }
        throw err;
      }
    });
    if (game || savedElsewhere === null) return game;
    if (await confirmDialog(say.confirmAbandon(savedElsewhere))) {
      return act(() => api.create(mode, difficulty, true));
    }
    if (S().view === "lobby") await refreshLobbyData(); // show the saved game to continue
    return null;
  }

  function enterGame(game) {
    replay.stop();
    // 多人同屏: a lazy view of its own (it loads the saved game itself)
    if (game.mode === "table") return openPage(href("table"));
    // U6: the holds as the player left them (kept in this browser for this game's version).
    dispatch({ type: "enterGame", game, hold: storedHold(game) });
    go(store, "game");
    keepFocus();
  }

  async function goLobby(keepMessage = false) {
    replay.stop();
    dispatch({ type: "leaveGame" });
    // The table's last announcement means nothing in the lobby.
    if (!keepMessage) tell("", "info", "lobby");
    newLobbyVisit();
    go(store, "lobby");
    await refreshLobbyData();
  }

  async function startNew(mode, difficulty) {
    if (S().busy || !S().lobbyReady) return;
    dispatch({ type: "tutorialSeen" }); // L10: a player who starts anything was offered it
    // A saved game is asked about (F2); a saved tutorial is replaced without asking (L10).
    const saved = S().saved && S().saved.kind !== "tutorial" ? S().saved : null;
    if (saved && !(await confirmDialog(say.confirmAbandon(say.abandonSaved(saved))))) return;
    const game = await createGame(mode, difficulty, Boolean(saved));
    if (game) {
      tell(say.started(mode));
      enterGame(game);
    }
  }

  async function continueGame() {
    const saved = S().saved;
    if (!saved || S().busy) return;
    if (saved.mode === "table") return enterGame(saved);
    dispatch({ type: "resync", game: saved });
    // U6/F1: the saved game exactly as it stands (dice, rolls left, scores): nothing restarts.
    const game = await act(() => api.current());
    if (game) {
      tell(say.continued(game));
      enterGame(game);
    } else {
      await refreshLobbyData();
    }
  }

  async function restart() {
    const g = S().game;
    if (!g || g.daily || S().busy) return; // D2: the day's game has one attempt
    const playing = g.status === "in_progress";
    // U3 + F2: immediate before any box is scored; after that, one tap confirms.
    if (playing && Object.values(g.players.human.boxes).some((points) => points !== null)) {
      if (!(await confirmDialog(say.confirmRestart(g))) || S().game !== g) return;
    }
    replay.stop();
    dispatch({ type: "replayCancel" });
    const difficulty = g.difficulty || CONFIG.default_difficulty;
    const game = await createGame(g.mode, difficulty, playing);
    if (game) {
      tell(say.RESTARTED);
      enterGame(game);
    }
  }

  /** The address changed (a reload, back/forward): show its view. */
  async function route() {
    const { view } = match(location.pathname);
    if (view === "game" && S().game) {
      dispatch({ type: "navigate", view });
    } else if (view === "game") {
      // A reload on the table: show the saved game as it stands.
      await refreshLobbyData();
      if (S().saved) {
        tell(say.continued(S().saved));
        enterGame(S().saved);
      } else await goLobby();
    } else {
      replay.stop();
      newLobbyVisit();
      dispatch({ type: "leaveGame" });
      dispatch({ type: "navigate", view });
      if (location.pathname !== href("lobby")) history.replaceState(null, "", href("lobby"));
      await refreshLobbyData();
    }
  }

  // ------------------------------------------------------------------- small controls

  function showResult(show) {
    dispatch({ type: "showGameOver", show });
    store.afterRender(() => byTestId(show ? endButton() : "show-result").focus());
  }

  function rulesBack() {
    if (S().previousView === "game" && S().game) go(store, "game");
    else goLobby();
  }

  function turnLog(open) {
    if (S().turnLogOpen === open) return;
    dispatch({ type: "turnLog", open });
    const target = open ? "turn-log-close" : "turn-log-toggle";
    store.afterRender(() => byTestId(target).focus({ preventScroll: true }));
  }

  /** 每日挑战 (D2): today's game from its page, new or continued, on the table. */
  function playDaily(game) {
    tell(say.dailyStarted(game));
    enterGame(game);
  }

  /** The end panel's first button: 再来一局, or the day's result after the daily game. */
  const endButton = () => (S().game && S().game.daily ? "game-over-daily" : "play-again");

  return {
    playDaily,
    roll,
    toggleDie,
    score,
    hint,
    startNew,
    continueGame,
    restart,
    goLobby,
    route,
    rulesBack,
    showResult,
    skipReplay: () => replay.skip(),
    /** Leaving the table for a page of its own (复盘, 统计): no replay runs behind it,
     * and the end panel is closed. */
    leaveTable: () => {
      replay.stop();
      dispatch({ type: "replayCancel" });
      dispatch({ type: "showGameOver", show: false });
    },
    turnLog,
    lookAgain,
    // the funnel of a server action, for the lazy overlays' own (撤销)
    act,
  };
}
