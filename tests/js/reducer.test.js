// The page's reducer (src/yahtzee/static/js/reducer.js) is pure: these run it in Node, with
// no browser. `node --test tests/js/` (run by `make test`).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

// The page reads the game's names and limits from a JSON block the server embeds in
// index.html (config.js). Here that block is tests/js/config.json, which a Python test
// (tests/api/test_page_config_fixture.py) keeps equal to the server's page_config().
const CONFIG_TEXT = readFileSync(new URL("./config.json", import.meta.url), "utf-8");
globalThis.document = {
  // (solo.js brings the confirmation dialog, which wires its buttons when loaded.)
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : { addEventListener() {} }),
};
const { W } = await import("./words.js");

const { meterSaid, meterText } = await import("../../src/yahtzee/static/js/messages.js");
const { hintDetail, hintSaid, hinted, hintedShort } = await import(
  "../../src/yahtzee/static/js/lazy/hint_messages.js"
);
const { reduce } = await import("../../src/yahtzee/static/js/reducer.js");
const { initialState } = await import("../../src/yahtzee/static/js/state.js");
const say = await import("../../src/yahtzee/static/js/messages.js");

const CATS = [
  "ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind",
  "full_house", "small_straight", "large_straight", "yahtzee", "chance",
];

function seat(kind = "human", total = 0) {
  const scores = Object.fromEntries(CATS.map((c) => [c, null]));
  return { kind, name: null, difficulty: null, scores, upper_subtotal: 0, upper_bonus: 0, lower_total: 0, yahtzee_bonus: 0, total, hints_left: 3 };
}

function game(over = {}) {
  return {
    id: "g1", version: 1, mode: "solo", kind: "solo", difficulty: null, status: "in_progress", round: 1,
    turn: 0, dice: null, rolls_left: 3, hints_left: 3, seats: [seat()], preview: null,
    computer_turns: [], turns: [], result: null, new_record: false, ...over,
  };
}

/** Fold `actions` over `state`, checking on the way that no state is ever mutated. */
function run(state, ...actions) {
  for (const action of actions) {
    const frozen = JSON.stringify(state);
    const next = reduce(state, action);
    assert.equal(JSON.stringify(state), frozen, `${action.type} mutated its input`);
    state = next;
  }
  return state;
}

test("an unknown action is a programming error", () => {
  assert.throws(() => reduce(initialState(), { type: "nope" }), /unknown action nope/);
});

test("navigate remembers where the player came from (the rules page's 返回)", () => {
  const s = run(initialState(), { type: "navigate", view: "game" }, { type: "navigate", view: "rules" });
  assert.equal(s.view, "rules");
  assert.equal(s.previousView, "game");
  assert.equal(reduce(s, { type: "navigate", view: "rules" }), s, "no change, same object");
});

test("P3: each message carries its view and a fresh serial", () => {
  const a = run(initialState(), { type: "say", text: "你好" });
  const b = run(a, { type: "say", text: "你好", kind: "error", view: "lobby" });
  assert.deepEqual(a.message, { text: "你好", kind: "info", view: "game", serial: 1 });
  assert.deepEqual(b.message, { text: "你好", kind: "error", view: "lobby", serial: 2 });
});

/** What the board says of a hint's answer (board.js: `say` with the hint's words). */
const hintMessage = (res) => {
  const w = hintSaid(res);
  return run(initialState(), { type: "say", text: w.text, short: w.short, detail: w.detail }).message;
};

test("a hint: the dice to keep or a box, and a gap that adds up as shown (P2)", () => {
  const g = game({ dice: [5, 5, 2, 3, 5], rolls_left: 2, hints_left: 2 });
  const res = {
    hold: [true, true, false, false, true], category: null, value: 241.84,
    alternative: { hold: [true, true, false, false, false], category: null, value: 239.66 }, game: g,
  };
  const s = { message: hintMessage(res) };
  // L15: two short sentences (what to do; how much better on average), the full figures
  // one tap away (the message's detail).
  assert.equal(s.message.text, "提示：保留金色标出的 5、5、5，再掷其余的（还剩 2 次提示）。这样平均比次好的做法多得 2.1 分。");
  assert.equal(s.message.detail, "预计终局：照提示做 241.8 分；次好的是保留 5、5 再掷，239.7 分（少 2.1 分）。");
  assert.equal(s.message.text.split("。").filter(Boolean).length, 2);
  const boxHint = { message: hintMessage({ hold: null, category: "chance", value: null, alternative: null, game: g }) };
  assert.equal(boxHint.message.text, "提示：登记在金色标出的「机会」（还剩 2 次提示）。");
  // Whatever the values, the sentence's numbers add up as printed.
  for (const [a, b] of [[10.05, 10.04], [241.84, 239.66], [199.95, 197.04], [3.26, 0.14]]) {
    const r = { ...res, value: a, alternative: { ...res.alternative, value: b } };
    const text = hintDetail(r);
    const [, best, alt, gap] = text.match(/照提示做 ([\d.]+) 分.*，([\d.]+) 分（少 ([\d.]+) 分）/);
    assert.equal((Number(best) - Number(alt)).toFixed(1), gap, text);
    const said = hinted(r).match(/多得 ([\d.]+) 分/);
    if (said) assert.equal(said[1], gap, hinted(r));
  }
});

test("P1: a hint has phone words — the same figures, shorter, adding up as shown", () => {
  const g = game({ dice: [1, 2, 3, 4, 6], rolls_left: 2, hints_left: 2 });
  const res = {
    hold: [true, true, true, true, false], category: null, value: 253.94,
    alternative: { hold: [false, true, true, true, true], category: null, value: 251.81 }, game: g,
  };
  const s = { message: hintMessage(res) };
  assert.equal(s.message.text, hinted(res));
  assert.equal(
    s.message.short,
    "提示（剩 2 次）：留 1、2、3、4 再掷。平均多得 2.1 分。",
  );
  // Every phone wording is at most three quarters of the full one.
  const box = { hold: null, category: "large_straight", value: 40.5,
    alternative: { hold: null, category: "small_straight", value: 38.25 }, game: g };
  const all = { hold: [false, false, false, false, false], category: null, value: 12.5,
    alternative: { hold: [true, false, false, false, false], category: null, value: 12.4 }, game: g };
  for (const r of [res, box, all]) {
    assert.ok(hintedShort(r).length <= hinted(r).length * 0.75, hintedShort(r));
  }
  assert.equal(hintedShort(box), "提示（剩 2 次）：记「大顺」。平均多得 2.2 分。");
  assert.equal(hintedShort({ ...box, value: null, alternative: null }), "提示（剩 2 次）：记「大顺」。");
  for (const [a, b] of [[10.05, 10.04], [241.84, 239.66], [199.95, 197.04], [3.26, 0.14]]) {
    const r = { ...res, value: a, alternative: { ...res.alternative, value: b } };
    const gap = hintDetail(r).match(/少 ([\d.]+) 分/)[1];
    const said = hintedShort(r).match(/多得 ([\d.]+) 分/);
    if (said) assert.equal(said[1], gap, hintedShort(r));
  }
  // Other messages have one wording.
  assert.equal(run(initialState(), { type: "say", text: "你好" }).message.short, undefined);
});

test("L4: the meter's words — figures in fixed boxes, said once a turn", () => {
  assert.deepEqual(meterText(null, false), {
    expected: { before: "预计终局 ", num: "—", after: "" },
  });
  const m = { expected_final: 248.26, win_probability: 0.6249 };
  assert.deepEqual(meterText(m, true), {
    expected: { before: "预计终局 ", num: "248.3", after: "" },
    chance: { before: "胜率 ", num: "62%", after: "" },
  });
  assert.equal(meterText(null, true).chance.num, "—");
  assert.equal(meterSaid(m), "胜率 62%。");
  assert.equal(meterSaid({ ...m, win_probability: null }), "预计终局 248.3 分。");
});

test("records: the saved game to continue is the in-progress one only", () => {
  const records = { best_score: 200, wins: 1, losses: 0, draws: 0, recent: [], current_game: game() };
  assert.equal(run(initialState(), { type: "records", records }).saved.id, "g1");
  const none = { ...records, current_game: null };
  assert.equal(run(initialState(), { type: "records", records: none }).saved, null);
});

test("the store renders once per animation frame, then runs what waited for it", async () => {
  const { createStore } = await import("../../src/yahtzee/static/js/store.js");
  const frames = [];
  globalThis.requestAnimationFrame = (fn) => frames.push(fn);
  globalThis.cancelAnimationFrame = () => {};
  const renders = [];
  const store = createStore(reduce, initialState(), {
    render: (s) => renders.push(s.message.serial),
  });
  store.dispatch({ type: "say", text: "一" });
  store.dispatch({ type: "say", text: "二" });
  let after = null;
  store.afterRender(() => (after = renders.length));
  store.dispatch({ type: "say", text: "三" });
  assert.equal(frames.length, 1, "one frame requested for three actions");
  assert.deepEqual(renders, []);
  frames.shift()();
  assert.deepEqual(renders, [3], "one render, of the latest state");
  assert.equal(after, 1);
  store.dispatch({ type: "navigate", view: "lobby" }); // no change: nothing to render
  assert.equal(frames.length, 0);
});

test("F2: lobbyReady flips only on change, and only for this lobby visit", () => {
  const visit = run(initialState(), { type: "lobbyVisit" });
  assert.equal(visit.lobbyReady, false);
  const s = run(visit, { type: "lobbyReady", visit: visit.lobbyVisit });
  assert.equal(s.lobbyReady, true);
  assert.equal(reduce(s, { type: "lobbyReady", visit: visit.lobbyVisit }), s);
  // The records of an earlier visit came back late: the buttons still wait.
  const again = run(s, { type: "lobbyVisit" });
  assert.equal(run(again, { type: "lobbyReady", visit: visit.lobbyVisit }).lobbyReady, false);
});

test("mode and level names come from /api/config, as catalog keys (the page copies none)", async () => {
  const { kindName: modeName, savedName } = await import("../../src/yahtzee/static/js/messages.js");
  const { WORDS } = await import("../../src/yahtzee/static/js/solo.js");
  const config = JSON.parse(CONFIG_TEXT);
  const vs = W[config.modes.vs_computer];
  const level = W[config.difficulties.find((d) => d.id === "intermediate").name_key];
  assert.equal(modeName("solo", null), W[config.modes.solo]);
  assert.equal(modeName("vs_computer", "intermediate"), `${vs} · ${level}`);
  assert.equal(savedName(game({ mode: "vs_computer", kind: "vs_computer", difficulty: "intermediate", round: 5 })), `${vs}（${level}），第 5 回合`);
  assert.ok(WORDS.started("solo").startsWith(W[config.modes.solo]));
});

test("K2: a game is named by its kind, from /api/config: 每日挑战 and 好友房间 are no 单人挑战 or 多人同屏", async () => {
  const { kindName, savedName, savedSummary } = await import("../../src/yahtzee/static/js/messages.js");
  const config = JSON.parse(CONFIG_TEXT);
  assert.equal(kindName("daily", null), W[config.kinds.daily]);
  assert.equal(kindName("room", null), W[config.kinds.room]);
  assert.notEqual(kindName("daily", null), W[config.modes.solo]);
  assert.notEqual(kindName("room", null), W[config.modes.table]);
  const level = W[config.difficulties.find((d) => d.id === "expert").name_key];
  assert.equal(kindName("vs_computer", "expert"), `${W[config.modes.vs_computer]} · ${level}`);
  assert.equal(savedName(game({ mode: "solo", kind: "daily", round: 3 })), `${W[config.kinds.daily]}，第 3 回合`);
  assert.ok(savedSummary(game({ mode: "solo", kind: "daily", round: 2 }), 13).includes(W[config.kinds.daily]));
  // A game of one person says every seat's total; one of several people, its kind and round.
  const vsGame = game({ kind: "vs_computer", difficulty: "novice", round: 2, seats: [seat("human", 12), seat("computer", 30)] });
  assert.match(savedSummary(vsGame, 13), /，你 12 分，电脑 30 分。$/);
  const table = game({ kind: "table", round: 3, seats: [seat(), seat()] });
  assert.equal(savedSummary(table, 13), `有一局没打完：${W[config.kinds.table]}，第\u00a03\u00a0/\u00a013\u00a0回合。`);
});
