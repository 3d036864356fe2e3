// What a person sees: for every piece of text on the page, its colour against the colours
// really painted behind it (the elements stacked under the text's middle, composited), and the
// WCAG contrast ratio of the two. Text over a texture (a repeating gradient or an image) with no
// solid backing of its own is reported as such: its contrast changes from pixel to pixel.
// Returns {measured: how many texts were seen, failures: [{text, ratio, needed, texture, fg,
// where}] for every text below its threshold}.
() => {
  const parse = (value) => {
    let m = value.match(/^rgba?\(([^)]*)\)$/);
    if (m) {
      const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
      return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    }
    m = value.match(/^color\(srgb ([^)]*)\)$/);
    if (m) {
      const p = m[1].split(/[\s/]+/).filter(Boolean).map(Number);
      return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1];
    }
    return null;
  };
  const over = (top, below) => {
    const a = top[3] + below[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i) => (top[i] * top[3] + below[i] * below[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  const luminance = (c) => {
    const ch = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const colours = (image) => (image.match(/rgba?\([^)]*\)|color\(srgb[^)]*\)/g) || []).map(parse);
  const name = (el) => {
    const id = el.closest("[data-testid]");
    const tag = el.tagName.toLowerCase();
    return id ? `${tag} in [data-testid=${id.dataset.testid}]` : `${tag}.${el.className}`;
  };
  const hidden = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.visibility === "hidden" || s.display === "none" || Number(s.opacity) === 0) return true;
      if (s.clipPath.startsWith("inset(50%") || s.clip === "rect(0px, 0px, 0px, 0px)") return true;
    }
    return false;
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const failures = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  let measured = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || seen.has(el)) continue;
    if (el.closest(":disabled, [aria-disabled='true'], [inert]") || hidden(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rect = [...range.getClientRects()].find((r) => r.width > 1 && r.height > 1);
    if (!rect) continue;
    const x = rect.left + rect.width / 2;
    const y = rect.top + rect.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue; // off screen now
    seen.add(el);
    const style = getComputedStyle(el);
    const inSvg = el instanceof SVGElement;
    let fg = parse(inSvg ? style.fill : style.color);
    if (!fg) continue;
    fg = [fg[0], fg[1], fg[2], fg[3] * opacity(el)];
    const stack = document.elementsFromPoint(x, y);
    // The text's own element must be on top where its text is: if it is not there at all,
    // the text is scrolled out of its box (clipped); if something else is above it, it is
    // covered (a dialog's backdrop). Either way nobody sees it here. An element that takes
    // no pointer events is never in the stack: then its box's owner must be on top.
    let start = stack.findIndex((e) => e === el || el.contains(e));
    if (start === -1 && style.pointerEvents === "none" && stack[0] && stack[0].contains(el)) {
      start = 0;
    }
    if (start !== 0) continue;
    let texture = false;
    const painted = [];
    for (const e of stack) {
      const s = getComputedStyle(e);
      // A term's 「?」 paints its disc only: the rest of its 44 px target is transparent
      // padding laid over the words around it (css/words.css), never behind them.
      if (e !== el && e.matches("summary.term-q")) {
        const r = e.getBoundingClientRect();
        const radius = 0.84 * parseFloat(s.fontSize);
        if (Math.hypot(x - (r.left + r.right) / 2, y - (r.top + r.bottom) / 2) > radius) continue;
      }
      const bg = parse(s.backgroundColor);
      const image = s.backgroundImage;
      if (/url\(|repeating-/.test(image)) {
        texture = true; // the wood: no one colour is behind the text
        break;
      }
      painted.push({ bg, image });
      if (bg && bg[3] >= 1) break;
      const stops = image === "none" ? [] : colours(image);
      if (stops.length && stops.every((c) => c && c[3] >= 1)) break; // an opaque gradient
    }
    // Composite from the bottom up; a gradient counts as each of its colours (the worst one).
    let bases = [[255, 255, 255, 1]];
    for (const { bg, image } of painted.reverse()) {
      if (bg && bg[3] > 0) bases = bases.map((b) => over(bg, b));
      if (image !== "none") {
        const stops = colours(image).filter(Boolean);
        if (stops.length) bases = stops.flatMap((c) => bases.map((b) => over(c, b)));
      }
    }
    measured += 1;
    const size = parseFloat(style.fontSize);
    const bold = Number(style.fontWeight) >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    const worst = Math.min(...bases.map((b) => ratio(over(fg, b), b)));
    if (texture || worst < needed) {
      failures.push({
        text: text.slice(0, 40),
        ratio: texture ? null : Math.round(worst * 100) / 100,
        needed,
        texture,
        fg: style.color,
        where: name(el),
      });
    }
  }
  return { measured, failures };
}
