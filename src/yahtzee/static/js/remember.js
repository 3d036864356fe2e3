// What this browser remembers (localStorage; no account): the settings (P5), the meter's
// shown/hidden choice (L4), the language the player chose (G3: the server keeps it too, for
// every linked device), this turn's holds (U6/P3), that the tutorial was offered (L10)
// and, for this tab only (sessionStorage), the box it wrote last (U14). Read once at start (main.js) or
// when a board opens (a mode's mount); written only by the effects (effects.js), never by
// a render. Storage may be missing or full (private mode): then nothing is remembered.

import { CHOICES, DEFAULT_SETTINGS } from "./settings.js";
import { holdable } from "./state.js";

const SETTINGS_KEY = "yahtzee.settings";
const METER_KEY = "yahtzee.meter"; // "shown" | "hidden"
// G3: the language chosen in 设置 (a tag, "zh-Hant"); absent until the player chooses one.
const LANG_KEY = "yahtzee.lang";
// The holds are kept for the game and version they belong to (one entry: any other game's
// or version's is stale), so continuing the game or reloading the page shows them again.
const HOLD_KEY = "yahtzee.hold";
// L10: "seen" once this browser was offered the 新手教程 (started or declined).
const TUTORIAL_KEY = "yahtzee.tutorial";
// U14: the box this tab wrote last (state.wrote), in the tab's own sessionStorage: a reload
// keeps its 撤销, another tab of the same browser does not see it.
const WROTE_KEY = "yahtzee.wrote";

export function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else if (localStorage.getItem(key) !== value) localStorage.setItem(key, value);
  } catch {
    // Storage full or forbidden: the value still holds for this visit.
  }
}

/** The settings as saved (each unknown or damaged value replaced by its default). */
export function loadSettings() {
  const out = { ...DEFAULT_SETTINGS };
  try {
    const saved = JSON.parse(read(SETTINGS_KEY) || "{}");
    for (const [name, allowed] of Object.entries(CHOICES)) {
      // (the language is the page's: the server wrote it; settings.js reconciles a choice)
      if (name !== "meter" && name !== "lang" && saved && allowed.includes(saved[name])) {
        out[name] = saved[name];
      }
    }
  } catch {
    // A damaged value: the defaults.
  }
  if (read(METER_KEY) === "hidden") out.meter = "hidden";
  return out;
}

export function saveSettings(settings) {
  const { meter, lang, ...rest } = settings;
  write(SETTINGS_KEY, JSON.stringify(rest));
  write(METER_KEY, meter);
}

/** G3: the language the player chose on this browser (a tag), or null. */
export function loadLanguage() {
  return read(LANG_KEY);
}

export function saveLanguage(lang) {
  write(LANG_KEY, lang);
}

/** Whether this browser was offered the tutorial already. */
export function loadTutorialSeen() {
  return read(TUTORIAL_KEY) === "seen";
}

export function saveTutorialSeen(seen) {
  if (seen) write(TUTORIAL_KEY, "seen");
}

/** U14: the box this tab wrote last ({id, version, category}), or null. */
export function loadWrote() {
  try {
    const w = JSON.parse(sessionStorage.getItem(WROTE_KEY) || "null");
    const fits =
      w !== null &&
      typeof w.id === "string" &&
      Number.isInteger(w.version) &&
      typeof w.category === "string";
    return fits ? { id: w.id, version: w.version, category: w.category } : null;
  } catch {
    return null;
  }
}

export function saveWrote(wrote) {
  try {
    if (wrote === null) sessionStorage.removeItem(WROTE_KEY);
    else sessionStorage.setItem(WROTE_KEY, JSON.stringify(wrote));
  } catch {
    // Storage forbidden: 撤销 still shows for this visit.
  }
}

/** Store the holds of the board on the view shown (or drop them once its game has moved
 * past them). Only there: elsewhere the board may not be showing that game's holds. */
export function saveHold(state) {
  const b = state.board;
  if (!b || state.view !== b.owner) return;
  const g = b.game;
  if (holdable(g, b.mine)) {
    write(HOLD_KEY, JSON.stringify({ id: g.id, version: g.version, hold: b.hold }));
    return;
  }
  try {
    const stored = read(HOLD_KEY);
    if (stored !== null && JSON.parse(stored).id === g.id) write(HOLD_KEY, null);
  } catch {
    // An unreadable entry: left for storedHold to drop.
  }
}

/** The holds stored for exactly this game and version, or null (a stale entry is removed). */
export function storedHold(game) {
  try {
    const stored = read(HOLD_KEY);
    if (stored === null) return null;
    const entry = JSON.parse(stored);
    const person = game.status === "in_progress" && game.seats[game.turn].kind === "human";
    const fits =
      person &&
      game.dice !== null &&
      game.rolls_left > 0 &&
      entry.id === game.id &&
      entry.version === game.version &&
      Array.isArray(entry.hold) &&
      entry.hold.length === 5 &&
      entry.hold.every((h) => typeof h === "boolean");
    if (fits) return entry.hold.slice();
  } catch {
    // Unreadable entry: nothing to restore.
  }
  write(HOLD_KEY, null);
  return null;
}
