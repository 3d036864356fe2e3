// Words a child can read (L11, L13, L14): the glossary, the verdict beside 准确率, 定级中.
// Page copy like messages.js, kept apart from it because the first load does not need it
// (the 40 KB first-load budget, benchmarks/first_load.py): its words are the catalog's
// `glossary` chunk, which this module loads (in the page's language) before anything that
// imports it runs (a top-level await); the lazy views import it, and
// it is a lazy overlay (views.js OVERLAYS.words) that loads, with css/words.css, once the
// page is up. One source: the 规则 page lists GLOSSARY (lazy/rules.js), every 「?」 shows
// its words (lazy/dom.js `term`), the 写 0 dialog its entry (dialog.js). It is not in the
// server's config either: the server uses none of it, and the config is embedded in
// index.html (first load too).

import { CONFIG } from "../config.js";
import { load, onLanguage, t, tn } from "../i18n.js";
import { LIMITS } from "../state.js";

await load("glossary");

/** An entry whose words are said when read (getters: in the page's language now). */
const entry = (term, text, also = () => null) => ({
  get term() {
    return term();
  },
  get text() {
    return text();
  },
  get also() {
    return also();
  },
});

/** The glossary (L11): every term a number is shown with, in one or two short sentences a
 * child of 8–10 can read, with an example from the game. `also`: other words the page
 * shows for the same idea. */
export const GLOSSARY = {
  expected_final: entry(() => t("glossary.expected_final.term"), () => t("glossary.expected_final.text")),
  expected_value: entry(
    () => t("glossary.expected_value.term"),
    () => t("glossary.expected_value.text"),
    () => [t("glossary.expected_value.also")],
  ),
  luck: entry(() => t("glossary.luck.term"), () => t("glossary.luck.text")),
  skill_loss: entry(() => t("glossary.skill_loss.term"), () => t("glossary.skill_loss.text")),
  accuracy: entry(() => t("glossary.accuracy.term"), () => t("glossary.accuracy.text")),
  verdict: entry(() => t("glossary.verdict.term"), () => t("glossary.verdict.text"), () => [t("glossary.verdict.also")]),
  marks: entry(
    () => t("glossary.marks.term"),
    () => t("glossary.marks.text"),
    () => [t("glossary.marks.best"), t("glossary.marks.inaccuracy"), t("glossary.marks.mistake"), t("glossary.marks.blunder")],
  ),
  win_chance: entry(() => t("glossary.win_chance.term"), () => t("glossary.win_chance.text"), () => [t("glossary.win_chance.also")]),
  practice_rating: entry(() => t("glossary.practice_rating.term"), () => t("glossary.practice_rating.text")),
  difficulty: entry(() => t("glossary.difficulty.term"), () => t("glossary.difficulty.text")),
  settling: entry(() => t("glossary.settling.term"), () => t("glossary.settling.text")),
  autopilot: entry(() => t("glossary.autopilot.term"), () => t("glossary.autopilot.text")),
  group: entry(() => t("glossary.group.term"), () => t("glossary.group.text")),
  zero: entry(() => t("glossary.zero.term"), () => t("glossary.zero.text")),
};

// U19: what each box of the card needs and scores, and what each sum is, one tap away on
// the board's row names (board/draw.js); the numbers are /api/config's (the server's rules).
const BOX_RULES = {
  three_of_a_kind: (n) => t("glossary.box.three_of_a_kind", n),
  four_of_a_kind: (n) => t("glossary.box.four_of_a_kind", n),
  full_house: (n) => t("glossary.box.full_house", n),
  small_straight: (n) => t("glossary.box.small_straight", n),
  large_straight: (n) => t("glossary.box.large_straight", n),
  yahtzee: (n) => t("glossary.box.yahtzee", n),
  chance: (n) => t("glossary.box.chance", n),
  upper_subtotal: (n) => t("glossary.box.upper_subtotal", n),
  upper_bonus: (n) => t("glossary.box.upper_bonus", n),
  progress: (n) => t("glossary.box.progress", n),
  yahtzee_bonus: (n) => t("glossary.box.yahtzee_bonus", n),
  total: (n) => t("glossary.box.total", n),
};

/** The words of a row of the card (U19): box `id` (or a sum) named `name`. */
export function boxWords(id, name) {
  const c = CONFIG.categories.find((x) => x.id === id);
  const points = (box) => CONFIG.categories.find((x) => x.id === box).points;
  const numbers = { ...LIMITS, points: c ? c.points : null, yahtzee: points("yahtzee") };
  const rule = c && c.face ? t("glossary.box.upper", { ...numbers, face: c.face, three: 3 * c.face }) : BOX_RULES[id](numbers);
  return t("core.board.term_words", { term: name, text: rule });
}

/** The glossary id of a word the page shows (its term or one of its other words). */
export function glossaryId(word) {
  for (const [id, g] of Object.entries(GLOSSARY)) {
    if (g.term === word || (g.also || []).includes(word)) return id;
  }
  return null;
}

/** 「?」's label for a screen reader. */
export const termQuestion = (id) => t("core.board.term_question", { what: GLOSSARY[id].term });

/** Stars from the points a game lost by its choices (L13): 5 below 5 points, 4 below 15,
 * 3 below 30, 2 below 60, else 1. Read beside 准确率 (88.8% can be 61 points lost). Each
 * step's word is said when read. */
const VERDICT_STEPS = [
  [5, () => t("glossary.verdict.expert")],
  [15, () => t("glossary.verdict.great")],
  [30, () => t("glossary.verdict.good")],
  [60, () => t("glossary.verdict.practice")],
  [Infinity, () => t("glossary.verdict.review")],
];

/** The verdict of a game (or, `perGame`, a mean over games) that lost `loss` points by its
 * choices: {stars (1-5), word, short ("★★☆☆☆ 还要多练"), text (the sentence), label (what
 * a screen reader hears for the stars)}. The same everywhere it is shown (复盘, 统计, the
 * daily result, the boards). */
export function verdict(loss, perGame = false) {
  const i = VERDICT_STEPS.findIndex(([below]) => loss < below);
  const stars = 5 - i;
  const word = VERDICT_STEPS[i][1]();
  const drawn = "★".repeat(stars) + "☆".repeat(5 - stars);
  const points = Number(loss).toFixed(1);
  const text = perGame ? t("glossary.verdict.per_game", { word, points }) : t("glossary.verdict.game", { word, points });
  return { stars, word, short: `${drawn} ${word}`, text, label: tn("glossary.verdict.label", stars, { stars, word }) };
}

/** A rating still settling (L14: Glicko-2 deviation above the server's threshold): a live
 * binding, said again when the language changes (its importers read it when they draw). */
export let SETTLING = t("glossary.settling.term");
onLanguage(() => {
  SETTLING = t("glossary.settling.term");
});

/** As a lazy overlay (views.js): nothing to draw; loading it brings css/words.css. */
export const overlay = { render() {} };
