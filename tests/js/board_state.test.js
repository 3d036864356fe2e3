// The board's named actions (board_state.js): pure reducers of a board view's page.ui, and
// the steps a room event replays (issue 27: views change the store through named actions,
// not free-form patches; 好友房间 replays every other seat's turn). `node --test tests/js/`.

import assert from "node:assert/strict";
import { test } from "node:test";

const board = await import("../../src/yahtzee/static/js/lazy/board_state.js");
const { boardReducers: R, roomSteps, shownCard, shownTurns } = await import(
  "../../src/yahtzee/static/js/lazy/board_state.js"
);

const page = (view, ui = {}) => ({ page: { view, serial: 1, ui, data: {} } });
const game = (over = {}) => ({ id: "g", version: 3, dice: [1, 2, 3, 4, 5], rolls_left: 2, turn: 0, round: 2, ...over });

test("board actions change page.ui only, never their input, and only on a board's page", () => {
  const s = page("table", { hold: [false, false, false, false, false] });
  const frozen = JSON.stringify(s);
  const rolled = R.boardRolled(s, { type: "boardRolled", game: game(), hold: [true, false, false, false, false] });
  assert.equal(JSON.stringify(s), frozen);
  assert.deepEqual(rolled.page.ui.rolled, [false, true, true, true, true]);
  assert.equal(rolled.page.ui.rollSerial, 1);
  const other = page("review", { x: 1 });
  assert.equal(R.boardRolled(other, { game: game(), hold: [] }), other);
  assert.equal(R.tableShown(page("room"), { seat: 1 }).page.ui.shown, undefined);
});

test("the table's handover, end panel and meter answers (T7, T5)", () => {
  let s = page("table", { handover: null, shown: 2 });
  s = R.tableHandover(s, { seat: 1 });
  assert.deepEqual([s.page.ui.handover, s.page.ui.shown], [1, null]);
  s = R.tableMeterAsked(s, { key: "g:4" });
  assert.equal(R.tableChances(s, { key: "g:3", chances: [1] }), s, "an older position's answer is dropped");
  assert.deepEqual(R.tableChances(s, { key: "g:4", chances: [0.5, 0.5] }).page.ui.chances, [0.5, 0.5]);
  assert.equal(R.tableShowEnd(s, { show: true }).page.ui.showEnd, true);
});

test("a hint marks the dice to keep or the box; a toggle, a pick", () => {
  const s = page("table", { hold: [false, false, false, false, false] });
  const keep = R.boardHinted(s, { game: game(), hold: [true, true, false, false, false] }).page.ui;
  assert.deepEqual([keep.hold[0], keep.hintHold[1], keep.hintCategory], [true, true, null]);
  const box = R.boardHinted(s, { game: game(), category: "chance" }).page.ui;
  assert.deepEqual([box.hintHold, box.hintCategory], [null, "chance"]);
  assert.equal(R.boardToggle(s, { index: 3 }).page.ui.hold[3], true);
  assert.deepEqual(R.boardPick(s, { version: 3, category: "ones" }).page.ui.pick, { version: 3, category: "ones" });
});

test("a replay steps to its end, takes steps arriving meanwhile, and ends once", () => {
  let s = page("room", {});
  s = R.boardReplayAdd(s, { steps: [{ seat: 1 }], before: { v: 1 } });
  assert.deepEqual(s.page.ui.replay, { before: { v: 1 }, steps: [{ seat: 1 }], index: 0 });
  const last = R.boardReplayStep(s, {});
  assert.equal(last, s, "nothing past the last step");
  s = R.boardReplayAdd(s, { steps: [{ seat: 2 }], before: { v: 2 } });
  assert.equal(s.page.ui.replay.steps.length, 2);
  assert.deepEqual(s.page.ui.replay.before, { v: 1 }, "the first before stands");
  s = R.boardReplayStep(s, {});
  assert.equal(s.page.ui.replay.index, 1);
  s = R.boardReplayEnd(s, {});
  assert.equal(s.page.ui.replay, null);
  assert.equal(R.boardReplayEnd(s, {}), s);
});

test("a room's other seats: a roll, a box (a friend's or 托管's) and the computers after", () => {
  const turns = [{ seat: 1, round: 2, dice: [6, 6, 6, 2, 1], category: "threes", points: 0 }];
  const computer = { seat: 2, round: 2, steps: [{ action: "roll", hold: [false, false, false, false, false], dice: [5, 5, 5, 5, 5] }, { action: "score", dice: [5, 5, 5, 5, 5], category: "yahtzee", points: 50 }] };
  const before = game({ turn: 1, dice: [6, 6, 1, 2, 1] });
  // A friend's roll, with the dice they held.
  const roll = { kind: "roll", seat: 1, game: game({ turn: 1, dice: [6, 6, 6, 2, 1], round: 2 }) };
  const [r] = roomSteps(before, roll, 0, { seat: 1, hold: [true, true, false, false, false] });
  assert.deepEqual(r, { action: "roll", seat: 1, round: 2, dice: [6, 6, 6, 2, 1], hold: [true, true, false, false, false] });
  // Their box, then a computer's turn.
  const scored = { kind: "score", seat: 1, game: game({ turn: 0, dice: null, turns, computer_turns: [computer] }) };
  const steps = roomSteps(before, scored, 0, null);
  assert.deepEqual(steps.map((s) => [s.seat, s.action]), [[1, "score"], [2, "roll"], [2, "score"]]);
  assert.equal(steps[0].category, "threes");
  // 托管 plays a whole turn in one event (kind roll, proxy): its box is the step.
  const proxy = { kind: "roll", seat: 1, proxy: true, game: game({ turn: 0, dice: null, turns }) };
  assert.deepEqual(roomSteps(before, proxy, 0, null).map((s) => s.action), ["score"]);
  // The viewer's own actions are not replayed to them; the computers after them are.
  assert.deepEqual(roomSteps(before, { ...scored, seat: 0 }, 0, null).map((s) => s.seat), [2, 2]);
  assert.deepEqual(roomSteps(before, { ...roll, seat: 0 }, 0, null), []);
  assert.deepEqual(roomSteps(before, { kind: "hold", seat: 1, hold: [] }, 0, null), []);
});

test("during a replay a card and the log show the past until the seat's box is reached", () => {
  const card = (total) => ({ scores: { ones: total ? 3 : null }, total });
  const g = { seats: [card(3), card(3)] };
  const replay = { before: { seats: [card(0), card(0)] }, steps: [{ seat: 1, action: "roll" }, { seat: 1, action: "score", category: "ones", round: 1 }], index: 0 };
  assert.equal(shownCard(replay, g, 1).total, 0);
  assert.equal(shownCard(replay, g, 0).total, 3, "a seat with no box in the replay shows its card");
  assert.equal(shownCard({ ...replay, index: 1 }, g, 1).total, 3);
  const turns = [{ seat: 1, category: "ones", round: 1 }];
  assert.deepEqual(shownTurns(turns, replay), []);
  assert.deepEqual(shownTurns(turns, { ...replay, index: 1 }), turns);
  const fresh = shownCard({ ...replay, before: null }, g, 1);
  assert.deepEqual([fresh.total, fresh.scores.ones], [0, null], "a new game's card starts empty");
});

test("the views without a board have named actions too, and no module patches page.ui freely", async () => {
  const { practiceReducers: P, dailyReducers: D, devicesReducers: V, reviewReducers: RV } = await import(
    "../../src/yahtzee/static/js/lazy/view_state.js"
  );
  let s = page("practice", { busy: false });
  s = P.practiceBusy(s, {});
  assert.deepEqual([s.page.ui.busy, s.page.ui.error], [true, null]);
  assert.deepEqual(P.practiceResult(s, { result: { ok: 1 } }).page.ui, { busy: false, error: null, result: { ok: 1 } });
  assert.equal(P.practiceHold(page("review"), { held: [true] }).page.ui.held, undefined, "another view: unchanged");
  let d = page("group", { drafts: { name: "a" } });
  d = D.dailyBusy(d, { drafts: { code: "b" } });
  assert.deepEqual(d.page.ui.drafts, { name: "a", code: "b" }, "what was typed is kept");
  d = D.dailyFailed(d, { error: "不对", code: "bad" });
  assert.deepEqual([d.page.ui.busy, d.page.ui.error, d.page.ui.errorCode], [false, "不对", "bad"]);
  let v = V.devicesBusy(page("devices", { note: "旧" }), { note: null });
  assert.equal(v.page.ui.note, null);
  v = V.devicesChoose(V.devicesFailed(v, { error: "e", code: "choose_merge" }), { choose: "link" });
  assert.deepEqual([v.page.ui.choose, v.page.ui.error], ["link", null]);
  assert.equal(V.devicesNote(v, { note: "好" }).page.ui.choose, null);
  assert.equal(RV.reviewSelect(page("review"), { index: 4 }).page.ui.selected, 4);
  const { readdirSync, readFileSync } = await import("node:fs");
  const dir = new URL("../../src/yahtzee/static/js/lazy/", import.meta.url);
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".js"))) {
    assert.doesNotMatch(readFileSync(new URL(f, dir), "utf-8"), /type: "pageUi"/, `${f} patches page.ui`);
  }
});

test("U14: a table that went on elsewhere shows the game as it stands, marks and replay gone", () => {
  const s = page("table", {
    game: game(),
    hold: [true, false, false, false, false],
    hintHold: [true, false, false, false, false],
    pick: { version: 3, category: "chance" },
    replay: { steps: [{}], index: 0 },
    handover: null,
    offline: { id: "g", version: 3 },
  });
  const fresh = game({ version: 5, turn: 1, status: "in_progress" });
  const ui = R.tableMovedOn(s, { game: fresh }).page.ui;
  assert.equal(ui.game, fresh);
  assert.deepEqual([ui.hold, ui.hintHold, ui.pick, ui.replay, ui.offline], [[false, false, false, false, false], null, null, null, null]);
  assert.equal(ui.handover, null, "no handover screen opens by itself");
  const held = R.tableMovedOn(s, { game: fresh, hold: [false, true, false, false, false] }).page.ui;
  assert.deepEqual(held.hold, [false, true, false, false, false], "the holds stored for that position");
  const covered = R.tableMovedOn(page("table", { handover: 0 }), { game: fresh }).page.ui;
  assert.equal(covered.handover, 1, "a handover screen shown names whoever is on turn now");
  const over = R.tableMovedOn(page("table", { handover: 0 }), { game: game({ status: "finished" }) }).page.ui;
  assert.deepEqual([over.handover, over.showEnd], [null, true]);
});

test("U14: a table tap the network lost waits for the server, then the same or a new position", () => {
  let s = page("table", { game: game(), hold: [true, false, false, false, false] });
  s = R.tableOffline(s, { id: "g", version: 3 });
  assert.deepEqual(s.page.ui.offline, { id: "g", version: 3 });
  const same = R.tableBack(s, { game: game() }).page.ui;
  assert.equal(same.offline, null);
  assert.deepEqual(same.hold, [true, false, false, false, false], "the same position keeps its holds");
  const moved = R.tableBack(s, { game: game({ version: 4, rolls_left: 1 }) }).page.ui;
  assert.deepEqual([moved.offline, moved.game.version, moved.hold[0]], [null, 4, false]);
  assert.equal(R.tableBack(page("table", { offline: null }), { game: game() }).page.ui.offline, null);
  const other = R.tableBack(s, { game: game({ id: "h" }) }).page.ui;
  assert.deepEqual([other.offline, other.game.id], [null, "g"], "another game is not shown over this one");
  assert.equal(R.tableOfflineOver(s).page.ui.offline, null);
  const quiet = page("table", { offline: null });
  assert.equal(R.tableOfflineOver(quiet), quiet);
});

test("U14: a room tap the network lost is said until the room is read again", () => {
  let s = page("room", { busy: true, notice: "稍等", error: null });
  s = R.roomOffline(s, { version: 7, error: "没送到" });
  const ui = s.page.ui;
  assert.deepEqual([ui.busy, ui.notice, ui.error, ui.offline], [false, null, "没送到", { version: 7 }]);
  const back = R.roomBack(s).page.ui;
  assert.deepEqual([back.offline, back.error], [null, null]);
  const failed = page("room", { error: "别的错" });
  assert.equal(R.roomBack(failed), failed, "another error stays");
  assert.equal(R.roomOffline(page("table"), { version: 1, error: "x" }).page.ui.offline, undefined);
});

test("登记前确认's picked box: only at the game's version and while the server offers it (polish 8)", () => {
  const { pickedBox } = board;
  const g = game({ preview: { chance: { allowed: true, points: 15 }, ones: { allowed: false, points: 0 } } });
  assert.equal(pickedBox({ version: 3, category: "chance" }, g), "chance");
  assert.equal(pickedBox({ version: 2, category: "chance" }, g), null); // the game moved on
  assert.equal(pickedBox({ version: 3, category: "ones" }, g), null); // not offered
  assert.equal(pickedBox({ version: 3, category: "sixes" }, g), null);
  assert.equal(pickedBox(null, g), null);
  assert.equal(pickedBox({ version: 3, category: "chance" }, game({ preview: null })), null);
  assert.equal(pickedBox({ version: 3, category: "chance" }, null), null);
});
