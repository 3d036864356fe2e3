// The one board's state (A1, board/state.js): one slice, `state.board`, for every mode's
// board, changed by pure named actions that name no mode; its selectors; the board's
// sentences (messages.js); and the modes' own pure parts (好友房间's events and turn log,
// 多人同屏's handover). `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const CONFIG_TEXT = readFileSync(new URL("./config.json", import.meta.url), "utf-8");
// (The modes' modules bring the confirmation dialog, which wires its buttons when loaded.)
globalThis.document = {
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : { addEventListener() {} }),
};
await import("./words.js"); // (the names /api/config gives as keys, in zh-Hans)

const JS = "../../src/yahtzee/static/js";
const B = await import(`${JS}/board/state.js`);
const { addReducers, reduce } = await import(`${JS}/reducer.js`);
addReducers(B.boardReducers); // (main.js adds them when the board's code loads)
const { initialState } = await import(`${JS}/state.js`);
const say = await import(`${JS}/messages.js`);

const NONE = [false, false, false, false, false];
const CATS = [
  "ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind",
  "full_house", "small_straight", "large_straight", "yahtzee", "chance",
];

function seat(kind = "human", filled = {}, over = {}) {
  const scores = Object.fromEntries(CATS.map((c) => [c, c in filled ? filled[c] : null]));
  const total = Object.values(filled).reduce((a, b) => a + b, 0);
  return { kind, name: null, difficulty: kind === "computer" ? "novice" : null, scores, upper_subtotal: 0, upper_bonus: 0, lower_total: 0, yahtzee_bonus: 0, total, hints_left: kind === "human" ? 3 : null, ...over };
}

function game(over = {}) {
  return {
    id: "g1", version: 1, kind: "solo", mode: "solo", status: "in_progress", round: 1, turn: 0,
    dice: null, rolls_left: 3, hints_left: 3, seats: [seat()], preview: null,
    computer_turns: [], turns: [], undo: null, new_record: false, ranking: null, ...over,
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

const opened = (g = game(), over = {}) =>
  run(initialState(), { type: "boardOpen", board: B.openBoard({ owner: "game", game: g, mine: [0], ...over }) });

test("A1: the board's actions change state.board only, and nothing when no board is open", () => {
  const none = initialState();
  assert.equal(reduce(none, { type: "boardRolled", game: game(), hold: NONE }), none);
  const s = opened();
  assert.equal(s.board.serial, 1);
  const again = run(s, { type: "boardOpen", board: B.openBoard({ owner: "table", game: game(), mine: [0, 1] }) });
  assert.equal(again.board.serial, 2, "each opening has its own serial");
  assert.equal(run(again, { type: "boardClose", serial: 1 }).board.serial, 2, "an older opening closes nothing");
  assert.equal(run(again, { type: "boardClose", serial: 2 }).board, null);
  const { message, view, settings } = run(s, { type: "boardBusy", busy: true });
  assert.deepEqual([message, view, settings], [s.message, s.view, s.settings]);
});

test("A4: no reducer of the board's slice names a mode", () => {
  const text = readFileSync(new URL(`${JS}/board/state.js`, import.meta.url), "utf-8").replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, "");
  for (const mode of ["solo", "vs_computer", "daily", "tutorial", "table", "room"]) {
    assert.doesNotMatch(text, new RegExp(`["'\`.]${mode}\\b`), mode);
  }
});

test("a roll keeps the holds, marks the thrown dice, clears the hint and any replay", () => {
  const g = game({ version: 2, dice: [2, 2, 5, 6, 1], rolls_left: 1 });
  const before = run(opened(), { type: "boardHinted", game: game(), hold: [true, true, false, false, false] }, { type: "boardReplayAdd", steps: [{ seat: 1 }] });
  const s = run(before, { type: "boardRolled", game: g, hold: [true, true, false, false, false] });
  assert.deepEqual(s.board.rolled, [false, false, true, true, true]);
  assert.deepEqual(s.board.hold, [true, true, false, false, false]);
  assert.deepEqual([s.board.hintHold, s.board.replay, s.board.rollSerial], [null, null, 1]);
  // A live feed brought a newer position first: the answer's older game is not shown over it.
  const fed = run(opened(), { type: "boardFeed", game: game({ version: 5 }) });
  assert.equal(run(fed, { type: "boardRolled", game: g, hold: NONE }).board.game.version, 5);
});

test("a die is held only while this device may act, with rolls left", () => {
  const rolled = opened(game({ dice: [1, 2, 3, 4, 5], rolls_left: 2 }));
  const held = run(rolled, { type: "boardToggle", index: 3 });
  assert.deepEqual(held.board.hold, [false, false, false, true, false]);
  assert.deepEqual(run(held, { type: "boardToggle", index: 3 }).board.hold, NONE);
  const busy = run(rolled, { type: "boardBusy", busy: true });
  assert.equal(reduce(busy, { type: "boardToggle", index: 0 }), busy);
  const locked = opened(game({ dice: [1, 2, 3, 4, 5], rolls_left: 0 }));
  assert.equal(reduce(locked, { type: "boardToggle", index: 0 }), locked);
  const theirs = opened(game({ dice: [1, 2, 3, 4, 5], rolls_left: 2, turn: 1, seats: [seat(), seat()] }));
  assert.equal(reduce(theirs, { type: "boardToggle", index: 0 }), theirs, "another device's seat");
});

test("a box written: its dice stay at the end, 撤销's holds kept, the others' steps replayed", () => {
  const before = game({ version: 3, dice: [6, 6, 6, 1, 2], rolls_left: 2 });
  const after = game({ version: 4, round: 2, seats: [seat("human", { three_of_a_kind: 21 })] });
  const held = run(opened(before), { type: "boardToggle", index: 0 });
  const wrote = { id: "g1", version: 4, category: "three_of_a_kind" };
  const s = run(held, { type: "boardScored", before, game: after, wrote });
  assert.deepEqual([s.board.lastDice, s.board.wrote, s.board.replay], [[6, 6, 6, 1, 2], wrote, null]);
  assert.deepEqual([s.board.hold, s.board.undoHold], [NONE, [true, false, false, false, false]]);
  const undone = run(s, { type: "boardUndone", game: before });
  assert.deepEqual([undone.board.hold, undone.board.wrote, undone.board.game], [[true, false, false, false, false], null, before]);
  const steps = [{ action: "roll", seat: 1, dice: [1, 1, 1, 1, 2], hold: NONE }, { action: "score", seat: 1, dice: [1, 1, 1, 1, 2], category: "ones", points: 4 }];
  const vs = run(opened(before), { type: "boardScored", before, game: after, wrote, steps });
  assert.deepEqual([vs.board.replay.index, vs.board.lastDice], [0, [1, 1, 1, 1, 2]]);
  // The feed showed this position already (and its steps): not replayed twice.
  const fed = run(opened(before), { type: "boardFeed", game: after, steps });
  assert.equal(run(fed, { type: "boardScored", before, game: after, wrote, steps }).board.replay, fed.board.replay);
});

test("a hint marks the dice to keep (held) or the box; 登记前确认 picks", () => {
  const g = game({ dice: [5, 5, 2, 3, 5], rolls_left: 2, preview: { chance: { allowed: true, points: 20 }, ones: { allowed: false, points: 0 } } });
  const keep = run(opened(g), { type: "boardHinted", game: g, hold: [true, true, false, false, true] }).board;
  assert.deepEqual([keep.hold, keep.hintHold, keep.hintCategory], [[true, true, false, false, true], [true, true, false, false, true], null]);
  const box = run(opened(g), { type: "boardHinted", game: g, category: "chance" }).board;
  assert.deepEqual([box.hintHold, box.hintCategory], [null, "chance"]);
  const picked = run(opened(g), { type: "boardPick", version: 1, category: "chance" }).board;
  assert.equal(B.pickedBox(picked), "chance");
  assert.equal(B.pickedBox({ ...picked, pick: { version: 0, category: "chance" } }), null, "the game moved on");
  assert.equal(B.pickedBox({ ...picked, pick: { version: 1, category: "ones" } }), null, "not offered");
  assert.equal(B.pickedBox({ ...picked, busy: true }), null);
});

test("a replay steps to its end, takes steps arriving meanwhile, and ends once", () => {
  let s = run(opened(), { type: "boardReplayAdd", steps: [{ seat: 1 }], before: { v: 1 } });
  assert.deepEqual(s.board.replay, { before: { v: 1 }, steps: [{ seat: 1 }], index: 0 });
  assert.equal(reduce(s, { type: "boardReplayStep" }), s, "nothing past the last step");
  s = run(s, { type: "boardReplayAdd", steps: [{ seat: 2 }], before: { v: 2 } });
  assert.deepEqual([s.board.replay.steps.length, s.board.replay.before], [2, { v: 1 }]);
  s = run(s, { type: "boardReplayStep" }, { type: "boardReplayEnd" });
  assert.equal(s.board.replay, null);
  assert.equal(reduce(s, { type: "boardReplayEnd" }), s);
  assert.equal(B.mayAct(run(opened(), { type: "boardReplayAdd", steps: [{}] }).board), false, "no act while replaying");
});

test("a live feed: a newer position only; a new turn drops the old one's marks", () => {
  const g = game({ seats: [seat(), seat()], turn: 1, dice: [1, 2, 3, 4, 5], rolls_left: 2 });
  let s = run(opened(g), { type: "boardTheirHold", seat: 1, hold: [true, false, false, false, false] });
  assert.deepEqual(B.diceView(s.board).held, [true, false, false, false, false], "another device's holds");
  assert.equal(reduce(s, { type: "boardFeed", game: { ...g } }), s, "the same position: nothing");
  s = run(s, { type: "boardFeed", game: { ...g, version: 2, turn: 0, dice: null }, steps: [{ seat: 1, action: "score" }] });
  assert.deepEqual([s.board.game.version, s.board.theirHold, s.board.replay.before], [2, null, g]);
});

test("U14: a game that went on elsewhere, a lost tap, the server back", () => {
  const g = game({ dice: [1, 2, 3, 4, 5], rolls_left: 2, version: 5 });
  const held = run(opened(g), { type: "boardToggle", index: 0 }, { type: "boardHinted", game: g, category: "chance" });
  const fresh = game({ version: 9, round: 3 });
  const moved = run(held, { type: "boardMovedOn", game: fresh }).board;
  assert.deepEqual([moved.game, moved.hold, moved.hintCategory, moved.replay], [fresh, NONE, null, null]);
  assert.deepEqual(run(held, { type: "boardMovedOn", game: fresh, hold: [true, true, false, false, false] }).board.hold, [true, true, false, false, false]);
  assert.equal(run(held, { type: "boardMovedOn", game: game({ status: "finished" }) }).board.showEnd, true);
  const lost = run(held, { type: "boardOffline", id: "g1", version: 5 });
  assert.deepEqual(lost.board.offline, { id: "g1", version: 5 });
  const same = run(lost, { type: "boardBack", game: { ...g } }).board;
  assert.deepEqual([same.offline, same.hold[0]], [null, true], "the same position keeps its holds");
  const changed = run(lost, { type: "boardBack", game: game({ version: 6, dice: [6, 6, 6, 6, 6], rolls_left: 1 }) }).board;
  assert.deepEqual([changed.offline, changed.game.version, changed.hold], [null, 6, NONE]);
  const other = run(lost, { type: "boardBack", game: game({ id: "g2" }) }).board;
  assert.deepEqual([other.offline, other.game.id], [null, "g1"], "another game is not shown over this one");
  assert.equal(reduce(opened(g), { type: "boardBack", game: g }).board.offline, null);
  assert.equal(run(lost, { type: "boardOfflineOver" }).board.offline, null);
  // A resync keeps this turn's holds, and drops them when the turn changed.
  assert.deepEqual(run(held, { type: "boardGame", game: { ...g, version: 7 } }).board.hold[0], true);
  assert.deepEqual(run(held, { type: "boardGame", game: game({ round: 2 }) }).board.hold, NONE);
});

test("U14: 撤销 only for the box this tab wrote, in the position its writing left", () => {
  const undo = { seat: 0, category: "three_of_a_kind" };
  const after = game({ version: 4, undo });
  const mine = { ...opened(after).board, wrote: { id: "g1", version: 4, category: "three_of_a_kind" } };
  assert.equal(B.ownUndo(mine), undo);
  assert.equal(B.ownUndo(opened(after).board), null, "another tab wrote it");
  assert.equal(B.ownUndo({ ...mine, game: { ...after, version: 6 } }), null, "written again elsewhere");
  assert.equal(B.ownUndo({ ...mine, game: { ...after, undo: { seat: 0, category: "chance" } } }), null);
});

test("during a replay a card and the log show the past until the seat's box is reached", () => {
  const card = (total) => ({ scores: { ones: total ? 3 : null }, total });
  const g = { seats: [card(3), card(3)] };
  const replay = { before: { seats: [card(0), card(0)] }, steps: [{ seat: 1, action: "roll" }, { seat: 1, action: "score", category: "ones", round: 1 }], index: 0 };
  assert.equal(B.shownCard(replay, g, 1).total, 0);
  assert.equal(B.shownCard(replay, g, 0).total, 3, "a seat with no box in the replay shows its card");
  assert.equal(B.shownCard({ ...replay, index: 1 }, g, 1).total, 3);
  const turns = [{ seat: 1, category: "ones", round: 1 }];
  assert.deepEqual(B.shownTurns(turns, replay), []);
  assert.deepEqual(B.shownTurns(turns, { ...replay, index: 1 }), turns);
  const fresh = B.shownCard({ ...replay, before: null }, g, 1);
  assert.deepEqual([fresh.total, fresh.scores.ones], [0, null], "a new game's card starts empty");
  const step = { action: "score", dice: [1, 1, 1, 2, 2], seat: 1 };
  assert.deepEqual(B.diceView({ ...opened().board, replay: { steps: [step], index: 0 } }), { dice: step.dice, held: B.ALL_HELD, locked: true, computer: true, roll: false });
});

test("the board's sentences: whose roll and box, another seat's steps, the end", () => {
  const g = game({ dice: [2, 2, 5, 6, 1], rolls_left: 1 });
  assert.equal(say.rolled(g), "你掷出了 2、2、5、6、1。还能再掷 1 次。");
  assert.equal(say.rolled({ ...g, rolls_left: 0 }, "妈妈"), "妈妈 掷出了 2、2、5、6、1。三次掷完，骰子已锁定，请选一格登记。");
  assert.equal(say.scored([6, 6, 6, 1, 2], "three_of_a_kind", 21), "你把 6、6、6、1、2 登记在「三条」，得 21 分。");
  const steps = [
    { action: "roll", hold: NONE, dice: [2, 2, 5, 6, 2], seat: 1 },
    { action: "roll", hold: [true, true, false, false, true], dice: [2, 2, 2, 1, 2], seat: 1 },
    { action: "roll", hold: NONE, dice: [3, 3, 3, 1, 2], seat: 1 },
    { action: "score", category: "twos", points: 8, dice: [2, 2, 2, 1, 2], seat: 1 },
    { action: "roll", hold: [true, true, false, false, false], dice: [6, 6, 6, 6, 1], seat: 2 },
  ];
  const who = "电脑（入门）";
  assert.equal(say.describeStep(steps, 0, who), "电脑（入门） 掷出 2、2、5、6、2。");
  assert.equal(say.describeStep(steps, 1, who), "电脑（入门） 保留 2、2、2，再掷得到 2、2、2、1、2。");
  assert.equal(say.describeStep(steps, 2, who), "电脑（入门） 全部重掷，得到 3、3、3、1、2。");
  assert.equal(say.describeStep(steps, 3, who), "电脑（入门） 把 2、2、2、1、2 登记在「二点」，得 8 分。");
  assert.equal(say.describeStep(steps, 4, "小明"), "小明 掷出 6、6、6、6、1。", "a new seat's first roll");
  assert.equal(say.othersDone([[who, steps[3]]], say.turnNow(say.you())), "电脑（入门）这回合在「二点」得 8 分，轮到你了。");
  assert.equal(say.othersDone([], say.turnNow("乙")), "轮到 乙 了。");
  const solo = game({ status: "finished", seats: [seat("human", { chance: 300 })], new_record: true });
  assert.equal(say.gameOver(solo, () => say.you()), "游戏结束，总分 300。新纪录！");
  const vs = game({ status: "finished", seats: [seat("human", { yahtzee: 50 }), seat("computer", { chance: 90 })], ranking: [{ seat: 1, total: 90, place: 1 }, { seat: 0, total: 50, place: 2 }] });
  assert.equal(say.gameOver(vs, (i) => (i ? "电脑（入门）" : say.you())), "游戏结束：电脑（入门） 90 分，你 50 分。");
  assert.equal(say.undone("chance", say.you(), 1), "已撤销「机会」：骰子还是刚才的，请重新选一项登记，或者再掷。");
  assert.equal(say.undone("chance", "甲", 0), "已撤销 甲 的「机会」：骰子还是刚才的，请重新选一项登记。");
});

test("好友房间: another seat's roll, a box (a friend's or 托管's) and the computers after", async () => {
  const { roomSteps, mergeTurns, applyEvent } = await import(`${JS}/lazy/room.js`);
  const turns = [{ seat: 1, round: 2, dice: [6, 6, 6, 2, 1], category: "threes", points: 0 }];
  const computer = { seat: 2, round: 2, steps: [{ action: "roll", hold: NONE, dice: [5, 5, 5, 5, 5] }, { action: "score", dice: [5, 5, 5, 5, 5], category: "yahtzee", points: 50 }] };
  const before = game({ turn: 1, dice: [6, 6, 1, 2, 1] });
  const roll = { kind: "roll", seat: 1, game: game({ turn: 1, dice: [6, 6, 6, 2, 1], round: 2 }) };
  const [r] = roomSteps(before, roll, 0, { seat: 1, hold: [true, true, false, false, false] });
  assert.deepEqual(r, { action: "roll", seat: 1, round: 2, dice: [6, 6, 6, 2, 1], hold: [true, true, false, false, false] });
  const scored = { kind: "score", seat: 1, game: game({ turn: 0, dice: null, turns, computer_turns: [computer] }) };
  const steps = roomSteps(before, scored, 0, null);
  assert.deepEqual(steps.map((s) => [s.seat, s.action]), [[1, "score"], [2, "roll"], [2, "score"]]);
  const proxy = { kind: "roll", seat: 1, proxy: true, game: game({ turn: 0, dice: null, turns }) };
  assert.deepEqual(roomSteps(before, proxy, 0, null).map((s) => s.action), ["score"], "托管's whole turn");
  // The viewer's own actions (and the computers after them) the board showed when answered.
  assert.deepEqual(roomSteps(before, { ...scored, seat: 0 }, 0, null), []);
  const mineAway = { ...proxy, seat: 0, game: game({ turn: 1, turns: [{ ...turns[0], seat: 0 }] }) };
  assert.deepEqual(roomSteps(before, mineAway, 0, null).map((s) => s.action), ["score"], "托管 for this seat is replayed");
  assert.deepEqual(roomSteps(before, { kind: "hold", seat: 1, hold: [] }, 0, null), []);
  // U17: the events carry the last round's turns; the page keeps every turn.
  const t = (round, s) => ({ round, seat: s, category: `c${round}${s}` });
  assert.deepEqual(mergeTurns([t(1, 0), t(1, 1)], [t(1, 1), t(2, 0)]), [t(1, 0), t(1, 1), t(2, 0)]);
  // The start: the seats that play, this browser's by its name; the game is the board's.
  const room = { last_event_id: 3, status: "waiting", seats: [{ index: 0, kind: "human", name: "甲", you: true }, { index: 1, kind: "human", name: null }, { index: 2, kind: "human", name: "乙" }] };
  const started = applyEvent(room, { id: 4, kind: "start", game: game({ id: "r1" }), seats: [{ index: 0, kind: "human", name: "甲" }, { index: 1, kind: "human", name: "乙" }] });
  assert.deepEqual([started.status, started.game_id, started.game, started.seats.map((s) => s.you)], ["playing", "r1", undefined, [true, false]]);
  assert.equal(applyEvent(started, { id: 4, kind: "end" }), started, "an event seen already");
});

test("多人同屏's handover and 好友房间's own state are their modules' named actions", async () => {
  const { reducers: T } = await import(`${JS}/lazy/table.js`);
  const { reducers: R } = await import(`${JS}/lazy/room.js`);
  const page = (view, ui = {}) => ({ page: { view, serial: 1, ui, data: {} } });
  const s = T.tableHandover(page("table", { handover: null }), { seat: 2 });
  assert.equal(s.page.ui.handover, 2);
  assert.equal(T.tableHandover(page("room"), { seat: 2 }).page.ui.handover, undefined, "another view: unchanged");
  const busy = R.roomBusy(page("room", { error: "旧", notice: "稍等" }), {});
  assert.deepEqual([busy.page.ui.busy, busy.page.ui.error, busy.page.ui.notice], [true, null, null]);
  assert.deepEqual([R.roomFailed(busy, { error: "不行" }).page.ui.busy, R.roomFailed(busy, { error: "不行" }).page.ui.error], [false, "不行"]);
});
