// Keyboard play (B3): Space/Enter roll, 1–5 toggle dice, H asks for a hint, arrows move
// between dice and between the scorecard's choosable boxes (Tab reaches them too, they are
// buttons), Esc closes the end-of-game panel. The confirmation dialog is a native <dialog>
// and handles its own keys (Esc cancels). Every board's keys: the solo table's (main.js),
// 多人同屏's and 好友房间's (their lazy modules install theirs once, for their own view).

import { isConfirmOpen } from "./dialog.js";

function isTyping(el) {
  return el && (el.tagName === "INPUT" || el.tagName === "SELECT" || el.tagName === "TEXTAREA");
}

function isInteractive(el) {
  // A button that was just hidden (the view changed) may still hold focus for a moment.
  const tag = el && el.tagName;
  return (tag === "BUTTON" || tag === "A" || tag === "SUMMARY") && !el.closest("[hidden]");
}

function moveFocus(list, current, delta) {
  if (!list.length) return;
  const i = list.indexOf(current);
  const next = i < 0 ? 0 : (i + delta + list.length) % list.length;
  list[next].focus();
}

/** The board `el` is on (its view's section): arrows never reach another view's board. */
const boardOf = (el) => el.closest(".view") || document;

function onArrowInScorecard(event, target) {
  const cells = [...boardOf(target).querySelectorAll(".cell-btn:not(:disabled)")];
  if (event.key === "ArrowDown" || event.key === "ArrowRight") {
    event.preventDefault();
    moveFocus(cells, target, 1);
  } else if (event.key === "ArrowUp" || event.key === "ArrowLeft") {
    event.preventDefault();
    moveFocus(cells, target, -1);
  }
}

function onArrowInDice(event, target) {
  const dice = [...boardOf(target).querySelectorAll(".die")];
  if (event.key === "ArrowRight") {
    event.preventDefault();
    moveFocus(dice, target, 1);
  } else if (event.key === "ArrowLeft") {
    event.preventDefault();
    moveFocus(dice, target, -1);
  } else if (event.key === "ArrowDown") {
    // From the dice straight to the scorecard's first choosable box.
    const first = boardOf(target).querySelector(".cell-btn:not(:disabled)");
    if (first) {
      event.preventDefault();
      first.focus();
    }
  }
}

/**
 * Listen for a board's keys. `actions`: onTable() and gameOverShown() say where the player
 * is; closeGameOver, roll, toggleDie(index) and hint (if the mode has hints) do the work.
 */
export function installKeyboard(actions) {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // Any open dialog (confirmation, settings) handles its own keys.
    if (isConfirmOpen() || document.querySelector("dialog[open]")) return;
    const target = event.target;
    const key = event.key;
    if (key === "Escape") {
      if (actions.gameOverShown()) {
        event.preventDefault();
        actions.closeGameOver();
      }
      return;
    }
    if (!actions.onTable() || actions.gameOverShown() || isTyping(target)) return;
    if (key === " " || key === "Enter") {
      if (isInteractive(target)) return; // a focused button does its own thing
      event.preventDefault();
      actions.roll();
    } else if (/^[1-5]$/.test(key)) {
      event.preventDefault();
      actions.toggleDie(Number(key) - 1);
    } else if ((key === "h" || key === "H") && actions.hint) {
      event.preventDefault();
      actions.hint();
    } else if (target.classList && target.classList.contains("cell-btn")) {
      onArrowInScorecard(event, target);
    } else if (target.classList && target.classList.contains("die")) {
      onArrowInDice(event, target);
    }
  });
}
