// What follows from a new state, outside the DOM: the store (store.js) calls each effect
// with `(state, previous, store)` after every change, before the next render, so a render
// never writes storage or starts a request. Effects may dispatch (the store queues them).

import { saveHold, saveLanguage, saveSettings, saveTutorialSeen, saveWrote } from "./remember.js";
import { boardShown, onTurn } from "./state.js";

/** Keep the settings, this turn's holds and the tutorial's offer in this browser (P5,
 * U6/P3, L10), and the box this tab wrote last in this tab (U14). */
export function remember(state, previous) {
  if (state.settings !== previous.settings) saveSettings(state.settings);
  // G3: a language set is a choice (settings.js): kept here as on the server
  if (state.settings.lang !== previous.settings.lang) saveLanguage(state.settings.lang);
  if (state.tutorialSeen !== previous.tutorialSeen) saveTutorialSeen(state.tutorialSeen);
  const b = state.board;
  const before = previous.board;
  // (A board opened anew keeps what this tab remembered: it was opened with it.)
  if (b && before && b.serial === before.serial && b.wrote !== before.wrote) saveWrote(b.wrote);
  if (b && (!before || b.game !== before.game || b.hold !== before.hold || state.view !== previous.view)) {
    saveHold(state);
  }
}

/** The position ("id:version") whose figure should be asked for now, or null: only for the
 * board on the view shown, on a turn of a seat this device plays (or at the end: a watcher
 * has no figure to ask for, and another device's turn leaves this one's as it was), while
 * the meter is shown, never during a replay (its outcome must not leak through the
 * meter), and once per position. */
export function meterWanted(state) {
  const b = boardShown(state);
  const mine = b && (b.mine.includes(onTurn(b.game)) || (b.mine.length && b.game.status === "finished"));
  if (!mine || b.replay || state.settings.meter !== "shown") return null;
  const key = `${b.game.id}:${b.game.version}`;
  const asking = state.meter.asking;
  return asking && asking.key === key ? null : key;
}

/** L4: ask the server for the live meter's figure of a new position: once per position, one
 * request at a time (a game of several seats takes a while: positions passed meanwhile are
 * never asked for; the latest is, once the answer is in). */
export function meterEffect(api) {
  let waiting = false;
  const ask = (store) => {
    const now = store.state; // the latest state (changes queued behind this one included)
    const key = meterWanted(now);
    if (key === null || waiting) return;
    const game = now.board.game;
    store.dispatch({ type: "meterAsk", key, game });
    const { serial } = store.state.meter.asking;
    waiting = true;
    const done = () => {
      waiting = false;
      ask(store);
    };
    api.meter(game.id).then(
      (figures) => {
        store.dispatch({ type: "meterFigures", serial, figures });
        done();
      },
      done, // no figure this time: the last one stays (the meter is never an error)
    );
  };
  return (_state, _previous, store) => ask(store);
}
