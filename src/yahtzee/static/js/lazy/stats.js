// 统计 (/stats): this browser's games beside the expert (GET /api/stats, state.page.data).
// A lazy view (views.js).

import { barChart, lineChart } from "./chart.js";
import { el, fmt, labelled, term, verdictEl } from "./dom.js";
import { SETTLING, verdict } from "./glossary.js";
import { request } from "../api.js";
import { DEVICES } from "./devices_messages.js";
import { API, href } from "../paths.js";
import { CATEGORY_NAMES, DIFFICULTY_NAMES, KIND_NAMES, MODE_NAMES, RESULT_NAMES } from "../state.js";

const SOLO = MODE_NAMES.solo;
const VS = MODE_NAMES.vs_computer;

const pct = (v) => (v === null || v === undefined ? "—" : `${(v * 100).toFixed(0)}%`);

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
  details.append(table);
  return details;
}

function soloSection(solo) {
  const s = section(SOLO, "st-solo-title");
  const dl = el("dl", "rv-figures");
  const add = (label, value, testid) => {
    const div = el("div", "rv-figure");
    div.append(el("dt", "", label), el("dd", "", value, { "data-testid": testid }));
    dl.append(div);
  };
  add("局数", String(solo.games), "stats-solo-games");
  add("平均", solo.mean === null ? "—" : fmt(solo.mean), "stats-solo-mean");
  add("最高", solo.best === null ? "—" : String(solo.best), "stats-solo-best");
  add("上区奖励率", `${pct(solo.upper_bonus_rate)}（高手 ${pct(solo.expert.upper_bonus_rate)}）`, "stats-bonus-rate");
  add("快艇率", `${pct(solo.yahtzee_rate)}（高手 ${pct(solo.expert.yahtzee_rate)}）`, "stats-yahtzee-rate");
  s.append(dl);
  if (!solo.games) {
    s.append(
      el(
        "p",
        "st-empty",
        `还没有打完的${SOLO}。回大厅开一局「${SOLO}」，打完后这里会画出你的分数分布，和高手的分布放在一起。`,
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
    const range = bin ? (bin.to === null ? `${bin.from} 分以上` : `${bin.from}–${bin.to} 分`) : "";
    const share = bin ? `，高手的局有 ${(bin.expert * 100).toFixed(0)}% 也在这一段` : "";
    s.append(
      el("p", "st-empty", `你打完了 1 局${SOLO}，${solo.best} 分${range ? `，落在 ${range}` : ""}${share}。一局还看不出分布：多打几局，这里会画出你每个分数段的局数占比。`, {
        "data-testid": "stats-one-game",
      }),
    );
  }
  s.append(el("h3", "", "总分分布"));
  const chart = barChart({
    bins,
    title: `你的${SOLO}总分分布与高手的分布`,
    desc: `柱子是你每个分数段的局数占比，折线是高手（${solo.expert.games.toLocaleString("zh-CN")} 局模拟）的占比。高手平均 ${fmt(solo.expert.mean)} 分${solo.games ? `，你平均 ${fmt(solo.mean)} 分` : ""}。`,
    yFormat: (v) => `${Math.round(v * 100)}%`,
    className: "st-hist",
  });
  chart.dataset.testid = "stats-histogram";
  s.append(chart);
  s.append(el("p", "fine st-legend", "柱子：你　折线：高手"));
  s.append(
    dataTable(
      "分布数据（表格）",
      ["分数段", "你的局数", "高手占比"],
      solo.histogram.map((b) => [b.to === null ? `${b.from} 以上` : `${b.from}–${b.to}`, String(b.games), `${(b.expert * 100).toFixed(1)}%`]),
    ),
  );
  // Accuracy over time, and beside it the verdict that cannot mislead (L13): the stars of
  // the last game and of the mean over the last ten, from the points lost.
  s.append(labelled("准确率变化", "accuracy", "h3"));
  const losses = solo.skill_loss || [];
  if (losses.length) {
    const last = el("p", "st-verdict", "最近一局：");
    last.append(verdictEl(losses[losses.length - 1]), term("verdict"));
    s.append(last);
    const recent = losses.slice(-10);
    const mean = recent.reduce((a, b) => a + b, 0) / recent.length;
    const avg = el("p", "st-verdict", `最近 ${recent.length} 局：`);
    avg.append(verdictEl(mean, { perGame: true }));
    s.append(avg);
  }
  if (solo.accuracy.length) {
    const points = solo.accuracy.map((a, i) => ({ x: i + 1, y: a }));
    const acc = lineChart({
      points,
      yMin: Math.max(0, Math.floor(Math.min(...solo.accuracy) / 10) * 10 - 10),
      yMax: 100,
      title: `每局${SOLO}的准确率`,
      desc: `共 ${solo.accuracy.length} 局，第一局 ${fmt(solo.accuracy[0])}%，最近一局 ${fmt(solo.accuracy[solo.accuracy.length - 1])}%。`,
      xLabel: "第几局",
      xTickEvery: Math.max(1, Math.ceil(solo.accuracy.length / 10)),
      yFormat: (v) => `${v}%`,
      className: "st-acc",
    });
    acc.dataset.testid = "stats-accuracy";
    s.append(acc);
    const rows = solo.accuracy.map((a, i) => {
      const loss = losses[i];
      return [String(i + 1), `${fmt(a)}%`, fmt(loss), loss === undefined ? "—" : verdict(loss).short];
    });
    s.append(dataTable("准确率数据（表格）", ["第几局", ["准确率", "accuracy"], ["技术损失", "skill_loss"], ["评价", "verdict"]], rows));
  } else {
    s.append(el("p", "st-empty", `打完一局${SOLO}后，这里会显示每局的准确率；点大厅里对局旁的「复盘」可以看每一步。`));
  }
  return s;
}

/** K2: 每日挑战 counted apart from 单人挑战 (the day's dice, one attempt a day). */
function dailySection(daily) {
  const s = section(KIND_NAMES.daily, "st-daily-title");
  const dl = el("dl", "rv-figures");
  const add = (label, value, testid) => {
    const div = el("div", "rv-figure");
    div.append(el("dt", "", label), el("dd", "", value, { "data-testid": testid }));
    dl.append(div);
  };
  add("局数", String(daily.games), "stats-daily-games");
  add("平均", daily.mean === null ? "—" : fmt(daily.mean), "stats-daily-mean");
  add("最高", daily.best === null ? "—" : String(daily.best), "stats-daily-best");
  s.append(dl);
  return s;
}

function vsSection(vs) {
  const s = section(VS, "st-vs-title");
  const total = Object.values(vs).reduce((n, v) => n + v.games, 0);
  if (!total) {
    s.append(el("p", "st-empty", `还没有打完的${VS}。回大厅选一个难度开一局吧。`, { "data-testid": "stats-empty-vs" }));
  }
  const table = el("table", "rv-table", null, { "data-testid": "stats-vs" });
  const head = el("tr");
  for (const h of ["难度", "局数", RESULT_NAMES.win, RESULT_NAMES.loss, RESULT_NAMES.draw, "平均分"]) head.append(el("th", "", h, { scope: "col" }));
  table.append(head);
  for (const [level, v] of Object.entries(vs)) {
    const tr = el("tr");
    tr.append(el("th", "", DIFFICULTY_NAMES[level] || level, { scope: "row" }));
    for (const cell of [v.games, v.wins, v.losses, v.draws, v.mean === null ? "—" : fmt(v.mean)]) tr.append(el("td", "", String(cell)));
    table.append(tr);
  }
  s.append(table);
  return s;
}

/** T6: table games counted apart, per person name as typed (shown as text). */
function tableSection(t) {
  const s = section(MODE_NAMES.table, "st-table-title");
  if (!t || !t.games) {
    s.append(el("p", "st-empty", `还没有打完的${MODE_NAMES.table}。回大厅安排座位开一局吧。`, { "data-testid": "stats-empty-table" }));
    return s;
  }
  s.append(el("p", "fine", `打完 ${t.games} 局。每位玩家按名字分开算：局数、各名次的次数和平均分。`));
  const table = el("table", "rv-table", null, { "data-testid": "stats-table" });
  const head = el("tr");
  for (const h of ["名字", "局数", "第 1 名", "名次", "平均分"]) head.append(el("th", "", h, { scope: "col" }));
  table.append(head);
  for (const p of t.people) {
    const tr = el("tr");
    tr.append(el("th", "", p.name, { scope: "row" }));
    const places = Object.entries(p.places).map(([place, n]) => `第 ${place} 名 ×${n}`).join("，");
    for (const cell of [p.games, p.wins, places, p.mean === null ? "—" : fmt(p.mean)]) tr.append(el("td", "", String(cell)));
    table.append(tr);
  }
  s.append(table);
  return s;
}

function boxesSection(boxes) {
  const s = section("每一格的平均分", "st-boxes-title");
  s.append(el("p", "fine", "你在所有打完的对局里每格的平均得分，和高手比一比：差得最多的格子最值得琢磨。"));
  const table = el("table", "rv-table st-boxes", null, { "data-testid": "stats-boxes" });
  const head = el("tr");
  for (const h of ["格子", "你", "高手", "差"]) head.append(el("th", "", h, { scope: "col" }));
  table.append(head);
  for (const [cat, b] of Object.entries(boxes)) {
    const tr = el("tr");
    tr.append(el("th", "", CATEGORY_NAMES[cat], { scope: "row" }));
    const diff = b.mean === null ? null : b.mean - b.expert_mean;
    tr.append(
      el("td", "", b.mean === null ? "—" : fmt(b.mean)),
      el("td", "", fmt(b.expert_mean)),
      el("td", diff !== null && diff < -1 ? "st-behind" : "", diff === null ? "—" : `${diff >= 0 ? "+" : "−"}${Math.abs(diff).toFixed(1)}`),
    );
    table.append(tr);
  }
  s.append(table);
  return s;
}

function practiceSection(p, mistakes) {
  // 练习 (L6-L8): the puzzle rating over time, best answers per theme, the player's own
  // mistakes answered right since (GET /api/puzzles/progress). U18: how many mistakes is
  // the games' own count (GET /api/stats `mistakes`, each game's 复盘 失误 + 大错), the same
  // before and after 练习 has turned them into puzzles.
  const s = section("练习", "st-practice-title");
  s.setAttribute("data-testid", "stats-practice");
  const dl = el("dl", "rv-figures");
  const add = (label, value, testid, id = null) => {
    const div = el("div", "rv-figure");
    div.append(id ? labelled(label, id, "dt") : el("dt", "", label), el("dd", "", value, { "data-testid": testid }));
    dl.append(div);
  };
  // L14: a rating still settling says so instead of a number that jumps.
  add("练习分", p.rating_settling ? SETTLING : String(p.rating), "stats-practice-rating", "practice_rating");
  if (p.rating_settling) dl.lastChild.querySelector("dd").append(term("settling"));
  add("做过的题", String(p.answers), "stats-practice-answers");
  add("自己的失误", `${mistakes} 道`, "stats-practice-mine", "marks");
  add("后来答对了", `${p.mine.answered_right} 道`, "stats-practice-fixed");
  s.append(dl);
  s.append(el("p", "fine", "练习分：答对难题涨得多，答错容易的题降得多，开始是 1500。自己的失误：你下完的对局里复盘标成失误和大错的决定（少了 1 分以上），会隔一段时间再出给你。"));
  if (!p.answers) {
    s.append(el("p", "st-empty", "还没有做过练习题。回大厅点「练习」试试。", { "data-testid": "stats-empty-practice" }));
    return s;
  }
  const points = [{ x: 0, y: 1500 }, ...p.rating_history.map((h, i) => ({ x: i + 1, y: h.rating }))];
  const ys = points.map((q) => q.y);
  s.append(
    lineChart({
      points,
      yMin: Math.floor((Math.min(...ys) - 50) / 100) * 100,
      yMax: Math.ceil((Math.max(...ys) + 50) / 100) * 100,
      title: "练习分走势",
      desc: `从 1500 开始，做了 ${p.answers} 道题，现在 ${p.rating}。`,
      xLabel: "第几道题",
      xTickEvery: Math.max(1, Math.ceil(points.length / 10)),
      className: "st-practice-chart",
    }),
  );
  const rows = p.themes.map((t) => [t.name, String(t.answers), t.answers ? `${Math.round((100 * t.best) / t.answers)}%` : "—"]);
  s.append(dataTable("每个专项答对最好的比例", ["专项", "做过", "最好"], rows, "stats-practice-themes"));
  return s;
}

/** 「我的设备」 (I1): the same player on another device, a way back, the player's data. */
function devicesLink() {
  // On the section's paper like the rest of 统计 (over the wood a small grey line falls
  // below AA contrast).
  const s = section(DEVICES.link, "st-devices");
  const p = el("p", "fine");
  p.append(el("a", "st-devices-link", DEVICES.link, { href: href("devices"), "data-page": "devices", "data-testid": "stats-devices-link" }), ` ${DEVICES.linkNote}`);
  s.append(p);
  return s;
}

/** The view's data when its address is opened (views.js `own`): the games and 练习's progress. */
export const load = {
  stats: () =>
    Promise.all([request("GET", API.stats()), request("GET", API.puzzleProgress())]).then(([stats, practice]) => ({
      ...stats,
      practice,
    })),
};

export const view = {
  /** Draw the stats into `body` (once per page: nothing in it changes afterwards). */
  render(body, page) {
    if (body.firstChild) return;
    const data = page.data;
    body.replaceChildren(
      soloSection(data.solo),
      dailySection(data.daily),
      vsSection(data.vs),
      tableSection(data.table),
      boxesSection(data.boxes),
      practiceSection(data.practice, data.mistakes),
      devicesLink(),
    );
  },
};
