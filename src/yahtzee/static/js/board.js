// The board's drawing shared by every mode (U11): a die's pips and a scorecard box's look
// (written score, green 「+N」 / grey-red 「+0」 preview, Joker strike; `drawBox`), and what a
// tap on a box does (`scoreFlow`: 登记前确认, the zero confirmation). Each function takes
// the element it draws into or plain values from the server's game JSON; none does rules
// maths (the points and what is allowed are the server's preview). The dice row's drawing
// (`drawDice`) is every table's: the solo one (render.js) and the lazy boards' (their dice
// made by lazy/board_dice.js).

import { confirmDialog } from "./dialog.js";
import * as say from "./messages.js";

// Each face's pips on a 3×3 grid (1 = top left … 9 = bottom right).
const PIPS = { 1: [5], 2: [3, 7], 3: [3, 5, 7], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9], 6: [1, 3, 4, 6, 7, 9] };

/** Draw `value`'s pips (「?」 before a roll) and the hold tag into the die button `die`;
 * only when the value changed, so a running animation survives. */
export function drawPips(die, value) {
  const key = String(value || 0);
  if (die.dataset.pips === key) return;
  die.dataset.pips = key;
  const span = (cls, text = "") => {
    const s = document.createElement("span");
    s.className = cls;
    s.textContent = text;
    return s;
  };
  const face = span("die-face");
  face.setAttribute("aria-hidden", "true");
  if (value) face.append(...PIPS[value].map((pos) => span(`pip p${pos}`)));
  else face.append(span("die-blank", "?"));
  const tag = span("hold-tag");
  tag.setAttribute("aria-hidden", "true");
  die.replaceChildren(face, tag);
}

/** How a box looks (app.css `.cell` classes): `filled` its written score or null, `p` the
 * server's preview of it or null. A preview reads 「+N」, a written score 「N」, so a
 * preview 0 never looks like a written 0. `bonus`: the upper bonus writing it would earn. */
export function boxLook(filled, p) {
  if (filled !== null && filled !== undefined) {
    return { text: String(filled), kind: "filled", cls: filled ? "filled" : "filled zero", bonus: 0 };
  }
  if (!p) return { text: "", kind: "open", cls: "open", bonus: 0 };
  if (!p.allowed) return { text: String(p.points), kind: "forbidden", cls: "forbidden", bonus: 0 };
  const text = `+${p.points}` + (p.yahtzee_bonus ? ` +${p.yahtzee_bonus}` : "");
  return { text, kind: "preview", cls: p.points ? "preview" : "preview zero", bonus: p.upper_bonus || 0 };
}

/** Draw one scorecard box, in every mode's card (U11: the one place a box's look is decided;
 * render.js's solo / vs card and lazy/board_card.js's seat columns call it): `td` the cell,
 * `btn` its button, `filled` the written score or null, `p` the server's preview or null,
 * `name` the box's name, `who` the seat's name where a card has several columns, `act` the
 * box may be tapped now, `hinted` a hint points at it, `picked` 登记前确认's first tap,
 * `cls` the cell's own classes. The text (and the upper bonus it would earn), the colours
 * (app.css `.cell.preview`, `.zero`, `.forbidden`), the Joker strike's title and what a
 * screen reader hears. Returns the look (boxLook). */
export function drawBox(td, btn, { filled, p, name, who = "", act = false, hinted = false, picked = false, cls = "cell" }) {
  const look = boxLook(filled, p);
  const extra = look.bonus ? say.UPPER_BONUS_TAG(look.bonus) : "";
  if (btn.dataset.text !== `${look.text}|${extra}`) {
    btn.dataset.text = `${look.text}|${extra}`;
    btn.replaceChildren(document.createTextNode(look.text));
    if (extra) {
      const small = document.createElement("small");
      small.className = "bonus-tag";
      small.textContent = extra;
      btn.append(small);
    }
  }
  const want = `${cls} ${look.cls}${hinted ? " hint" : ""}${picked ? " picked" : ""}`;
  if (td.className !== want) td.className = want;
  const selectable = look.kind === "preview" && act;
  setAttr(td, "data-selectable", selectable ? "true" : "false");
  btn.disabled = !selectable;
  const label = say.boxLabel(name, look.kind, look.kind === "filled" ? filled : p, hinted);
  setAttr(btn, "aria-label", who ? `${who} · ${label}` : label);
  setAttr(btn, "title", look.kind === "forbidden" ? say.FORBIDDEN_TITLE : null);
  return look;
}

function setAttr(node, name, value) {
  if (value === null) node.removeAttribute(name);
  else if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** A tap on the offered box `category` (U2, polish 8), in every mode (the one score flow:
 * actions.js's solo / vs / 每日挑战 / tutorial table, lazy/table.js, lazy/room.js): under 登记前确认 (`confirmOn`) a
 * first tap only picks it (`pick`, `said`); a 0 while another box would score asks first
 * (`declined` when the player says 「再想想」); else `send(category, confirmZero)`.
 * `picked`: the box picked before, if any. Returns what was done. */
export async function scoreFlow({ category, option, confirmOn, picked, pick, said, send, declined }) {
  if (!option || !option.allowed) return "none";
  if (confirmOn && picked !== category) {
    pick(category);
    said(say.pickedBox(category, option.points));
    return "picked";
  }
  if (option.needs_confirmation) {
    if (!(await confirmDialog(say.confirmZero(category, option.final !== false)))) {
      declined();
      return "declined";
    }
    await send(category, true);
    return "sent";
  }
  await send(category, false);
  return "sent";
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
    die.classList.toggle("held", h && !locked);
    if (die.tagName !== "BUTTON") return; // a picture: no state to say
    die.setAttribute("aria-pressed", h ? "true" : "false");
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

/** One line of 本局记录 (U11), the same on every board: the round, who wrote it (`who`;
 * null in a game of one), 「托管」 when the computer wrote it for an away person, the
 * dice, the box and the points. `cls`: a class more on the line. */
export function turnLogItem(t, who, cls = "") {
  const span = (name, text) => {
    const s = document.createElement("span");
    s.className = name;
    s.textContent = text;
    return s;
  };
  const li = document.createElement("li");
  li.className = `turn-log-item${cls ? ` ${cls}` : ""}`;
  li.append(span("tl-round", say.turnRound(t.round)));
  if (who !== null) li.append(span("tl-who", who));
  if (t.proxy) li.append(span("tl-proxy rm-chip rm-away", "托管"));
  li.append(span("tl-dice", t.dice.join(" ")), span("tl-box", say.turnBox(t.category)), span("tl-points", say.turnPoints(t)));
  return li;
}
