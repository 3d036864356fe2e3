// 复盘 (/review/{id}): a lazy view (views.js), reached from the end panel and the lobby's
// recent games. Draws GET /api/games/{id}/review (state.page.data); the decision shown is
// the view's own state (page.ui.selected, the costliest one until the player picks).

import { lineChart } from "./chart.js";
import { el, fmt, labelled, seatName, term, verdictEl } from "./dom.js";
import { buildDice, diceLook, drawDice, readCard } from "../board/draw.js";
import { request } from "../api.js";
import { API, href } from "../paths.js";
import * as say from "../messages.js";
import * as later from "./views_messages.js";
import { CATEGORY_NAMES, DIFFICULTY_NAMES, MODE_NAMES } from "../state.js";

const MARK_NAMES = { best: "最佳", inaccuracy: "欠佳", mistake: "失误", blunder: "大错" };
const MARKS = ["best", "inaccuracy", "mistake", "blunder"];

const signed = (v) => (v > 0 ? "+" : v < 0 ? "−" : "") + Math.abs(v).toFixed(1);

function choiceText(choice) {
  if (!choice) return "";
  if (choice.category) return `记「${CATEGORY_NAMES[choice.category]}」${choice.points} 分`;
  if (choice.keep === "stop") return "不再掷，直接登记";
  return choice.keep.length ? `保留 ${choice.keep.join(" ")}` : "全部重掷";
}

const sameChoice = (a, b) =>
  a.category ? a.category === b.category : JSON.stringify(a.keep) === JSON.stringify(b.keep);

// -------------------------------------------------------------------------- review page

function summary(r) {
  const box = el("div", "rv-summary panel");
  const dl = el("dl", "rv-figures");
  const add = (label, id, value, testid) => {
    const div = el("div", "rv-figure");
    const dt = el("dt", "", label);
    if (id) dt.append(term(id));
    div.append(dt, el("dd", "", value, { "data-testid": testid }));
    dl.append(div);
  };
  add("准确率", "accuracy", `${fmt(r.accuracy)}%`, "review-accuracy");
  add("技术损失", "skill_loss", `${fmt(r.skill_loss)} 分`, "review-skill-loss");
  add("运气", "luck", `${signed(r.luck)} 分`, "review-luck");
  add("终局", null, `${r.final_score} 分`, "review-final");
  box.append(dl);
  // L13: beside 准确率, a verdict that cannot mislead: stars from the points lost.
  const mark = el("p", "rv-verdict-line");
  mark.append(verdictEl(r.skill_loss), term("verdict"));
  box.append(mark);
  // L2 in one decimal (L15): the rounded figures may miss the total by a tenth, hence ≈.
  const identity = el(
    "p",
    "fine rv-identity",
    `开局期望 ${fmt(r.start_value)} ${r.luck >= 0 ? "+" : "−"} 运气 ${fmt(Math.abs(r.luck))} − 技术损失 ${fmt(r.skill_loss)}${r.proxy_loss ? later.proxyLoss(r.proxy_loss) : ""} ≈ 终局 ${r.final_score}`,
  );
  identity.append(term("expected_value"));
  box.append(identity);
  const counts = el("ul", "rv-counts", null, { "aria-label": "各类评价的次数" });
  for (const m of MARKS) {
    const li = el("li", `rv-chip mark-${m}`, `${MARK_NAMES[m]} ${r.counts[m]}`, { "data-testid": `count-${m}` });
    counts.append(li);
  }
  const countsRow = el("div", "rv-counts-row");
  countsRow.append(counts, term("marks"));
  box.append(countsRow);
  // 撤销 (polish 8): a box taken back is no decision; the box written instead is judged.
  const proxied = r.decisions.filter((d) => d.proxy).length;
  if (proxied) {
    const note = el("p", "fine", later.proxyCount(proxied), { "data-testid": "review-proxied" });
    note.append(term("autopilot"));
    box.append(note);
  }
  if (r.undos) {
    const text = `这局撤销了 ${r.undos} 次登记：复盘按最后登记的那一项来评。`;
    box.append(el("p", "fine", text, { "data-testid": "review-undos" }));
  }
  if (r.computer) {
    box.append(
      el(
        "p",
        "fine",
        `电脑（${DIFFICULTY_NAMES[r.difficulty] || ""}）：终局 ${r.computer.final_score}，准确率 ${fmt(r.computer.accuracy)}%，运气 ${signed(r.computer.luck)}，技术损失 ${fmt(r.computer.skill_loss)}。`,
      ),
    );
  }
  return box;
}

function timelineSection(r, select) {
  const vs = r.mode !== "solo"; // vs and table games: the chance of (first place) winning
  const section = el("section", "rv-timeline panel", null, { "aria-labelledby": "rv-timeline-title" });
  const title = el("h2", "", vs ? "胜率走势" : "预计终局走势", { id: "rv-timeline-title" });
  title.append(term(vs ? "win_chance" : "expected_final"));
  section.append(title);
  const value = (p) => (vs ? p.win_probability : p.expected_final);
  const points = r.timeline.map((p) => ({ x: p.round, y: value(p) }));
  const ys = points.map((p) => p.y);
  const yMin = vs ? 0 : Math.floor((Math.min(...ys) - 10) / 10) * 10;
  const yMax = vs ? 1 : Math.ceil((Math.max(...ys) + 10) / 10) * 10;
  const at = (round, roll) => {
    // Decisions sit between the turn's start (round - 1) and its end (round).
    const a = points[round - 1].y;
    const b = points[round].y;
    const f = roll / 4;
    return { x: round - 1 + f, y: a + (b - a) * f };
  };
  const markers = r.decisions
    .map((d, i) => ({ d, i }))
    .filter(({ d }) => d.mark !== "best")
    .map(({ d, i }) => ({
      ...at(d.round, d.roll + (d.kind === "score" ? 0.5 : 0)),
      className: `mark-${d.mark}`,
      label: `第 ${d.round} 回合：${MARK_NAMES[d.mark]}，损失 ${fmt(d.loss)} 分`,
      onSelect: () => select(i),
    }));
  const first = value(r.timeline[0]);
  const last = value(r.timeline[r.timeline.length - 1]);
  const desc = vs
    ? `开局胜率 ${Math.round(first * 100)}%，最后 ${Math.round(last * 100)}%。彩色圆点是有损失的决策。`
    : `开局预计终局 ${first.toFixed(1)} 分，最后 ${last} 分。彩色圆点是有损失的决策。`;
  const chart = lineChart({
    points,
    markers,
    yMin,
    yMax,
    title: vs ? "每回合后你的胜率" : "每回合后的预计终局",
    desc,
    xLabel: "回合",
    yFormat: vs ? (v) => `${Math.round(v * 100)}%` : (v) => String(v),
    band: r.mode === "vs_computer" ? 0.5 : null,
    className: "rv-chart",
  });
  chart.dataset.testid = "review-chart";
  section.append(chart);
  // The text alternative: every point of the chart as a table.
  const details = el("details", "rv-data");
  details.append(el("summary", "", "图表数据（表格）"));
  const table = el("table", "rv-table");
  const head = el("tr");
  head.append(el("th", "", "回合", { scope: "col" }), el("th", "", vs ? "胜率" : "预计终局", { scope: "col" }));
  if (vs) head.append(el("th", "", "预计终局", { scope: "col" }));
  table.append(head);
  for (const p of r.timeline) {
    const tr = el("tr");
    tr.append(el("th", "", p.round === 0 ? "开局" : `第 ${p.round} 回合后`, { scope: "row" }));
    tr.append(el("td", "", vs ? `${(p.win_probability * 100).toFixed(1)}%` : fmt(p.expected_final)));
    if (vs) tr.append(el("td", "", fmt(p.expected_final)));
    table.append(tr);
  }
  details.append(table);
  section.append(details);
  return section;
}

function positionPanel(d, practice) {
  const panel = el("section", "rv-position panel", null, { "aria-labelledby": "rv-position-title", "data-testid": "review-position" });
  const stage = d.kind === "score" && d.rolls_left === 0 ? "第三次掷骰后登记" : `第 ${d.roll} 次掷骰后`;
  panel.append(el("h2", "", `第 ${d.round} 回合 · ${stage}`, { id: "rv-position-title", tabindex: "-1" }));
  const dice = el("div", "rv-dice", null, { role: "img", "aria-label": `骰子 ${d.dice.join("、")}` });
  const held = d.hold || null;
  // U11: the board's dice (board/draw.js), small, a picture labelled as a whole
  buildDice(dice, { prefix: "review", cls: "rv-die" });
  drawDice(dice, diceLook({ dice: d.dice, held }));
  panel.append(dice);
  if (held) panel.append(el("p", "fine", `你保留了 ${d.dice.filter((_, i) => held[i]).join(" ") || "（没有）"}，重掷其余。`));

  const table = el("table", "rv-table rv-options", null, { "data-testid": "review-options" });
  table.append(el("caption", "", `剩余 ${d.rolls_left} 次掷骰 · 三个最好的选择`));
  const head = el("tr");
  head.append(el("th", "", "选择", { scope: "col" }));
  head.append(labelled("预计终局", "expected_final", "th"));
  head.lastChild.setAttribute("scope", "col");
  head.append(el("th", "", "差距", { scope: "col" }));
  table.append(head);
  const rows = [...d.options];
  if (!rows.some((o) => sameChoice(o, d.chosen))) rows.push(d.chosen);
  for (const o of rows) {
    const mine = sameChoice(o, d.chosen);
    const tr = el("tr", mine ? "rv-mine" : "");
    const label = choiceText(o) + (mine ? "（你的选择）" : "") + (o === d.options[0] ? " ★" : "");
    tr.append(el("th", "", label, { scope: "row" }));
    tr.append(el("td", "", fmt(o.value)));
    tr.append(el("td", "", o === d.options[0] ? "—" : `−${fmt(d.options[0].value - o.value)}`));
    table.append(tr);
  }
  panel.append(table);
  if (d.proxy) panel.append(el("p", "fine rv-proxy", later.PROXY_DECISION, { "data-testid": "review-proxy" }));
  panel.append(
    el(
      "p",
      `rv-verdict mark-${d.mark}`,
      d.mark === "best"
        ? `${MARK_NAMES.best}：和高手的选择一样好。`
        : `${MARK_NAMES[d.mark]}：比高手的选择平均少 ${fmt(d.loss)} 分。`,
      { "data-testid": "review-verdict" },
    ),
  );
  // L12: why the best is better, in 练习's sentences (the server's `why`).
  if (d.why && d.why.length) {
    const why = el("div", "rv-why", null, { "data-testid": "review-why" });
    why.append(el("h3", "", "为什么"));
    for (const line of d.why) why.append(el("p", "", line));
    panel.append(why);
  }
  // The card at the decision: the board's read-only card.
  const card = el("div", "rv-card");
  card.append(el("h3", "", "当时的计分表"), readCard(d.card));
  panel.append(card);
  // 「练习这一步」 (L7): this decision as a puzzle, answered before the answer is shown.
  const link = el("a", "btn btn-small rv-practice", "练习这一步", {
    href: practice,
    "data-page": "drill",
    "data-testid": "practice-this",
  });
  panel.append(link);
  return panel;
}

function decisionList(r, select) {
  const section = el("section", "rv-decisions panel", null, { "aria-labelledby": "rv-decisions-title" });
  section.append(el("h2", "", `全部决策（${r.decisions.length}）`, { id: "rv-decisions-title" }));
  if (!r.decisions.length) {
    section.append(el("p", "fine", "这局没有需要选择的地方。"));
    return section;
  }
  const help = el("p", "fine", "选一个决策，看当时的局面、三个最好的选择、你的选择和为什么。");
  // Only where there is a keyboard (not on a phone: css hides .kb-only there).
  help.append(el("span", "kb-only", "上下方向键可以在列表里移动。"));
  section.append(help);
  const list = el("ol", "rv-list", null, { "data-testid": "decision-list" });
  r.decisions.forEach((d, i) => {
    const li = el("li");
    const btn = el("button", `rv-item mark-${d.mark}`, null, { type: "button", "data-index": i, "aria-pressed": "false", "data-testid": `decision-${i}` });
    btn.append(
      el("span", "rv-where", `第 ${d.round} 回合 · ${d.kind === "score" ? "登记" : `第 ${d.roll} 掷`}`),
      el("span", "rv-what", d.proxy ? `${later.PROXY_TAG} · ${choiceText(d.chosen)}` : choiceText(d.chosen)),
      el("span", `rv-chip mark-${d.mark}`, d.mark === "best" ? MARK_NAMES.best : `${MARK_NAMES[d.mark]} −${fmt(d.loss)}`),
    );
    btn.addEventListener("click", () => select(i));
    btn.addEventListener("keydown", (event) => {
      const step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      const next = list.querySelector(`[data-index="${i + step}"]`);
      if (next) next.focus();
    });
    li.append(btn);
    list.append(li);
  });
  section.append(list);
  return section;
}

/** The decision shown first: the costliest (the first of equals). */
function worst(decisions) {
  let i = 0;
  decisions.forEach((d, j) => {
    if (d.loss > decisions[i].loss) i = j;
  });
  return i;
}

/** A table's seat as named in its review (a person's name is text, never markup). */
function seatLabel(r, s) {
  return seatName(r.seats, s.index); // U13: as the table named it
}

/** T6: the person reviewed, and every seat's place; the switcher opens another person's. */
function tableIntro(r, ctx) {
  const box = el("div", "rv-seats");
  const me = r.seats[r.seat];
  box.append(
    el("p", "rv-intro", `${say.kindName(r.kind || r.mode)} · ${r.seats.length} 人：${me.name} 第 ${me.place} 名，${r.final_score} 分。`),
  );
  const label = el("label", "field rv-seat-pick");
  label.append(el("span", "", "复盘谁的决策"));
  const pick = el("select", "", null, { "data-testid": "review-seat" });
  for (const s of r.seats.filter((x) => x.kind === "human")) {
    const o = el("option", "", s.name, { value: s.index });
    o.selected = s.index === r.seat;
    pick.append(o);
  }
  pick.addEventListener("change", () => {
    ctx.open(`${href("review", { id: r.game_id })}?seat=${encodeURIComponent(pick.value)}`);
  });
  label.append(pick);
  box.append(label);
  const places = el("ol", "rv-places", null, { "aria-label": "名次" });
  for (const s of [...r.seats].sort((a, b) => a.place - b.place || a.index - b.index)) {
    places.append(el("li", s.index === r.seat ? "rv-mine" : "", `第 ${s.place} 名 ${seatLabel(r, s)} ${s.final_score} 分`));
  }
  box.append(places);
  return box;
}

function draw(body, r, select, ctx) {
  const vs = r.mode === "vs_computer";
  const intro =
    r.mode === "table"
      ? tableIntro(r, ctx)
      : el(
          "p",
          "rv-intro",
          vs
            ? `${MODE_NAMES.vs_computer} · ${DIFFICULTY_NAMES[r.difficulty] || ""}：你 ${r.final_score} 分，电脑 ${r.computer.final_score} 分。`
            : `${say.kindName(r.kind || r.mode)}：${r.final_score} 分。`, // K2: 单人挑战, 每日挑战…
        );
  const layout = el("div", "rv-layout");
  layout.append(decisionList(r, select), el("div", "rv-side"));
  body.replaceChildren(intro, summary(r), timelineSection(r, select), layout);
}

/** The view's data when its address is opened (views.js `own`): the review; ?seat=N a
 * table's person (T6). */
export const load = { review: ({ id }) => request("GET", API.review(id) + location.search) };

export const view = {
  reducers: {
    /** 复盘: the decision selected. */
    reviewSelect: (state, { index }) => {
      const p = state.page;
      return p && p.view === "review" ? { ...state, page: { ...p, ui: { ...p.ui, selected: index } } } : state;
    },
  },
  render(body, page, ctx) {
    const r = page.data;
    const select = (i) => {
      ctx.dispatch({ type: "reviewSelect", index: i });
      ctx.afterRender(() => {
        const heading = body.querySelector(".rv-side h2");
        if (heading) heading.focus({ preventScroll: window.innerWidth > 700 });
      });
    };
    if (!body.firstChild) draw(body, r, select, ctx);
    if (!r.decisions.length) return;
    const selected = page.ui.selected ?? worst(r.decisions);
    const side = body.querySelector(".rv-side");
    if (side.dataset.selected === String(selected)) return;
    side.dataset.selected = String(selected);
    for (const b of body.querySelectorAll(".rv-item")) {
      b.setAttribute("aria-pressed", String(Number(b.dataset.index) === selected));
    }
    side.replaceChildren(
      positionPanel(r.decisions[selected], href("drill", { id: `${r.game_id}-${selected}` })),
    );
  },
};
