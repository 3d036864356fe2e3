// Mis-taps (polish 8), a lazy overlay (views.js OVERLAYS) on the solo table:
//
// * 「撤销」: the box just written is taken back, until the next roll. The server referees it
//   (POST /api/games/{id}/undo, an `undo` event in the game's log): the game object's `undo`
//   names the box while that is allowed, and is null otherwise (vs, the tutorial, the daily
//   challenge, a room, after a roll, a second time in one turn). This module only shows the
//   button for it, and only for a box this tab wrote itself (U14, state.js `ownUndo`: a box
//   another tab or device wrote is that one's to take back); the dice come back as the
//   server sends them, the holds as they were.
// * 「登记前确认」 (设置, off by default): a tapped box is picked, not written; a second tap on
//   it, or 「确定」, writes it. The tap's flow is board.js `scoreFlow` (actions.js `score`),
//   every mode's; this module adds the setting's row and 「确定」.
//
// Both buttons sit at the right end of the game's message bar, which says what happened.
// 多人同屏 and 好友房间 have the same 「确定」 (lazy/board_card.js mountConfirm), reading the same
// setting; 多人同屏 its own 撤销 (lazy/table.js).

import { request } from "../api.js";
import { API } from "../paths.js";
import { CATEGORY_NAMES, canAct, ownUndo } from "../state.js";
import { el, settingRow } from "./dom.js";

const name = (category) => CATEGORY_NAMES[category];
let undoBtn = null;
let okBtn = null;
let select = null;
// The holds of the turn being played (id, version, hold), kept past the score: an undo
// puts the dice back, and the holds with them.
let lastHold = null;

/** The box picked by a first tap, while it is still this position's. */
function picked(state) {
  const p = state.pick;
  const g = state.game;
  if (!p || !g || p.id !== g.id || p.version !== g.version || !canAct(state)) return null;
  return g.preview && g.preview[p.category] && g.preview[p.category].allowed ? p.category : null;
}

function say(state, text) {
  const message = { text, kind: "info", view: "game", serial: state.message.serial + 1 };
  return { ...state, message };
}

export const reducers = {
  /** The server took the box back: the position before it, the holds as they were. */
  undone(state, { game, category, hold }) {
    const more = game.rolls_left > 0 ? "，或者再掷" : "";
    const next = { ...state, game, hold, rolledMask: null, lastDice: null, showGameOver: false, pick: null, wrote: null };
    return say(next, `已撤销「${name(category)}」：骰子还是刚才的，请重新选一项登记${more}。`);
  },
};

async function undo(ctx) {
  const g = ctx.state().game;
  if (!g || !ownUndo(ctx.state())) return;
  const hold = lastHold && lastHold.id === g.id ? lastHold.hold : [false, false, false, false, false];
  await ctx.actions.act(async () => {
    const game = await request("POST", API.undo(g.id), { version: g.version });
    ctx.dispatch({ type: "undone", game, category: g.undo.category, hold });
  });
}

function install(ctx) {
  select = settingRow(ctx, "confirm", "登记前确认", "选中后再点一次才登记", [
    ["off", "关"],
    ["on", "开"],
  ]);
  const slot = document.querySelector('.message-slot[data-slot="game"]');
  undoBtn = el("button", "btn btn-small slot-act", "撤销", { type: "button", "data-testid": "undo" });
  okBtn = el("button", "btn btn-small btn-gold slot-act", "确定", { type: "button", "data-testid": "confirm-score" });
  undoBtn.hidden = okBtn.hidden = true;
  undoBtn.addEventListener("click", () => undo(ctx));
  okBtn.addEventListener("click", () => {
    const category = picked(ctx.state());
    if (category) ctx.actions.score(category);
  });
  slot.append(undoBtn, okBtn);
}

function effect(state) {
  const g = state.game;
  if (g && g.dice !== null && g.current_player === "human") lastHold = { id: g.id, hold: state.hold.slice() };
}

function render(state) {
  if (select.value !== state.settings.confirm) select.value = state.settings.confirm;
  const g = state.game;
  const onTable = state.view === "game" && g !== null && state.replay === null;
  const u = onTable ? ownUndo(state) : null; // U14: never a box another tab wrote
  const category = onTable ? picked(state) : null;
  if (undoBtn.hidden !== !u) undoBtn.hidden = !u;
  undoBtn.disabled = state.busy;
  if (u) undoBtn.setAttribute("aria-label", `撤销「${name(u.category)}」的登记`);
  if (okBtn.hidden !== !category) okBtn.hidden = !category;
  if (category) okBtn.setAttribute("aria-label", `确定登记「${name(category)}」`);
  undoBtn.parentElement.classList.toggle("has-act", Boolean(u || category));
  for (const cell of document.querySelectorAll("#scorecard .cell-human")) {
    cell.classList.toggle("picked", cell.dataset.category === category);
  }
}

export const overlay = { render, reducers, effect, install };
