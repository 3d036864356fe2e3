// Reading a Server-Sent Events stream by hand (好友房间's live stream, room.js and race.js,
// F9): no DOM and no network of its own (the request is given), so the page's tests run it
// in node.

const RETRY_MAX_MS = 30000;
export const RETRY_MIN_MS = 250;

/** The complete events at the start of `text` (Server-Sent Events: blocks ended by a blank
 * line), each `{id, data}` (`data` the joined data lines), and the `rest` not yet complete.
 * Comments (`: ping`) and blocks without an id or data are skipped. */
export function parseEvents(text) {
  const events = [];
  const blocks = text.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop();
  for (const block of blocks) {
    let id = null;
    const data = [];
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id" && /^\d+$/.test(value)) id = Number(value);
      else if (field === "data") data.push(value);
    }
    if (id !== null && data.length) events.push({ id, data: data.join("\n") });
  }
  return { events, rest };
}

/** How long to wait before the next try: the server's Retry-After, else doubling from 1 s. */
export function retryDelay(failures, retryAfter) {
  const told = Number(retryAfter);
  const ms = Number.isFinite(told) && told > 0 ? told * 1000 : 1000 * 2 ** Math.max(0, failures - 1);
  return Math.max(RETRY_MIN_MS, Math.min(RETRY_MAX_MS, ms));
}

/** Follow a room's stream from event `since` until `stop()`: `open(lastId, signal)` sends
 * the request (api.js's openStream) and answers its Response; each piece's complete events
 * go to `onEvents(events)`, in order. `onStatus(status)` says where it stands: `null` once
 * connected, `{message}` while it tries again (the network failed, the connection dropped,
 * or the server asked for later: its Retry-After is kept), `{message, ended: true}` when the
 * server said the stream is gone for good (404, 403: a link replaced, a seat removed).
 * A stream the server ended is opened again at once, from the last event read.
 * `words`: `{retrying, gone, later(message)}` in the view's language. `timers` is injected
 * for tests (setTimeout/clearTimeout by default). */
export function followStream(open, since, { onEvents, onStatus, words }, timers = globalThis) {
  let last = since;
  let stopped = false;
  let failures = 0;
  let controller = null;
  let timer = null;
  const again = (ms) => {
    if (!stopped) timer = timers.setTimeout(connect, ms);
  };
  const fail = (message, retryAfter) => {
    failures += 1;
    onStatus({ message });
    again(retryDelay(failures, retryAfter));
  };

  async function connect() {
    if (stopped) return;
    controller = new AbortController();
    let response;
    try {
      response = await open(last, controller.signal);
    } catch {
      if (!stopped) fail(words.retrying);
      return;
    }
    if (stopped) return;
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      const told = body && body.error && body.error.message;
      if (response.status === 404) onStatus({ message: words.gone, ended: true });
      else if (response.status === 403) onStatus({ message: told || words.gone, ended: true });
      else fail(told ? words.later(told) : words.retrying, response.headers.get("Retry-After"));
      return;
    }
    failures = 0;
    onStatus(null);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const { events, rest } = parseEvents(buffer + value);
        buffer = rest;
        if (!events.length) continue;
        last = Math.max(last, ...events.map((e) => e.id));
        onEvents(events);
      }
    } catch {
      if (!stopped) fail(words.retrying); // dropped (a process that went away)
      return;
    }
    again(RETRY_MIN_MS);
  }

  connect();
  return {
    /** Closes the stream and tries no more. */
    stop() {
      stopped = true;
      timers.clearTimeout(timer);
      if (controller) controller.abort();
    },
  };
}
