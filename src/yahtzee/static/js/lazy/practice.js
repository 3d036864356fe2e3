// 练习 (/practice, and /practice/{game}-{decision} from 复盘's 「练习这一步」): a lazy view
// (views.js). One puzzle at a time (GET /api/puzzles/next, state.page.data.next): the
// position as on the table, the player's answer (a keep, "stop", or a box), then the grade
// (POST /api/puzzles/{id}/answer) with the explanation, every option and the rating.
// The view's own state is page.ui: {held: [bool x5], result, busy, theme, error}. Names of
// themes and marks come from the server (GET /api/puzzles/themes, page.data.themes).

import { el, labelled, term } from "./dom.js";
import { SETTLING } from "./glossary.js";
import { buildDice, diceLook, drawDice, readCard } from "../board/draw.js";
import { request } from "../api.js";
import { formatNumber, language, load as loadWords, t, tn } from "../i18n.js";
import { API, href } from "../paths.js";
import { CATEGORY_NAMES, LOWER, UPPER } from "../state.js";

// Its words are chunk `practice` (G1), said when drawn; the themes' names and the marks'
// are the server's, in the request's language: asked again when the language changes (an
// answer's explanation stays as it was said, until the next puzzle).
const fmt1 = (v) => formatNumber(v, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });

// This view's requests (L6-L8): `query` {theme} or {game, decision}; an answer {keep} or
// {category}.
function puzzleNext(query = {}) {
  const q = new URLSearchParams(query).toString();
  return request("GET", q ? `${API.puzzleNext()}?${q}` : API.puzzleNext());
}
const puzzleAnswer = (id, answer) => request("POST", API.puzzleAnswer(id), answer);
const themesNow = () => {
  const lang = language();
  return request("GET", API.puzzleThemes()).then((themes) => ({ ...themes, lang }));
};
const withThemes = (next) =>
  Promise.all([themesNow(), next, loadWords("practice")]).then(([themes, n]) => ({ themes, next: n }));

/** Each view's data when its address is opened (views.js `own`): 练习, and 「练习这一步」
 * (one decision of a finished game, /practice/<game>-<decision>). */
export const load = {
  practice: () => withThemes(puzzleNext()),
  drill: ({ id }) => {
    const cut = id.lastIndexOf("-");
    return withThemes(puzzleNext({ game: id.slice(0, cut), decision: id.slice(cut + 1) }));
  },
};

const list = (xs) => xs.join(t("practice.list_separator"));

function keepText(keep) {
  if (keep === "stop") return t("practice.stop");
  return keep.length ? t("practice.keep", { dice: list(keep) }) : t("practice.reroll_all");
}

function optionText(o) {
  if (o.category) return t("practice.option.box", { box: CATEGORY_NAMES[o.category], points: o.points });
  return keepText(o.keep);
}

const same = (a, b) =>
  a.category ? a.category === b.category : JSON.stringify(a.keep) === JSON.stringify(b.keep);

/** The card as on the table (the board's read-only card): filled boxes with their points,
 * open ones with what these dice would score there now (the server's preview). */
function card(p) {
  const wrap = el("div", "pz-card");
  wrap.append(readCard({ ...p, boxes: p.scores }, p.preview));
  return wrap;
}

function dice(p, ui, ctx) {
  // U11: the board's dice row (board/draw.js), as on every table
  const row = el("div", "pz-dice", null, { role: "group", "aria-label": t("practice.dice") });
  const keep = p.kind === "keep";
  buildDice(row, {
    prefix: "puzzle-",
    cls: "pz-die",
    onToggle: (i) => {
      if (!keep || ui.result || ui.busy) return;
      const next = [...(ui.held || [false, false, false, false, false])];
      next[i] = !next[i];
      ctx.dispatch({ type: "practiceHold", held: next });
      ctx.afterRender(() => {
        const die = document.querySelector(`[data-testid="puzzle-die-${i}"]`);
        if (die) die.focus({ preventScroll: true });
      });
    },
  });
  drawDice(row, diceLook({ dice: p.dice, held: keep ? ui.held || null : null, act: keep && !ui.result && !ui.busy }));
  if (!keep) for (const b of row.children) b.disabled = true;
  return row;
}

function answerButtons(p, ui, submit) {
  const box = el("div", "pz-answer");
  if (p.kind === "keep") {
    const held = p.dice.filter((_, i) => ui.held && ui.held[i]).sort((a, b) => a - b);
    const roll = el("button", "btn btn-primary", held.length === 5 ? t("practice.all_held") : keepText(held), {
      type: "button",
      "data-testid": "puzzle-keep",
    });
    roll.disabled = held.length === 5 || Boolean(ui.result) || Boolean(ui.busy);
    roll.addEventListener("click", () => submit({ keep: held }));
    const stop = el("button", "btn", t("practice.stop"), { type: "button", "data-testid": "puzzle-stop" });
    stop.disabled = Boolean(ui.result) || Boolean(ui.busy);
    stop.addEventListener("click", () => submit({ keep: "stop" }));
    box.append(el("p", "fine", t("practice.keep_help")), roll, stop);
  } else {
    box.append(el("p", "fine", t("practice.box_help")));
    const list = el("div", "pz-boxes");
    for (const [id, zh] of [...UPPER, ...LOWER]) {
      const preview = p.preview[id];
      if (!preview) continue;
      const b = el("button", "btn btn-small", `${zh} ${preview.points}`, {
        type: "button",
        "data-testid": `puzzle-box-${id}`,
      });
      b.disabled = !preview.allowed || Boolean(ui.result) || Boolean(ui.busy);
      b.addEventListener("click", () => submit({ category: id }));
      list.append(b);
    }
    box.append(list);
  }
  return box;
}

function feedback(result, marks) {
  const box = el("div", `pz-feedback mark-${result.mark}`, null, {
    "data-testid": "puzzle-answer-feedback",
    role: "status",
  });
  const title = el("h2", "", marks[result.mark] || result.mark_name);
  title.append(term("marks"));
  box.append(title);
  for (const line of result.explanation) box.append(el("p", "", line));
  // L14: the numbers hold still: the difficulty is the one shown before the answer, and a
  // rating still settling says 定级中 rather than a number that jumps by a hundred.
  const change = result.rating_change;
  const sign = change > 0 ? "+" : change < 0 ? "−" : "±";
  // A puzzle answered before is a review (F15): graded, but no score moves.
  if (result.review) {
    const rating = result.rating_settling ? SETTLING : result.rating;
    box.append(el("p", "fine", t("practice.reviewed", { rating }), { "data-testid": "puzzle-rating-after" }));
    return box;
  }
  // U18: each 「?」 right after its own word (three of them at the end read 「???」).
  const line = el("p", "fine", null, { "data-testid": "puzzle-rating-after" });
  line.append(t("practice.rating"), term("practice_rating"));
  if (result.rating_settling) line.append(` ${SETTLING}`, term("settling"));
  else line.append(" " + t("practice.rating_change", { rating: result.rating, change: `${sign}${Math.abs(change)}` }));
  line.append(t("practice.puzzle_difficulty"), term("difficulty"));
  line.append(` ${result.puzzle_rating_settling ? SETTLING : String(result.puzzle_rating)}`);
  if (result.puzzle_rating_settling && !result.rating_settling) line.append(term("settling"));
  line.append(t("practice.full_stop"));
  box.append(line);
  return box;
}

function options(result) {
  const list = el("ol", "pz-options", null, { "data-testid": "puzzle-options", "aria-label": t("practice.options") });
  result.options.slice(0, 6).forEach((o) => {
    const tags = [];
    if (same(o, result.best)) tags.push(t("practice.option.best"));
    if (same(o, result.chosen)) tags.push(t("practice.option.yours"));
    const li = el("li", tags.length ? "pz-option pz-mine" : "pz-option");
    li.append(el("span", "", optionText(o)));
    const less = o.loss > 0 ? t("practice.option.less", { loss: fmt1(o.loss) }) : "";
    li.append(el("span", "pz-value", t("practice.option.value", { value: fmt1(o.value), less })));
    if (tags.length) li.append(el("span", "pz-tag", tags.join(" · ")));
    list.append(li);
  });
  const more = result.options.length - 6;
  const wrap = el("div", "pz-options-wrap");
  wrap.append(list);
  if (more > 0) wrap.append(el("p", "fine", tn("practice.more", more, { n: more })));
  wrap.append(labelled(t("practice.expected_final"), "expected_final", "p", "fine"));
  return wrap;
}

function themeChooser(data, ui, ctx, next) {
  const label = el("label", "pz-theme");
  label.append(el("span", "", t("practice.theme")));
  const select = el("select", "", null, { "data-testid": "practice-theme" });
  select.append(el("option", "", t("practice.theme.all"), { value: "" }));
  for (const th of data.themes.themes) {
    const o = el("option", "", th.name, { value: th.id });
    if (th.id === (ui.theme || "")) o.selected = true;
    select.append(o);
  }
  select.addEventListener("change", () => next(select.value));
  label.append(select);
  const help = data.themes.themes.find((th) => th.id === ui.theme);
  const wrap = el("div", "pz-theme-row");
  wrap.append(label);
  if (help) wrap.append(el("p", "fine", help.help));
  return wrap;
}

function draw(body, page, ctx) {
  const { data, ui } = page;
  const p = data.next.puzzle;
  const marks = data.themes.marks;
  const names = Object.fromEntries(data.themes.themes.map((th) => [th.id, th.name]));
  const next = (theme) => {
    ctx.dispatch({ type: "practiceBusy" });
    const query = theme === undefined ? ui.theme || "" : theme;
    puzzleNext(query ? { theme: query } : {}).then(
      (n) => ctx.dispatch({ type: "practicePuzzle", serial: page.serial, next: n, theme: query }),
      (err) => ctx.dispatch({ type: "practiceFailed", error: err.message }),
    );
  };
  const submit = (answer) => {
    ctx.dispatch({ type: "practiceBusy" });
    puzzleAnswer(p.id, answer).then(
      (result) => {
        ctx.dispatch({ type: "practiceResult", result });
        ctx.afterRender(() => {
          const f = body.querySelector('[data-testid="puzzle-next"]');
          if (f) f.focus({ preventScroll: true });
        });
      },
      (err) => ctx.dispatch({ type: "practiceFailed", error: err.message }),
    );
  };

  const view = el("div", "pz-view");
  const head = el("div", "pz-head panel");
  const now = ui.result || data.next;
  const rating = el("p", "pz-rating", t("practice.my_rating", { rating: now.rating_settling ? SETTLING : now.rating }), { "data-testid": "puzzle-rating" });
  rating.append(term(now.rating_settling ? "settling" : "practice_rating"));
  head.append(rating);
  if (page.view === "practice") head.append(themeChooser(data, ui, ctx, next));
  view.append(head);

  const puzzle = el("section", "pz-puzzle panel", null, { "data-testid": "puzzle", "aria-labelledby": "pz-title" });
  const source = p.source === "mine" ? t("practice.source.mine") : t("practice.source.bank");
  const themes = list(p.themes.map((th) => names[th] || th));
  const stage = p.kind === "keep" ? tn("practice.rolls_left", p.rolls_left, { n: p.rolls_left }) : t("practice.pick_box");
  puzzle.append(el("h2", "", t("practice.title", { round: p.round, stage }), { id: "pz-title" }));
  const difficulty = p.rating_settling ? SETTLING : String(p.rating);
  const about = el("p", "fine", (themes ? t("practice.about_themes", { source, themes, difficulty }) : t("practice.about", { source, difficulty })), {
    "data-testid": "puzzle-difficulty",
  });
  about.append(term("difficulty"));
  if (p.review) about.append(t("practice.review_tag"));
  puzzle.append(about);
  if (p.held.length) puzzle.append(el("p", "fine", t("practice.held", { dice: list(p.held) })));
  puzzle.append(dice(p, ui, ctx));
  if (ui.result) {
    puzzle.append(feedback(ui.result, marks), options(ui.result));
  } else {
    puzzle.append(answerButtons(p, ui, submit));
  }
  if (ui.error) puzzle.append(el("p", "pz-error", ui.error, { role: "alert" }));
  const nextButton = el("button", ui.result ? "btn btn-primary" : "btn", ui.result ? t("practice.next") : t("practice.another"), {
    type: "button",
    "data-testid": "puzzle-next",
  });
  nextButton.disabled = Boolean(ui.busy);
  nextButton.addEventListener("click", () => (page.view === "practice" ? next() : ctx.open(href("practice"))));
  puzzle.append(nextButton);
  view.append(puzzle, card(p));
  body.replaceChildren(view);
}

/** 练习 and 「练习这一步」's own state (page.ui): the dice kept, the answer's request and
 * result; pure, and only for these two views. */
const onPractice = (fn) => (state, action) => {
  const p = state.page;
  if (!p || (p.view !== "practice" && p.view !== "drill")) return state;
  return { ...state, page: { ...p, ui: fn(p.ui, action) } };
};
export const reducers = {
  practiceHold: onPractice((ui, { held }) => ({ ...ui, held: held.slice() })),
  practiceBusy: onPractice((ui) => ({ ...ui, busy: true, error: null })),
  practiceFailed: onPractice((ui, { error }) => ({ ...ui, busy: false, error })),
  practiceResult: onPractice((ui, { result }) => ({ ...ui, busy: false, result })),
};

export const view = {
  reducers: {
    ...reducers,
    /** A new puzzle for the practice view (「下一题」 or another theme). */
    practicePuzzle(state, { serial, next, theme }) {
      const page = state.page;
      if (!page || page.serial !== serial) return state;
      return { ...state, page: { ...page, data: { ...page.data, next }, ui: { theme } } };
    },
    /** The themes' and marks' names asked again in a new language. */
    practiceThemes(state, { serial, themes }) {
      const page = state.page;
      if (!page || page.serial !== serial) return state;
      return { ...state, page: { ...page, data: { ...page.data, themes } } };
    },
  },
  render(body, page, ctx) {
    const lang = language();
    if (page.data.themes.lang !== lang && body.dataset.asked !== `${page.serial} ${lang}`) {
      body.dataset.asked = `${page.serial} ${lang}`;
      themesNow().then((themes) => ctx.dispatch({ type: "practiceThemes", serial: page.serial, themes }), (err) => console.warn(err));
    }
    // Drawn again whenever the puzzle, the view's own state or the language changes (a few
    // dozen elements: cheaper than keeping them in step by hand).
    const key = JSON.stringify([page.data.next.puzzle.id, page.ui, lang, page.data.themes.lang]);
    if (body.dataset.drawn === key) return;
    body.dataset.drawn = key;
    draw(body, page, ctx);
  },
};
