// U21: where the page overlaps itself (at a large 字号 on a narrow phone, say). Returns a
// list of sentences: the page wider than the screen; a control whose words spill out of it;
// a piece of text drawn over a control it is not part of; two controls over each other.
// Only what is drawn counts: hidden parts, closed dialogs and disclosures, what a scrolling
// strip keeps out of its own view, and, while a modal dialog is open, the page behind it.
// A term's 「?」 is measured by its drawn disc, not its 44 px target, which is mostly
// transparent padding laid over the words around it on purpose (css/words.css).
() => {
  // A tumbling die is measured where it lands: finite animations are run to their end.
  for (const a of document.getAnimations()) {
    try {
      a.finish();
    } catch {
      // an endless one (a pulse): measured as it is
    }
  }
  // A modal dialog: a <dialog> opened as one, or a drawn role=dialog aria-modal=true panel
  // over its own backdrop (the end panel).
  const modal =
    document.querySelector("dialog[open]:modal") ||
    [...document.querySelectorAll("[aria-modal='true']:not(dialog)")].find((el) => el.getClientRects().length > 0);
  const root = modal || document.body;
  const shown = (el) => {
    if (!root.contains(el)) return false;
    // Inside a closed disclosure only its own summary is drawn (not a term's 「?」 in the
    // table a closed 「…数据（表格）」 holds).
    for (let d = el.closest("details:not([open])"); d; d = d.parentElement && d.parentElement.closest("details:not([open])")) {
      const own = d.querySelector(":scope > summary");
      if (!own || !own.contains(el)) return false;
    }
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === "none" || s.visibility === "hidden" || Number(s.opacity) === 0) return false;
      if (s.clipPath.startsWith("inset(50%") || s.clip === "rect(0px, 0px, 0px, 0px)") return false;
    }
    return el.getClientRects().length > 0;
  };
  const name = (el) => {
    const id = el.closest("[data-testid]");
    const tag = el.tagName.toLowerCase();
    const cls = typeof el.className === "string" && el.className ? `.${el.className.split(" ")[0]}` : "";
    return `${tag}${cls}${id ? ` in [data-testid=${id.dataset.testid}]` : ""}`;
  };
  // A scrolling box shows only its own window: what lies outside it is not drawn.
  const clipOf = (el) => {
    let box = { left: -Infinity, top: -Infinity, right: Infinity, bottom: Infinity };
    for (let e = el.parentElement; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (/(auto|scroll|hidden|clip)/.test(s.overflowX + s.overflowY)) {
        const r = e.getBoundingClientRect();
        box = { left: Math.max(box.left, r.left), top: Math.max(box.top, r.top), right: Math.min(box.right, r.right), bottom: Math.min(box.bottom, r.bottom) };
      }
    }
    return box;
  };
  const cut = (r, c) => ({ left: Math.max(r.left, c.left), top: Math.max(r.top, c.top), right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom) });
  const area = (r) => Math.max(0, r.right - r.left) * Math.max(0, r.bottom - r.top);
  const meet = (a, b, slack = 2) =>
    Math.min(a.right, b.right) - Math.max(a.left, b.left) > slack && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > slack;
  const drawn = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    if (el.matches("summary.term-q")) {
      const radius = 0.84 * parseFloat(s.fontSize);
      const x = (r.left + r.right) / 2;
      const y = (r.top + r.bottom) / 2;
      return { left: x - radius, right: x + radius, top: y - radius, bottom: y + radius };
    }
    // A control with no paint of its own (「看数字」 in a message) is seen as its words; the
    // rest of its target is padding over the lines around it.
    const bare =
      s.backgroundImage === "none" &&
      s.backgroundColor === "rgba(0, 0, 0, 0)" &&
      s.boxShadow === "none" &&
      ["Top", "Right", "Bottom", "Left"].every((side) => parseFloat(s[`border${side}Width`]) === 0);
    if (!bare) return r;
    const range = document.createRange();
    range.selectNodeContents(el);
    const rects = [...range.getClientRects()].filter((q) => q.width > 0 && q.height > 0);
    if (!rects.length) return r;
    return {
      left: Math.min(...rects.map((q) => q.left)),
      top: Math.min(...rects.map((q) => q.top)),
      right: Math.max(...rects.map((q) => q.right)),
      bottom: Math.max(...rects.map((q) => q.bottom)),
    };
  };
  const found = [];
  const doc = document.documentElement;
  if (!modal && doc.scrollWidth > innerWidth + 1) found.push(`the page is ${doc.scrollWidth} px wide on a ${innerWidth} px screen`);

  const controls = [...document.querySelectorAll("button, a[href], input:not([type=hidden]), select, textarea, summary")]
    .filter((el) => shown(el) && !el.closest("dialog:not([open])"))
    .map((el) => ({ el, box: cut(drawn(el), clipOf(el)) }))
    .filter((c) => area(c.box) > 0);
  for (const { el } of controls) {
    const s = getComputedStyle(el);
    if (s.display !== "inline" && s.overflowX === "visible" && el.scrollWidth > el.clientWidth + 2 && el.clientWidth > 0) {
      found.push(`the words of ${name(el)} 「${el.textContent.trim().slice(0, 20)}」 spill out of it (${el.scrollWidth} > ${el.clientWidth} px)`);
    }
  }
  for (let i = 0; i < controls.length; i++) {
    for (let j = i + 1; j < controls.length; j++) {
      const a = controls[i];
      const b = controls[j];
      if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
      if (meet(a.box, b.box)) found.push(`${name(a.el)} and ${name(b.el)} lie over each other`);
    }
  }
  // U18: each 「?」 stands after its own word, never two in a row (「定级中。???」).
  for (const term of root.querySelectorAll("details.term-help")) {
    let before = term.previousSibling;
    while (before && before.nodeType === Node.TEXT_NODE && !before.textContent.trim()) before = before.previousSibling;
    if (before && before.nodeType === Node.ELEMENT_NODE && before.matches("details.term-help") && shown(term.querySelector("summary") || term)) {
      found.push(`「?」 of ${term.dataset.term} right after 「?」 of ${before.dataset.term} (${name(term)})`);
    }
  }
  // Text over a control it is not part of: each line of each text, against each control.
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || !shown(el) || el.closest("dialog:not([open]), script, style, svg")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const clip = clipOf(el);
    const lines = [...range.getClientRects()].map((r) => cut(r, clip)).filter((r) => area(r) > 1);
    for (const c of controls) {
      if (c.el.contains(el) || el.contains(c.el)) continue;
      // A label's own control, a term's 「?」 beside its word: one target with its words.
      if (el.closest("label") && el.closest("label").contains(c.el)) continue;
      if (lines.some((r) => meet(r, c.box, 3))) {
        found.push(`「${node.textContent.trim().slice(0, 20)}」 (${name(el)}) is drawn over ${name(c.el)}`);
        break;
      }
    }
  }
  return found;
}
