// The live meter (L4): 「预计终局 248.3」 in solo, the chance to win in vs, from the same
// models as the review (GET /api/games/{id}/meter). Its state is in the store
// (`state.meter`, `state.settings.meter`); effects.js asks for a figure when `meterWanted`
// says so; this module draws it. It is a lazy overlay (views.js OVERLAYS): its code and
// its css/meter.css load once the lobby's data is in or a game is on the table, not with
// the page; until then the box stays hidden as index.html has it. The player can hide it — with its own button on a
// desktop, in 设置 everywhere (the phone table has no room for a 44 px button).
//
// Screen readers: the figure itself is not a live region (it changes on every roll, which
// would talk over the roll's own message). Once per turn — when a new turn starts, after
// the player's score (and, in vs, after the computer's turn) — a hidden polite live region
// says the new figure (the reducer's `meterAsk` decides). Nothing is said on load, at the
// end, or while the meter is hidden.
//
// No layout shift: the numbers sit in boxes of a fixed minimum width (css), so 99.5 and
// 248.3, 5% and 100% take the same room; on a phone the meter has a fixed width.

import { t } from "../i18n.js";
import { meterText } from "../messages.js";
import { boardShown } from "../state.js";
import { term } from "./dom.js";

const $ = (id) => document.getElementById(id);

/** A text span, with a fixed-width number box (class meter-num) inside it. */
function figure(cls, parts) {
  const span = document.createElement("span");
  span.className = cls;
  const num = document.createElement("span");
  num.className = "meter-num";
  num.textContent = parts.num;
  span.append(parts.before, num, parts.after);
  return span;
}

function sep() {
  const s = document.createElement("span");
  s.className = "meter-sep";
  s.textContent = " · ";
  return s;
}

const PHONE = matchMedia("(max-width: 560px)");
const watched = new WeakSet();

/** G4: on a phone the meter is laid over the totals line's end, in a fixed width; where
 * its words are longer than that (a longer language's 「Chance to win」) it takes a row of
 * its own under the card instead (the board's `meter-below`, css/meter.css), never drawn
 * over the totals. Measured in its place on the totals line each time (the class off,
 * measured, set in one frame: nothing is drawn between), so it never goes back and forth;
 * looked at again when its words, figures or size change, in the next frame (outside the
 * observer's callback). */
function watchPlace(box) {
  if (watched.has(box)) return;
  watched.add(box);
  let queued = false;
  const check = () => {
    queued = false;
    const board = box.closest(".board");
    if (!board) return;
    board.classList.remove("meter-below");
    let over = false;
    if (PHONE.matches && box.getClientRects().length) {
      // laid over the totals' end (right-aligned in its width): do its words reach the
      // totals' own words (a seat's total, 总分's name)?
      const first = [...box.children].find(
        (c) => c.getClientRects().length && getComputedStyle(c).position !== "absolute",
      );
      const totals = board.querySelector("#scorecard-totals");
      if (first && totals) {
        const left = first.getBoundingClientRect().left;
        const mine = box.getBoundingClientRect();
        const walker = document.createTreeWalker(totals, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node && !over; node = walker.nextNode()) {
          if (!node.textContent.trim()) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          over = [...range.getClientRects()].some(
            (r) => r.width > 0 && r.bottom > mine.top && r.top < mine.bottom && r.left < mine.right && r.right > left - 2,
          );
        }
      }
    }
    board.classList.toggle("meter-below", over);
  };
  const queue = () => {
    if (!queued) requestAnimationFrame(check);
    queued = true;
  };
  const observer = new ResizeObserver(queue);
  observer.observe(box);
  observer.observe($("live-meter-text"));
  PHONE.addEventListener("change", queue);
}

/** State → the meter's DOM (pure: no fetch, no storage). */
export function renderMeter(state) {
  const box = $("live-meter");
  if (!box) return; // no board built yet
  watchPlace(box);
  const b = boardShown(state);
  const g = b ? b.game : null;
  const shown = state.settings.meter === "shown";
  const text = $("live-meter-text");
  const bar = $("live-meter-bar");
  const toggle = $("live-meter-toggle");
  const onTable = Boolean(g) && b.mine.length > 0; // a watcher has no figure
  const vs = Boolean(g) && g.seats.length > 1; // the chance to win, of the seat reckoned for
  const hide = (el, hidden) => el.hidden !== hidden && (el.hidden = hidden);
  hide(box, !onTable);
  box.classList.toggle("meter-off", !shown);
  box.closest(".board").classList.toggle("meter-shown", shown && onTable);
  hide(text, !shown);
  // L11, U19: the meter's word explained one tap away, on every size.
  const want = vs ? "win_chance" : "expected_final";
  let help = box.querySelector(".term-help");
  if (!help || help.dataset.term !== want) {
    const fresh = term(want);
    if (help) help.replaceWith(fresh);
    else toggle.before(fresh);
    help = fresh;
  }
  hide(help, !shown);
  const label = shown ? t("core.board.hide") : t("core.meter.show");
  if (toggle.textContent !== label) toggle.textContent = label;
  if (toggle.getAttribute("aria-expanded") !== String(shown)) {
    toggle.setAttribute("aria-expanded", String(shown));
  }
  hide(bar, !shown || !vs);
  if (!g) return;

  // The figures as text: before the first answer for this game, dashes of the same width.
  const m = state.meter;
  const mine = m.figures && m.figures.game === g.id ? m.figures : null;
  const figures = meterText(mine, vs);
  const key = JSON.stringify(figures); // (its words in it: a change of language draws it again)
  if (text.dataset.key !== key) {
    text.dataset.key = key;
    const nodes = [];
    if (figures.chance) nodes.push(figure("meter-chance", figures.chance), sep());
    nodes.push(figure("meter-ef", figures.expected));
    text.replaceChildren(...nodes);
  }
  if (vs) {
    const value = mine && mine.win_probability !== null ? mine.win_probability : 0.5;
    if (bar.value !== value) bar.value = value;
  }
  // A fresh node for each announcement, so that the same words said twice are heard twice;
  // empty (which says nothing) when the figure is not to be announced or is another game's.
  const said = $("live-meter-said");
  const words = m.said.game === g.id ? m.said.text : "";
  const saidKey = `${m.said.serial}|${words}`;
  if (said.dataset.key !== saidKey) {
    said.dataset.key = saidKey;
    said.replaceChildren(...(words ? [document.createTextNode(words)] : []));
  }
}

/** views.js's lazy overlay: drawn with every render once loaded (on the table or not: off
 * the table it hides the box). */
export const overlay = { render: (state) => renderMeter(state) };
