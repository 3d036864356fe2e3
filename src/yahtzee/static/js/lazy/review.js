// 复盘 (/review/{id}): a lazy view (views.js), reached from the end panel and the lobby's
// recent games. Draws GET /api/games/{id}/review (state.page.data); the decision shown is
// the view's own state (page.ui.selected, the costliest one until the player picks).

import { lineChart } from "./chart.js";
import { el, labelled, seatName, term, verdictEl } from "./dom.js";
import { buildDice, diceLook, drawDice, readCard } from "../board/draw.js";
import { request } from "../api.js";
import { API, href } from "../paths.js";
import { formatNumber, language, load as loadWords, t, tn } from "../i18n.js";
import * as say from "../messages.js";
import { CATEGORY_NAMES, DIFFICULTY_NAMES, MODE_NAMES } from "../state.js";

// Its words are chunk `review` (G1), said when drawn: a change of language draws the page
// again, and asks for the review again (its `why` is the server's, said in the request's
// language).
const MARK_NAMES = {
  get best() { return t("review.mark.best"); },
  get inaccuracy() { return t("review.mark.inaccuracy"); },
  get mistake() { return t("review.mark.mistake"); },
  get blunder() { return t("review.mark.blunder"); },
};
const MARKS = ["best", "inaccuracy", "mistake", "blunder"];

/** A figure to one decimal as the page's language writes it (a dash when there is none). */
const fmt = (v, digits = 1) =>
  v === null || v === undefined ? "—" : formatNumber(v, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
const signed = (v) => (v > 0 ? "+" : v < 0 ? "−" : "") + fmt(Math.abs(v));
const pct = (v, digits = 0) => formatNumber(v, { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits });

function choiceText(choice) {
  if (!choice) return "";
  if (choice.category) return t("review.choice.score", { box: CATEGORY_NAMES[choice.category], points: choice.points });
  if (choice.keep === "stop") return t("review.choice.stop");
  return choice.keep.length ? t("review.choice.keep", { dice: choice.keep.join(" ") }) : t("review.choice.reroll_all");
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
  add(t("review.accuracy"), "accuracy", `${fmt(r.accuracy)}%`, "review-accuracy");
  add(t("review.skill_loss"), "skill_loss", t("review.points", { points: fmt(r.skill_loss) }), "review-skill-loss");
  add(t("review.luck"), "luck", t("review.points", { points: signed(r.luck) }), "review-luck");
  add(t("review.final"), null, t("review.points", { points: r.final_score }), "review-final");
  box.append(dl);
  // L13: beside 准确率, a verdict that cannot mislead: stars from the points lost.
  const mark = el("p", "rv-verdict-line");
  mark.append(verdictEl(r.skill_loss), term("verdict"));
  box.append(mark);
  // L2 in one decimal (L15): the rounded figures may miss the total by a tenth, hence ≈.
  const identity = el(
    "p",
    "fine rv-identity",
    t("review.identity", {
      start: fmt(r.start_value),
      sign: r.luck >= 0 ? "+" : "−",
      luck: fmt(Math.abs(r.luck)),
      skill: fmt(r.skill_loss),
      proxy: r.proxy_loss ? t("review.identity.proxy", { loss: fmt(r.proxy_loss) }) : "",
      score: r.final_score,
    }),
  );
  identity.append(term("expected_value"));
  box.append(identity);
  const counts = el("ul", "rv-counts", null, { "aria-label": t("review.counts") });
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
    const note = el("p", "fine", tn("review.proxied", proxied, { n: proxied }), { "data-testid": "review-proxied" });
    note.append(term("autopilot"));
    box.append(note);
  }
  if (r.undos) {
    const text = tn("review.undos", r.undos, { n: r.undos });
    box.append(el("p", "fine", text, { "data-testid": "review-undos" }));
  }
  if (r.computer) {
    box.append(
      el(
        "p",
        "fine",
        t("review.computer", {
          level: DIFFICULTY_NAMES[r.difficulty] || "",
          score: r.computer.final_score,
          accuracy: fmt(r.computer.accuracy),
          luck: signed(r.computer.luck),
          skill: fmt(r.computer.skill_loss),
        }),
      ),
    );
  }
  return box;
}

function timelineSection(r, select) {
  const vs = r.mode !== "solo"; // vs and table games: the chance of (first place) winning
  const section = el("section", "rv-timeline panel", null, { "aria-labelledby": "rv-timeline-title" });
  const title = el("h2", "", vs ? t("review.timeline.win") : t("review.timeline.expected"), { id: "rv-timeline-title" });
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
      label: t("review.timeline.marker", { round: d.round, mark: MARK_NAMES[d.mark], loss: fmt(d.loss) }),
      onSelect: () => select(i),
    }));
  const first = value(r.timeline[0]);
  const last = value(r.timeline[r.timeline.length - 1]);
  const desc = vs
    ? t("review.timeline.win_desc", { first: pct(first), last: pct(last) })
    : t("review.timeline.expected_desc", { first: fmt(first), last: formatNumber(last) });
  const chart = lineChart({
    points,
    markers,
    yMin,
    yMax,
    title: vs ? t("review.timeline.win_title") : t("review.timeline.expected_title"),
    desc,
    xLabel: t("review.round"),
    yFormat: vs ? (v) => pct(v) : (v) => formatNumber(v),
    band: r.mode === "vs_computer" ? 0.5 : null,
    className: "rv-chart",
  });
  chart.dataset.testid = "review-chart";
  section.append(chart);
  // The text alternative: every point of the chart as a table.
  const details = el("details", "rv-data");
  details.append(el("summary", "", t("review.timeline.data")));
  const table = el("table", "rv-table");
  const head = el("tr");
  head.append(el("th", "", t("review.round"), { scope: "col" }), el("th", "", vs ? t("review.win_chance") : t("review.expected_final"), { scope: "col" }));
  if (vs) head.append(el("th", "", t("review.expected_final"), { scope: "col" }));
  table.append(head);
  for (const p of r.timeline) {
    const tr = el("tr");
    tr.append(el("th", "", p.round === 0 ? t("review.timeline.start") : t("review.timeline.after_round", { round: p.round }), { scope: "row" }));
    tr.append(el("td", "", vs ? pct(p.win_probability, 1) : fmt(p.expected_final)));
    if (vs) tr.append(el("td", "", fmt(p.expected_final)));
    table.append(tr);
  }
  details.append(table);
  section.append(details);
  return section;
}

function positionPanel(d, practice) {
  const panel = el("section", "rv-position panel", null, { "aria-labelledby": "rv-position-title", "data-testid": "review-position" });
  const stage = d.kind === "score" && d.rolls_left === 0 ? t("review.position.third") : t("review.position.after_roll", { roll: d.roll });
  panel.append(el("h2", "", t("review.position.title", { round: d.round, stage }), { id: "rv-position-title", tabindex: "-1" }));
  const dice = el("div", "rv-dice", null, { role: "img", "aria-label": t("review.position.dice", { dice: d.dice.join(t("review.list_separator")) }) });
  const held = d.hold || null;
  // U11: the board's dice (board/draw.js), small, a picture labelled as a whole
  buildDice(dice, { prefix: "review", cls: "rv-die" });
  drawDice(dice, diceLook({ dice: d.dice, held }));
  panel.append(dice);
  if (held) {
    const kept = d.dice.filter((_, i) => held[i]).join(" ") || t("review.position.kept_none");
    panel.append(el("p", "fine", t("review.position.kept", { dice: kept })));
  }

  const table = el("table", "rv-table rv-options", null, { "data-testid": "review-options" });
  table.append(el("caption", "", tn("review.options.caption", d.rolls_left, { n: d.rolls_left })));
  const head = el("tr");
  head.append(el("th", "", t("review.options.choice"), { scope: "col" }));
  head.append(labelled(t("review.expected_final"), "expected_final", "th"));
  head.lastChild.setAttribute("scope", "col");
  head.append(el("th", "", t("review.options.gap"), { scope: "col" }));
  table.append(head);
  const rows = [...d.options];
  if (!rows.some((o) => sameChoice(o, d.chosen))) rows.push(d.chosen);
  for (const o of rows) {
    const mine = sameChoice(o, d.chosen);
    const tr = el("tr", mine ? "rv-mine" : "");
    // (「（你的选择）」 its own text: a line may break before it, never inside the choice's words)
    const th = el("th", "", choiceText(o), { scope: "row" });
    if (mine) th.append(t("review.options.yours"));
    if (o === d.options[0]) th.append(" ★");
    tr.append(th);
    tr.append(el("td", "", fmt(o.value)));
    tr.append(el("td", "", o === d.options[0] ? "—" : `−${fmt(d.options[0].value - o.value)}`));
    table.append(tr);
  }
  panel.append(table);
  if (d.proxy) panel.append(el("p", "fine rv-proxy", t("review.proxy_decision"), { "data-testid": "review-proxy" }));
  panel.append(
    el(
      "p",
      `rv-verdict mark-${d.mark}`,
      d.mark === "best"
        ? t("review.verdict.best", { mark: MARK_NAMES.best })
        : t("review.verdict.loss", { mark: MARK_NAMES[d.mark], loss: fmt(d.loss) }),
      { "data-testid": "review-verdict" },
    ),
  );
  // L12: why the best is better, in 练习's sentences (the server's `why`).
  if (d.why && d.why.length) {
    const why = el("div", "rv-why", null, { "data-testid": "review-why" });
    why.append(el("h3", "", t("review.why")));
    for (const line of d.why) why.append(el("p", "", line));
    panel.append(why);
  }
  // The card at the decision: the board's read-only card.
  const card = el("div", "rv-card");
  card.append(el("h3", "", t("review.card")), readCard(d.card));
  panel.append(card);
  // 「练习这一步」 (L7): this decision as a puzzle, answered before the answer is shown.
  const link = el("a", "btn btn-small rv-practice", t("review.practice_this"), {
    href: practice,
    "data-page": "drill",
    "data-testid": "practice-this",
  });
  panel.append(link);
  return panel;
}

function decisionList(r, select) {
  const section = el("section", "rv-decisions panel", null, { "aria-labelledby": "rv-decisions-title" });
  section.append(el("h2", "", t("review.decisions.title", { n: r.decisions.length }), { id: "rv-decisions-title" }));
  if (!r.decisions.length) {
    section.append(el("p", "fine", t("review.decisions.none")));
    return section;
  }
  const help = el("p", "fine", t("review.decisions.help"));
  // Only where there is a keyboard (not on a phone: css hides .kb-only there).
  help.append(el("span", "kb-only", t("review.decisions.keys")));
  section.append(help);
  const list = el("ol", "rv-list", null, { "data-testid": "decision-list" });
  r.decisions.forEach((d, i) => {
    const li = el("li");
    const btn = el("button", `rv-item mark-${d.mark}`, null, { type: "button", "data-index": i, "aria-pressed": "false", "data-testid": `decision-${i}` });
    btn.append(
      el("span", "rv-where", t("review.decisions.where", { round: d.round, step: d.kind === "score" ? t("review.decisions.score") : t("review.decisions.roll", { roll: d.roll }) })),
      el("span", "rv-what", d.proxy ? t("review.decisions.proxy", { what: choiceText(d.chosen) }) : choiceText(d.chosen)),
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
    el("p", "rv-intro", tn("review.table.intro", r.seats.length, { kind: say.kindName(r.kind || r.mode), n: r.seats.length, name: me.name, place: me.place, score: r.final_score })),
  );
  const label = el("label", "field rv-seat-pick");
  label.append(el("span", "", t("review.table.pick")));
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
  const places = el("ol", "rv-places", null, { "aria-label": t("review.table.places") });
  for (const s of [...r.seats].sort((a, b) => a.place - b.place || a.index - b.index)) {
    places.append(el("li", s.index === r.seat ? "rv-mine" : "", t("review.table.place", { place: s.place, name: seatLabel(r, s), score: s.final_score })));
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
            ? t("review.intro.vs", { kind: MODE_NAMES.vs_computer, level: DIFFICULTY_NAMES[r.difficulty] || "", score: r.final_score, computer: r.computer.final_score })
            : t("review.intro", { kind: say.kindName(r.kind || r.mode), score: r.final_score }), // K2: 单人挑战, 每日挑战…
        );
  const layout = el("div", "rv-layout");
  layout.append(decisionList(r, select), el("div", "rv-side"));
  body.replaceChildren(intro, summary(r), timelineSection(r, select), layout);
}

/** The view's data when its address is opened (views.js `own`): the review; ?seat=N a
 * table's person (T6); with the view's words (chunk `review`). `lang`: the language the
 * server said its `why` in (the request's). */
const fetchReview = (id, search) => {
  const lang = language();
  return Promise.all([request("GET", API.review(id) + search), loadWords("review")]).then(([r]) => ({ ...r, lang }));
};
export const load = { review: ({ id }) => fetchReview(id, location.search) };

export const view = {
  reducers: {
    /** 复盘: the decision selected. */
    reviewSelect: (state, { index }) => {
      const p = state.page;
      return p && p.view === "review" ? { ...state, page: { ...p, ui: { ...p.ui, selected: index } } } : state;
    },
    /** The review asked again in a new language (the decision selected stays). */
    reviewData: (state, { serial, data }) => {
      const p = state.page;
      return p && p.view === "review" && p.serial === serial ? { ...state, page: { ...p, data } } : state;
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
    // A new language: the page's words at once; the server's `why` once asked again.
    if (r.lang !== language() && body.dataset.asked !== `${page.serial} ${language()}`) {
      body.dataset.asked = `${page.serial} ${language()}`;
      const search = location.search;
      fetchReview(r.game_id, search).then((data) => ctx.dispatch({ type: "reviewData", serial: page.serial, data }), (err) => console.warn(err));
    }
    const drawn = `${page.serial} ${language()} ${r.lang}`;
    if (!body.firstChild || body.dataset.drawn !== drawn) {
      body.dataset.drawn = drawn;
      draw(body, r, select, ctx);
    }
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
