// P5: the player's settings, remembered in this browser (localStorage; no account): the
// pace of the computer's replay, the theme, and the computer level last chosen in the lobby.
// The theme is applied as soon as this module loads, before the first render.

import { CONFIG } from "./config.js";

const KEY = "yahtzee.settings";

const CHOICES = {
  replay: ["slow", "normal", "fast", "skip"],
  theme: ["system", "light", "dark"],
  difficulty: CONFIG.difficulties.map((d) => d.id),
};

// New players meet 普通; 高手 is one click away in the lobby.
const DEFAULTS = { replay: "normal", theme: "system", difficulty: "intermediate" };

/** Milliseconds between two steps of the computer's replay (U8); 0 = skip the replay. */
const REPLAY_STEP_MS = { slow: 1300, normal: 800, fast: 350, skip: 0 };

function load() {
  const out = { ...DEFAULTS };
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "{}");
    for (const [name, allowed] of Object.entries(CHOICES)) {
      if (saved && allowed.includes(saved[name])) out[name] = saved[name];
    }
  } catch {
    // No storage (private mode) or a damaged value: the defaults.
  }
  return out;
}

const current = load();

function save() {
  try {
    localStorage.setItem(KEY, JSON.stringify(current));
  } catch {
    // Storage full or forbidden: the setting still holds for this visit.
  }
}

/** The value of setting `name` ("replay", "theme" or "difficulty"). */
export function getSetting(name) {
  return current[name];
}

/** Change a setting, remember it, and apply it at once. Unknown values are ignored. */
export function setSetting(name, value) {
  if (!CHOICES[name] || !CHOICES[name].includes(value)) return;
  current[name] = value;
  save();
  if (name === "theme") applyTheme();
}

export function replayStepMs() {
  return REPLAY_STEP_MS[current.replay];
}

/** "system" leaves the page to prefers-color-scheme (the CSS); otherwise force one theme. */
function applyTheme() {
  const root = document.documentElement;
  if (current.theme === "system") delete root.dataset.theme;
  else root.dataset.theme = current.theme;
}

applyTheme();

// ----------------------------------------------------------------------- the dialog

let opener = null;

function dialog() {
  return document.getElementById("settings-dialog");
}

function openSettings(event) {
  opener = event.currentTarget;
  document.getElementById("replay-speed").value = current.replay;
  document.getElementById("theme-toggle").value = current.theme;
  dialog().showModal();
  document.getElementById("replay-speed").focus();
}

function closeSettings() {
  const d = dialog();
  if (d.open) d.close();
}

/** Wire the settings dialog and the lobby's level picker. */
export function installSettings() {
  for (const id of ["settings-open", "settings-open-game"]) {
    document.querySelector(`[data-testid="${id}"]`).addEventListener("click", openSettings);
  }
  document.getElementById("settings-close").addEventListener("click", closeSettings);
  const d = dialog();
  d.addEventListener("close", () => {
    // Focus goes back to the button that opened the dialog (never to the page body).
    if (opener && opener.isConnected && opener.offsetParent !== null) opener.focus();
    opener = null;
  });
  d.addEventListener("click", (event) => {
    if (event.target === d) closeSettings(); // a click on the backdrop
  });
  document.getElementById("replay-speed").addEventListener("change", (event) => {
    setSetting("replay", event.target.value);
  });
  document.getElementById("theme-toggle").addEventListener("change", (event) => {
    setSetting("theme", event.target.value);
  });
  const picker = document.querySelector('[data-testid="difficulty"]');
  for (const level of CONFIG.difficulties) {
    const input = document.createElement("input");
    Object.assign(input, { type: "radio", name: "difficulty", value: level.id });
    const name = document.createElement("span");
    name.textContent = level.zh;
    const label = document.createElement("label");
    label.title = level.summary;
    label.append(input, name);
    picker.append(label);
  }
  const radio = picker.querySelector(`input[value="${current.difficulty}"]`);
  if (radio) radio.checked = true;
  picker.addEventListener("change", (event) => setSetting("difficulty", event.target.value));
}

/** The computer level picked in the lobby. */
export function chosenDifficulty() {
  const checked = document.querySelector('[data-testid="difficulty"] input:checked');
  return checked ? checked.value : current.difficulty;
}
