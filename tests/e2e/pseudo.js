// G1/G4: what a person reads in the pseudo-language that is not pseudo-text. Every visible
// text node, every visible field's placeholder, a visible select's options, and the
// aria-label, title and alt of what is drawn: each must be pseudo-text (the accented
// letters of `alphabet`, the filler words that lengthen it), a number, a symbol or a name a
// person typed (`names`). Returns {text, runs, where} for each that holds other letters
// (plain Latin, Chinese, CJK punctuation): `runs` are those letters' runs, which the test
// checks against the modules still to migrate.
({ alphabet, names }) => {
  const pseudo = new Set(alphabet);
  const shown = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === "none" || s.visibility === "hidden") return false;
    }
    if (el.closest("dialog:not([open]), details:not([open]) > :not(summary)")) return false;
    return el.getClientRects().length > 0;
  };
  const name = (el) => {
    const id = el.closest("[data-testid]");
    const tag = el.tagName.toLowerCase();
    const cls = typeof el.className === "string" && el.className ? `.${el.className.split(" ")[0]}` : "";
    return `${tag}${cls}${id ? ` in [data-testid=${id.dataset.testid}]` : ""}`;
  };
  // pseudo() lengthens a text with plain English number words before its closing bracket
  // (「[Ŕółł one two]」); a text node may end before the bracket (the rest is in an element).
  const filler = /(?:(?:^|\s)(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty))+(?=\s*(?:\]|$))/g;
  const offending = (ch) => (/\p{L}/u.test(ch) && !pseudo.has(ch)) || /[\u3000-\u303f\uff01-\uff60\u2e80-\u2fff]/u.test(ch);
  const runs = (text) => {
    let rest = text;
    for (const n of names) rest = rest.split(n).join(" ");
    rest = rest.replace(filler, " ");
    const found = [];
    let run = "";
    for (const ch of rest) {
      if (offending(ch)) run += ch;
      else if (run) {
        found.push(run);
        run = "";
      }
    }
    if (run) found.push(run);
    return found;
  };
  const bad = [];
  const seen = new Set();
  const check = (text, el, what) => {
    const key = `${what}\u0000${text}`;
    if (!text || !text.trim() || seen.has(key)) return;
    seen.add(key);
    const r = runs(text);
    if (r.length) bad.push({ text: text.trim().slice(0, 60), runs: r, where: `${what} of ${name(el)}` });
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest("script, style, template, noscript, option") || !shown(el)) continue;
    check(node.textContent, el, "text");
  }
  for (const el of document.body.querySelectorAll("[placeholder], [aria-label], [title], [alt], select")) {
    if (!shown(el)) continue;
    for (const attr of ["placeholder", "aria-label", "title", "alt"]) {
      if (el.hasAttribute(attr)) check(el.getAttribute(attr), el, attr);
    }
    if (el.tagName === "SELECT") for (const o of el.options) check(o.textContent, el, "option");
  }
  return bad;
}
