// The lobby's and the page's navigation: the lobby's data (F2), 继续游戏, the way between
// views and the address bar. The server is the referee: nothing here decides anything about
// a game. State changes only through `store.dispatch` (reducer.js); a game is played on the
// board (board/board.js) of its mode: the views' registry (views.js) says which lazy view
// plays a game it `continues`, the page's own table view plays the rest (solo.js).

import { ApiError, api } from "./api.js";
import * as say from "./messages.js";
import { href, match } from "./paths.js";
import { LAZY } from "./views.js";

/** `open(path)`: main.js's way to an address; `boards.get()`: the page's one board (null
 * until its code is in); `table()`: the mode of the page's table view (solo.js). */
export function createActions(store, { open, boards, table }) {
  const stopBoard = () => boards.get() && boards.get().stop();
  const S = () => store.state;
  const dispatch = (action) => store.dispatch(action);
  const tell = (text, kind = "info", view = "game") => dispatch({ type: "say", text, kind, view });

  /** Show `view` (lobby, game): the state changes through the store, the address follows,
   * and screen readers are told where they are (the lobby's heading takes the focus). */
  function go(view) {
    dispatch({ type: "navigate", view });
    const path = href(view);
    if (location.pathname !== path) history.pushState(null, "", path);
    store.afterRender(() => {
      if (view === "lobby") document.getElementById("lobby-title").focus({ preventScroll: true });
    });
  }

  /** One request of the lobby's (one at a time): its failure is said in the lobby. */
  async function act(fn) {
    if (S().busy) return null;
    dispatch({ type: "busy", busy: true });
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof ApiError)) console.warn(err);
      tell(err instanceof ApiError ? err.message : say.pageResynced(), "error", S().view);
      return null;
    } finally {
      dispatch({ type: "busy", busy: false });
    }
  }

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

  async function goLobby(keepMessage = false) {
    stopBoard();
    // The table's last announcement means nothing in the lobby.
    if (!keepMessage) tell("", "info", "lobby");
    dispatch({ type: "lobbyVisit" });
    go("lobby");
    await refreshLobbyData();
  }

  /** 继续游戏: the saved game on the view that plays it (a lazy view that `continues` its
   * mode, else the page's table). */
  async function continueGame() {
    const saved = S().saved;
    if (!saved || S().busy) return;
    const view = Object.keys(LAZY).find((id) => LAZY[id].continues === saved.mode);
    if (view) return open(href(view));
    await table().continueGame(saved);
  }

  /** The address changed (a reload, back/forward) to the lobby or the table: show it. */
  async function route() {
    const { view } = match(location.pathname);
    if (view === "game") return table().resume();
    stopBoard();
    dispatch({ type: "lobbyVisit" });
    dispatch({ type: "navigate", view });
    if (location.pathname !== href("lobby")) history.replaceState(null, "", href("lobby"));
    await refreshLobbyData();
  }

  /** 「← 返回」 of a page opened from a view (规则): back to it, as it was. */
  function rulesBack() {
    const prev = S().previousView;
    if (prev === "game" && S().board && S().board.owner === "game") go("game");
    else if (LAZY[prev]) history.back();
    else goLobby();
  }

  return { go, act, refreshLobbyData, goLobby, continueGame, route, rulesBack };
}
