// The 新手教程 overlay's reducers (src/yahtzee/static/js/lazy/tutorial.js, L10) are pure:
// a step is done when the game the server sent (or the page's holds) shows it; a game
// under way picks the steps up after the last one it meets; a step entered with other
// dice than it was written for puts the tutorial off its script.

import assert from "node:assert/strict";
import { test } from "node:test";

const { reducers } = await import("../../src/yahtzee/static/js/lazy/tutorial.js");

const STEPS = [
  { id: "roll", until: { round: 1, rolls_left: 2 }, dice: null },
  { id: "hold", until: { hold: [true, false, true, false, true] }, dice: [6, 2, 6, 3, 6] },
  { id: "reroll", until: { round: 1, rolls_left: 0 }, dice: [6, 2, 6, 3, 6] },
  { id: "box", until: { box: "sixes" }, dice: [6, 6, 6, 5, 6] },
  { id: "explain", until: { next: true }, dice: null },
  { id: "hint", until: { hints_left: 2 }, dice: null },
  { id: "zero", until: { declined: "yahtzee" }, dice: null },
  { id: "done", until: { done: true }, dice: null },
];

const EMPTY = [{ scores: { sixes: null, yahtzee: null } }];

function game(over = {}) {
  return {
    id: "t1", mode: "solo", kind: "tutorial", status: "in_progress", round: 1, rolls_left: 3, hints_left: 3,
    dice: null, seats: EMPTY, ...over,
  };
}

/** The page's state: the tutorial's game on the board (`board`: what of it changes). */
function state(over = {}, board = {}) {
  return {
    board: { game: game(), hold: [false, false, false, false, false], declined: { category: null, count: 0 }, ...board },
    tutorial: { closedFor: null },
    overlays: { tutorial: { steps: STEPS } },
    ...over,
  };
}

/** `s` with its board's `game`, `hold` or `declined` changed. */
const put = (s, change) => ({ ...s, board: { ...s.board, ...change } });

const sync = (s) => reducers.tutorialSync(s);
const at = (s) => STEPS[s.tutorial.index].id;

test("L10: each step waits for what the server (or the holds) shows, then the next", () => {
  let s = sync(state());
  assert.equal(at(s), "roll");
  assert.equal(sync(s), s, "nothing moved: the same state");
  s = sync(put(s, { game: game({ rolls_left: 2, dice: [6, 2, 6, 3, 6] }) }));
  assert.equal(at(s), "hold");
  s = sync(put(s, { hold: [true, false, true, false, false] }));
  assert.equal(at(s), "hold", "not yet all three");
  s = sync(put(s, { hold: [true, false, true, false, true] }));
  assert.equal(at(s), "reroll");
  s = sync(put(s, { game: game({ rolls_left: 1, dice: [6, 1, 6, 4, 6] }) }));
  assert.equal(at(s), "reroll", "a roll between does not end it");
  assert.equal(s.tutorial.offScript, false, "dice are checked as a step begins only");
  s = sync(put(s, { game: game({ rolls_left: 0, dice: [6, 6, 6, 5, 6] }) }));
  assert.equal(at(s), "box");
  const written = [{ scores: { sixes: 24, yahtzee: null } }];
  s = sync(put(s, { game: game({ round: 2, seats: written }) }));
  assert.equal(at(s), "explain");
  s = sync(reducers.tutorialAck(s, { id: "explain" }));
  assert.equal(at(s), "hint");
  s = sync(put(s, { game: game({ round: 2, seats: written, hints_left: 2 }) }));
  assert.equal(at(s), "zero");
  s = sync(put(s, { declined: { category: "chance", count: 1 } }));
  assert.equal(at(s), "zero", "another box's 0 is not this step's");
  s = sync(put(s, { declined: { category: "yahtzee", count: 2 } }));
  assert.equal(at(s), "done");
  assert.equal(sync(s), s, "the last step stays");
});

test("L10: a game under way (a reload, 继续游戏) picks the steps up where it is", () => {
  const written = [{ scores: { sixes: 24, yahtzee: null } }];
  const s = sync(state({}, { game: game({ round: 2, seats: written }) }));
  assert.equal(at(s), "explain");
  assert.equal(s.tutorial.offScript, false);
  const fresh = sync(state({}, { game: game({ id: "t2" }) }));
  assert.equal(at(fresh), "roll");
});

test("L10: a step entered with other dice than its own is off the script", () => {
  let s = sync(state());
  s = sync(put(s, { game: game({ rolls_left: 2, dice: [1, 2, 3, 4, 5] }) }));
  assert.equal(s.tutorial.offScript, true);
  // Off the script, nothing advances any more.
  const moved = sync(put(s, { hold: [true, false, true, false, true] }));
  assert.equal(at(moved), "hold");
});

test("L10: a game that is not a tutorial, or no steps yet: nothing", () => {
  const solo = state({}, { game: game({ kind: "solo" }) });
  assert.equal(sync(solo), solo);
  const loading = state({ overlays: {} });
  assert.equal(sync(loading), loading);
});
