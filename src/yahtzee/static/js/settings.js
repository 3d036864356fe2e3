// P5: the player's settings — the pace of the computer's replay, the theme, the computer
// level last chosen in the lobby, whether the live meter is shown and (G3) the language.
// They live in the store (`state.settings`, changed by the `setting` action); remember.js
// keeps them in this browser, and the server keeps the language for the player (every
// linked device). This module says which values exist and wires the 设置 dialog and the
// level picker to the store. The levels and the languages come from /api/config.

import { api } from "./api.js";
import { CONFIG } from "./config.js";
import { pageLanguage, t, use } from "./i18n.js";

export const CHOICES = {
  replay: ["slow", "normal", "fast", "skip"],
  theme: ["system", "light", "dark"],
  // U21: 字号 (app.css)
  text: ["standard", "large", "xlarge"],
  difficulty: CONFIG.difficulties.map((d) => d.id),
  meter: ["shown", "hidden"],
  // 多人同屏's handover screen (T7); its row in 设置 is added by lazy/table.js
  handover: ["on", "off"],
  // 登记前确认 (polish 8: a tap picks a box, a second tap writes it) and 声音 (polish 9);
  // their rows in 设置 are added by lazy/mistap.js and lazy/sound.js
  confirm: ["off", "on"],
  sound: ["on", "off"],
  // G3: the languages a player may choose (each named in itself in 设置)
  lang: CONFIG.languages.map((l) => l.id),
};

export const DEFAULT_SETTINGS = Object.freeze({
  replay: "normal",
  theme: "system",
  text: "standard",
  difficulty: CONFIG.suggested_difficulty,
  meter: "shown",
  handover: "on",
  confirm: "off",
  sound: "on",
  lang: pageLanguage(),
});

/** Milliseconds between two steps of the computer's replay (U8); 0 = skip the replay. */
export const REPLAY_STEP_MS = { slow: 1300, normal: 800, fast: 350, skip: 0 };

/** Wire the settings dialog and build the lobby's level picker (render.js shows the values);
 * `language`: the language this browser remembers the player chose (remember.js), and how
 * to remember one. */
export function installSettings(store, language = { remembered: null, keep: () => {} }) {
  const $ = (id) => document.getElementById(id);
  const set = (name, value) => store.dispatch({ type: "setting", name, value });
  const dialog = $("settings-dialog");
  let opener = null; // the button to give the focus back to (a DOM handle, not page state)

  // Any 设置 button (the header's, a board's top bar's: data-opens="settings") opens it.
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest('[data-opens="settings"]');
    if (!button) return;
    opener = button;
    store.flush(); // the dialog's fields show the current settings
    dialog.showModal();
    $("replay-speed").focus();
  });
  const close = () => dialog.open && dialog.close();

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
  $("text-size").addEventListener("change", (e) => set("text", e.target.value));
  $("meter-setting").addEventListener("change", (e) => set("meter", e.target.value));

  // G3: 语言, each language named in itself (and read in its own language by a screen
  // reader). A change loads its words and re-renders at once: no reload, nothing lost.
  const languages = $("language-setting");
  for (const { id, name } of CONFIG.languages) {
    const option = document.createElement("option");
    Object.assign(option, { value: id, textContent: name, lang: id });
    languages.append(option);
  }
  const choose = (lang) =>
    use(lang).then(
      () => {
        set("lang", lang);
        api.language(lang).catch(() => {}); // kept in this browser: sent again next visit
      },
      (err) => {
        console.warn(err); // (its words could not be loaded: the language stays)
        languages.value = store.state.settings.lang;
      },
    );
  languages.addEventListener("change", (e) => choose(e.target.value));
  // The server wrote the page in the player's stored choice (data-lang-chosen): this
  // browser remembers it too. Otherwise a choice this browser remembers and the server
  // does not have (it was made offline, or before) is applied and sent.
  const { remembered } = language;
  const page = pageLanguage();
  if (document.documentElement.hasAttribute("data-lang-chosen")) {
    if (remembered !== page) language.keep(page);
  } else if (remembered && remembered !== page && CHOICES.lang.includes(remembered)) {
    choose(remembered);
  }

  const picker = document.querySelector('[data-testid="difficulty"]');
  for (const level of CONFIG.difficulties) {
    const input = document.createElement("input");
    Object.assign(input, { type: "radio", name: "difficulty", value: level.id });
    // Their words in the page's language; i18n.js says them again after a change.
    const name = document.createElement("span");
    name.textContent = t(level.name_key);
    name.dataset.i18n = level.name_key;
    const label = document.createElement("label");
    label.title = t(level.summary_key);
    label.dataset.i18nAttr = `title=${level.summary_key}`;
    label.append(input, name);
    picker.append(label);
  }
  picker.addEventListener("change", (event) => set("difficulty", event.target.value));
  oneRowOrColumn(picker);
}

/** G4: the levels stay one row, or, where a language's longer names do not fit one (the
 * desktop's narrow start card), one level a row: never one left alone under the others.
 * Looked at again whenever the picker or a name changes size (a resize, a language); the
 * layout is changed in the next frame, outside the observer's own callback. */
function oneRowOrColumn(picker) {
  let queued = false;
  const check = () => {
    queued = false;
    picker.classList.remove("stacked");
    const tops = new Set([...picker.querySelectorAll("label")].map((label) => label.offsetTop));
    picker.classList.toggle("stacked", tops.size > 1);
  };
  const observer = new ResizeObserver(() => {
    if (!queued) requestAnimationFrame(check);
    queued = true;
  });
  observer.observe(picker);
  for (const name of picker.querySelectorAll("label > span")) observer.observe(name);
}
