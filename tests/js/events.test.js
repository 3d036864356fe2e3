// 好友房间's stream reader (src/yahtzee/static/js/lazy/events.js, F9): the events of a
// Server-Sent Events text as it arrives in pieces, the waits between tries, and the loop
// that follows a stream (room.js and race.js) over a fake request and fake timers.

import assert from "node:assert/strict";
import { test } from "node:test";

const { followStream, parseEvents, retryDelay } = await import("../../src/yahtzee/static/js/lazy/events.js");

test("complete events are read, a partial one is kept for the next piece", () => {
  const first = parseEvents(': ping\n\nid: 7\ndata: {"id":7,"kind":"roll"}\n\nid: 8\ndata: {"id"');
  assert.deepEqual(first.events, [{ id: 7, data: '{"id":7,"kind":"roll"}' }]);
  const second = parseEvents(`${first.rest}:8}\n\n`);
  assert.deepEqual(second.events, [{ id: 8, data: '{"id":8}' }]);
  assert.equal(second.rest, "");
});

test("CRLF line ends, several data lines, and blocks without an id or data", () => {
  const { events } = parseEvents("id: 1\r\ndata: a\r\ndata: b\r\n\r\nretry: 10\n\nid: 2\n\ndata: x\n\n");
  assert.deepEqual(events, [{ id: 1, data: "a\nb" }]);
});

test("waits double from a second up to 30 s; the server's Retry-After wins", () => {
  assert.deepEqual([1, 2, 3, 6, 9].map((n) => retryDelay(n, null)), [1000, 2000, 4000, 30000, 30000]);
  assert.equal(retryDelay(1, "30"), 30000);
  assert.equal(retryDelay(4, "2"), 2000);
  assert.equal(retryDelay(1, "soon"), 1000);
});

const WORDS = { retrying: "retrying", gone: "gone", later: (m) => `later: ${m}` };

/** A Response-like answer: `status`, a JSON error body or a body of SSE `pieces`. */
function answer(status, { pieces = [], error = null, retryAfter = null } = {}) {
  const body = new ReadableStream({
    start(c) {
      for (const p of pieces) c.enqueue(new TextEncoder().encode(p));
      c.close();
    },
  });
  return {
    ok: status === 200,
    status,
    headers: { get: (name) => (name === "Retry-After" ? retryAfter : null) },
    json: async () => (error ? { error: { message: error } } : null),
    body,
  };
}

/** Timers that run only when told: `run()` fires the one waiting, and says its delay. */
function manualTimers() {
  const waiting = [];
  return {
    waiting,
    setTimeout: (fn, ms) => waiting.push({ fn, ms }) && waiting.length,
    clearTimeout: () => waiting.splice(0),
    run() {
      const next = waiting.shift();
      next.fn();
      return next.ms;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("a stream is followed from the last event read, through drops and the server's waits", async () => {
  const timers = manualTimers();
  const asked = [];
  const replies = [
    () => answer(200, { pieces: ["id: 5\ndata: a\n\nid: 6\nda", "ta: b\n\n"] }), // then ended
    () => Promise.reject(new TypeError("network")),
    () => answer(503, { error: "busy", retryAfter: "7" }),
    () => answer(200, { pieces: ["id: 9\ndata: c\n\n"] }),
  ];
  const seen = [];
  const said = [];
  followStream(
    (last) => {
      asked.push(last);
      return replies.shift()();
    },
    4,
    { onEvents: (events) => seen.push(...events.map((e) => e.data)), onStatus: (s) => said.push(s), words: WORDS },
    timers,
  );
  await settle();
  assert.deepEqual(seen, ["a", "b"]);
  assert.equal(timers.run(), 250); // ended by the server: again at once
  await settle();
  assert.equal(timers.run(), 1000); // the network failed: a second
  await settle();
  assert.equal(timers.run(), 7000); // the server's Retry-After
  await settle();
  assert.deepEqual(asked, [4, 6, 6, 6]);
  assert.deepEqual(seen, ["a", "b", "c"]);
  assert.deepEqual(said, [null, { message: "retrying" }, { message: "later: busy" }, null]);
});

test("404 and 403 end the stream for good, with the server's reason for a 403", async () => {
  for (const [status, error, message] of [[404, "no room", "gone"], [403, "removed", "removed"], [403, null, "gone"]]) {
    const timers = manualTimers();
    const said = [];
    followStream(() => answer(status, { error }), 1, { onEvents: () => {}, onStatus: (s) => said.push(s), words: WORDS }, timers);
    await settle();
    assert.deepEqual(said, [{ message, ended: true }]);
    assert.equal(timers.waiting.length, 0, "never tried again");
  }
});

test("stop() aborts the request and cancels the next try", async () => {
  const timers = manualTimers();
  let signal = null;
  const following = followStream(
    (_last, s) => {
      signal = s;
      return Promise.reject(new TypeError("network"));
    },
    1,
    { onEvents: () => {}, onStatus: () => {}, words: WORDS },
    timers,
  );
  await settle();
  assert.equal(timers.waiting.length, 1);
  following.stop();
  assert.equal(signal.aborted, true);
  assert.equal(timers.waiting.length, 0);
});
