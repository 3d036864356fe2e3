// U21: every control a person taps, measured where it is drawn. Returns {what, width,
// height} for each visible control smaller than `min` px either way: buttons, links,
// fields, selects, a disclosure's summary, anything focusable. A radio or a checkbox is
// measured by its label (the label is what is tapped). Nothing is exempt: a link inside a
// sentence is a target too on a phone.
(min) => {
  const shown = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === "none" || s.visibility === "hidden") return false;
      if (s.clipPath.startsWith("inset(50%") || s.clip === "rect(0px, 0px, 0px, 0px)") return false;
    }
    return el.getClientRects().length > 0;
  };
  const name = (el) => {
    const id = el.closest("[data-testid]");
    const tag = el.tagName.toLowerCase();
    const text = (el.getAttribute("aria-label") || el.textContent || el.value || "").trim().slice(0, 16);
    return `${tag} 「${text}」${id ? ` in [data-testid=${id.dataset.testid}]` : ""}`;
  };
  const small = [];
  const selector = "button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex='-1'])";
  for (const el of document.querySelectorAll(selector)) {
    if (!shown(el) || el.closest("dialog:not([open]), [inert]")) continue;
    if (el.disabled && el.closest("[hidden]")) continue;
    const target = (el.type === "radio" || el.type === "checkbox") && el.closest("label") ? el.closest("label") : el;
    const r = target.getBoundingClientRect();
    // Off the page until focused (the skip link) or scrolled out of a strip: not drawn.
    if (r.right <= 0 || r.bottom + scrollY <= 0 || r.left >= document.documentElement.scrollWidth) continue;
    // Its layout box, not a frame of an animation (a die tumbling, a held die lifted).
    const inline = getComputedStyle(target).display === "inline";
    const width = inline ? r.width : target.offsetWidth;
    const height = inline ? r.height : target.offsetHeight;
    if (width + 0.5 < min || height + 0.5 < min) {
      small.push({ what: name(el), width: Math.round(width), height: Math.round(height) });
    }
  }
  return small;
}
