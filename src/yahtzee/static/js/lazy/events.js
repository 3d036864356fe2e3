// Reading a Server-Sent Events stream by hand (好友房间's live stream, room.js, F9): pure
// functions, no DOM, so the page's tests run them in node.

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
