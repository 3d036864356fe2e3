// Helpers shared by the lazy views (review.js, stats.js, and those to come): they import
// from here, never from each other, so the modules form no cycle.

import { t } from "../i18n.js";
import { GLOSSARY, termQuestion, verdict } from "./glossary.js";

/** A 「?」 beside a term (L11): a disclosure whose summary a keyboard reaches and a screen
 * reader names (「准确率是什么意思？」); opened, it shows the glossary's words for `id`
 * (glossary.js) in a small box under it (css/words.css). */
export function term(id) {
  const g = GLOSSARY[id];
  if (!g) throw new Error(`no glossary entry ${id}`);
  const box = el("details", "term-help", null, { "data-term": id });
  const q = termQuestion(id);
  const pop = el("span", "term-pop", t("core.board.term_words", { term: g.term, text: g.text }), { role: "note" });
  box.append(el("summary", "term-q", "?", { "aria-label": q, title: q, "data-testid": `term-${id}` }), pop);
  pop.addEventListener("click", () => (box.open = false)); // (a tap on the words closes them)
  return box;
}
import { el } from "../dom.js";

// An HTML element with a class and text (textContent: never markup), the page's; a seat's
// name as every view says it (U13), the board's.
export { el } from "../dom.js";
export { seatName } from "../board/draw.js";

/** A figure to `digits` decimals, or a dash when there is none. */
export const fmt = (v, digits = 1) => (v === null || v === undefined ? "—" : Number(v).toFixed(digits));

/** The row of the 设置 dialog for the setting `name` (settings.js CHOICES), added once by
 * the lazy module that owns it (before the dialog's closing note): a select of `options`
 * ([value, key]) that dispatches the `setting` action; `label`, `note` and the options'
 * names are catalog keys (`data-i18n`: i18n.js's translate() says them again after a change
 * of language). Returns the select (the module keeps it in step with the state). */
export function settingRow(ctx, name, label, note, options) {
  const id = `${name}-setting`;
  const found = document.getElementById(id);
  if (found) return found;
  const row = el("label", "field");
  const title = el("span", "");
  title.append(el("span", "", t(label), { "data-i18n": label }), el("span", "field-note", t(note), { "data-i18n": note }));
  const select = el("select", "", null, { id, "data-testid": id });
  for (const [value, key] of options) select.append(el("option", "", t(key), { value, "data-i18n": key }));
  select.value = ctx.state().settings[name];
  select.addEventListener("change", () => ctx.dispatch({ type: "setting", name, value: select.value }));
  row.append(title, select);
  const dialog = document.getElementById("settings-dialog");
  dialog.insertBefore(row, dialog.querySelector(".fine"));
  return select;
}

/** An element's text followed by a term's 「?」: `labelled("准确率", "accuracy")`. */
export function labelled(text, id, tag = "span", className = "") {
  const e = el(tag, className, text);
  e.append(term(id));
  return e;
}

/** The verdict beside 准确率 (L13): stars and a word, the points lost in words; the same
 * element in 复盘, 统计, the daily result and the boards (`compact`: stars and word only,
 * the sentence as its title). */
export function verdictEl(loss, { perGame = false, compact = false } = {}) {
  const v = verdict(loss, perGame);
  const box = el("span", `verdict verdict-${v.stars}`, null, { "data-testid": "verdict", "data-stars": v.stars });
  // The stars are drawn by css/words.css (generated content from data-stars): a text of
  // stars alone is no text to a contrast checker; a screen reader hears the label.
  const stars = el("span", "verdict-stars", null, { role: "img", "aria-label": v.label, "data-stars": v.stars });
  box.append(stars, " ", el("span", "verdict-word", compact ? v.word : v.text));
  if (compact) box.setAttribute("title", v.text);
  return box;
}

/** A lazy view's own reducers (its page.ui, changed by named actions, pure): each
 * `fn(ui, action)` returns the next ui; an action for a view not open changes nothing. */
export function pageSlice(views, fns) {
  const open = new Set(views);
  return Object.fromEntries(
    Object.entries(fns).map(([type, fn]) => [
      type,
      (state, action) => {
        const p = state.page;
        if (!p || !open.has(p.view)) return state;
        const ui = fn(p.ui, action);
        return ui === p.ui ? state : { ...state, page: { ...p, ui } };
      },
    ]),
  );
}

/** A request's life in a form view: asked (busy; `drafts`: what was typed, kept), answered,
 * refused (the server's words and code). */
export const requestReducers = (prefix) => ({
  [`${prefix}Busy`]: (ui, { drafts = null, note = undefined }) => ({
    ...ui,
    busy: true,
    error: null,
    ...(drafts ? { drafts: { ...ui.drafts, ...drafts } } : {}),
    ...(note !== undefined ? { note } : {}),
  }),
  [`${prefix}Idle`]: (ui) => (ui.busy ? { ...ui, busy: false } : ui),
  [`${prefix}Failed`]: (ui, { error, code = null }) => ({ ...ui, busy: false, error, errorCode: code }),
});
