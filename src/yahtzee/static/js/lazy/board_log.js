// 本局记录 on a board of several seats (U11): what each seat — a person, 托管 or a computer —
// wrote, newest first, from the game's `turns` as the server sent them, each line drawn as
// on the solo table (board.js turnLogItem). `buildTurnLog` once, `drawTurnLog` on every
// render (the list is rebuilt only when the turns change).

import { el, seatName } from "./dom.js";
import { turnLogItem } from "../board.js";

/** The log's section in `root`: a heading and the list `${prefix}-turn-log`. */
export function buildTurnLog(root, { prefix, cls = "" }) {
  const id = `${prefix}-log-title`;
  const box = el("section", `panel board-log ${cls}`.trim(), null, { "aria-labelledby": id });
  box.append(
    el("h2", "", "本局记录", { id }),
    el("p", "fine board-log-empty", "还没有登记过的回合。"),
    el("ol", "turn-log", null, { "data-testid": `${prefix}-turn-log` }),
  );
  root.append(box);
}

/** Draw `turns` (the game's, oldest first; each {seat, round, dice, category, points,
 * yahtzee_bonus?, proxy?}) of `seats`. */
export function drawTurnLog(root, { turns, seats }) {
  const list = root.querySelector(".turn-log");
  const key = JSON.stringify([turns, seats.map((s) => s.name)]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  root.querySelector(".board-log-empty").hidden = turns.length > 0;
  list.hidden = !turns.length;
  list.replaceChildren(
    ...turns
      .slice()
      .reverse()
      .map((t) => turnLogItem(t, seats[t.seat] ? seatName(seats, t.seat) : "")),
  );
}
