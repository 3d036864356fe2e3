// The table's message on a phone (P1, P3). The phone table is one screen where it fits, so
// the message gets the height the rest leaves it, two to three lines (three from 375x667,
// a little under three at 360x640; app.css). The long messages have
// shorter phone words (messages.js) that fit; anything that still does not fit is never
// scrolled inside that small box: it is cut after its last whole line (with 「…」), and
// 「全文」 opens the whole text over the card; 「收起」, Escape or the next message close it.
// Screen readers always get the whole text: the cut is drawn, the words are all there.

import { t } from "./i18n.js";

const PHONE = matchMedia("(max-width: 560px)");

export function installMessageFit() {
  const el = document.getElementById("message");
  // 「全文」: the board's (board/draw.js builds it beside the message), once there is one.
  const button = () => document.getElementById("message-more");
  let serial = null;

  function setExpanded(on) {
    el.classList.toggle("expanded", on);
    const more = button();
    if (!more) return;
    more.textContent = on ? t("core.board.less") : t("core.board.more");
    more.setAttribute("aria-expanded", String(on));
    if (on) makeRoom(more);
  }

  /** The message's text ends before 「全文」/「收起」 (and 撤销, mistap.css), however long
   * the button's words are in the page's language (G4): `--more-room`, the distance from
   * the button's left edge to the message's right edge and a gap. */
  function makeRoom(more) {
    if (more.hidden) return;
    const room = Math.ceil(el.getBoundingClientRect().right - more.getBoundingClientRect().left) + 8;
    el.style.setProperty("--more-room", `${room}px`);
  }

  function unclamp() {
    el.classList.remove("clamped");
    el.style.removeProperty("--lines");
  }

  /** Measure the message where it stands; cut it at a whole line if it overflows. */
  function fit() {
    if (el.dataset.serial !== serial) {
      serial = el.dataset.serial;
      setExpanded(false); // a new message starts closed
    }
    if (el.classList.contains("expanded")) return;
    unclamp();
    const more = button();
    const onBoard = Boolean(more) && el.parentElement === more.parentElement;
    const over =
      onBoard &&
      PHONE.matches &&
      !el.classList.contains("empty") &&
      el.scrollHeight > el.clientHeight + 1;
    if (more) more.hidden = !over;
    if (!over) return;
    makeRoom(more);
    const css = getComputedStyle(el);
    const line = parseFloat(css.lineHeight);
    const room = el.clientHeight - parseFloat(css.paddingTop) - parseFloat(css.paddingBottom);
    // +1: clientHeight is rounded down to a whole pixel.
    el.style.setProperty("--lines", String(Math.max(1, Math.floor((room + 1) / line))));
    el.classList.add("clamped");
  }

  document.addEventListener("click", (event) => {
    if (!event.target.closest || !event.target.closest("#message-more")) return;
    const open = !el.classList.contains("expanded");
    if (open) unclamp();
    setExpanded(open);
    if (!open) fit();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && el.classList.contains("expanded")) {
      setExpanded(false);
      fit();
      button().focus();
    }
  });
  window.addEventListener("resize", fit);
  PHONE.addEventListener("change", fit);
  return { fit };
}
