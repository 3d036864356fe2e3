// The one board's drawing parts (A1, U11, U13): how a box looks from the server's preview,
// a seat's name, the same in every view, and the one score flow. `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const CONFIG_TEXT = readFileSync(new URL("./config.json", import.meta.url), "utf-8");
// Just enough of an element for drawBox: its classes, attributes, children and text.
function fakeNode(tag = "") {
  const attrs = new Map();
  const node = {
    tag,
    className: "",
    dataset: {},
    disabled: false,
    children: [],
    textContent: "",
    setAttribute: (k, v) => attrs.set(k, String(v)),
    getAttribute: (k) => (attrs.has(k) ? attrs.get(k) : null),
    hasAttribute: (k) => attrs.has(k),
    removeAttribute: (k) => attrs.delete(k),
    replaceChildren: (...kids) => {
      node.children = kids;
    },
    append: (...kids) => node.children.push(...kids),
    addEventListener: () => {},
    get text() {
      return node.children.map((k) => k.textContent).join("");
    },
  };
  return node;
}

globalThis.document = {
  // board/board.js brings the confirmation dialog (dialog.js wires its buttons when loaded)
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : fakeNode()),
  createElement: (tag) => fakeNode(tag),
  createTextNode: (text) => ({ textContent: text }),
};
const { W } = await import("./words.js");

const { boxLook, drawBox, seatName } = await import("../../src/yahtzee/static/js/board/draw.js");
const { scoreFlow } = await import("../../src/yahtzee/static/js/board/board.js");

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

test("U11: drawBox, every card's one box drawing: text, bonus tag, colours, strike, label", () => {
  const td = fakeNode("td");
  const btn = fakeNode("button");
  const p = { points: 12, yahtzee_bonus: 0, upper_bonus: 35, allowed: true };
  drawBox(td, btn, { filled: null, p, name: "四点", act: true, hinted: true, cls: "cell seat-human" });
  assert.equal(td.className, "cell seat-human preview hint");
  assert.equal(btn.text, "+12+35\u00a0奖");
  assert.equal(btn.disabled, false);
  assert.equal(td.getAttribute("data-selectable"), "true");
  assert.match(btn.getAttribute("aria-label"), /^四点：可得 12 分，并拿到上区奖励 35（提示建议登记这里）$/);
  // a seat's column: the seat named, picked under 登记前确认, not tappable while busy
  drawBox(td, btn, { filled: null, p, name: "四点", who: "妈妈", act: false, picked: true, cls: "cell on-turn" });
  assert.equal(td.className, "cell on-turn preview picked");
  assert.equal(btn.disabled, true);
  assert.match(btn.getAttribute("aria-label"), /^妈妈 · 四点：可得 12 分/);
  // the Joker strike: not tappable, and says why
  const joker = { points: 30, yahtzee_bonus: 100, upper_bonus: 0, allowed: false };
  drawBox(td, btn, { filled: null, p: joker, name: "大顺", act: true });
  assert.equal(td.className, "cell forbidden");
  assert.equal(btn.disabled, true);
  assert.ok(btn.getAttribute("title"));
  // a written 0 reads 0, grey-red, and drops the strike's title
  drawBox(td, btn, { filled: 0, p: null, name: "快艇", act: true });
  assert.equal(td.className, "cell filled zero");
  assert.equal(btn.text, "0");
  assert.equal(btn.getAttribute("title"), null);
  assert.equal(btn.getAttribute("aria-label"), "快艇：已登记 0 分");
  assert.equal(td.getAttribute("data-selectable"), "false");
});

test("U2, polish 8: the one score flow: 登记前确认 picks first, a second tap writes", async () => {
  const done = [];
  const flow = (over) =>
    scoreFlow({
      category: "chance",
      option: { allowed: true, points: 17, needs_confirmation: false },
      confirmOn: true,
      picked: null,
      pick: (c) => done.push(`pick ${c}`),
      said: (text) => done.push(text),
      send: async (c, zero) => done.push(`send ${c} ${zero}`),
      declined: () => done.push("declined"),
      ...over,
    });
  assert.equal(await flow({}), "picked");
  assert.deepEqual(done.splice(0), ["pick chance", "已选「机会」（17 分）：再点一次，或点「确定」登记。"]);
  assert.equal(await flow({ picked: "ones" }), "picked"); // the pick moves
  done.splice(0);
  assert.equal(await flow({ picked: "chance" }), "sent");
  assert.deepEqual(done.splice(0), ["send chance false"]);
  assert.equal(await flow({ confirmOn: false }), "sent");
  assert.equal(await flow({ option: { allowed: false, points: 30 } }), "none"); // a Joker strike
  assert.equal(await flow({ option: null }), "none");
});
