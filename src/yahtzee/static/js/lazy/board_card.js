// The board's scorecard (U11, T7): one column a seat, the written scores and, in the column of
// the seat on turn, the server's previews (green 「+N」, grey-red 「+0」, a Joker strike)
// as buttons; the sums under them. `buildCard` once per set of seats, `drawCard` on every
// render. What a tap does (the zero confirmation, 登记前确认) is `scoreFlow`'s: the view
// passes its own ways to ask, say and send; 登记前确认's 「确定」 is `mountConfirm` /
// `drawConfirm`, in the view's message bar. No state here.

import { el, seatName } from "./dom.js";
import { drawBox } from "../board.js";

export { scoreFlow } from "../board.js";
import * as say from "../messages.js";
import { CATEGORY_NAMES } from "../state.js";

const box = (c) => CATEGORY_NAMES[c] || c;
const SUM_NAMES = {
  upper_subtotal: "上区小计",
  upper_bonus: "上区奖励",
  lower_total: "下区",
  yahtzee_bonus: "快艇加成",
  total: "总分",
};

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** The card's tables in `root`: `parts` = [{cls, caption, rows: [category], sums: [field]}]
 * (one table each); `onPick(category)` when an offered box is tapped. Cells are
 * `${prefix}-cell-${seat}-${category}`, sums `${prefix}-${field}-${seat}`. */
export function buildCard(root, { prefix, parts, onPick, col = "board" }) {
  for (const part of parts) {
    const table = el("table", `scorecard ${part.cls}`);
    table.append(el("caption", "visually-hidden", part.caption), el("thead"), el("tbody", "board-rows"), el("tbody", "subtotals board-sums"));
    table.dataset.rows = JSON.stringify(part.rows);
    table.dataset.sums = JSON.stringify(part.sums);
    root.append(table);
  }
  root.dataset.prefix = prefix;
  root.dataset.col = col; // the columns' class prefix (a view's stylesheet hides them on phones)
  root.addEventListener("click", (event) => {
    const b = event.target.closest(".cell-btn");
    if (b && !b.disabled) onPick(b.dataset.category);
  });
}

/** Draw the card: `seats` (the game's), `cards[i]` (what seat i's column shows: its card, or
 * as it was during a replay), `offerSeat` (the seat whose previews show, or null),
 * `preview` (the server's), `act` (its boxes may be tapped), `hint` (a hinted box),
 * `picked` (登记前确认's first tap), `shown` (the seat a phone shows; null: every seat),
 * `playing` (the seat on turn, marked), `scoreIds` (the offered buttons get
 * `${prefix}-score-${category}`). */
export function drawCard(root, { seats, cards, offerSeat, preview, act, hint = null, picked = null, shown = null, playing = null, scoreIds = false }) {
  const { prefix, col } = root.dataset;
  const key = seats.map((s) => `${s.kind}:${s.name}:${s.difficulty}`).join("|");
  for (const table of root.querySelectorAll("table.scorecard")) {
    const rows = JSON.parse(table.dataset.rows);
    const sums = JSON.parse(table.dataset.sums);
    if (table.dataset.key !== key) {
      table.dataset.key = key;
      const head = el("tr");
      head.append(el("th", "col-name", "项目", { scope: "col" }));
      seats.forEach((s, i) => head.append(el("th", `${col}-col ${col}-head seat-${s.kind}`, seatName(seats, i), { scope: "col", "data-seat": i })));
      table.tHead.replaceChildren(head);
      table.tBodies[0].replaceChildren(
        ...rows.map((c) => {
          const tr = el("tr", "", null, { "data-category": c });
          tr.append(el("th", "col-name", box(c), { scope: "row" }));
          seats.forEach((_, i) => {
            const td = el("td", `cell ${col}-col`, null, { "data-seat": i, "data-testid": `${prefix}-cell-${i}-${c}` });
            const b = el("button", "cell-btn", null, { type: "button", "data-category": c });
            b.disabled = true;
            td.append(b);
            tr.append(td);
          });
          return tr;
        }),
      );
      table.tBodies[1].replaceChildren(
        ...sums.map((f) => {
          const tr = el("tr", f === "total" ? "total-row" : "sum-row", null, { "data-sum": f });
          tr.append(el("th", "col-name", SUM_NAMES[f], { scope: "row" }));
          seats.forEach((_, i) => tr.append(el("td", `sum ${col}-col`, "", { "data-seat": i, "data-testid": `${prefix}-${f}-${i}` })));
          return tr;
        }),
      );
    }
    for (const cell of table.querySelectorAll(`.${col}-head, .sum`)) {
      const i = Number(cell.dataset.seat);
      cell.classList.toggle("off", shown !== null && i !== shown);
      cell.classList.toggle("on-turn", i === playing);
    }
    seats.forEach((_, i) => {
      const card = cards[i];
      const who = seatName(seats, i);
      const offered = i === offerSeat && preview ? preview : null;
      for (const c of rows) {
        const td = table.querySelector(`[data-testid="${prefix}-cell-${i}-${c}"]`);
        const b = td.firstElementChild;
        const offeredHere = offered !== null;
        const look = drawBox(td, b, {
          filled: card.scores[c],
          p: offered ? offered[c] : null,
          name: box(c),
          who,
          act,
          hinted: offeredHere && hint === c,
          picked: offeredHere && picked === c,
          cls: `cell ${col}-col${shown !== null && i !== shown ? " off" : ""}${i === playing ? " on-turn" : ""}`,
        });
        const id = scoreIds && offered && look.kind !== "filled" ? `${prefix}-score-${c}` : null;
        if (id) b.setAttribute("data-testid", id);
        else b.removeAttribute("data-testid");
      }
      for (const f of sums) setText(table.querySelector(`[data-testid="${prefix}-${f}-${i}"]`), String(card[f]));
    });
  }
}

/** 登记前确认's 「确定」 (polish 8) at the right end of a view's message bar `slot`
 * (css/mistap.css), made once: a tap writes the box `picked()` names (`onConfirm(category)`,
 * which goes through `scoreFlow` as a second tap on it does). Returns the button. */
export function mountConfirm(slot, { testid, picked, onConfirm }) {
  const made = slot.querySelector(`[data-testid="${testid}"]`);
  if (made) return made;
  const b = el("button", "btn btn-small btn-gold slot-act", "确定", { type: "button", "data-testid": testid });
  b.hidden = true;
  b.addEventListener("click", () => {
    const category = picked();
    if (category) onConfirm(category);
  });
  slot.append(b);
  return b;
}

/** Show 「确定」 while a box is picked (`category`, or null), naming it; true when shown. */
export function drawConfirm(button, category) {
  if (button.hidden !== !category) button.hidden = !category;
  if (category) {
    const label = `确定登记「${box(category)}」`;
    if (button.getAttribute("aria-label") !== label) button.setAttribute("aria-label", label);
  }
  return Boolean(category);
}
