// The board's dice row (U6, U11): five drawn dice (board.js pips), held or locked, tumbling
// when thrown, with the labels a screen reader reads. `buildDice(root, …)` once, then
// `drawDice(root, look)` on every render (it changes only what differs, so an animation
// survives). No state here: what the dice show is the view's (`look`).

import { el } from "./dom.js";
import { drawPips } from "../board.js";
import * as say from "../messages.js";

/** Five dice buttons in `root` (a `.dice-row`), `data-testid` `${prefix}-die-i`; a tap on
 * die i calls `onToggle(i)`. */
export function buildDice(root, { prefix, onToggle }) {
  for (let i = 0; i < 5; i++) {
    const d = el("button", "die", null, { type: "button", "data-testid": `${prefix}-die-${i}`, "data-index": i, "aria-pressed": "false" });
    d.addEventListener("click", () => onToggle(i));
    d.addEventListener("animationend", () => d.classList.remove("rolling"));
    root.append(d);
  }
}

/** What the dice row shows: `dice` (five faces, or null before a roll), `held` (per die),
 * `locked` (no roll left, or a written turn), `act` (the viewer may hold them), `hint`
 * (the dice a hint marks), `computer` (another seat's dice, replayed), `rollSerial` and
 * `rolled` (a new serial tumbles the dice `rolled` marks). */
export function diceLook({ dice, held, locked = false, act = false, hint = null, computer = false, rollSerial = 0, rolled = null }) {
  return { dice, held, locked, act, hint, computer, rollSerial, rolled };
}

/** Draw `look` (diceLook) into the row `root` built by buildDice. */
export function drawDice(root, look) {
  const { dice, held, locked, act, hint, computer, rollSerial, rolled } = look;
  root.classList.toggle("computer-dice", Boolean(computer));
  const dies = root.querySelectorAll(".die");
  dies.forEach((die, i) => {
    const value = dice ? dice[i] : null;
    drawPips(die, value);
    const h = Boolean(dice) && (locked || Boolean(held && held[i]));
    die.setAttribute("data-value", value === null ? "" : String(value));
    die.setAttribute("aria-pressed", h ? "true" : "false");
    die.classList.toggle("held", h && !locked);
    die.classList.toggle("locked", locked && Boolean(dice));
    die.classList.toggle("blank", value === null);
    die.classList.toggle("hint", !computer && Boolean(hint) && hint[i] && !locked);
    if (act && value !== null && !locked) die.removeAttribute("aria-disabled");
    else die.setAttribute("aria-disabled", "true");
    const tag = die.querySelector(".hold-tag");
    const text = value === null ? "" : say.dieTag(locked, h && !locked);
    if (tag.textContent !== text) tag.textContent = text;
    const label = value === null ? `第 ${i + 1} 颗：还没掷` : say.dieLabel(i, value, locked, h && !locked);
    if (die.getAttribute("aria-label") !== label) die.setAttribute("aria-label", label);
    const serial = String(rollSerial || 0);
    if (die.dataset.rollSerial !== serial) {
      const first = die.dataset.rollSerial === undefined;
      die.dataset.rollSerial = serial;
      if (!first && rolled && rolled[i]) {
        die.classList.remove("rolling");
        void die.offsetWidth; // restart the animation for an equal face
        die.classList.add("rolling");
      }
    }
  });
}
