// 好友房间's stream reader (src/yahtzee/static/js/lazy/events.js, F9): the events of a
// Server-Sent Events text as it arrives in pieces, and the waits between tries.

import assert from "node:assert/strict";
import { test } from "node:test";

const { parseEvents, retryDelay } = await import("../../src/yahtzee/static/js/lazy/events.js");

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
