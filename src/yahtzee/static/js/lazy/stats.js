// 统计 (/stats): this browser's games beside the expert (GET /api/stats, state.page.data).
// A lazy view (views.js).

import { barChart, lineChart } from "./chart.js";
import { el, labelled, term, verdictEl } from "./dom.js";
import { SETTLING, verdict } from "./glossary.js";
import { request } from "../api.js";
import { formatNumber, language, load as loadWords, t, tn } from "../i18n.js";
import { API, href } from "../paths.js";
import { CATEGORY_NAMES, DIFFICULTY_NAMES, KIND_NAMES, MODE_NAMES, RESULT_NAMES } from "../state.js";

// Its words are chunk `stats` (G1), said when drawn (the language can change).
const soloName = () => MODE_NAMES.solo;
const vsName = () => MODE_NAMES.vs_computer;

const pct = (v) => (v === null || v === undefined ? "—" : formatNumber(v, { style: "percent", maximumFractionDigits: 0 }));
/** A figure to one decimal as the page's language writes it (a dash when there is none). */
const num = (v, digits = 1) =>
  v === null || v === undefined ? "—" : formatNumber(v, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });

/** G4: a table wider than its panel (a longer language's words in six columns on a phone)
 * becomes a list: one block a row, each figure after its column's head (`data-label`, shown
 * by css/review.css's `.rv-table.stacked`). A table that fits stays a table. Looked at
 * again when it changes width (its panel's), as a table each time (the class off, measured, set
 * in one frame: nothing is drawn between). */
function stackWhenWide(table) {
  const heads = [...table.rows[0].cells].map((c) => c.textContent.replace(/\s*\?$/, "").trim());
  for (const row of [...table.rows].slice(1)) {
    [...row.cells].forEach((c, i) => i && heads[i] && c.setAttribute("data-label", heads[i]));
  }
  // Stacked, the table's parts are display: block, and Chromium then drops their table
  // semantics: the roles said outright keep a screen reader's table (heads and cells) either way.
  table.setAttribute("role", "table");
  for (const group of [table.tHead, ...table.tBodies]) group && group.setAttribute("role", "rowgroup");
  for (const row of table.rows) {
    row.setAttribute("role", "row");
    for (const c of row.cells) c.setAttribute("role", c.tagName === "TH" ? (c.scope === "row" ? "rowheader" : "columnheader") : "cell");
  }
  let queued = false;
  const check = () => {
    queued = false;
    const room = table.parentElement;
    if (!room || !table.isConnected) return;
    table.classList.remove("stacked");
    table.classList.toggle("stacked", table.offsetWidth > room.clientWidth + 1);
  };
  new ResizeObserver(() => {
    if (!queued) requestAnimationFrame(check);
    queued = true;
  }).observe(table); // (its width follows its panel's, as a table or a list)
  return table;
}

function section(title, id) {
  const s = el("section", "st-section panel", null, { "aria-labelledby": id });
  s.append(el("h2", "", title, { id }));
  return s;
}

function dataTable(caption, head, rows, testid) {
  const details = el("details", "rv-data");
  details.append(el("summary", "", caption));
  const table = el("table", "rv-table", null, testid ? { "data-testid": testid } : {});
  const tr = el("tr");
  for (const h of head) {
    // A header is its text, or [text, glossary id] for a term with its 「?」 (L11).
    const th = Array.isArray(h) ? labelled(h[0], h[1], "th") : el("th", "", h);
    th.setAttribute("scope", "col");
    tr.append(th);
  }
  table.append(tr);
  for (const row of rows) {
    const r = el("tr");
    row.forEach((cell, i) => r.append(el(i ? "td" : "th", "", cell, i ? {} : { scope: "row" })));
    table.append(r);
  }
  details.append(stackWhenWide(table));
  return details;
}

function soloSection(solo) {
  const s = section(soloName(), "st-solo-title");
  const dl = el("dl", "rv-figures");
  const add = (label, value, testid) => {
    const div = el("div", "rv-figure");
    div.append(el("dt", "", label), el("dd", "", value, { "data-testid": testid }));
    dl.append(div);
  };
  add(t("stats.games"), String(solo.games), "stats-solo-games");
  add(t("stats.mean"), num(solo.mean), "stats-solo-mean");
  add(t("stats.best"), solo.best === null ? "—" : String(solo.best), "stats-solo-best");
  const beside = (value, expert) => t("stats.beside_expert", { value, expert });
  add(t("stats.upper_bonus_rate"), beside(pct(solo.upper_bonus_rate), pct(solo.expert.upper_bonus_rate)), "stats-bonus-rate");
  add(t("stats.yahtzee_rate"), beside(pct(solo.yahtzee_rate), pct(solo.expert.yahtzee_rate)), "stats-yahtzee-rate");
  s.append(dl);
  if (!solo.games) {
    s.append(
      el(
        "p",
        "st-empty",
        t("stats.solo.empty", { kind: soloName() }),
        { "data-testid": "stats-empty-solo" },
      ),
    );
  }
  // Histogram: the player's share of games per bin (bars) over the expert's (line). One
  // game is no distribution (a single 100% bar): then only the expert's line is drawn, and
  // a sentence says where that game fell.
  const one = solo.games === 1;
  const bins = solo.histogram.map((b) => ({
    label: String(b.from),
    value: solo.games && !one ? b.games / solo.games : 0,
    ref: b.expert,
  }));
  if (one) {
    const bin = solo.histogram.find((b) => b.games > 0);
    const range = bin ? (bin.to === null ? t("stats.one.range_up", { from: bin.from }) : t("stats.one.range", { from: bin.from, to: bin.to })) : "";
    const share = bin ? t("stats.one.expert_share", { share: pct(bin.expert) }) : "";
    const where = range ? t("stats.one.where", { range }) : "";
    s.append(
      el("p", "st-empty", t("stats.one.text", { kind: soloName(), score: solo.best, where, share }), {
        "data-testid": "stats-one-game",
      }),
    );
  }
  s.append(el("h3", "", t("stats.histogram.heading")));
  const chart = barChart({
    bins,
    title: t("stats.histogram.title", { kind: soloName() }),
    desc: t("stats.histogram.desc", {
      games: formatNumber(solo.expert.games),
      expert: num(solo.expert.mean),
      yours: solo.games ? t("stats.histogram.yours", { mean: num(solo.mean) }) : "",
    }),
    yFormat: (v) => pct(v),
    className: "st-hist",
  });
  chart.dataset.testid = "stats-histogram";
  s.append(chart);
  s.append(el("p", "fine st-legend", t("stats.histogram.legend")));
  s.append(
    dataTable(
      t("stats.histogram.data"),
      [t("stats.histogram.bin"), t("stats.histogram.your_games"), t("stats.histogram.expert_share")],
      solo.histogram.map((b) => [
        b.to === null ? t("stats.histogram.bin_up", { from: b.from }) : `${b.from}–${b.to}`,
        String(b.games),
        formatNumber(b.expert, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }),
      ]),
    ),
  );
  // Accuracy over time, and beside it the verdict that cannot mislead (L13): the stars of
  // the last game and of the mean over the last ten, from the points lost.
  s.append(labelled(t("stats.accuracy.heading"), "accuracy", "h3"));
  const losses = solo.skill_loss || [];
  if (losses.length) {
    const last = el("p", "st-verdict", t("stats.accuracy.last"));
    last.append(verdictEl(losses[losses.length - 1]), term("verdict"));
    s.append(last);
    const recent = losses.slice(-10);
    const mean = recent.reduce((a, b) => a + b, 0) / recent.length;
    const avg = el("p", "st-verdict", tn("stats.accuracy.recent", recent.length, { n: recent.length }));
    avg.append(verdictEl(mean, { perGame: true }));
    s.append(avg);
  }
  if (solo.accuracy.length) {
    const points = solo.accuracy.map((a, i) => ({ x: i + 1, y: a }));
    const acc = lineChart({
      points,
      yMin: Math.max(0, Math.floor(Math.min(...solo.accuracy) / 10) * 10 - 10),
      yMax: 100,
      title: t("stats.accuracy.title", { kind: soloName() }),
      desc: tn("stats.accuracy.desc", solo.accuracy.length, {
        n: solo.accuracy.length,
        first: num(solo.accuracy[0]),
        last: num(solo.accuracy[solo.accuracy.length - 1]),
      }),
      xLabel: t("stats.accuracy.game_number"),
      xTickEvery: Math.max(1, Math.ceil(solo.accuracy.length / 10)),
      yFormat: (v) => `${v}%`,
      className: "st-acc",
    });
    acc.dataset.testid = "stats-accuracy";
    s.append(acc);
    const rows = solo.accuracy.map((a, i) => {
      const loss = losses[i];
      return [String(i + 1), `${num(a)}%`, num(loss), loss === undefined ? "—" : verdict(loss).short];
    });
    const head = [t("stats.accuracy.game_number"), [t("stats.accuracy"), "accuracy"], [t("stats.skill_loss"), "skill_loss"], [t("stats.verdict"), "verdict"]];
    s.append(dataTable(t("stats.accuracy.data"), head, rows));
  } else {
    s.append(el("p", "st-empty", t("stats.accuracy.empty", { kind: soloName() })));
  }
  return s;
}

/** K2: a kind whose games count apart from 单人挑战 (每日挑战: the day's dice, one attempt a
 * day; 同骰竞速: a race's dice, shared), under its name; the server lists them (`apart`). */
function apartSection(kind, figures) {
  const s = section(KIND_NAMES[kind] || kind, `st-${kind}-title`);
  const dl = el("dl", "rv-figures");
  const add = (label, value, testid) => {
    const div = el("div", "rv-figure");
    div.append(el("dt", "", label), el("dd", "", value, { "data-testid": testid }));
    dl.append(div);
  };
  add(t("stats.games"), String(figures.games), `stats-${kind}-games`);
  add(t("stats.mean"), num(figures.mean), `stats-${kind}-mean`);
  add(t("stats.best"), figures.best === null ? "—" : String(figures.best), `stats-${kind}-best`);
  s.append(dl);
  return s;
}

function vsSection(vs) {
  const s = section(vsName(), "st-vs-title");
  const total = Object.values(vs).reduce((n, v) => n + v.games, 0);
  if (!total) {
    s.append(el("p", "st-empty", t("stats.vs.empty", { kind: vsName() }), { "data-testid": "stats-empty-vs" }));
  }
  const table = el("table", "rv-table", null, { "data-testid": "stats-vs" });
  const head = el("tr");
  const heads = [t("stats.vs.level"), t("stats.games"), RESULT_NAMES.win, RESULT_NAMES.loss, RESULT_NAMES.draw, t("stats.mean_score")];
  for (const h of heads) head.append(el("th", "", h, { scope: "col" }));
  table.append(head);
  for (const [level, v] of Object.entries(vs)) {
    const tr = el("tr");
    tr.append(el("th", "", DIFFICULTY_NAMES[level] || level, { scope: "row" }));
    for (const cell of [v.games, v.wins, v.losses, v.draws, num(v.mean)]) tr.append(el("td", "", String(cell)));
    table.append(tr);
  }
  s.append(stackWhenWide(table));
  return s;
}

/** T6: table games counted apart, per person name as typed (shown as text). */
function tableSection(table_) {
  const s = section(MODE_NAMES.table, "st-table-title");
  if (!table_ || !table_.games) {
    s.append(el("p", "st-empty", t("stats.table.empty", { kind: MODE_NAMES.table }), { "data-testid": "stats-empty-table" }));
    return s;
  }
  s.append(el("p", "fine", tn("stats.table.about", table_.games, { n: table_.games })));
  const table = el("table", "rv-table", null, { "data-testid": "stats-table" });
  const head = el("tr");
  const heads = [t("stats.name"), t("stats.games"), t("stats.table.first"), t("stats.table.places"), t("stats.mean_score")];
  for (const h of heads) head.append(el("th", "", h, { scope: "col" }));
  table.append(head);
  for (const p of table_.people) {
    const tr = el("tr");
    tr.append(el("th", "", p.name, { scope: "row" }));
    const places = Object.entries(p.places)
      .map(([place, n]) => t("stats.table.place_times", { place, n }))
      .join(t("stats.list_separator"));
    for (const cell of [p.games, p.wins, places, num(p.mean)]) tr.append(el("td", "", String(cell)));
    table.append(tr);
  }
  s.append(stackWhenWide(table));
  return s;
}

function boxesSection(boxes) {
  const s = section(t("stats.boxes.title"), "st-boxes-title");
  s.append(el("p", "fine", t("stats.boxes.about")));
  const table = el("table", "rv-table st-boxes", null, { "data-testid": "stats-boxes" });
  const head = el("tr");
  const heads = [t("stats.boxes.box"), t("stats.boxes.you"), t("stats.boxes.expert"), t("stats.boxes.difference")];
  for (const h of heads) head.append(el("th", "", h, { scope: "col" }));
  table.append(head);
  for (const [cat, b] of Object.entries(boxes)) {
    const tr = el("tr");
    tr.append(el("th", "", CATEGORY_NAMES[cat], { scope: "row" }));
    const diff = b.mean === null ? null : b.mean - b.expert_mean;
    tr.append(
      el("td", "", num(b.mean)),
      el("td", "", num(b.expert_mean)),
      el("td", diff !== null && diff < -1 ? "st-behind" : "", diff === null ? "—" : `${diff >= 0 ? "+" : "−"}${num(Math.abs(diff))}`),
    );
    table.append(tr);
  }
  s.append(stackWhenWide(table));
  return s;
}

function practiceSection(p, mistakes) {
  // 练习 (L6-L8): the puzzle rating over time, best answers per theme, the player's own
  // mistakes answered right since (GET /api/puzzles/progress). U18: how many mistakes is
  // the games' own count (GET /api/stats `mistakes`, each game's 复盘 失误 + 大错), the same
  // before and after 练习 has turned them into puzzles.
  const s = section(t("stats.practice.title"), "st-practice-title");
  s.setAttribute("data-testid", "stats-practice");
  const dl = el("dl", "rv-figures");
  const add = (label, value, testid, id = null) => {
    const div = el("div", "rv-figure");
    div.append(id ? labelled(label, id, "dt") : el("dt", "", label), el("dd", "", value, { "data-testid": testid }));
    dl.append(div);
  };
  // L14: a rating still settling says so instead of a number that jumps.
  add(t("stats.practice.rating"), p.rating_settling ? SETTLING : String(p.rating), "stats-practice-rating", "practice_rating");
  if (p.rating_settling) dl.lastChild.querySelector("dd").append(term("settling"));
  add(t("stats.practice.answers"), String(p.answers), "stats-practice-answers");
  add(t("stats.practice.mine"), tn("stats.practice.puzzles", mistakes, { n: mistakes }), "stats-practice-mine", "marks");
  add(t("stats.practice.fixed"), tn("stats.practice.puzzles", p.mine.answered_right, { n: p.mine.answered_right }), "stats-practice-fixed");
  s.append(dl);
  s.append(el("p", "fine", t("stats.practice.about")));
  if (!p.answers) {
    s.append(el("p", "st-empty", t("stats.practice.empty"), { "data-testid": "stats-empty-practice" }));
    return s;
  }
  const points = [{ x: 0, y: 1500 }, ...p.rating_history.map((h, i) => ({ x: i + 1, y: h.rating }))];
  const ys = points.map((q) => q.y);
  s.append(
    lineChart({
      points,
      yMin: Math.floor((Math.min(...ys) - 50) / 100) * 100,
      yMax: Math.ceil((Math.max(...ys) + 50) / 100) * 100,
      title: t("stats.practice.chart_title"),
      desc: tn("stats.practice.chart_desc", p.answers, { n: p.answers, rating: p.rating }),
      xLabel: t("stats.practice.puzzle_number"),
      xTickEvery: Math.max(1, Math.ceil(points.length / 10)),
      className: "st-practice-chart",
    }),
  );
  const rows = p.themes.map((th) => [th.name, String(th.answers), th.answers ? pct(th.best / th.answers) : "—"]);
  const heads = [t("stats.practice.theme"), t("stats.practice.done"), t("stats.practice.best")];
  s.append(dataTable(t("stats.practice.themes"), heads, rows, "stats-practice-themes"));
  return s;
}

/** 「我的设备」 (I1): the same player on another device, a way back, the player's data. */
function devicesLink() {
  // On the section's paper like the rest of 统计 (over the wood a small grey line falls
  // below AA contrast).
  const s = section(t("stats.devices.link"), "st-devices");
  const p = el("p", "fine");
  const attrs = { href: href("devices"), "data-page": "devices", "data-testid": "stats-devices-link" };
  p.append(el("a", "st-devices-link", t("stats.devices.link"), attrs), " " + t("stats.devices.note"));
  s.append(p);
  return s;
}

/** The view's data when its address is opened (views.js `own`): the games and 练习's progress. */
export const load = {
  stats: () =>
    Promise.all([request("GET", API.stats()), request("GET", API.puzzleProgress()), loadWords("stats")]).then(([stats, practice]) => ({
      ...stats,
      practice,
    })),
};

export const view = {
  /** Draw the stats into `body` (once per page and language: nothing else changes it). */
  render(body, page) {
    if (body.firstChild && body.dataset.drawn === language()) return;
    body.dataset.drawn = language();
    const data = page.data;
    body.replaceChildren(
      soloSection(data.solo),
      ...data.apart.map((kind) => apartSection(kind, data[kind])),
      vsSection(data.vs),
      tableSection(data.table),
      boxesSection(data.boxes),
      practiceSection(data.practice, data.mistakes),
      devicesLink(),
    );
  },
};
