// What follows from a new state, outside the DOM: the store (store.js) calls each effect
// with `(state, previous, store)` after every change, before the next render, so a render
// never writes storage or starts a request. Effects may dispatch (the store queues them).

import { saveHold, saveLanguage, saveSettings, saveTutorialSeen, saveWrote } from "./remember.js";

/** Keep the settings, this turn's holds and the tutorial's offer in this browser (P5,
 * U6/P3, L10), and the box this tab wrote last in this tab (U14). */
export function remember(state, previous) {
  if (state.settings !== previous.settings) saveSettings(state.settings);
  // G3: a language set is a choice (settings.js): kept here as on the server
  if (state.settings.lang !== previous.settings.lang) saveLanguage(state.settings.lang);
  if (state.tutorialSeen !== previous.tutorialSeen) saveTutorialSeen(state.tutorialSeen);
  if (state.wrote !== previous.wrote) saveWrote(state.wrote);
  if (state.game !== previous.game || state.hold !== previous.hold || state.view !== previous.view) {
    saveHold(state);
  }
}

/** The position ("id:version") whose figure should be asked for now, or null: only on the
 * table, while shown, never during the computer's replay (its outcome must not leak through
 * the meter), and once per position. */
export function meterWanted(state) {
  const g = state.game;
  if (!g || state.view !== "game" || state.replay || state.settings.meter !== "shown") return null;
  const key = `${g.id}:${g.version}`;
  const asking = state.meter.asking;
  return asking && asking.key === key ? null : key;
}

/** L4: ask the server for the live meter's figure of a new position (once per position). */
export function meterEffect(api) {
  return (_state, _previous, store) => {
    const now = store.state; // the latest state (changes queued behind this one included)
    const key = meterWanted(now);
    if (key === null) return;
    store.dispatch({ type: "meterAsk", key, game: now.game });
    const { serial } = store.state.meter.asking;
    api.meter(now.game.id).then(
      (figures) => store.dispatch({ type: "meterFigures", serial, figures }),
      () => {}, // no figure this time: the last one stays (the meter is never an error)
    );
  };
}
