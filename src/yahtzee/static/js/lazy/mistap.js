// Mis-taps (polish 8), a lazy overlay (views.js OVERLAYS): 设置's 「登记前确认」 row (off by
// default: a tapped box is picked, not written; a second tap on it, or 「确定」, writes it),
// and, with its css/mistap.css, the place of 撤销 and 「确定」 at the right end of a board's
// message bar. What they do is the board's, in every mode (board/board.js: `scoreFlow`,
// `undo`; the server referees 撤销: the game object's `undo`, U14 `ownUndo`).

import { settingRow } from "./dom.js";

/** Marks a key passed on (the extractor finds it; settingRow says it). */
const N_ = (key) => key;

let select = null;

function install(ctx) {
  select = settingRow(ctx, "confirm", N_("core.setting.confirm"), N_("core.setting.confirm_note"), [
    ["off", N_("core.setting.off")],
    ["on", N_("core.setting.on")],
  ]);
}

function render(state) {
  if (select.value !== state.settings.confirm) select.value = state.settings.confirm;
}

export const overlay = { render, install };
