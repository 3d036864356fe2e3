// 本局记录 on a board of several seats (U11): what each seat — a person, 托管 or a computer —
// wrote, newest first, from the game's `turns` as the server sent them. `buildTurnLog`
// once, `drawTurnLog` on every render (the list is rebuilt only when the turns change).

import { el, seatName } from "./dom.js";
import * as say from "../messages.js";

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
      .map((t) => {
        const li = el("li", "turn-log-item");
        li.append(el("span", "tl-round", say.turnRound(t.round)), el("span", "tl-who", seats[t.seat] ? seatName(seats, t.seat) : ""));
        if (t.proxy) li.append(el("span", "rm-chip rm-away", "托管"));
        li.append(
          el("span", "tl-dice", t.dice.join(" ")),
          el("span", "tl-box", say.turnBox(t.category)),
          el("span", "tl-points", say.turnPoints(t)),
        );
        return li;
      }),
  );
}
