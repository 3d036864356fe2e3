// U14, shared by every board that sends game actions (the solo table, 多人同屏, 好友房间):
// a tap that got no answer is never sent again; the page asks for the game (or the room)
// until the server answers and then shows it, and a tab looked at again reads the game in
// case it went on elsewhere. The callers keep their own state (their reducers); this module
// only owns the asking and its timer.

import { ApiError } from "./api.js";

// The waits between two asks grow to the last one; the asking stops after the last try (the
// next tap or look asks again).
const WAITS_MS = [1000, 2000, 4000, 8000, 15000, 30000];
const TRIES = 40;

/** Whether `err` is a request nobody answered: the network failed, or (behind nginx, 503
 * `unavailable`) no app process did. The action may or may not have been done. */
export const unanswered = (err) =>
  err instanceof ApiError && (err.code === "network" || err.code === "unavailable");

/** The asking after a lost tap: `lost()` the lost tap still waiting (null: nothing to ask
 * for any more), `busy()` whether a request of the board's own is in flight (then it waits
 * its turn), `read(lost)` the game or room as the server has it now (null when it cannot be
 * read), `back(fresh, lost)` shows it. Returns the function that starts asking: at once,
 * then after growing waits, and at once when the browser says it is online or the tab gets
 * the focus; a second start while it asks does nothing. */
export function createReconnect({ lost, busy, read, back }) {
  let asking = false;
  return async function reconnect() {
    if (asking) return;
    asking = true;
    let wake = () => {};
    const now = () => wake();
    window.addEventListener("online", now);
    window.addEventListener("focus", now);
    try {
      for (let tries = 0; tries < TRIES && lost(); tries++) {
        const waiting = lost();
        if (!busy()) {
          const fresh = await read(waiting);
          if (fresh && lost() === waiting) {
            back(fresh, waiting);
            break;
          }
          if (lost() !== waiting) continue; // a tap of the player's got through, or failed again
        }
        const wait = WAITS_MS[Math.min(tries, WAITS_MS.length - 1)];
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = () => {};
      }
    } finally {
      window.removeEventListener("online", now);
      window.removeEventListener("focus", now);
      asking = false;
    }
  };
}

/** What a tab looked at again does: `reconnect` while a lost tap waits; else, when
 * `shown()` gives the game it shows and may check now (null: not now), reads it
 * (`read(game)`, null when it cannot) and calls `movedOn(fresh)` if it went on elsewhere —
 * only if the tab showed the same game meanwhile (a tap of its own is not "elsewhere"). */
export function createLookAgain({ lost, reconnect, shown, read, movedOn }) {
  let looking = false;
  return async function lookAgain() {
    if (lost()) return reconnect();
    const g = shown();
    if (looking || !g) return;
    looking = true;
    try {
      const fresh = await read(g);
      if (fresh && shown() === g && fresh.version !== g.version) movedOn(fresh);
    } finally {
      looking = false;
    }
  };
}

/** Call `look` whenever the tab is looked at again (focus, or shown after being hidden). */
export function onLookedAt(look) {
  window.addEventListener("focus", look);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") look();
  });
}
