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
