// The games one person plays on this device — 单人挑战, 人机对战, 每日挑战 (D2) and the 新手教程
// (L10) — on the board of the page's table view (/game): the mode the board is given
// (board/board.js: how its game is loaded and played, what it allows), how the lobby
// starts, continues and restarts them, and its end panel (index.html's #game-over-overlay).
// This module may name the kinds of game it plays; the board and the lobby name none.

import { ApiError, api } from "./api.js";
import { confirmDialog } from "./dialog.js";
import * as say from "./messages.js";
import { href } from "./paths.js";
import { loadWrote, storedHold } from "./remember.js";
import { KIND_NAMES, boardShown } from "./state.js";
import { el, setText } from "./dom.js";

/** A new game of `kind` begins: its sentence chosen here, where the kinds may be named. */
function started(kind) {
  const name = KIND_NAMES[kind];
  if (kind === "tutorial") return say.startedTutorial(name);
  return kind === "vs_computer" ? say.startedVsComputer(name) : say.startedSolo(name);
}

// This mode's own words (the common ones in messages.js, with the board's).
export const WORDS = {
  started,
  dailyStarted: (game) => (game.dice === null && game.round === 1 ? say.dailyStarted() : say.continued(game)),
  result: (game) =>
    game.result === "solo" ? say.resultTitleAlone(game.seats[0].total) : say.resultTitle(game.result),
};

/** The seats this device plays: every person's (one here). */
const people = (game) => game.seats.map((s, i) => (s.kind === "human" ? i : null)).filter((i) => i !== null);

/** `lobby`: the lobby's actions (actions.js); `boards`: the page's one board (`get()`, null
 * until its code is in; `load()`); `open(path)`: main.js's way to an address. */
export function createSolo(store, { boards, lobby, open }) {
  const S = () => store.state;
  const dispatch = (action) => store.dispatch(action);
  // (a function: said again when the page changes its language, G3)
  const tell = (text, kind = "info", view = "game") =>
    dispatch({ type: "say", text: typeof text === "function" ? text() : text, again: typeof text === "function" ? text : null, kind, view });
  const game = () => {
    const b = S().board;
    return b && b.owner === "game" ? b.game : null;
  };

  /** The game `g` as the server has it now, or null when it is gone (then the lobby says so)
   * or cannot be read. */
  async function readGame(g) {
    try {
      const fresh = await api.game(g.id);
      if (fresh.status !== "abandoned") return fresh;
      tell(say.gameGone, "error", "lobby");
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "not_found")) return null;
      tell(say.gameNotFound, "error", "lobby");
    }
    await lobby.goLobby(true);
    return null;
  }

  const mode = {
    owner: "game",
    transport: { roll: api.roll, score: api.score, hint: api.hint, undo: api.undo, read: readGame },
    hints: (g) => !g.daily, // D3: the day's game has no hints (the server refuses them too)
    get noHints() {
      return say.noDailyHints();
    },
    confirm: (g) => g.kind !== "tutorial", // the tutorial says which box to tap
    buttons: [{ get text() { return say.restart(); }, testid: "restart", onClick: () => restart(), hidden: (g) => Boolean(g.daily) }],
    lobby: () => lobby.goLobby(),
    endOverlay: true,
    get endButton() {
      return game() && game().daily ? "game-over-daily" : "play-again";
    },
    ended: () => lobby.refreshLobbyData(),
  };

  /** Put `game` on the table (once the board's code is in). A game of several people on
   * this device is 多人同屏's (its own view, which loads it itself). */
  async function enterGame(game) {
    if (people(game).length > 1) return open(href("table"));
    const board = await boards.load();
    board.mount(document.getElementById("game-board"), mode, {
      game,
      mine: people(game),
      // U6: the holds as the player left them (kept in this browser for this game's version).
      hold: storedHold(game),
      wrote: loadWrote(),
    });
    dispatch({ type: "gameEntered" });
    lobby.go("game");
    board.keepFocus();
  }

  /** POST /api/games. A game saved meanwhile (another tab) makes the server answer 409
   * game_in_progress, naming it: ask, then replace it only on a yes (F2). */
  async function createGame(kind, difficulty, replace) {
    let savedElsewhere = null;
    const made = await lobby.act(async () => {
      try {
        return await api.create(kind, difficulty, replace);
      } catch (err) {
        if (err instanceof ApiError && err.code === "game_in_progress") {
          savedElsewhere = err.message;
          return null;
        }
        throw err;
      }
    });
    if (made || savedElsewhere === null) return made;
    if (await confirmDialog(say.confirmAbandon(savedElsewhere))) {
      return lobby.act(() => api.create(kind, difficulty, true));
    }
    if (S().view === "lobby") await lobby.refreshLobbyData(); // show the saved game to continue
    return null;
  }

  /** A new game of `kind` (solo, vs_computer, tutorial) from the lobby. */
  async function startNew(kind, difficulty = null) {
    if (S().busy || !S().lobbyReady) return;
    dispatch({ type: "tutorialSeen" }); // L10: a player who starts anything was offered it
    // A saved game is asked about (F2); a saved tutorial is replaced without asking (L10).
    const saved = S().saved && S().saved.kind !== "tutorial" ? S().saved : null;
    if (saved && !(await confirmDialog(say.confirmAbandon(say.abandonSaved(saved))))) return;
    const made = await createGame(kind, kind === "vs_computer" ? difficulty : null, Boolean(saved));
    if (made) {
      tell(() => WORDS.started(kind));
      enterGame(made);
    }
  }

  /** 重新开始 (U3 + F2): at once before any box is written, then after one tap's yes. */
  async function restart() {
    const g = game();
    if (!g || g.daily || S().busy) return; // D2: the day's game has one attempt
    const playing = g.status === "in_progress";
    if (playing && Object.values(g.seats[0].scores).some((points) => points !== null)) {
      if (!(await confirmDialog(say.confirmRestart(g))) || game() !== g) return;
    }
    boards.get().leave();
    const made = await createGame(g.mode, g.difficulty, playing);
    if (made) {
      tell(say.restarted);
      enterGame(made);
    }
  }

  /** 每日挑战 (D2): today's game from its page, new or continued, on the table. */
  function playDaily(made) {
    tell(() => WORDS.dailyStarted(made));
    enterGame(made);
  }

  /** The unfinished game of the lobby, exactly as it stands (U6/F1): nothing restarts. */
  async function continueGame(saved) {
    const made = await lobby.act(() => api.current());
    if (made) {
      tell(() => say.continued(made));
      enterGame(made);
    } else {
      await lobby.refreshLobbyData();
    }
  }

  /** The table's address opened (a reload, back/forward): the game on it, or the saved one. */
  async function resume() {
    if (game()) return lobby.go("game");
    await lobby.refreshLobbyData();
    const saved = S().saved;
    if (saved) {
      tell(() => say.continued(saved));
      enterGame(saved);
    } else await lobby.goLobby();
  }

  // ---------------------------------------------------------------- the end panel

  const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);
  const on = (id, handler) => byTestId(id).addEventListener("click", handler);
  on("play-again", () => restart());
  on("game-over-lobby", () => lobby.goLobby());
  on("game-over-daily", () => open(href("daily")));
  on("game-over-review", () => game() && open(href("review", { id: game().id })));

  /** The end panel: the result, 新纪录 (U7: the server's word), each seat's sums. */
  function render(state) {
    const overlay = document.getElementById("game-over-overlay");
    const b = boardShown(state);
    const g = b && b.owner === "game" ? b.game : null;
    const shown = Boolean(g && b.showEnd && g.status === "finished" && !b.replay);
    if (overlay.hidden === shown) overlay.hidden = !shown;
    const daily = Boolean(g && g.daily);
    for (const [id, hidden] of [["play-again", daily], ["game-over-daily", !daily]]) {
      if (byTestId(id).hidden !== hidden) byTestId(id).hidden = hidden;
    }
    if (!shown) return;
    setText(byTestId("result"), WORDS.result(g));
    byTestId("new-record").hidden = !g.new_record;
    const table = document.getElementById("final-table");
    const key = JSON.stringify(g.seats.map((s) => s.total));
    if (table.dataset.key === key) return;
    table.dataset.key = key;
    const who = ["human", "computer"];
    const head = el("tr");
    for (const t of ["", say.you(), ...(g.seats.length > 1 ? [say.computer()] : [])]) head.append(el("th", "", t, { scope: "col" }));
    const rows = ["upper_subtotal", "upper_bonus", "lower_total", "yahtzee_bonus", "total"].map((field) => {
      const tr = el("tr", field === "total" ? "total-row" : "");
      tr.append(el("th", "", say.SUM_NAMES[field], { scope: "row" }));
      g.seats.forEach((s, i) => {
        const attrs = field === "total" ? { "data-testid": `final-total-${who[i]}` } : {};
        tr.append(el("td", "", String(s[field]), attrs));
      });
      return tr;
    });
    table.replaceChildren(head, ...rows);
  }

  return { mode, startNew, restart, playDaily, continueGame, resume, render };
}
