// The page's three DOM helpers (one of each): an element, its text, an attribute — each
// written only when it changes, so focus and running animations survive a render.

/** An element with a class, text (textContent: never markup) and attributes. */
export function el(tag, className = "", text = null, attrs = {}) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Set `name` to `value` (null or false: removed; true: "true"), only when it changes. */
export function setAttr(node, name, value) {
  if (value === null || value === undefined || value === false) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
  } else {
    const v = value === true ? "true" : String(value);
    if (node.getAttribute(name) !== v) node.setAttribute(name, v);
  }
}
