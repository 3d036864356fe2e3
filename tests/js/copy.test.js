// U18: what the catalogs say, scanned as the player reads it. Every exported sentence of
// the page's catalogs (messages.js and the lazy ones) is produced — each function called
// with sample figures — and checked: a space between a number and Chinese text wherever
// the copy joins them (「三个 2 的机会」, never 「2的机会」), and no run of 「?」. A date
// (「5月3日」) is one word, as Chinese writes it. `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const CONFIG_TEXT = readFileSync(new URL("./config.json", import.meta.url), "utf-8");
globalThis.document = {
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : null),
};
const { W } = await import("./words.js"); // (the names /api/config gives as keys, in zh-Hans)
const JS = "../../src/yahtzee/static/js/";
const CATALOGS = {
  "messages.js": await import(`${JS}messages.js`),
  "lazy/hint_messages.js": await import(`${JS}lazy/hint_messages.js`),
  "lazy/glossary.js": await import(`${JS}lazy/glossary.js`),
};

// Sample figures: single and several digits, so a figure at either end of a join shows.
const N = [0, 1, 2, 6, 12, 35, 63, 100, 254];
const dice = [2, 2, 2, 5, 6];
const hold = [true, true, true, false, false];
const card = (total, kind = "human") => ({ kind, total, scores: {}, upper_subtotal: 12 });
const game = (round, rollsLeft, extra = {}) => ({
  id: "g",
  turn: 0,
  mode: "solo",
  kind: "solo",
  difficulty: null,
  round,
  rolls_left: rollsLeft,
  dice,
  hints_left: 2,
  result: "solo",
  new_record: true,
  seats: [card(round * 10)],
  ...extra,
});
// A turn replayed: a seat's first roll, a reroll keeping three dice, its box.
const steps = [
  { seat: 1, action: "roll", dice, hold: null },
  { seat: 1, action: "roll", dice, hold },
  { seat: 1, action: "score", dice, category: "twos", points: 6 },
];
const hint = (value, alternative) => ({ hold, category: null, value, alternative, game: game(3, 2) });

/** Each function of a catalog and the calls that produce its sentences (each a list of
 * arguments); a function missing here fails the test, so a new sentence is scanned too. */
const CALLS = {
  "messages.js": {
    // (a sentence said as it is: no figures)
    you: [[]],
    noHintsLeft: [[]],
    rollFirst: [[]],
    zeroCancelled: [[]],
    tutorialFailed: [[]],
    gameGone: [[]],
    gameNotFound: [[]],
    pageResynced: [[]],
    offlineNotSent: [[]],
    backSame: [[]],
    backChanged: [[]],
    movedOn: [[]],
    backOnlineLobby: [[]],
    restarted: [[]],
    review: [[]],
    computer: [[]],
    forbiddenTitle: [[]],
    progressName: [[]],
    levelOpen: [[]],
    dailyStarted: [[]],
    noDailyHints: [[]],
    restart: [[]],
    detailSummary: [[]],
    points: N.map((n) => [n]),
    rolled: N.slice(0, 4).map((n) => [game(1, n % 3)]).concat([[game(1, 2), "电脑3（普通）"]]),
    scored: N.map((n) => [dice, "twos", n]).concat(N.map((n) => [dice, "twos", n, "甲"])),
    describeStep: [
      [steps, 0, "你"],
      [steps, 1, "电脑（普通）"],
      [[steps[0], { ...steps[1], hold: [false, false, false, false, false] }], 1, "甲"],
      [steps, 2, "甲"],
    ],
    othersDone: N.map((n) => [[["甲", { category: "twos", points: n }], ["电脑2（普通）", { category: "sixes", points: n }]], "轮到你了。"]).concat([[[], "轮到 乙 了。"]]),
    turnNow: [["你"], ["甲"]],
    gameOver: [[game(13, 0)], [game(13, 0, { result: "win", mode: "vs_computer", seats: [card(254), card(12)], ranking: N.slice(0, 2).map((n, i) => ({ seat: i, total: n })) }), (i) => ["你", "电脑2（普通）"][i]]],
    keptFaces: [[hold, dice]],
    meterText: [[{ expected_final: 241.8, win_probability: 0.62 }, true], [null, false]],
    meterSaid: [[{ expected_final: 241.8, win_probability: 0.62 }], [{ expected_final: 2, win_probability: null }]],
    busyRetrying: N.map((n) => [n]),
    startedSolo: [["单人挑战"]],
    startedVsComputer: [["人机对战"]],
    startedTutorial: [["新手教程"]],
    continued: N.slice(1).map((n) => [game(n, 2, { dice: n % 2 ? null : dice })]),
    savedName: N.slice(1).map((n) => [game(n, 2, { kind: "vs_computer", difficulty: "novice" })]),
    confirmAbandon: [["有一局没下完。"]],
    abandonSaved: N.slice(1).map((n) => [game(n, 2, { kind: "daily" })]),
    confirmRestart: N.slice(1).map((n) => [game(n, 2)]),
    pickedBox: N.map((n) => ["twos", n]),
    confirmZero: [["twos", true], ["twos", false]],
    reviewLabel: [["单人挑战", "12 分"]],
    kindName: [["daily"], ["room"], ["vs_computer", "intermediate"]],
    computerName: [["普通"], ["高手", 3]],
    savedSummary: N.slice(1).map((n) => [game(n, 2, { kind: "vs_computer", difficulty: "novice", seats: [card(n), card(n + 1, "computer")] }), 13]).concat([[{ seats: [] }, 13]]),
    recentScore: N.map((n) => [{ mode: "vs_computer", human_total: n, computer_total: n + 1 }]).concat(N.map((n) => [{ seats: 4, place: 2, human_total: n }])),
    shortDate: [[new Date(2026, 4, 3, 9, 5)]],
    dieTag: [[true, false], [false, true], [false, false]],
    dieLabel: N.slice(0, 5).map((i) => [i, 6, false, true]).concat([[0, null, false, false]]),
    boxLabel: [
      ["二点", "filled", 6, false],
      ["二点", "forbidden", { points: 6 }, false],
      ["二点", "preview", { points: 6, yahtzee_bonus: 100, upper_bonus: 35 }, true],
      ["二点", "open", null, false],
    ],
    upperBonusTag: [[35]],
    upperProgress: [[42, 63, false, 70], [70, 63, true, 70], [12, 63, false, 40]].flatMap((a) => [a, [...a, true]]),
    hintButton: [[3]],
    hintTitle: [[0, true, 3], [2, true, 3], [2, false, 3]],
    roundLabel: N.slice(1).map((n) => [n, 13]),
    rollsLabel: [[{ kind: "computer" }, false, 2], [{ kind: "human" }, false, 2], [null, true, 0], [null, false, 2]],
    rollButton: [[true], [false]],
    BANNER: { replay: [["电脑2（普通）"]], turn: [["你"], ["甲"]] },
    HELP: { wait: [["甲"]] },
    BOARD: { confirmLabel: [["二点"]], termQuestion: [["预计终局"]], termWords: [[{ term: "上区奖励", text: "一点到六点满 63 分奖励 35 分。" }]] },
    skipWords: [[true], [false]],
    standingLabel: N.map((n) => ["电脑3（普通）", n, "62%", true]).concat([["甲", 0, null, false]]),
    replayLogTitle: N.slice(1).map((n) => ["甲", n]).concat([[null, 3]]),
    undone: [["twos", "你", 2], ["twos", "电脑2（普通）", 0]],
    undoLabel: [["twos", "你"], ["twos", "甲"]],
    turnRound: N.slice(1).map((n) => [n]),
    turnBox: [["twos"]],
    turnPoints: N.map((n) => [{ points: n, yahtzee_bonus: n ? 100 : 0 }]),
    resultTitle: [["win"], ["loss"], ["draw"], ["gone"]],
    resultTitleAlone: [[254], [0]],
  },
  "lazy/hint_messages.js": {
    hintSaid: [[hint(12.5, { hold, value: 10.2 })], [hint(12.5, { category: "chance", value: 12.5 })], [{ ...hint(null, null), hold: null, category: "twos" }]],
    hintDetail: [[hint(12.5, { category: "twos", value: 11 })]],
    hinted: [[hint(12.5, null)]],
    hintedShort: [[hint(12.5, { hold: [false, false, false, false, false], value: 10 })]],
  },
  "lazy/glossary.js": {
    glossaryId: [["预计终局"]],
    boxWords: JSON.parse(CONFIG_TEXT).categories.map((c) => [c.id, W[c.name_key]]).concat(["upper_subtotal", "upper_bonus", "yahtzee_bonus", "total"].map((id) => [id, "上区小计"])),
    termQuestion: [["expected_final"], ["settling"]],
    verdict: N.map((n) => [n + 0.5]).concat(N.map((n) => [n, true])),
  },
};

/** Every string in a value (an object's, an array's, a function's from CALLS). */
function strings(value, calls, where, out) {
  if (typeof value === "string") out.push([where, value]);
  else if (typeof value === "function") {
    assert.ok(calls, `${where}: a function with no sample calls (add it to CALLS)`);
    for (const args of calls) strings(value(...args), null, `${where}(${JSON.stringify(args).slice(0, 60)})`, out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      strings(v, typeof v === "function" ? (calls || {})[k] : calls && calls[k], `${where}.${k}`, out);
    }
  }
  return out;
}

function said() {
  const out = [];
  for (const [file, module] of Object.entries(CATALOGS)) {
    for (const [name, value] of Object.entries(module)) {
      if (name === "overlay") continue; // a lazy overlay's hooks, no copy
      const calls = CALLS[file][name];
      if (typeof value === "function") assert.ok(calls, `${file} ${name}: add its sample calls to CALLS`);
      strings(value, typeof value === "function" ? calls : calls || null, `${file} ${name}`, out);
    }
  }
  return out;
}

const HAN = "\\p{Script=Han}";
const JOINED = new RegExp(`\\d${HAN}|${HAN}\\d`, "u");
const DATE = new RegExp(`\\d+月\\d+日`, "gu");
// A computer's seat name is one word too (U13: 「电脑3（普通）」, its seat's number).
const SEAT = /电脑\d+/gu;

test("U18: a number and Chinese text are never run together in what the catalogs say", () => {
  const sentences = said();
  assert.ok(sentences.length > 300, `only ${sentences.length} sentences produced`);
  const joined = sentences.filter(([, s]) => JOINED.test(s.replace(DATE, "D").replace(SEAT, "S")));
  assert.deepEqual(joined, []);
});

test("U18: no run of 「?」 (a 「?」 stands after its own word)", () => {
  const runs = said().filter(([, s]) => /[?？]{2,}/.test(s));
  assert.deepEqual(runs, []);
});

test("the scan sees a number run into Chinese text (it cannot pass vacuously)", () => {
  assert.ok(JOINED.test("至少三个 2的机会"));
  assert.ok(JOINED.test("+35奖"));
  assert.ok(!JOINED.test("至少三个 2 的机会".replace(DATE, "D")));
  assert.ok(!JOINED.test("5月3日 09:05 得 12 分".replace(DATE, "D")));
  assert.ok(!JOINED.test("电脑3（普通）得 12 分".replace(SEAT, "S")));
  assert.ok(JOINED.test("电脑3（普通）得12分".replace(SEAT, "S")));
});
