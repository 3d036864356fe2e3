// A small SVG chart module (no library, no inline styles: colours come from CSS classes, so
// the strict CSP holds). Charts scale with their container through the viewBox and stay
// crisp on a phone. Every chart gets role="img" with a <title> and <desc>; pages add a
// text alternative (a table) next to it.

const NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes. */
export function svgEl(name, attrs = {}, text = null) {
  const el = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  }
  if (text !== null) el.textContent = text;
  return el;
}

let serial = 0;

/** Chart width in SVG units: close to the real width, so 11-unit labels stay ~11 px on a
 * phone (a 640-unit chart squeezed into 340 px would halve every label). */
const defaultWidth = () => (window.innerWidth < 600 ? 360 : 640);

function frame({ width, height, title, desc, className }) {
  serial += 1;
  const id = `chart-${serial}`;
  const svg = svgEl("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: `chart ${className || ""}`.trim(),
    role: "img",
    "aria-labelledby": `${id}-title ${id}-desc`,
    preserveAspectRatio: "xMidYMid meet",
  });
  svg.append(svgEl("title", { id: `${id}-title` }, title), svgEl("desc", { id: `${id}-desc` }, desc));
  return svg;
}

function niceTicks(min, max, count) {
  const span = max - min || 1;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) || raw;
  const ticks = [];
  for (let v = Math.ceil(min / step) * step; v <= max + 1e-9; v += step) ticks.push(Number(v.toFixed(6)));
  return ticks;
}

const PAD = { left: 44, right: 12, top: 12, bottom: 30 };

function axes(svg, { width, height, x, y, xTicks, yTicks, xLabel, yFormat }) {
  const g = svgEl("g", { class: "chart-axes", "aria-hidden": "true" });
  for (const t of yTicks) {
    const yy = y(t);
    g.append(
      svgEl("line", { x1: PAD.left, x2: width - PAD.right, y1: yy, y2: yy, class: "chart-grid" }),
      svgEl("text", { x: PAD.left - 6, y: yy + 4, class: "chart-tick", "text-anchor": "end" }, yFormat(t)),
    );
  }
  for (const [t, label] of xTicks) {
    g.append(svgEl("text", { x: x(t), y: height - PAD.bottom + 16, class: "chart-tick", "text-anchor": "middle" }, label));
  }
  if (xLabel) {
    g.append(svgEl("text", { x: width - PAD.right, y: height - 2, class: "chart-label", "text-anchor": "end" }, xLabel));
  }
  svg.append(g);
}

/**
 * A line over x = 0..n with optional markers.
 * points: [{x, y}], markers: [{x, y, className, label, onSelect}] (focusable circles).
 */
export function lineChart({ points, markers = [], yMin, yMax, title, desc, xLabel, yFormat = String, xTickEvery = 1, width = defaultWidth(), height = 240, className, band = null }) {
  const svg = frame({ width, height, title, desc, className });
  const xs = points.map((p) => p.x);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  // One point (one game so far) stands in the middle, on its own: a line needs two.
  const x = (v) =>
    x1 === x0
      ? (PAD.left + width - PAD.right) / 2
      : PAD.left + ((v - x0) / (x1 - x0)) * (width - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (v - yMin) / (yMax - yMin || 1)) * (height - PAD.top - PAD.bottom);
  const xTicks = [];
  for (let t = x0; t <= x1; t += xTickEvery) xTicks.push([t, String(t)]);
  axes(svg, { width, height, x, y, xTicks, yTicks: niceTicks(yMin, yMax, 4), xLabel, yFormat });
  if (band !== null) {
    svg.append(svgEl("line", { x1: PAD.left, x2: width - PAD.right, y1: y(band), y2: y(band), class: "chart-band", "aria-hidden": "true" }));
  }
  const d = points.map((p, i) => `${i ? "L" : "M"}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(" ");
  svg.append(svgEl("path", { d, class: "chart-line", "aria-hidden": "true" }));
  for (const p of points) {
    const r = points.length === 1 ? 5 : 2.5;
    svg.append(svgEl("circle", { cx: x(p.x), cy: y(p.y), r, class: "chart-point", "aria-hidden": "true" }));
  }
  for (const m of markers) {
    const c = svgEl("circle", { cx: x(m.x), cy: y(m.y), r: 5, class: `chart-marker ${m.className || ""}` });
    c.append(svgEl("title", {}, m.label));
    if (m.onSelect) {
      c.setAttribute("tabindex", "-1"); // the decision list is the keyboard path; the dots are for pointers
      c.addEventListener("click", () => m.onSelect());
    }
    svg.append(c);
  }
  return svg;
}

/**
 * Bars (one per bin) with an optional reference line over the same bins.
 * bins: [{label, value, ref}]; values and refs are shares (0..1).
 */
export function barChart({ bins, title, desc, width = defaultWidth(), height = 220, className, labelEvery = 5, yFormat = String }) {
  const svg = frame({ width, height, title, desc, className });
  const n = bins.length;
  const top = Math.max(0.01, ...bins.map((b) => Math.max(b.value, b.ref ?? 0)));
  const bw = (width - PAD.left - PAD.right) / n;
  const x = (i) => PAD.left + i * bw;
  const y = (v) => PAD.top + (1 - v / top) * (height - PAD.top - PAD.bottom);
  const xTicks = bins.map((b, i) => [i, b.label]).filter((_, i) => i % labelEvery === 0);
  axes(svg, { width, height, x: (i) => x(i) + bw / 2, y, xTicks, yTicks: niceTicks(0, top, 4), yFormat });
  bins.forEach((b, i) => {
    if (b.value > 0) {
      svg.append(svgEl("rect", { x: x(i) + 1, y: y(b.value), width: Math.max(1, bw - 2), height: y(0) - y(b.value), class: "chart-bar", "aria-hidden": "true" }));
    }
  });
  if (bins.some((b) => b.ref !== undefined)) {
    const d = bins.map((b, i) => `${i ? "L" : "M"}${(x(i) + bw / 2).toFixed(1)},${y(b.ref || 0).toFixed(1)}`).join(" ");
    svg.append(svgEl("path", { d, class: "chart-ref", "aria-hidden": "true" }));
  }
  return svg;
}
