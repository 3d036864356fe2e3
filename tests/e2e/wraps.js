// Where the page breaks a line inside a word or a control: every short text (at most
// `limit` visible characters, a label, a header, a badge, a button) must be drawn on one
// line (or, where it holds a space or a punctuation mark, each piece between them), and the
// options of one choice (a radio group, a fieldset) on one row, or each on a row of its
// own. With `words` (G4: the walks in every language), a word of letters or digits with no
// Chinese in it (「Settings」, 「1,234」) is one line in a text of any length too: English
// and numbers never break inside a word, where Chinese prose may break anywhere. Returns a
// list of {text, where, lines} for each broken one.
(limit, words = false) => {
  const shown = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === "none" || s.visibility === "hidden") return false;
      if (s.clipPath.startsWith("inset(50%") || s.clip === "rect(0px, 0px, 0px, 0px)") return false;
    }
    return true;
  };
  const name = (el) => {
    const id = el.closest("[data-testid]");
    const tag = el.tagName.toLowerCase();
    const cls = typeof el.className === "string" && el.className ? `.${el.className.split(" ")[0]}` : "";
    return id ? `${tag}${cls} in [data-testid=${id.dataset.testid}]` : `${tag}${cls}`;
  };
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const visible = node.textContent.replace(/\s/g, "");
    const el = node.parentElement;
    const short = visible.length <= limit;
    if (!visible || (!short && !words) || !el || !shown(el)) continue;
    if (el.closest("svg, script, style, [aria-hidden='true'], dialog:not([open])")) continue;
    // A short text may break where Chinese lets it (a space, a comma, a bracket); each
    // piece between those must be one line. A no-break space joins (「第 1 / 13 回合」).
    const text = node.textContent;
    // English may break after a hyphen or a slash too (「sign-up」).
    const split = words ? /[^ \t\n，、。：；！？,.;:!?「」（）()\-\/–—]+/g : /[^ \t\n，、。：；！？,.;:!?「」（）()]+/g;
    const pieces = [...text.matchAll(split)];
    for (const piece of pieces) {
      if (!short && /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/u.test(piece[0])) continue;
      const range = document.createRange();
      range.setStart(node, piece.index);
      range.setEnd(node, piece.index + piece[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5);
      // Lines are told apart by their middles: glyphs of one line share it.
      const lines = [];
      for (const r of rects) {
        const mid = r.top + r.height / 2;
        if (!lines.some((m) => Math.abs(m - mid) < r.height / 2)) lines.push(mid);
      }
      if (lines.length > 1) {
        broken.push({ text: text.trim(), where: name(el), lines: lines.length });
        break;
      }
    }
  }
  for (const group of document.querySelectorAll("[role=radiogroup], fieldset")) {
    if (!shown(group)) continue;
    const options = [...group.querySelectorAll("label")].filter(shown);
    // One row, or one option a row (a longer language's, G4): never some left on a row.
    const tops = new Set(options.map((o) => Math.round(o.getBoundingClientRect().top / 4)));
    if (tops.size > 1 && tops.size < options.length) {
      broken.push({ text: options.map((o) => o.textContent.trim()).join(" "), where: name(group), lines: tops.size });
    }
  }
  return broken;
}
