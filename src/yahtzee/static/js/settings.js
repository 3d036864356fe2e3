// P5: the player's settings — the pace of the computer's replay, the theme, the computer
// level last chosen in the lobby and whether the live meter is shown. They live in the
// store (`state.settings`, changed by the `setting` action); remember.js keeps them in this
// browser. This module says which values exist and wires the 设置 dialog and the level
// picker to the store. The level's names and the first one offered come from /api/config.

import { CONFIG } from "./config.js";

export const CHOICES = {
  replay: ["slow", "normal", "fast", "skip"],
  theme: ["system", "light", "dark"],
  difficulty: CONFIG.difficulties.map((d) => d.id),
  meter: ["shown", "hidden"],
  // 多人同屏's handover screen (T7); its row in 设置 is added by lazy/table.js
  handover: ["on", "off"],
  // 登记前确认 (polish 8: a tap picks a box, a second tap writes it) and 声音 (polish 9);
  // their rows in 设置 are added by lazy/mistap.js and lazy/sound.js
  confirm: ["off", "on"],
  sound: ["on", "off"],
};

export const DEFAULT_SETTINGS = Object.freeze({
  replay: "normal",
  theme: "system",
  difficulty: CONFIG.suggested_difficulty,
  meter: "shown",
  handover: "on",
  confirm: "off",
  sound: "on",
});

/** Milliseconds between two steps of the computer's replay (U8); 0 = skip the replay. */
export const REPLAY_STEP_MS = { slow: 1300, normal: 800, fast: 350, skip: 0 };

/** Wire the settings dialog and build the lobby's level picker (render.js shows the values). */
export function installSettings(store) {
  const $ = (id) => document.getElementById(id);
  const set = (name, value) => store.dispatch({ type: "setting", name, value });
  const dialog = $("settings-dialog");
  let opener = null; // the button to give the focus back to (a DOM handle, not page state)

  function open(event) {
    opener = event.currentTarget;
    store.flush(); // the dialog's fields show the current settings
    dialog.showModal();
    $("replay-speed").focus();
  }
  const close = () => dialog.open && dialog.close();

  for (const id of ["settings-open", "settings-open-game"]) {
    document.querySelector(`[data-testid="${id}"]`).addEventListener("click", open);
  }
  $("settings-close").addEventListener("click", close);
  dialog.addEventListener("close", () => {
    // Focus goes back to the button that opened the dialog (never to the page body).
    if (opener && opener.isConnected && opener.offsetParent !== null) opener.focus();
    opener = null;
  });
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) close(); // a click on the backdrop
  });
  $("replay-speed").addEventListener("change", (e) => set("replay", e.target.value));
  $("theme-toggle").addEventListener("change", (e) => set("theme", e.target.value));
  $("meter-setting").addEventListener("change", (e) => set("meter", e.target.value));
  $("live-meter-toggle").addEventListener("click", () =>
    set("meter", store.state.settings.meter === "shown" ? "hidden" : "shown"),
  );

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
  picker.addEventListener("change", (event) => set("difficulty", event.target.value));
}
