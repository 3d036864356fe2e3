// The board's dice row (U6, U11) in a lazy view: `buildDice(root, …)` makes the five dice
// once, then board.js's `drawDice(root, look)` — the same drawing as the solo, vs, daily
// and tutorial table's — on every render. No state here: what the dice show is the view's.

import { el } from "./dom.js";

export { diceLook, drawDice } from "../board.js";

/** Five dice buttons in `root` (a `.dice-row`), `data-testid` `${prefix}-die-i`; a tap on
 * die i calls `onToggle(i)`. Without `onToggle` the dice are a picture (复盘: the row is
 * labelled as a whole; `cls`: a class more on each die). */
export function buildDice(root, { prefix, onToggle = null, cls = "" }) {
  for (let i = 0; i < 5; i++) {
    const name = `die${cls ? ` ${cls}` : ""}`;
    if (!onToggle) {
      root.append(el("span", name, null, { "aria-hidden": "true", "data-index": i }));
      continue;
    }
    const d = el("button", name, null, { type: "button", "data-testid": `${prefix}-die-${i}`, "data-index": i, "aria-pressed": "false" });
    d.addEventListener("click", () => onToggle(i));
    d.addEventListener("animationend", () => d.classList.remove("rolling"));
    root.append(d);
  }
}
