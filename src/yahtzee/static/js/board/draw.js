// The board's drawing (A1, U11): its skeleton built once into the root a mode gives it
// (`build`), then drawn from the state on every render (`draw`: text and attributes only,
// so focus and running animations survive). A die's pips, a box's look (previews 「+N」 /
// 「+0」, a Joker strike, a written 0: `drawBox`), the card of one column a seat with every
// row of the solo card, the seats' strip, 本局记录 and the other seats' last turns. It reads
// the board's state (board/state.js) and the game the server sent; it decides nothing about
// the rules (the points, what is allowed and the totals are the server's) and names no mode
// (what a mode allows comes in `mode`). 练习 and 复盘 draw their cards with `readCard`.

import { el, setAttr, setText } from "../dom.js";
import { language, t } from "../i18n.js";
import * as say from "../messages.js";
import { DIFFICULTY_NAMES, FACES, LIMITS, LOWER, ROUNDS, UPPER } from "../state.js";
import { diceView, mayAct, onTurn, ownUndo, pickedBox, replayStep, shownCard, shownTurns, you } from "./state.js";

export { el, setAttr, setText };
const W = say.BOARD;

const show = (node, shown) => node.hidden !== !shown && (node.hidden = !shown);

/** U13: a seat's name, the same in every view (the board, 好友房间, 复盘): a person's own
 * name; a computer 「电脑（普通）」, or 「电脑3（普通）」 (its seat's number) when the game
 * has several computers. `seats`: the game's seats ({kind, name, difficulty}). */
export function seatName(seats, i) {
  const s = seats[i];
  if (s.kind === "human") return s.name;
  const level = DIFFICULTY_NAMES[s.difficulty] || s.difficulty || "";
  const several = seats.filter((x) => x.kind === "computer").length > 1;
  return say.computerName(level, several ? i + 1 : null);
}

/** Seat `i` as the board says it: 「你」 for the seat this device plays alone. */
export const seatLabel = (b, i) => (i === you(b) ? say.you() : seatName(b.game.seats, i) || say.you());

// ---------------------------------------------------------------------------- dice

// Each face's pips on a 3×3 grid (1 = top left … 9 = bottom right).
const PIPS = { 1: [5], 2: [3, 7], 3: [3, 5, 7], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9], 6: [1, 3, 4, 6, 7, 9] };

/** Draw `value`'s pips (「?」 before a roll) and the hold tag into the die `die`; only when
 * the value changed, so a running animation survives. */
export function drawPips(die, value) {
  const key = String(value || 0);
  if (die.dataset.pips === key) return;
  die.dataset.pips = key;
  const face = el("span", "die-face", null, { "aria-hidden": "true" });
  if (value) face.append(...PIPS[value].map((pos) => el("span", `pip p${pos}`)));
  else face.append(el("span", "die-blank", "?"));
  // (the tag itself is kept: its row watches its size, `watchTags`)
  die.replaceChildren(face, die.querySelector(".hold-tag") || el("span", "hold-tag", "", { "aria-hidden": "true" }));
}

/** G4: a hold tag wider than its die (a longer language's 「Locked」) wraps between its
 * words under the die, and the row grows by its extra lines (`--tag-extra`, css/app.css's
 * .dice-row), so the tag is never drawn over what lies below. Looked at whenever a tag
 * changes size (its words, the die's size, 字号); the row is changed in the next frame,
 * outside the observer's own callback. */
function watchTags(row) {
  let queued = false;
  const check = () => {
    queued = false;
    let extra = 0;
    for (const tag of row.querySelectorAll(".hold-tag")) {
      if (!tag.textContent) continue;
      const line = parseFloat(getComputedStyle(tag).lineHeight);
      extra = Math.max(extra, Math.round(tag.offsetHeight - line));
    }
    if (extra > 1) row.style.setProperty("--tag-extra", `${extra}px`);
    else row.style.removeProperty("--tag-extra");
  };
  const observer = new ResizeObserver(() => {
    if (!queued) requestAnimationFrame(check);
    queued = true;
  });
  for (const tag of row.querySelectorAll(".hold-tag")) observer.observe(tag);
}

/** Five dice in the row `row`: buttons `${prefix}die-i` (a tap on die i: `onToggle(i)`), or
 * without `onToggle` a picture (复盘, 练习's answered puzzle: the row is labelled as a whole). */
export function buildDice(row, { prefix = "", onToggle = null, cls = "" } = {}) {
  for (let i = 0; i < 5; i++) {
    const name = `die${cls ? ` ${cls}` : ""}`;
    if (!onToggle) {
      row.append(el("span", name, null, { "aria-hidden": "true", "data-index": i }));
      continue;
    }
    const d = el("button", name, null, { type: "button", "data-testid": `${prefix}die-${i}`, "data-index": i, "aria-pressed": "false" });
    d.addEventListener("click", () => onToggle(i));
    d.addEventListener("animationend", () => d.classList.remove("rolling"));
    d.append(el("span", "hold-tag", "", { "aria-hidden": "true" }));
    row.append(d);
  }
  if (onToggle) watchTags(row);
}

/** What the dice row shows: `dice` (five faces, or null before a roll), `held`, `locked`
 * (no roll left, or a written turn), `act` (the viewer may hold them), `hint` (the dice a
 * hint marks), `computer` (another seat's dice, replayed), `rollSerial` and `rolled` (a new
 * serial tumbles the dice `rolled` marks). */
export function diceLook({ dice, held, locked = false, act = false, hint = null, computer = false, rollSerial = 0, rolled = null }) {
  return { dice, held, locked, act, hint, computer, rollSerial, rolled };
}

/** Draw `look` (diceLook) into the row built by buildDice. */
export function drawDice(root, look) {
  const { dice, held, locked, act, hint, computer, rollSerial, rolled } = look;
  root.classList.toggle("computer-dice", Boolean(computer));
  root.querySelectorAll(".die").forEach((die, i) => {
    const value = dice ? dice[i] : null;
    drawPips(die, value);
    const h = Boolean(dice) && (locked || Boolean(held && held[i]));
    setAttr(die, "data-value", value === null ? "" : String(value));
    die.classList.toggle("held", h && !locked);
    if (die.tagName !== "BUTTON") return; // a picture: no state to say
    setAttr(die, "aria-pressed", h ? "true" : "false");
    die.classList.toggle("locked", locked && Boolean(dice));
    die.classList.toggle("blank", value === null);
    die.classList.toggle("hint", !computer && Boolean(hint) && hint[i] && !locked);
    setAttr(die, "aria-disabled", !(act && value !== null && !locked));
    setText(die.querySelector(".hold-tag"), value === null ? "" : say.dieTag(locked, h && !locked));
    setAttr(die, "aria-label", say.dieLabel(i, value, locked, h && !locked));
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

// --------------------------------------------------------------------------- boxes

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

/** Draw one box (U11: the one place a box's look is decided): `td` the cell, `btn` its
 * button, `filled` the written score or null, `p` the server's preview or null, `name` the
 * box's name, `who` the seat's name where a card has several columns, `act` the box may be
 * tapped now, `hinted` a hint points at it, `picked` 登记前确认's first tap, `cls` the cell's
 * own classes. Returns the look (boxLook). */
export function drawBox(td, btn, { filled, p, name, who = "", act = false, hinted = false, picked = false, cls = "cell" }) {
  const look = boxLook(filled, p);
  const extra = look.bonus ? say.upperBonusTag(look.bonus) : "";
  if (btn.dataset.text !== `${look.text}|${extra}`) {
    btn.dataset.text = `${look.text}|${extra}`;
    btn.replaceChildren(document.createTextNode(look.text));
    if (extra) btn.append(el("small", "bonus-tag", extra));
  }
  const want = `${cls} ${look.cls}${hinted ? " hint" : ""}${picked ? " picked" : ""}`;
  if (td.className !== want) td.className = want;
  const selectable = look.kind === "preview" && act;
  setAttr(td, "data-selectable", selectable ? "true" : "false");
  btn.disabled = !selectable;
  const label = say.boxLabel(name, look.kind, look.kind === "filled" ? filled : p, hinted);
  setAttr(btn, "aria-label", who ? `${who} · ${label}` : label);
  setAttr(btn, "title", look.kind === "forbidden" ? say.forbiddenTitle() : null);
  return look;
}

// ---------------------------------------------------------------------------- card

const GOAL = LIMITS.upper_bonus_threshold;

/** P4: the upper-bonus progress of `card` (a seat's), honest when 63 can no longer be
 * reached (`short`: a narrow column's words). */
export function upperProgress(card, short = false) {
  const sub = card.upper_subtotal;
  let best = sub;
  for (const [cat] of UPPER) if (card.scores[cat] === null) best += LIMITS.dice * FACES[cat];
  return say.upperProgress(sub, GOAL, card.upper_bonus > 0, best, short);
}

// The card's three tables: the upper half with its sums (the progress row under the
// subtotal), the lower half with 快艇加成, and 总分 (a line of its own: on a phone the two
// halves stand side by side and the meter lies over the totals' right end).
const PARTS = [
  { id: "scorecard-upper", caption: W.captions[0], rows: UPPER, sums: ["upper_subtotal", "progress", "upper_bonus"] },
  { id: "scorecard-lower", caption: W.captions[1], rows: LOWER, sums: ["yahtzee_bonus"], head: "lower-head" },
  { id: "scorecard-totals", caption: W.captions[2], rows: [], sums: ["total"], cls: "totals-table", head: "totals-head" },
];
const dashed = (field) => field.replaceAll("_", "-");

/** A disclosure (U19, L11) whose words `words(glossary)` come from the glossary
 * (lazy/glossary.js, loaded on its first opening); a tap on the words closes it (on a
 * phone they lie over the bottom of the screen). */
function disclosure(cls, attrs, summary, words) {
  const box = el("details", cls, null, attrs);
  const pop = el("span", "term-pop", "", { role: "note" });
  box.append(summary, pop);
  box.addEventListener("toggle", () => {
    if (box.open) import("../lazy/glossary.js").then((g) => setText(pop, words(g)));
  });
  pop.addEventListener("click", () => (box.open = false));
  return box;
}

/** A row's name: its box's rule and score, or its sum's meaning, one tap away (U19). */
function rowName(id, name) {
  const th = el("th", "col-name", null, { scope: "row" });
  const summary = el("summary", "box-name", name, { "data-testid": `box-help-${id}` });
  th.append(disclosure("box-help", { "data-box": id }, summary, (g) => g.boxWords(id, name)));
  return th;
}

/** A word's 「?」 (L11) on the board: its words (the glossary's `id`) loaded on the first
 * opening (lazy/glossary.js; css/words.css draws it). */
function lazyTerm(id, word) {
  const q = W.termQuestion(word);
  const summary = el("summary", "term-q", "?", { "aria-label": q, title: q, "data-testid": `term-${id}` });
  return disclosure("term-help", { "data-term": id }, summary, (g) => W.termWords(g.GLOSSARY[id]));
}

/** The card's tables in `root` for `seats` (one column each; `name(i)` its head): the
 * boxes' cells `${prefix}cell-${i}-${category}` with a button each (a tap on an offered
 * one: `onPick(category)`), the sums `${prefix}${field}-${i}`. Built again when the seats
 * change (`drawCard` does). */
function buildCard(root, seats, heads, { prefix, onPick }) {
  const several = seats.length > 1;
  const tables = PARTS.map((part) => {
    const table = el("table", `scorecard${part.cls ? ` ${part.cls}` : ""}`, null, { id: `${prefix}${part.id}` });
    table.append(el("caption", "visually-hidden", part.caption));
    // Every half has the seats' heads (the lower halves' are for screen readers only): the
    // card's columns are one grid in its three tables.
    const head = el("thead", part.head || "");
    const tr = el("tr");
    tr.append(el("th", "col-name", W.boxes, { scope: "col" }));
    seats.forEach((s, i) => {
      const th = el("th", `col-head seat-${s.kind}`, null, { scope: "col", "data-seat": i });
      th.append(...heads(i));
      tr.append(th);
    });
    head.append(tr);
    table.append(head);
    if (part.rows.length) {
      const body = el("tbody", "box-rows");
      for (const [c, name] of part.rows) {
        const row = el("tr", "", null, { "data-category": c });
        row.append(rowName(c, name));
        seats.forEach((s, i) => {
          const td = el("td", "cell", null, { "data-seat": i, "data-category": c, "data-testid": `${prefix}cell-${i}-${c}` });
          const b = el("button", "cell-btn", null, { type: "button", "data-category": c });
          b.disabled = true;
          if (onPick) b.addEventListener("click", () => !b.disabled && onPick(c));
          td.append(b);
          row.append(td);
        });
        body.append(row);
      }
      table.append(body);
    }
    const sums = el("tbody", "subtotals");
    for (const f of part.sums) {
      const progress = f === "progress";
      const row = el("tr", progress ? "progress-row" : f === "total" ? "total-row" : "sum-row", null, { "data-sum": f });
      if (!progress || several) row.append(rowName(f, progress ? say.progressName() : say.SUM_NAMES[f]));
      seats.forEach((s, i) => {
        const attrs = { "data-seat": i, "data-testid": `${prefix}${progress ? "upper-progress" : dashed(f)}-${i}` };
        if (progress && !several) attrs.colspan = 2;
        row.append(el("td", progress ? "" : "sum", "", attrs));
      });
      sums.append(row);
    }
    table.append(sums);
    return table;
  });
  const cols = el("div", "card-cols");
  cols.append(tables[0], tables[1]);
  root.replaceChildren(cols, tables[2]);
}

/** Draw the card in `root` (built by buildCard when `key` changes): `cards[i]` (what seat i's
 * column shows), `offer` (the seat whose previews show, or null), `preview` (the server's),
 * `act` (its boxes may be tapped), `hint`, `picked`, `playing` (the seat on turn, marked),
 * `shown` (the seat a phone shows of several; null: every seat), `just` (the box a replay just
 * wrote, {seat, category}), `who(i)` (a seat's name for screen readers). */
export function drawCard(root, { seats, heads, cards, offer = null, preview = null, act = false, hint = null, picked = null, playing = null, shown = null, just = null, who = () => "", prefix = "", onPick = null }) {
  const key = JSON.stringify(seats.map((s, i) => [s.kind, s.name, s.difficulty, heads(i).map((h) => h.textContent || h)]));
  if (root.dataset.key !== key) {
    root.dataset.key = key;
    buildCard(root, seats, (i) => heads(i).map((h) => (typeof h === "string" ? h : h.cloneNode(true))), { prefix, onPick });
  }
  const several = seats.length > 1;
  seats.forEach((_, i) => {
    const card = cards[i];
    const off = shown !== null && i !== shown ? " off" : "";
    const turn = i === playing ? " on-turn" : "";
    const name = several ? who(i) : "";
    for (const [c, boxName] of [...UPPER, ...LOWER]) {
      const td = root.querySelector(`[data-testid="${prefix}cell-${i}-${c}"]`);
      const p = i === offer && preview ? preview[c] : null;
      drawBox(td, td.firstChild, {
        filled: card.scores[c],
        p,
        name: boxName,
        who: name,
        act: act && i === offer,
        hinted: i === offer && hint === c,
        picked: i === offer && picked === c,
        cls: `cell seat-${seats[i].kind}${off}${turn}${just && just.seat === i && just.category === c ? " just-scored" : ""}`,
      });
    }
    for (const cell of root.querySelectorAll(`[data-seat="${i}"]:not(.cell)`)) {
      cell.classList.toggle("off", Boolean(off));
      cell.classList.toggle("on-turn", Boolean(turn));
      const f = cell.closest("tr") && cell.closest("tr").dataset.sum;
      if (f === "progress") {
        setText(cell, upperProgress(card, several));
        setAttr(cell, "title", several ? upperProgress(card) : null);
      } else if (f) setText(cell, String(card[f]));
    }
  });
}

/** 练习's and 复盘's card (read-only): `card` ({boxes: the filled ones, upper_subtotal,
 * upper_bonus, yahtzee_bonus, total}) with the server's `preview` of the dice (or null),
 * drawn as on the board. */
export function readCard(card, preview = null) {
  const root = el("div", "card-area read-card");
  const scores = Object.fromEntries([...UPPER, ...LOWER].map(([c]) => [c, c in card.boxes ? card.boxes[c] : null]));
  const heads = () => [say.you()];
  drawCard(root, { seats: [{ kind: "human", name: null }], heads, cards: [{ ...card, scores }], offer: preview ? 0 : null, preview, prefix: "read-" });
  return root;
}

// ------------------------------------------------------------------------ 本局记录

/** One line of 本局记录 (U11): the round, who wrote it (`who`; null in a game of one),
 * 「托管」 when the computer wrote it for an away person, the dice, the box and points. */
export function turnLogItem(turn, who, cls = "") {
  const li = el("li", `turn-log-item${cls ? ` ${cls}` : ""}`);
  li.append(el("span", "tl-round", say.turnRound(turn.round)));
  if (who !== null) li.append(el("span", "tl-who", who));
  if (turn.proxy) li.append(el("span", "tl-proxy rm-chip rm-away", W.proxy));
  // W3: a turn written since this seat last looked (a room's; the server marks it)
  if (turn.new) li.append(el("span", "tl-new rm-chip", t("core.board.new"), { "data-testid": "turn-new" }));
  li.append(el("span", "tl-dice", turn.dice.join(" ")), el("span", "tl-box", say.turnBox(turn.category)), el("span", "tl-points", say.turnPoints(turn)));
  return li;
}

// ----------------------------------------------------------------------- skeleton

const button = (text, testid, cls, onClick, attrs = {}) => {
  const b = el("button", `btn ${cls}`, text, { type: "button", "data-testid": testid, ...attrs });
  if (onClick) b.addEventListener("click", onClick);
  return b;
};

/** Build the board into `root` (emptied first): its top bar (`mode.buttons` first), the
 * felt with the dice and the roll row, the message's place (`owner`'s slot), the seats'
 * strip, the live meter's box, the other seats' last turns, 本局记录 and the card. `on`:
 * what each control does (board.js). */
export function build(root, { owner, buttons = [] }, on) {
  root.className = "board";
  const top = el("div", "topbar");
  const actions = el("div", "topbar-actions");
  for (const b of buttons) actions.append(button(b.text, b.testid, "btn-small", b.onClick));
  actions.append(
    button(W.hint, "hint", "btn-small btn-gold", on.hint, { "aria-keyshortcuts": "H" }),
    button(W.lobby, "lobby", "btn-small", on.lobby),
    el("a", "btn btn-small btn-link", W.rules, { href: "/rules", "data-nav": "rules", "data-testid": "rules-link-game" }),
    button(W.log, "turn-log-toggle", "btn-small phone-only", () => on.log(true), { "aria-controls": "turn-log-panel", "aria-expanded": "false" }),
    button(W.settings, "settings-open-game", "btn-small phone-only", null, { "aria-haspopup": "dialog", "data-opens": "settings" }),
  );
  const status = el("div", "topbar-status");
  status.append(el("span", "mode-badge", "", { id: "mode-badge" }), el("span", "round", "", { "data-testid": "round" }), el("span", "rolls", "", { "data-testid": "rolls-left" }));
  top.append(actions, status);

  const felt = el("div", "felt");
  const row = el("div", "dice-row", null, { role: "group", "aria-label": W.dice, id: "dice-row" });
  buildDice(row, { onToggle: on.toggle });
  const rolls = el("div", "roll-row");
  const roll = button(say.rollButton(true), "roll", "btn-roll", (e) => e.detail <= 1 && on.roll(), { "aria-keyshortcuts": "Space Enter" });
  roll.disabled = true; // (until the board is drawn)
  const skip = button("", "skip-replay", "btn-small btn-ghost", on.skip, { id: "skip-replay" });
  const words = el("span", "", W.skip);
  words.append(el("span", "long-label"));
  skip.append(words);
  rolls.append(roll, skip, button(W.showResult, "show-result", "btn-small btn-gold", () => on.showEnd(true)));
  const tray = el("div", "tray");
  tray.append(row, el("p", "dice-help", "", { id: "dice-help" }), rolls);
  felt.append(el("p", "turn-banner", "", { id: "turn-banner", "data-testid": "turn", "aria-live": "polite", "aria-atomic": "true" }), tray);
  felt.append(el("p", "keys-help", W.keys));

  // On a phone, a message too long for its lines is cut; 「全文」 opens it (js/fit.js). 撤销
  // and 登记前确认's 「确定」 sit at its right end (css/mistap.css).
  const slot = el("div", "message-slot", null, { "data-slot": owner });
  slot.append(
    button(W.more, "message-more", "btn-small message-more", null, { id: "message-more", "aria-controls": "message", "aria-expanded": "false" }),
    button(W.undo, "undo", "btn-small slot-act", on.undo),
    button(W.confirm, "confirm-score", "btn-small btn-gold slot-act", on.confirm),
  );
  for (const b of slot.children) b.hidden = true;

  // Every seat's total (several seats): a tap shows that seat's column on a phone.
  const strip = el("ol", "seat-strip", null, { "data-testid": "standings", "aria-label": W.standings });
  // L11: the strip's percentages named and explained (shown with them).
  const note = el("p", "fine chance-note", W.chanceNote);
  note.append(lazyTerm("win_chance", W.chanceWord));
  note.hidden = true;
  // L4 live meter (lazy/meter.js draws it): hideable, remembered in this browser.
  const meter = el("div", "live-meter", null, { id: "live-meter", "data-testid": "live-meter", role: "group", "aria-label": W.meter });
  meter.append(
    el("span", "meter-text", null, { id: "live-meter-text", "data-testid": "live-meter-text" }),
    el("meter", "", null, { id: "live-meter-bar", "data-testid": "live-meter-bar", min: 0, max: 1, low: 0.35, high: 0.65, optimum: 1, value: 0.5, "aria-label": W.meterBar }),
    el("span", "visually-hidden", null, { id: "live-meter-said", "data-testid": "live-meter-said", "aria-live": "polite", "aria-atomic": "true" }),
    button(W.hide, "live-meter-toggle", "btn-small", on.meter, { id: "live-meter-toggle", "aria-controls": "live-meter-text" }),
  );
  meter.hidden = true;
  const others = el("section", "computer-log panel", null, { id: "computer-log", "aria-labelledby": "computer-log-title" });
  others.append(el("h2", "", "", { id: "computer-log-title" }), el("ol", "", null, { id: "computer-log-steps" }));
  const log = el("section", "turn-log-panel panel", null, { id: "turn-log-panel", "aria-labelledby": "turn-log-title" });
  const head = el("div", "turn-log-head");
  head.append(el("h2", "", W.logTitle, { id: "turn-log-title" }), button(W.close, "turn-log-close", "btn-small", () => on.log(false), { id: "turn-log-close" }));
  log.append(head, el("p", "fine turn-log-empty", W.logEmpty), el("ol", "turn-log", null, { "data-testid": "turn-log", tabindex: 0, "aria-labelledby": "turn-log-title" }));

  const play = el("div", "play-area");
  play.append(felt, slot, strip, note, meter, others, log);
  const card = el("div", "card-area", null, { id: "scorecard" });
  const layout = el("div", "table-layout");
  layout.append(play, card);
  root.replaceChildren(top, layout);
}

// ---------------------------------------------------------------------------- draw

const q = (root, testid) => root.querySelector(`[data-testid="${testid}"]`);

/** A column's head: the seat's name, a computer's level apart (a phone hides it). */
function heads(b, i) {
  const s = b.game.seats[i];
  const name = seatLabel(b, i);
  const cut = s.kind === "computer" ? name.indexOf(say.levelOpen()) : -1;
  return cut < 0 ? [name] : [name.slice(0, cut), el("span", "head-level", name.slice(cut))];
}

/** Draw the board `b` (state.board) into `root` (built by `build`); `mode` says what it
 * allows (hints, its buttons' visibility, a pause), `ctx` {settings, chances, paused}. */
export function draw(root, b, mode, ctx) {
  const g = b.game;
  const step = replayStep(b.replay);
  const turn = onTurn(g);
  // Not disabled while a request is in flight (clicks wait then): a disabled button would
  // drop the keyboard focus to the page body (P2).
  const act = mayAct({ ...b, busy: false }) && !ctx.paused;
  const seats = g.seats;
  const several = seats.length > 1;
  root.dataset.seats = String(seats.length);
  root.classList.toggle("one-seat", !several);
  setAttr(root, "aria-busy", b.busy ? "true" : null);

  // The top bar: the mode's buttons, 提示 where the mode has hints, the round and rolls.
  for (const m of mode.buttons || []) show(q(root, m.testid), !(m.hidden && m.hidden(g)));
  const hint = q(root, "hint");
  const seat = turn !== null ? seats[turn] : null;
  const left = seat && seat.hints_left !== null && seat.hints_left !== undefined ? seat.hints_left : 0;
  show(hint, Boolean(mode.hints && mode.hints(g)));
  setText(hint, say.hintButton(left));
  hint.disabled = !act || left <= 0 || g.dice === null;
  setAttr(hint, "title", say.hintTitle(left, g.dice !== null, LIMITS.hints_per_game));
  setAttr(q(root, "turn-log-toggle"), "aria-expanded", b.logOpen ? "true" : "false");
  setText(root.querySelector(".mode-badge"), say.kindName(g.kind || g.mode, g.difficulty));
  setText(q(root, "round"), say.roundLabel(step ? step.round : g.round, ROUNDS));
  const replayed = step ? seats[step.seat] : null;
  setText(q(root, "rolls-left"), say.rollsLabel(replayed, g.status !== "in_progress", g.rolls_left));

  // The felt: whose turn, the dice, the roll row and what to do.
  const view = diceView(b);
  const held = view.held || b.hold;
  drawDice(root.querySelector(".dice-row"), diceLook({
    ...view,
    held,
    act,
    hint: view.computer ? null : b.hintHold,
    rollSerial: step ? `s${b.replay.steps.length}:${b.replay.index}` : b.rollSerial,
    rolled: step ? (view.roll ? step.hold.map((h) => !h) : null) : b.rolled,
  }));
  const allHeld = held.every(Boolean);
  const roll = q(root, "roll");
  const mine = b.mine.includes(turn);
  // A finished game's spent 掷骰子 gives its place to 「查看结算」 (on a phone the two
  // squeezed beside the dice broke their words, G4).
  const over = g.status === "finished" && !step;
  show(roll, !over && (mine || !several || Boolean(step)));
  setText(roll, say.rollButton(g.dice === null));
  roll.disabled = !act || g.rolls_left <= 0 || (g.dice !== null && allHeld);
  const skip = q(root, "skip-replay");
  show(skip, Boolean(step));
  if (step) {
    const words = say.skipWords(replayed.kind === "computer");
    setText(skip.querySelector(".long-label"), words);
    setAttr(skip, "aria-label", `${W.skip}${words}`);
  }
  show(q(root, "show-result"), over && !b.showEnd);
  root.querySelector(".felt").classList.toggle("computer-turn", Boolean(step));
  const banner = q(root, "turn");
  const help = root.querySelector(".dice-help");
  if (step) {
    setText(banner, say.BANNER.replay(seatLabel(b, step.seat)));
    setText(help, say.HELP.replay);
  } else if (turn === null) {
    setText(banner, say.BANNER.over);
    setText(help, say.HELP.over);
  } else {
    setText(banner, say.BANNER.turn(seatLabel(b, turn)));
    if (!mine) setText(help, say.HELP.wait(seatLabel(b, turn)));
    else if (g.dice === null) setText(help, say.HELP.start);
    else if (g.preview && Object.values(g.preview).some((p) => !p.allowed)) setText(help, say.HELP.joker);
    else if (g.rolls_left === 0) setText(help, say.HELP.locked);
    else if (allHeld) setText(help, say.HELP.allHeld);
    else setText(help, say.HELP.play);
  }

  // 撤销 and 「确定」 at the end of the message bar (polish 8); the picked box framed.
  const slot = root.querySelector(".message-slot");
  const u = !step && !ctx.paused ? ownUndo(b) : null;
  const undo = q(root, "undo");
  show(undo, Boolean(u));
  undo.disabled = b.busy;
  if (u) setAttr(undo, "aria-label", say.undoLabel(u.category, seatLabel(b, u.seat)));
  const picked = ctx.paused ? null : pickedBox(b);
  const ok = q(root, "confirm-score");
  show(ok, Boolean(picked));
  if (picked) setAttr(ok, "aria-label", W.confirmLabel(boxName(picked)));
  slot.classList.toggle("has-act", Boolean(u || picked));

  // The seats' strip (more than two seats: a phone shows one column, the strip every total).
  const playing = step ? step.seat : turn;
  const shown = seats.length > 2 ? (b.shown ?? playing ?? you(b) ?? 0) : null;
  drawStrip(root.querySelector(".seat-strip"), b, { shown, playing, chances: ctx.chances, select: ctx.select });
  show(root.querySelector(".chance-note"), shown !== null && Boolean(ctx.chances) && !b.replay);

  // The card: one column a seat; the previews in the column of the seat on turn.
  const offer = !step && turn !== null && g.preview ? turn : null;
  drawCard(root.querySelector(".card-area"), {
    seats,
    heads: (i) => heads(b, i),
    cards: seats.map((_, i) => shownCard(b.replay, g, i)),
    offer,
    preview: g.preview,
    act,
    hint: b.hintCategory,
    picked,
    playing: several ? playing : null,
    shown,
    just: step && step.action === "score" ? step : null,
    who: (i) => seatLabel(b, i),
    onPick: ctx.pick,
  });

  drawOthers(root, b);
  drawLog(root, b);
}

const boxName = (c) => [...UPPER, ...LOWER].find(([id]) => id === c)[1];

/** Every seat's name and total (and, with the meter shown, its chance of first place); a
 * tap shows that seat's column on a phone. Only for more than two seats. */
function drawStrip(ol, b, { shown, playing, chances, select }) {
  const seats = b.game.seats;
  show(ol, shown !== null);
  if (shown === null) return;
  if (ol.childElementCount !== seats.length) {
    ol.replaceChildren(
      ...seats.map((_, i) => {
        const li = el("li");
        const btn = el("button", "seat-pill", null, { type: "button", "data-testid": `standing-${i}` });
        const figures = el("span", "seat-figures");
        figures.append(el("span", "seat-total"), el("span", "seat-chance"));
        btn.append(el("span", "seat-name"), figures);
        btn.addEventListener("click", () => select(i));
        li.append(btn);
        return li;
      }),
    );
  }
  seats.forEach((_, i) => {
    const btn = ol.children[i].firstChild;
    const card = shownCard(b.replay, b.game, i);
    const name = seatLabel(b, i);
    const p = chances && !b.replay ? chances[i] : null;
    const chance = p === null || p === undefined ? "" : `${Math.round(p * 100)}%`;
    setText(btn.querySelector(".seat-name"), name);
    setText(btn.querySelector(".seat-total"), String(card.total));
    setText(btn.querySelector(".seat-chance"), chance);
    setAttr(btn, "aria-pressed", String(i === shown));
    setAttr(btn, "aria-current", i === playing ? "true" : null);
    setAttr(btn, "aria-label", say.standingLabel(name, card.total, chance, i === playing));
  });
}

/** The other seats' last turns, in words, once their replay is over (while it runs, the
 * message bar says each step: a second copy would say it twice). */
function drawOthers(root, b) {
  const box = root.querySelector(".computer-log");
  const turns = b.replay ? [] : b.game.computer_turns || [];
  show(box, turns.length > 0);
  if (!turns.length) return;
  const one = turns.length === 1 ? turns[0] : null;
  setText(box.querySelector("h2"), say.replayLogTitle(one ? seatLabel(b, one.seat) : null, one ? one.round : 0));
  const list = box.querySelector("ol");
  const key = JSON.stringify(turns);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  const steps = turns.flatMap((t) => t.steps.map((s) => ({ ...s, seat: t.seat })));
  list.replaceChildren(...steps.map((s, j) => el("li", "", say.describeStep(steps, j, seatLabel(b, s.seat)))));
}

/** 本局记录 (P4): every finished turn, newest first; during a replay a box not yet shown
 * stays out (no spoiler). */
function drawLog(root, b) {
  const turns = shownTurns(b.game.turns || [], b.replay).slice().reverse();
  root.querySelector(".turn-log-panel").classList.toggle("open", b.logOpen);
  show(root.querySelector(".turn-log-empty"), turns.length === 0);
  const list = q(root, "turn-log");
  show(list, turns.length > 0); // no empty tab stop
  const several = b.game.seats.length > 1;
  const key = JSON.stringify([language(), b.game.id, b.mine, turns.length, turns[0] && turns[0].round, turns[0] && turns[0].seat]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...turns.map((t) => turnLogItem(t, several ? seatLabel(b, t.seat) : null, `by-${b.game.seats[t.seat].kind}`)));
}
