// The page's shape (chessground's): one state, one mutation funnel (reducer.js), effects
// after each change (effects.js), one render per frame that only draws. These run the
// store, the funnel, the effects and the one fetch wrapper in Node, with no browser; the
// render itself is checked in a real browser (tests/e2e/test_render.py).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const CONFIG_TEXT = readFileSync(new URL("./config.json", import.meta.url), "utf-8");
const CONFIG = JSON.parse(CONFIG_TEXT);
globalThis.document = {
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : null),
};
const { W } = await import("./words.js");

/** A localStorage that counts its writes. */
function fakeStorage(initial = {}) {
  const data = new Map(Object.entries(initial));
  const writes = [];
  return {
    data,
    writes,
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => (writes.push(["set", k, v]), data.set(k, String(v))),
    removeItem: (k) => (writes.push(["remove", k]), data.delete(k)),
  };
}
globalThis.localStorage = fakeStorage();

const frames = [];
globalThis.requestAnimationFrame = (fn) => frames.push(fn);
globalThis.cancelAnimationFrame = () => {};
const nextFrame = () => frames.shift()();

const JS = "../../src/yahtzee/static/js";
const { reduce, addReducers } = await import(`${JS}/reducer.js`);
const { initialState } = await import(`${JS}/state.js`);
const { createStore } = await import(`${JS}/store.js`);
const { meterEffect, meterWanted, remember } = await import(`${JS}/effects.js`);
const { DEFAULT_SETTINGS } = await import(`${JS}/settings.js`);
const { loadSettings, storedHold } = await import(`${JS}/remember.js`);
const { ApiError, api, request } = await import(`${JS}/api.js`);
const { boardReducers, openBoard } = await import(`${JS}/board/state.js`);
addReducers(boardReducers); // (main.js adds them when the board's code loads)

function game(over = {}) {
  return {
    id: "g1", version: 1, mode: "solo", kind: "solo", difficulty: null, status: "in_progress", round: 1,
    turn: 0, dice: null, rolls_left: 3, hints_left: 3,
    seats: [{ kind: "human", scores: {}, total: 0 }], preview: null, computer_turns: [], turns: [],
    ...over,
  };
}

/** A store with the page's real funnel and effects, a render that only counts, and an
 * api whose meter answers when the test says so. */
function page(settings = DEFAULT_SETTINGS) {
  const asked = [];
  const fakeApi = {
    meter: (id) =>
      new Promise((resolve, reject) => asked.push({ id, resolve, reject })),
  };
  const renders = [];
  const store = createStore(reduce, initialState(settings), {
    render: (s) => renders.push(s),
    effects: [remember, meterEffect(fakeApi)],
  });
  frames.length = 0;
  return { store, asked, renders };
}

const onTable = (store, g = game()) => {
  store.dispatch({ type: "boardOpen", board: openBoard({ owner: "game", game: g, mine: [0] }) });
  store.dispatch({ type: "navigate", view: "game" });
};

test("effects see every change, in order, before the render; an effect's dispatch is queued", () => {
  const seen = [];
  const store = createStore(reduce, initialState(), {
    render: () => seen.push("render"),
    effects: [
      (s, before, st) => {
        seen.push(`${before.message.serial}→${s.message.serial}`);
        if (s.message.text === "一") st.dispatch({ type: "say", text: "二" });
      },
      (s) => seen.push(`second sees ${s.message.serial}`),
    ],
  });
  frames.length = 0;
  store.dispatch({ type: "say", text: "一" });
  // The first change reaches both effects before the one it caused.
  assert.deepEqual(seen, ["0→1", "second sees 1", "1→2", "second sees 2"]);
  assert.equal(frames.length, 1, "one frame for both changes");
  nextFrame();
  assert.deepEqual(seen.slice(4), ["render"]);
});

test("the render callback is called with the state only: rendering twice asks and stores nothing", async () => {
  const { store, asked, renders } = page();
  onTable(store);
  nextFrame();
  const writes = localStorage.writes.length;
  const asks = asked.length;
  store.flush();
  store.flush();
  assert.equal(renders.at(-1), renders.at(-2), "the same state, drawn again");
  assert.equal(asked.length, asks, "no request from a render");
  assert.equal(localStorage.writes.length, writes, "no storage written by a render");
});

test("L4: the meter is asked once per position, one at a time, never during a replay, hidden or off the board", async () => {
  const { store, asked } = page();
  onTable(store);
  assert.equal(asked.length, 1, "the new game's first figure");
  store.dispatch({ type: "say", text: "x" }); // same position: not asked again
  assert.equal(asked.length, 1);
  const rolled = game({ version: 2, dice: [1, 2, 3, 4, 5], rolls_left: 2 });
  store.dispatch({ type: "boardRolled", game: rolled, hold: [false, false, false, false, false] });
  assert.equal(asked.length, 1, "one request at a time: the next position waits");
  const again = game({ version: 3, dice: [1, 2, 3, 4, 6], rolls_left: 1 });
  store.dispatch({ type: "boardRolled", game: again, hold: [false, false, false, false, false] });
  asked[0].resolve({ expected_final: 254.6, win_probability: null });
  await new Promise((r) => setTimeout(r));
  assert.equal(asked.length, 2, "then the latest position only (version 2 was passed)");
  asked[1].resolve({ expected_final: 240.5, win_probability: null });
  await new Promise((r) => setTimeout(r));
  assert.equal(store.state.meter.figures.expected_final, 240.5);
  assert.equal(store.state.meter.said.text, "", "a roll is not said aloud");
  // A new turn of the same game is said once.
  store.dispatch({ type: "boardGame", game: game({ version: 4, round: 2 }) });
  asked[2].resolve({ expected_final: 250, win_probability: null });
  await new Promise((r) => setTimeout(r));
  assert.equal(store.state.meter.said.text, "预计终局 250.0 分。");
  // Hidden: nothing asked; shown again: asked, and not said.
  store.dispatch({ type: "setting", name: "meter", value: "hidden" });
  store.dispatch({ type: "boardGame", game: game({ version: 5, round: 3 }) });
  assert.equal(asked.length, 3);
  store.dispatch({ type: "setting", name: "meter", value: "shown" });
  assert.equal(asked.length, 4);
  assert.equal(store.state.meter.asking.announce, false);
  // Another seat's turn being replayed, the lobby, a watcher's board: nothing asked.
  const s = { ...store.state, meter: { ...store.state.meter, asking: null } };
  assert.equal(meterWanted({ ...s, board: { ...s.board, replay: { steps: [] } } }), null);
  assert.equal(meterWanted({ ...s, view: "lobby" }), null);
  assert.equal(meterWanted({ ...s, board: { ...s.board, mine: [] } }), null);
  assert.ok(meterWanted(s));
});

test("P5/U6: settings and holds are written by the effect only when they change", () => {
  globalThis.localStorage = fakeStorage();
  const { store } = page();
  store.dispatch({ type: "say", text: "nothing to keep" });
  assert.deepEqual(localStorage.writes, []);
  store.dispatch({ type: "setting", name: "replay", value: "fast" });
  store.dispatch({ type: "setting", name: "replay", value: "warp" }); // unknown: ignored
  assert.equal(store.state.settings.replay, "fast");
  assert.equal(JSON.parse(localStorage.getItem("yahtzee.settings")).replay, "fast");
  store.dispatch({ type: "setting", name: "meter", value: "hidden" });
  assert.equal(localStorage.getItem("yahtzee.meter"), "hidden");
  const g = game({ dice: [2, 2, 5, 6, 1], rolls_left: 2 });
  onTable(store, g);
  store.dispatch({ type: "boardToggle", index: 1 });
  assert.deepEqual(JSON.parse(localStorage.getItem("yahtzee.hold")).hold, [false, true, false, false, false]);
  assert.deepEqual(storedHold(g), [false, true, false, false, false]);
  assert.deepEqual(loadSettings(), { ...DEFAULT_SETTINGS, replay: "fast", meter: "hidden" });
});

test("the page copies no defaults: the first level offered is /api/config's suggested one", () => {
  assert.equal(DEFAULT_SETTINGS.difficulty, CONFIG.suggested_difficulty);
  globalThis.localStorage = fakeStorage({ "yahtzee.settings": '{"difficulty": "grandmaster", "theme": 3}' });
  assert.deepEqual(loadSettings(), DEFAULT_SETTINGS);
  globalThis.localStorage = fakeStorage({ "yahtzee.settings": "{damaged" });
  assert.deepEqual(loadSettings(), DEFAULT_SETTINGS);
});

test("a lazy view's page: the latest opening wins; its own state goes through the funnel", () => {
  let s = reduce(initialState(), { type: "pageOpen", view: "review", params: { id: "a" } });
  const first = s.page.serial;
  s = reduce(s, { type: "pageOpen", view: "stats", params: {} });
  assert.equal(s.view, "stats");
  assert.equal(s.previousView, "review");
  assert.equal(reduce(s, { type: "pageLoaded", serial: first, data: 1 }), s, "a late answer");
  s = reduce(s, { type: "pageLoaded", serial: s.page.serial, data: { solo: {} } });
  assert.equal(s.page.status, "ready");
  // No free-form patch of a view's own state: it changes through the view's named actions.
  assert.throws(() => reduce(s, { type: "pageUi", ui: { selected: 3 } }), /unknown action pageUi/);
  const failed = reduce(reduce(s, { type: "pageOpen", view: "review", params: { id: "b" } }), {
    type: "pageFailed", serial: s.page.serial + 1, error: "找不到",
  });
  assert.deepEqual([failed.page.status, failed.page.error], ["error", "找不到"]);
});

test("a lazy view's own actions join the one funnel; a name is never taken twice", () => {
  const trainerAnswered = (state, { answer }) => ({ ...state, page: { ...state.page, ui: { answer } } });
  addReducers({ trainerAnswered });
  addReducers({ trainerAnswered }); // the same module loaded again: fine
  const s = reduce(
    reduce(initialState(), { type: "pageOpen", view: "trainer", params: {} }),
    { type: "trainerAnswered", answer: 2 },
  );
  assert.equal(s.page.ui.answer, 2);
  assert.throws(() => addReducers({ navigate: () => null }), /action navigate exists/);
  assert.throws(() => reduce(initialState(), { type: "toString" }), /unknown action/);
});

test("one fetch wrapper, one error shape: the server's {error: {code, message}}", async () => {
  const answer = (status, body, text = JSON.stringify(body)) => async () => ({
    ok: status < 400, status,
    json: async () => JSON.parse(text),
    text: async () => text,
  });
  const seen = [];
  globalThis.fetch = async (path, init) => (seen.push([path, init]), answer(409, {
    error: { code: "game_in_progress", message: "你还有一局没下完" },
  })());
  await assert.rejects(api.create("solo", null), (e) => {
    assert.ok(e instanceof ApiError);
    assert.deepEqual([e.status, e.code, e.message], [409, "game_in_progress", "你还有一局没下完"]);
    return true;
  });
  assert.equal(seen[0][0], "/api/games");
  assert.equal(seen[0][1].method, "POST");
  assert.equal(seen[0][1].credentials, "same-origin");
  globalThis.fetch = answer(502, null, "<html>bad gateway</html>");
  await assert.rejects(api.meter("g/1"), { status: 502, code: "http_502" });
  globalThis.fetch = async () => {
    throw new TypeError("offline");
  };
  await assert.rejects(api.records(), { status: 0, code: "network" });
  globalThis.fetch = async (path) => (seen.push([path]), answer(200, null, "<p>规则</p>")());
  assert.equal(await request("GET", "/rules.html", undefined, "text"), "<p>规则</p>");
  globalThis.fetch = async (path) => (seen.push([path]), answer(200, { ok: 1 })());
  await api.game("a b");
  assert.equal(seen.at(-1)[0], "/api/games/a%20b");
});

test("the page's first request goes alone: the rest wait for its answer, so one player id is minted", async () => {
  // A module of its own (a fresh page): this file's other tests have sent requests already.
  const { request: send } = await import(`${JS}/api.js?fresh-page`);
  const ok = { ok: true, status: 200, json: async () => ({}), text: async () => "" };
  const started = [];
  let answerFirst;
  globalThis.fetch = (path) => {
    started.push(path);
    return path === "/api/stats" ? new Promise((resolve) => (answerFirst = resolve)) : Promise.resolve(ok);
  };
  // 统计 opened directly, without a cookie: two requests at once, then a third.
  const stats = send("GET", "/api/stats");
  const progress = send("GET", "/api/puzzles/progress");
  const later = send("POST", "/api/games", { mode: "solo" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(started, ["/api/stats"], "nothing else is sent before the first answer");
  answerFirst(ok);
  await Promise.all([stats, progress, later]);
  assert.deepEqual(started, ["/api/stats", "/api/puzzles/progress", "/api/games"]);

  // A first request that fails (offline) holds nothing up: the others are sent after it.
  const { request: offline } = await import(`${JS}/api.js?offline-page`);
  const tried = [];
  globalThis.fetch = async (path) => {
    tried.push(path);
    if (tried.length === 1) throw new TypeError("offline");
    return ok;
  };
  const results = await Promise.allSettled([offline("GET", "/api/records"), offline("GET", "/api/games/current")]);
  assert.equal(results[0].status, "rejected");
  assert.equal(results[0].reason.code, "network");
  assert.equal(results[1].status, "fulfilled");
  assert.deepEqual(tried, ["/api/records", "/api/games/current"]);
});

test("S4: a 503 busy (nothing done) is sent once more after its Retry-After, said; never a third time", async () => {
  const { onBusy } = await import(`${JS}/api.js`);
  const answer = (status, body, retryAfter = null) => ({
    ok: status < 400, status,
    headers: { get: (name) => (name.toLowerCase() === "retry-after" ? retryAfter : null) },
    json: async () => body,
    text: async () => JSON.stringify(body),
  });
  const busy = () => answer(503, { error: { code: "busy", message: "服务器正忙，这一步没有执行，请稍后再试。" } }, "0");
  const said = [];
  onBusy((seconds) => said.push(seconds));
  const game = { id: "g1", version: 7 };

  // refused once, then served: one more sending of the very same request, and it is said
  let sent = [];
  globalThis.fetch = async (path, init) => (sent.push([path, init.body]), sent.length === 1 ? busy() : answer(200, { version: 8 }));
  assert.deepEqual(await api.roll(game, [false, false, false, false, false]), { version: 8 });
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[0], sent[1]);
  assert.deepEqual(said, [0]);

  // refused twice: the second refusal is the page's to show (try again); no third sending
  sent = [];
  globalThis.fetch = async (path, init) => (sent.push([path, init.body]), busy());
  await assert.rejects(api.score(game, "chance", false), (e) => {
    assert.ok(e instanceof ApiError);
    assert.deepEqual([e.status, e.code, e.retryAfter], [503, "busy", 0]);
    assert.match(e.message, /请稍后再试/);
    return true;
  });
  assert.equal(sent.length, 2);
  assert.deepEqual(said, [0, 0]);

  // no process answered (nginx's 503 unavailable: maybe done), a storage fault, a 429:
  // never sent again here (the page reads the game again instead)
  for (const [status, code] of [[503, "unavailable"], [503, "storage_unavailable"], [429, "rate_limited"]]) {
    sent = [];
    globalThis.fetch = async (path, init) => (sent.push([path, init.body]), answer(status, { error: { code, message: "x" } }, "1"));
    await assert.rejects(api.roll(game, [false, false, false, false, false]), { status, code, retryAfter: 1 });
    assert.equal(sent.length, 1, code);
  }
  assert.deepEqual(said, [0, 0]);

  // the wait is the server's Retry-After
  sent = [];
  globalThis.fetch = async (path, init) => (sent.push([path, init.body]), sent.length === 1 ? answer(503, { error: { code: "busy", message: "忙" } }, "1") : answer(200, { version: 8 }));
  const began = Date.now();
  await api.roll(game, [false, false, false, false, false]);
  assert.ok(Date.now() - began >= 900, "waited for Retry-After");
  assert.deepEqual(said, [0, 0, 1]);
  onBusy(() => {});
});

test("S4: the retry is said where the player is: the message bar, or an open page's notice", () => {
  const table = reduce({ ...initialState(), view: "game" }, { type: "retrying", seconds: 1 });
  assert.match(table.message.text, /服务器正忙.*1 秒后自动再试一次/);
  assert.equal(table.message.view, "game");
  const opened = reduce(initialState(), { type: "pageOpen", view: "room", params: { id: "ab" } });
  const room = reduce(opened, { type: "retrying", seconds: 1 });
  assert.match(room.page.ui.notice, /服务器正忙/);
  assert.equal(room.message, opened.message);
});
