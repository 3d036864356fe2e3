// The shared board's pure parts (U11, U13): how a box looks from the server's preview, and
// a seat's name, the same in every view. `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const CONFIG_TEXT = readFileSync(new URL("./config.json", import.meta.url), "utf-8");
globalThis.document = {
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : null),
};

const { boxLook } = await import("../../src/yahtzee/static/js/board.js");
const { seatName } = await import("../../src/yahtzee/static/js/lazy/dom.js");

test("U11: a box reads as written, a green +N, a grey-red +0 or a Joker strike", () => {
  assert.deepEqual(boxLook(0, null), { text: "0", kind: "filled", cls: "filled zero", bonus: 0 });
  assert.equal(boxLook(12, { points: 3, allowed: true }).text, "12"); // written wins
  const p = { points: 25, yahtzee_bonus: 0, upper_bonus: 0, allowed: true };
  assert.deepEqual(boxLook(null, p), { text: "+25", kind: "preview", cls: "preview", bonus: 0 });
  const zero = boxLook(null, { points: 0, yahtzee_bonus: 0, upper_bonus: 0, allowed: true });
  assert.equal(zero.text, "+0");
  assert.equal(zero.cls, "preview zero");
  const joker = boxLook(null, { points: 30, yahtzee_bonus: 100, upper_bonus: 0, allowed: false });
  assert.equal(joker.kind, "forbidden");
  assert.equal(boxLook(null, { points: 30, yahtzee_bonus: 100, allowed: true }).text, "+30 +100");
  assert.equal(boxLook(null, { points: 12, upper_bonus: 35, allowed: true }).bonus, 35);
  assert.equal(boxLook(null, null).kind, "open");
});

test("U13: a computer has one name in every view", () => {
  const one = [{ kind: "human", name: "妈妈" }, { kind: "computer", difficulty: "intermediate" }];
  assert.equal(seatName(one, 0), "妈妈");
  assert.equal(seatName(one, 1), "电脑（普通）");
  const two = [...one, { kind: "computer", difficulty: "expert" }];
  assert.equal(seatName(two, 1), "电脑2（普通）");
  assert.equal(seatName(two, 2), "电脑3（高手）");
});
