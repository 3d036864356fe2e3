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
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : null),
};
const { W } = await import("./words.js");

const { describeStep, meterSaid, meterText } = await import(
  "../../src/yahtzee/static/js/messages.js"
);
const { hintDetail, hintSaid, hinted, hintedShort } = await import(
  "../../src/yahtzee/static/js/lazy/hint_messages.js"
);
const { reduce } = await import("../../src/yahtzee/static/js/reducer.js");
const { initialState, ownUndo } = await import("../../src/yahtzee/static/js/state.js");
const say = await import("../../src/yahtzee/static/js/messages.js");

const CATS = [
  "ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind",
  "full_house", "small_straight", "large_straight", "yahtzee", "chance",
];

function card(filled = {}) {
  const boxes = Object.fromEntries(CATS.map((c) => [c, c in filled ? filled[c] : null]));
  const total = Object.values(filled).reduce((a, b) => a + b, 0);
  return { boxes, upper_subtotal: 0, upper_bonus: 0, lower_total: 0, yahtzee_bonus: 0, total };
}

function game(over = {}) {
  return {
    id: "g1", version: 1, mode: "solo", difficulty: null, status: "in_progress", round: 1,
    current_player: "human", dice: null, rolls_left: 3, hints_left: 3,
    players: { human: card() }, preview: null, computer_turn: null, turns: [],
    result: null, new_record: false, ...over,
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

const inGame = (g = game()) => run(initialState(), { type: "enterGame", game: g });

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

test("rolled keeps the holds, marks the thrown dice and clears the hint", () => {
  const g = game({ dice: [2, 2, 5, 6, 1], rolls_left: 1 });
  const before = { ...inGame(), hintHold: [true, true, false, false, false], hintCategory: null };
  const s = run(before, { type: "rolled", game: g, hold: [true, true, false, false, false] });
  assert.deepEqual(s.rolledMask, [false, false, true, true, true]);
  assert.deepEqual(s.hold, [true, true, false, false, false]);
  assert.equal(s.hintHold, null);
  assert.equal(s.rollSerial, before.rollSerial + 1);
  assert.equal(s.message.text, "你掷出了 2、2、5、6、1。还能再掷 1 次。");
});

test("toggleHold only while the player may act and rolls remain", () => {
  const rolled = run(inGame(), { type: "rolled", game: game({ dice: [1, 2, 3, 4, 5], rolls_left: 2 }), hold: [false, false, false, false, false] });
  const held = run(rolled, { type: "toggleHold", index: 3 });
  assert.deepEqual(held.hold, [false, false, false, true, false]);
  assert.deepEqual(run(held, { type: "toggleHold", index: 3 }).hold, [false, false, false, false, false]);
  const busy = run(rolled, { type: "busy", busy: true });
  assert.equal(reduce(busy, { type: "toggleHold", index: 0 }), busy);
  const locked = run(inGame(), { type: "rolled", game: game({ dice: [1, 2, 3, 4, 5], rolls_left: 0 }), hold: [false, false, false, false, false] });
  assert.equal(reduce(locked, { type: "toggleHold", index: 0 }), locked);
});

test("scored in solo says the box and, at the end, opens the end panel", () => {
  const before = game({ dice: [6, 6, 6, 1, 2], rolls_left: 2 });
  const after = game({ round: 2, players: { human: card({ three_of_a_kind: 21 }) } });
  const s = run(inGame(before), { type: "scored", before, game: after, category: "three_of_a_kind" });
  assert.equal(s.message.text, "你把 6、6、6、1、2 登记在「三条」，得 21 分。");
  assert.equal(s.showGameOver, false);
  assert.deepEqual(s.lastDice, [6, 6, 6, 1, 2]);
  const last = game({ status: "finished", result: "solo", new_record: true, players: { human: card({ chance: 300 }) } });
  const end = run(inGame(before), { type: "scored", before, game: last, category: "chance" });
  assert.equal(end.showGameOver, true);
  assert.equal(end.message.text, "游戏结束，总分 300。新纪录！");
});

test("U7: a vs game never says 新纪录", () => {
  const before = game({ mode: "vs_computer", dice: [1, 1, 1, 1, 1] });
  const vs = game({
    mode: "vs_computer", status: "finished", result: "loss", new_record: true,
    players: { human: card({ yahtzee: 50 }), computer: card({ chance: 90 }) },
  });
  const s = run(inGame(before), { type: "scored", before, game: vs, category: "yahtzee" });
  assert.equal(s.message.text, "游戏结束：你 50 分，电脑 90 分。");
});

test("vs: the computer's turn is replayed step by step, then the turn ends", () => {
  const steps = [
    { action: "roll", hold: [false, false, false, false, false], dice: [2, 2, 5, 6, 2] },
    { action: "roll", hold: [true, true, false, false, true], dice: [2, 2, 2, 1, 2] },
    { action: "score", category: "twos", points: 8, dice: [2, 2, 2, 1, 2] },
  ];
  const turn = { round: 1, steps };
  const before = game({ mode: "vs_computer", dice: [3, 3, 3, 4, 5] });
  const after = game({ mode: "vs_computer", round: 2, computer_turn: turn });
  let s = run(inGame(before), { type: "scored", before, game: after, category: "threes" });
  assert.deepEqual(s.lastDice, [2, 2, 2, 1, 2], "the computer's last dice stay on the table");
  s = run(s, { type: "replayStart", before, turn });
  assert.equal(s.replay.index, 0);
  assert.equal(s.message.text, "电脑掷出 2、2、5、6、2。");
  s = run(s, { type: "replayStep" });
  assert.equal(s.message.text, "电脑保留 2、2、2，再掷得到 2、2、2、1、2。");
  s = run(s, { type: "replayStep" }, { type: "replayStep" });
  assert.equal(s.replay.index, 2, "never past the last step");
  s = run(s, { type: "replayEnd" });
  assert.equal(s.replay, null);
  assert.equal(s.message.text, "电脑这回合在「二点」得 8 分，轮到你了。");
});

test("skipping a replay says what the computer scored at once", () => {
  const steps = [
    { action: "roll", hold: [false, false, false, false, false], dice: [6, 6, 6, 6, 1] },
    { action: "score", category: "sixes", points: 24, dice: [6, 6, 6, 6, 1] },
  ];
  let s = run(inGame(), { type: "replayStart", before: game(), turn: { round: 3, steps } });
  s = run(s, { type: "replayEnd" });
  assert.equal(s.message.text, "电脑这回合在「六点」得 24 分，轮到你了。");
  assert.equal(s.replay, null);
});

const hintOf = (res) => ({ res, said: hintSaid(res) });

test("hinted: dice to keep (gold) or a box, and a gap that adds up as shown (P2)", () => {
  const g = game({ dice: [5, 5, 2, 3, 5], rolls_left: 2, hints_left: 2 });
  const res = {
    hold: [true, true, false, false, true], category: null, value: 241.84,
    alternative: { hold: [true, true, false, false, false], category: null, value: 239.66 }, game: g,
  };
  const s = run(inGame(), { type: "hinted", res, said: hintSaid(res) });
  assert.deepEqual(s.hintHold, [true, true, false, false, true]);
  assert.deepEqual(s.hold, s.hintHold);
  // L15: two short sentences (what to do; how much better on average), the full figures
  // one tap away (the message's detail).
  assert.equal(s.message.text, "提示：保留金色标出的 5、5、5，再掷其余的（还剩 2 次提示）。这样平均比次好的做法多得 2.1 分。");
  assert.equal(s.message.detail, "预计终局：照提示做 241.8 分；次好的是保留 5、5 再掷，239.7 分（少 2.1 分）。");
  assert.equal(s.message.text.split("。").filter(Boolean).length, 2);
  const boxHint = run(inGame(), { type: "hinted", ...hintOf({ hold: null, category: "chance", value: null, alternative: null, game: g }) });
  assert.equal(boxHint.hintCategory, "chance");
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
  const s = run(inGame(), { type: "hinted", res, said: hintSaid(res) });
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
  assert.equal(run(inGame(), { type: "say", text: "你好" }).message.short, undefined);
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
  assert.equal(meterSaid(m, { mode: "vs_computer" }), "胜率 62%。");
  assert.equal(meterSaid({ ...m, win_probability: null }, { mode: "solo" }), "预计终局 248.3 分。");
});

test("resync keeps this turn's holds, clears them when the turn changed", () => {
  const g = game({ dice: [1, 2, 3, 4, 5], rolls_left: 2 });
  const held = { ...inGame(g), hold: [true, false, false, false, false] };
  assert.deepEqual(run(held, { type: "resync", game: { ...g, version: 9 } }).hold, held.hold);
  const next = run(held, { type: "resync", game: game({ round: 2 }) });
  assert.deepEqual(next.hold, [false, false, false, false, false]);
});

test("U14: movedOn shows the game as it went on elsewhere, with one sentence in place of the old one", () => {
  const g = game({ dice: [1, 2, 3, 4, 5], rolls_left: 2 });
  const old = run(
    { ...inGame(g), hold: [true, true, false, false, false], hintCategory: "chance" },
    { type: "say", text: "继续上次的游戏：第 1 回合，请掷骰子。" },
  );
  const fresh = game({ id: "g1", version: 9, round: 3 });
  const s = run(old, { type: "movedOn", game: fresh, hold: null });
  assert.equal(s.game, fresh);
  assert.equal(s.message.text, say.MOVED_ON);
  assert.equal(s.message.kind, "info");
  assert.ok(s.message.serial > old.message.serial);
  assert.deepEqual(s.hold, [false, false, false, false, false]);
  assert.equal(s.hintCategory, null);
  assert.equal(s.replay, null);
  // the holds stored for the new position (another tab's) come with it
  const rolled = game({ version: 4, dice: [6, 6, 1, 2, 3], rolls_left: 1 });
  const held = run(old, { type: "movedOn", game: rolled, hold: [true, true, false, false, false] });
  assert.deepEqual(held.hold, [true, true, false, false, false]);
  const over = run(old, { type: "movedOn", game: game({ version: 50, status: "finished", result: "solo" }) });
  assert.equal(over.showGameOver, true);
});

test("U14: 撤销 only for the box this tab wrote, in the position its writing left", () => {
  const before = game({ dice: [6, 6, 6, 1, 2], rolls_left: 2, version: 3 });
  const undo = { seat: 0, category: "three_of_a_kind" };
  const after = game({ version: 4, round: 2, undo, players: { human: card({ three_of_a_kind: 21 }) } });
  const mine = run(inGame(before), { type: "scored", before, game: after, category: "three_of_a_kind" });
  assert.deepEqual(mine.wrote, { id: "g1", version: 4, category: "three_of_a_kind" });
  assert.equal(ownUndo(mine), undo);
  // Another tab wrote this box (this one only saw the game afterwards): no 撤销 here.
  const theirs = run(inGame(before), { type: "movedOn", game: after });
  assert.equal(theirs.wrote, null);
  assert.equal(ownUndo(theirs), null);
  // This tab's box, undone and written again elsewhere: the same box, a later position.
  const again = { ...after, version: 6 };
  assert.equal(ownUndo(run(mine, { type: "movedOn", game: again })), null);
  assert.equal(ownUndo({ ...mine, game: { ...after, undo: { seat: 0, category: "chance" } } }), null);
});

test("U14: a tap the network lost is dropped and said; the game read when the server answers", () => {
  const g = game({ dice: [1, 2, 3, 4, 5], rolls_left: 2, version: 5 });
  const s = run(inGame(g), { type: "offline", id: "g1", version: 5 });
  assert.deepEqual(s.offline, { id: "g1", version: 5 });
  assert.equal(s.message.text, say.OFFLINE_NOT_SENT);
  assert.equal(s.message.kind, "error");
  assert.doesNotMatch(s.message.text, /自动再送|正在送出/);
  // The same position: nothing was done, the player taps again.
  const same = run(s, { type: "reconnected", game: { ...g } });
  assert.equal(same.offline, null);
  assert.equal(same.message.text, say.BACK_SAME);
  assert.equal(same.message.kind, "info");
  // Another position (the lost tap arrived, or another tab played): shown, said.
  const moved = game({ dice: [6, 6, 6, 6, 6], rolls_left: 1, version: 6 });
  const changed = run(s, { type: "reconnected", game: moved });
  assert.equal(changed.game, moved);
  assert.equal(changed.message.text, say.BACK_CHANGED);
  // Nothing lost, or another game on the table by now: nothing said.
  assert.equal(run(inGame(g), { type: "reconnected", game: moved }).message.text, "");
  const other = run(s, { type: "reconnected", game: { ...moved, id: "g2" } });
  assert.equal(other.offline, null);
  assert.equal(other.game, g);
  assert.equal(run(s, { type: "offlineOver" }).offline, null);
  // Leaving the table (the lobby, the game gone) ends the wait: nothing to show again.
  assert.equal(run(s, { type: "leaveGame" }).offline, null);
  assert.equal(run(s, { type: "noGame" }).offline, null);
});

test("records: the saved game to continue is the in-progress one only", () => {
  const records = { best_score: 200, wins: 1, losses: 0, draws: 0, recent: [], current_game: game() };
  assert.equal(run(initialState(), { type: "records", records }).saved.id, "g1");
  const none = { ...records, current_game: null };
  assert.equal(run(initialState(), { type: "records", records: none }).saved, null);
});

test("enterGame starts clean; leaveGame and noGame drop the replay", () => {
  const dirty = { ...initialState(), hold: [true, true, true, true, false], replay: { index: 1 }, saved: game() };
  const s = run(dirty, { type: "enterGame", game: game() });
  assert.deepEqual(s.hold, [false, false, false, false, false]);
  assert.equal(s.replay, null);
  assert.equal(s.saved, null);
  assert.equal(run(dirty, { type: "leaveGame" }).replay, null);
  assert.equal(run(dirty, { type: "noGame" }).game, null);
  assert.equal(run(dirty, { type: "replayCancel" }).replay, null);
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

test("U6: entering a game restores the holds kept for it", () => {
  const g = game({ dice: [4, 4, 1, 2, 4], rolls_left: 1 });
  const s = run(initialState(), { type: "enterGame", game: g, hold: [true, true, false, false, true] });
  assert.deepEqual(s.hold, [true, true, false, false, true]);
  assert.deepEqual(run(initialState(), { type: "enterGame", game: g, hold: null }).hold, [false, false, false, false, false]);
});

test("mode and level names come from /api/config, as catalog keys (the page copies none)", async () => {
  const { modeName, savedName, started } = await import("../../src/yahtzee/static/js/messages.js");
  const config = JSON.parse(CONFIG_TEXT);
  const vs = W[config.modes.vs_computer];
  const level = W[config.difficulties.find((d) => d.id === "intermediate").name_key];
  assert.equal(modeName("solo", null), W[config.modes.solo]);
  assert.equal(modeName("vs_computer", "intermediate"), `${vs} · ${level}`);
  assert.equal(savedName(game({ mode: "vs_computer", difficulty: "intermediate", round: 5 })), `${vs}（${level}），第 5 回合`);
  assert.ok(started("solo").startsWith(W[config.modes.solo]));
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
});
