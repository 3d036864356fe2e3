// A hint's words (U4, L15): the part of the messages catalog (messages.js) that a hint
// needs, loaded with the hint's answer (board/board.js) rather than with the page, so that
// the first load stays within P6's 40 KB. Its words are the catalog's `hint` chunk, which
// this module loads in the page's language before the hint is said (a top-level await).

import { load, t, tn } from "../i18n.js";
import { keptFaces } from "../messages.js";
import { CATEGORY_NAMES } from "../state.js";

await load("hint");

const list = (dice) => dice.join(t("core.list_sep"));
const box = (category) => CATEGORY_NAMES[category] || category;

/** A hint's figures as shown: the expected final scores (the points on the card plus the
 * advice's values, rounded to 0.1) and the alternative's gap, computed from the shown values
 * (P2: the sentence adds up). */
function hintFigures(res) {
  const card = res.game ? res.game.seats[res.game.turn].total : 0;
  const shown = (v) => Math.round((card + v) * 10) / 10;
  const best = shown(res.value);
  const alt = res.alternative ? shown(res.alternative.value) : null;
  return {
    best: best.toFixed(1),
    alt: alt === null ? null : alt.toFixed(1),
    gap: alt === null ? null : (best - alt).toFixed(1),
  };
}

/** What a hint says to do, in the table's words ("保留金色标出的 5、5，再掷其余的"). */
function hintWhat(res) {
  if (res.hold) {
    const kept = keptFaces(res.hold, res.game.dice);
    return kept.length ? t("hint.what.hold", { dice: list(kept) }) : t("hint.what.reroll_all");
  }
  return t("hint.what.score", { box: box(res.category) });
}

/** The hint's second sentence: how much better on average than the next best, from the
 * figures as shown (P2: it adds up with the detail's figures). */
function hintGain(f) {
  if (f.gap === null) return "";
  return Number(f.gap) > 0 ? t("hint.gain", { gap: f.gap }) : t("hint.gain_none");
}

/** A hint in two short sentences (L15): what to do, then how much better on average. The
 * full figures (expected final scores) are one tap away: `hintDetail`. */
function hinted(res) {
  const left = res.game.hints_left;
  const text = tn("hint.said", left, { what: hintWhat(res), left });
  if (typeof res.value !== "number") return text;
  return text + hintGain(hintFigures(res));
}

/** The hint's full figures, shown on a tap under the message: the expected final score of
 * the advice and of the next best choice (the points on the card plus the advice's values,
 * to 0.1), and their gap. */
function hintDetail(res) {
  if (typeof res.value !== "number") return null;
  const f = hintFigures(res);
  const alt = res.alternative;
  if (!alt) return t("hint.detail", { best: f.best });
  let what;
  if (alt.category) what = t("hint.detail.score", { box: box(alt.category) });
  else {
    const kept = keptFaces(alt.hold, res.game.dice);
    what = kept.length ? t("hint.detail.hold", { dice: list(kept) }) : t("hint.what.reroll_all");
  }
  return t("hint.detail_alt", { best: f.best, what, alt: f.alt, gap: f.gap });
}

/** The same hint in phone words: the same two sentences, shorter, so that it fits the
 * phone table's three-line message without scrolling or cutting. */
function hintedShort(res) {
  const left = res.game.hints_left;
  const keep = (hold) => {
    const kept = keptFaces(hold, res.game.dice);
    return kept.length ? t("hint.short.hold", { dice: list(kept) }) : t("hint.what.reroll_all");
  };
  const what = res.hold ? keep(res.hold) : t("hint.short.score", { box: box(res.category) });
  const text = tn("hint.short.said", left, { what, left });
  if (typeof res.value !== "number") return text;
  const f = hintFigures(res);
  if (f.gap === null) return text;
  return text + (Number(f.gap) > 0 ? t("hint.short.gain", { gap: f.gap }) : t("hint.short.gain_none"));
}

/** What the table says of a hint: `text` (two short sentences), `short` (the phone's
 * wording of the same) and `detail` (the full figures, one tap away; null without them). */
export function hintSaid(res) {
  return { text: hinted(res), short: hintedShort(res), detail: hintDetail(res) };
}

export { hintDetail, hinted, hintedShort };
