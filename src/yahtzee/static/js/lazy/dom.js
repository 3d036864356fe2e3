// Helpers shared by the lazy views (review.js, stats.js, and those to come): they import
// from here, never from each other, so the modules form no cycle.

/** An HTML element with a class and text (textContent: never markup). */
export function el(tag, className = "", text = null, attrs = {}) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** A figure to `digits` decimals, or a dash when there is none. */
export const fmt = (v, digits = 1) => (v === null || v === undefined ? "—" : Number(v).toFixed(digits));

/** The row of the 设置 dialog for the setting `name` (settings.js CHOICES), added once by
 * the lazy module that owns it (before the dialog's closing note): a select of `options`
 * ([value, text]) that dispatches the `setting` action. Returns the select (the module
 * keeps it in step with the state). */
export function settingRow(ctx, name, label, note, options) {
  const id = `${name}-setting`;
  const found = document.getElementById(id);
  if (found) return found;
  const row = el("label", "field");
  const title = el("span", "", label);
  title.append(el("span", "field-note", note));
  const select = el("select", "", null, { id, "data-testid": id });
  for (const [value, text] of options) select.append(el("option", "", text, { value }));
  select.value = ctx.state().settings[name];
  select.addEventListener("change", () => ctx.dispatch({ type: "setting", name, value: select.value }));
  row.append(title, select);
  const dialog = document.getElementById("settings-dialog");
  dialog.insertBefore(row, dialog.querySelector(".fine"));
  return select;
}
