// 「轮到你了」 (W2): this player's room games in play and its races not finished (W5; GET
// /api/rooms/turns: every linked device's, its own turns first, the soonest deadline
// first), listed on the lobby's 好友房间 card with their seats, round (a race's: the rounds
// the player played), whose turn and the time left, each opening its room (a race's page); how
// many wait for the player is in the page's title (`state.titleCount`, render.js) and on
// the installed app's icon where the browser has a badge (navigator.setAppBadge).
//
// A lazy overlay (views.js OVERLAYS.turns): its code loads once the lobby is ready (or a
// room is open), never with the page (P6). It asks again when the lobby is shown anew and
// when the turn of the room game on the board moves (a stream event for this player, or its
// own turn). Its words are the `room` chunk's, loaded only once there is a game to list
// (a visitor without rooms loads none). Its state is `state.turns` ({games, your_turns,
// now, skew}), changed by its one action, `turnsLoaded`.

import { el, seatName } from "./dom.js";
import { request } from "../api.js";
import { CONFIG } from "../config.js";
import { language, load as loadWords, t, tn } from "../i18n.js";
import { API } from "../paths.js";
import { timeLeft } from "./when.js";

/** The overlay's one action: the list as the server gave it (`at`: this browser's clock
 * when it came, for the skew against the server's `now`). */
function turnsLoaded(state, { turns, at }) {
  const next = { ...turns, skew: turns.now - at / 1000 };
  return { ...state, turns: next, titleCount: turns.your_turns };
}

let asking = false;
let again = false;
let visit = -1;
let badge = null;

/** Ask for the list (one request at a time; a reason to ask meanwhile asks once more). */
function ask(ctx) {
  if (asking) {
    again = true;
    return;
  }
  asking = true;
  request("GET", API.roomTurns())
    .then(async (turns) => {
      if (turns.games.length) await loadWords("room");
      ctx.dispatch({ type: "turnsLoaded", turns, at: Date.now() });
    })
    .catch(() => {}) // (the list is a convenience: the lobby works without it)
    .finally(() => {
      asking = false;
      if (again) {
        again = false;
        ask(ctx);
      }
    });
}

/** Whether the room game on the board changed hands (its turn, round or game). */
function turned(state, previous) {
  const b = state.board;
  const a = previous && previous.board;
  if (!b || b.owner !== "room" || !a || a.owner !== "room") return false;
  return b.game.id !== a.game.id || b.game.turn !== a.game.turn || b.game.round !== a.game.round || b.game.status !== a.game.status;
}

function item(game, now) {
  const seats = game.seats;
  const race = game.kind === "race"; // 同骰竞速 (W5): the player's own game, its own page
  const a = el("a", `turns-game${game.your_turn ? " turns-yours" : ""}`, null, {
    href: game.url,
    "data-page": race ? "race" : "room",
    "data-testid": `turns-game-${game.room_id}`,
  });
  const names = seats.map((s, i) => (s.you ? t("room.seat.you") : seatName(seats, i) || t("room.seat.open")));
  a.append(el("span", "turns-seats", names.join(t("room.turns.separator"))));
  const round = race
    ? t("room.turns.race", { n: game.rounds, rounds: CONFIG.limits.rounds })
    : t("room.turns.round", { n: game.round });
  a.append(el("span", "turns-round", round, { "data-testid": "turns-round" }));
  const on = seats[game.turn];
  const whose = game.your_turn ? t("room.turns.yours") : t("room.turns.theirs", { name: on ? seatName(seats, game.turn) : "" });
  a.append(el("span", "turns-whose", whose, { "data-testid": "turns-whose" }));
  a.append(el("span", "turns-left", timeLeft(game.deadline, now), { "data-testid": "turns-left" }));
  const li = el("li", "");
  li.append(a);
  return li;
}

export const overlay = {
  reducers: { turnsLoaded },

  effect(state, previous, ctx) {
    if (state.view === "lobby" && state.lobbyVisit !== visit) {
      visit = state.lobbyVisit;
      ask(ctx);
    } else if (turned(state, previous)) ask(ctx);
    const n = state.turns ? state.turns.your_turns : 0;
    if (n !== badge) {
      badge = n;
      // the installed app's icon, where the browser has a badge
      if (n > 0 && navigator.setAppBadge) navigator.setAppBadge(n).catch(() => {});
      else if (n === 0 && navigator.clearAppBadge) navigator.clearAppBadge().catch(() => {});
    }
  },

  render(state) {
    const slot = document.getElementById("turns-slot");
    if (!slot) return;
    const turns = state.turns;
    const games = turns ? turns.games : [];
    const key = JSON.stringify([language(), turns && turns.now, games]);
    if (slot.dataset.key === key) return;
    slot.dataset.key = key;
    slot.hidden = games.length === 0;
    if (!games.length) return slot.replaceChildren();
    const head = el("h4", "turns-head", t("room.turns.title"), { id: "turns-title" });
    if (turns.your_turns > 0) {
      head.append(
        el("span", "turns-count", String(turns.your_turns), {
          "data-testid": "turns-count",
          "aria-label": tn("room.turns.count", turns.your_turns, { n: turns.your_turns }),
        }),
      );
    }
    const list = el("ol", "turns-list", null, { "aria-labelledby": "turns-title", "data-testid": "turns-list" });
    list.append(...games.map((g) => item(g, turns.now)));
    slot.replaceChildren(head, list);
  },
};
