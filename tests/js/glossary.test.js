// L11: every term the page shows on the game, 复盘, 统计, 练习, 每日挑战 (and 小组), the
// rooms and 多人同屏 has a glossary entry (messages.js GLOSSARY) and a 「?」 in the view that
// shows it. `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const CONFIG_TEXT = readFileSync(new URL("./config.json", import.meta.url), "utf-8");
globalThis.document = {
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : null),
};
const { W } = await import("./words.js");
const { GLOSSARY, glossaryId, verdict } = await import("../../src/yahtzee/static/js/lazy/glossary.js");

const JS = new URL("../../src/yahtzee/static/js/", import.meta.url);
const read = (name) => readFileSync(new URL(name, JS), "utf-8");
// messages.js: the sentences render.js and meter.js show on the table (the pages' titles,
// VIEW_TITLES, name the pages: no figure there).
const said = read("messages.js").replace(/export const VIEW_TITLES = \{[^}]*\};/, "");

/** The zh-Hans texts of a chunk of the catalogs (a migrated view's words: its module holds
 * keys), quoted as literals are. */
const PO = readFileSync(new URL("../../src/yahtzee/locale/zh_Hans/LC_MESSAGES/messages.po", import.meta.url), "utf-8");
function chunk(name) {
  const texts = [];
  for (const entry of PO.split(/\n\n/)) {
    const id = entry.match(/^msgid "([^"]*)"/m);
    if (!id || !id[1].startsWith(`${name}.`)) continue;
    // msgstr "…" or msgstr[0] "…", and any continuation lines
    const m = entry.match(/^msgstr(?:\[0\])? ((?:"(?:[^"\\]|\\.)*"\n?)+)/m);
    if (m) texts.push(m[1].split("\n").filter(Boolean).map((q) => JSON.parse(q)).join(""));
  }
  assert.ok(texts.length, `no texts of chunk ${name}`);
  return JSON.stringify(texts);
}

/** The words that name a number or an idea a child may not know: each must be in the
 * glossary, and each view that shows one must offer its 「?」. */
const TERMS = [
  "预计终局", "期望值", "开局期望", "运气", "技术损失", "准确率", "胜率", "得第一的机会",
  "练习分", "难度分", "定级中", "托管", "小组", "写 0", "最佳", "欠佳", "失误", "大错", "评价",
];

/** Each view: the sources of the words it shows, and the sources that draw its 「?」. */
const VIEWS = {
  // messages.js's words are the table's (the hint's in lazy/hint_messages.js). A migrated
  // view's words are its chunk's (G1): its module draws them and its 「?」.
  game: { shows: [said, read("lazy/hint_messages.js"), read("render.js"), read("lazy/meter.js")], helps: [read("lazy/meter.js"), read("lazy/review.js"), said] },
  复盘: { shows: [chunk("review")], helps: [read("lazy/review.js")] },
  统计: { shows: [chunk("stats")], helps: [read("lazy/stats.js")] },
  练习: { shows: [chunk("practice")], helps: [read("lazy/practice.js")] },
  每日挑战: { shows: [chunk("daily")], helps: [read("lazy/daily.js")] },
  rooms: { shows: [chunk("room")], helps: [read("lazy/room.js")] },
  多人同屏: { shows: [chunk("table")], helps: [read("lazy/table.js"), read("lazy/seats.js")] },
};

/** The string literals of a source (quoted and template), where the shown words are. */
function literals(source) {
  const found = source.matchAll(/"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g);
  return [...found].map(([, a, b]) => a ?? b).join("\n");
}

test("every term the page uses has a glossary entry a child can read", () => {
  for (const word of TERMS) {
    const id = glossaryId(word);
    assert.ok(id, `「${word}」 has no glossary entry (messages.js GLOSSARY)`);
    const g = GLOSSARY[id];
    // One or two short sentences (the example included).
    const sentences = g.text.split(/[。！？]/).filter(Boolean);
    assert.ok(sentences.length >= 1 && sentences.length <= 3, `${id}: ${sentences.length} sentences`);
    assert.ok(g.text.length <= 90, `${id} is ${g.text.length} characters: too long for a child`);
  }
});

test("each view that shows a term offers its 「?」 (term(id) or a term-helping label)", () => {
  for (const [view, { shows, helps = shows }] of Object.entries(VIEWS)) {
    const text = shows.map(literals).join("\n");
    const helpers = helps.join("\n");
    for (const word of TERMS) {
      if (!text.includes(word)) continue;
      const id = glossaryId(word);
      assert.ok(id, `${view} shows 「${word}」, which has no glossary entry`);
      assert.ok(helpers.includes(`"${id}"`), `${view} shows 「${word}」 with no 「?」 (term("${id}"))`);
    }
  }
});

test("the glossary is the rules page's too: rules.js lists GLOSSARY, rules.html has its place", () => {
  assert.match(read("lazy/rules.js"), /GLOSSARY/);
  // It does not load with the page (the 40 KB first load): only lazily.
  for (const first of ["messages.js", "render.js", "dialog.js", "store.js", "main.js"]) {
    let src = "";
    try {
      src = read(first);
    } catch {
      continue;
    }
    assert.doesNotMatch(src, /^import[^;]*glossary\.js/m, `${first} imports glossary.js statically`);
  }
  assert.match(readFileSync(new URL("../rules.html", JS), "utf-8"), /data-glossary/);
});

test("L13: the verdict reads the points lost, never the accuracy", () => {
  // The game: 准确率 88.8% and 61 points lost is one star, not a good mark.
  assert.equal(verdict(61.2).stars, 1);
  assert.equal(verdict(61.2).short, "★☆☆☆☆ 多看看复盘");
  assert.equal(verdict(59.9).short, "★★☆☆☆ 还要多练");
  assert.equal(verdict(0).stars, 5);
  assert.equal(verdict(4.99).stars, 5);
  assert.equal(verdict(5).stars, 4);
  assert.equal(verdict(100).stars, 1);
  assert.match(verdict(12.345).text, /少得 12\.3 分/);
  assert.match(verdict(12.3, true).text, /平均每局/);
});
