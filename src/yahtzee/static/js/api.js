// The page's one way to the server (docs/api.md). Every failure becomes an ApiError with
// the server's error shape, `{status, code, message}` from `{"error": {"code", "message"}}`;
// `message` is fit to show a player (the server's Chinese message when it sent one). The
// paths come from paths.js. `api` has the calls of the first load's code (the table, the
// lobby; lazy views use them too, through ctx.api); a lazy view's own calls live in its
// module, built on `request`, so they load with it (P6).
//
// One player id per browser: the server mints an id (and sets its cookie) on a request
// without one, so two first requests sent at once (a page opened on /stats asks for two
// things) would mint two ids, and whatever the first made would belong to the id whose
// cookie lost. The page's very first request therefore goes alone; the others wait for its
// answer (or its failure), by which time the cookie is set.
//
// Busy (S4): a 503 `busy` is the server refusing a request before any work (more requests
// in flight than it can answer in time, or its CPU queue full): nothing was done, so the
// request is sent once more after the `Retry-After` it gave (at most BUSY_WAIT_MAX_MS), and
// the listener set with `onBusy` tells the player meanwhile; a second refusal is the error
// the page shows ("try again"). Nothing else is ever resent (U14): a network failure and a
// 503 `unavailable` (nginx: no process answered; the action may have been done) go to the
// page, which says so and reads the game again once the server answers.

import { language, t } from "./i18n.js";
import { API } from "./paths.js";

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter; // seconds, from the answer's Retry-After (429, 503)
  }
}

export const BUSY_WAIT_MAX_MS = 5000;
let busyListener = () => {};
let noticeListener = () => {};

/** U20: `listener(reason)` while an answer's cookies say this browser's device ended (the
 * server's `yahtzee_notice`: removed, erased, expired, signed_out), until the page has
 * said so and the player closed it (lazy/notice.js clears it). */
export function onNotice(listener) {
  noticeListener = listener;
}

function readNotice() {
  const jar = (typeof document !== "undefined" && document.cookie) || "";
  const m = jar.match(/(?:^|; )yahtzee_notice=(\w+)/);
  if (m) noticeListener(m[1]);
}

/** S4: `listener(seconds)` is called when a refused request will be sent again in `seconds`. */
export function onBusy(listener) {
  busyListener = listener;
}

let first = null; // the page's first request, settled or not (see above)

/** One request: JSON in, JSON out (`as` "text": the body as text, for the page's own
 * files), this browser's cookie sent; after the page's first one has been answered. */
export function request(method, path, body, as = "json") {
  if (first === null) {
    const sent = send(method, path, body, as);
    first = sent.catch(() => null);
    return sent;
  }
  return first.then(() => send(method, path, body, as));
}

async function send(method, path, body, as) {
  try {
    return await sendOnce(method, path, body, as);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 503 && err.code === "busy")) throw err;
    const seconds = err.retryAfter ?? 1;
    busyListener(seconds);
    await new Promise((resolve) => setTimeout(resolve, Math.min(BUSY_WAIT_MAX_MS, seconds * 1000)));
    return sendOnce(method, path, body, as); // once: a second refusal is the page's to show
  }
}

async function sendOnce(method, path, body, as) {
  const accept = as === "json" ? "application/json" : "text/html";
  // G1: the server's messages come back in the language the page speaks.
  const headers = { Accept: accept, "Accept-Language": language() };
  const init = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "network", t("core.api.network"));
  }
  readNotice();
  const data = await (response.ok && as === "text" ? response.text() : response.json()).catch(
    () => null,
  );
  if (!response.ok) {
    const err = (data && data.error) || {};
    const wait = Number.parseInt((response.headers && response.headers.get("Retry-After")) || "", 10);
    throw new ApiError(
      response.status,
      err.code || `http_${response.status}`,
      err.message || t("core.api.server_error", { status: response.status }),
      Number.isFinite(wait) && wait >= 0 ? wait : null,
    );
  }
  return data;
}

/** A stream (好友房间's live events, F9): the raw Response of a GET sent with this browser's
 * cookie and `Last-Event-ID`, its body to be read as it comes (its status checked by the
 * caller); a network failure rejects. After the page's first request, as every request. */
export function openStream(path, lastEventId, signal) {
  const init = {
    headers: { Accept: "text/event-stream", "Last-Event-ID": String(lastEventId) },
    credentials: "same-origin",
    cache: "no-store",
    signal,
  };
  return (first || Promise.resolve()).then(() => fetch(path, init));
}

const get = (path) => request("GET", path);

export const api = {
  records: () => get(API.records()),
  current: () => get(API.current()),
  game: (id) => get(API.game(id)),
  // replace: abandon the unfinished game; without it the server answers 409
  // game_in_progress while one is saved (F2). `difficulty`: the computer's, where there is one.
  create: (mode, difficulty, replace = false) =>
    request("POST", API.games(), {
      mode,
      ...(difficulty ? { difficulty } : {}),
      ...(replace ? { replace: true } : {}),
    }),
  roll: (game, hold) => request("POST", API.roll(game.id), { version: game.version, hold }),
  score: (game, category, confirmZero) =>
    request("POST", API.score(game.id), {
      version: game.version,
      category,
      confirm_zero: confirmZero,
    }),
  hint: (game) => request("POST", API.hint(game.id), { version: game.version }),
  // G3: the language the player chose, kept for every device linked to them.
  language: (lang) => request("PUT", API.language(), { language: lang }),
  // 撤销 (polish 8): the box just written, taken back (`game.undo` says which and whether).
  undo: (game) => request("POST", API.undo(game.id), { version: game.version }),
  // A game given up (「跳过教程」, L10).
  abandon: (game) => request("POST", API.abandon(game.id), { version: game.version }),
  meter: (id) => get(API.meter(id)),
  /** One of the page's own files (paths.js `asset`), as text: a lazy view's markup. */
  text: (url) => request("GET", url, undefined, "text"),
};
