// 好友房间 (/rooms/new: a new room; /rooms/<id>: the room, live), a lazy view (views.js).
// The room is `page.data.room` as the server sent it (GET/POST /api/rooms…) without its
// game: once started, the game is played on the page's one board (board/board.js), given
// this mode — this browser plays its own seat, the server rolls, every other seat's turn
// (a friend's, 托管's, a computer's) is replayed as its events arrive. The room's event
// stream (`mount`: read as it comes, asked again with Last-Event-ID whenever it ends) folds
// each event into the room (the `roomEvent` reducer) and gives the board the game it
// carries: the board's live feed. The view does no rules maths: the boxes a seat can score
// in and their points are the server's preview, the countdown is the server's deadline.
// Names are shown with textContent only (dom.js `el`). The view's own state, page.ui:
// {reactions: {seat: {id, at}}, busy, error, notice (S4: a busy server's retry, said), now
// (the clock the countdown reads), skew, stream (null while the stream is live, else
// {message} saying why not), copied, rematch}, changed only by the named actions below.

import { el, seatName, term } from "./dom.js";
import { followStream } from "./events.js";
import { CONFIG } from "../config.js";
import { ApiError, openStream, request } from "../api.js";
import { API, href } from "../paths.js";
import { DIFFICULTY_NAMES } from "../state.js";
import { language, named, t, tn } from "../i18n.js";
import { paceOption, paceSaid, paces, timeLeft } from "./when.js";

const ROOMS = CONFIG.rooms;
const REACTION_NAMES = named(Object.fromEntries(ROOMS.reactions.map((r) => [r.id, r.name_key])));
const REACTION_SHOWN_MS = 4000;
/** What a watcher is told (said when drawn: the language can change meanwhile). */
const watching = () => t("room.watching");
/** A room's status (docs/api.md's `status`) as the page says it. */
const STATUS = {
  waiting: () => t("room.status.waiting"),
  starting: () => t("room.status.starting"),
  playing: () => t("room.status.playing"),
  finished: () => t("room.status.finished"),
  expired: () => t("room.status.expired"),
};

// -- state: the room's events folded in (pure) ---------------------------------------------

function withSeat(room, index, change) {
  const seats = room.seats.map((s) => (s.index === index ? { ...s, ...change } : s));
  return { ...room, seats };
}

/** The room after one event of its stream (docs/api.md "The event stream"); the game an
 * event carries is the board's (`gameOf`). */
export function applyEvent(room, event) {
  if (event.id <= room.last_event_id) return room; // already in the room as loaded
  let next = { ...room, last_event_id: event.id };
  if (event.game) next = { ...next, game_id: event.game.id };
  if ("deadline" in event) next = { ...next, deadline: event.deadline, now: event.now ?? next.now };
  switch (event.kind) {
    case "join":
      return withSeat(next, event.seat, { name: event.name, taken: true });
    case "leave":
      return withSeat(next, event.seat, { name: null, taken: false, you: false });
    case "start": {
      // The seats that play, renumbered (open seats dropped); this browser's by its name.
      const mine = room.seats.find((s) => s.you);
      const seats = (event.seats || room.seats).map((s) => ({
        ...s,
        you: Boolean(mine && s.kind === "human" && s.name === mine.name),
      }));
      return { ...next, status: "playing", seats };
    }
    case "away":
      return withSeat(next, event.seat, { away: true });
    case "back":
      return withSeat(next, event.seat, { away: false });
    case "end":
      // (W1: `reason` idle, a waiting room nobody played for `days` days: a code, said
      // by each page in its own words)
      return { ...next, status: "finished", deadline: null, ended: event.reason ? { reason: event.reason, days: event.days } : null };
    case "rematch":
      return { ...next, rematch_id: event.room };
    case "expired":
      return { ...next, status: "expired" };
    default:
      return next;
  }
}

/** U17: the game's whole turn log. A room's events carry only the last round's turns (the
 * stream frames each event once for every page: its size stays small); the page keeps the
 * turns it has and adds the new ones. */
export function mergeTurns(had, fresh) {
  const key = (t) => `${t.round}:${t.seat}`;
  const known = new Set(had.map(key));
  return [...had, ...fresh.filter((t) => !known.has(key(t)))];
}

/** The steps a room event shows to the viewer sitting at `mine` (null: a watcher), `before`
 * the board's game as it was and `holds` the last holds seen ({seat, hold}). Another seat's
 * roll is one step (its dice, what it held); a box written — by a friend, or by 托管 for an
 * away seat, whose whole turn is one event — one step with the box and points (the game's
 * turn log's line); the computers' turns that followed, theirs (`computer_turns`). The
 * viewer's own actions are not replayed to them (the board showed them when answered). */
export function roomSteps(before, event, mine, holds) {
  const game = event.game;
  if (!game || !["roll", "score"].includes(event.kind)) return [];
  const own = event.seat === mine && !event.proxy;
  if (own) return [];
  const steps = [];
  if (event.kind === "score" || event.proxy) {
    const t = (game.turns || []).filter((x) => x.seat === event.seat).at(-1);
    if (t) steps.push({ action: "score", seat: t.seat, round: t.round, dice: t.dice, category: t.category, points: t.points });
  } else if (game.dice && game.turn === event.seat) {
    const kept = before && before.dice && holds && holds.seat === event.seat ? holds.hold : [false, false, false, false, false];
    steps.push({ action: "roll", seat: event.seat, round: game.round, dice: game.dice, hold: kept.slice() });
  }
  if (event.kind === "score" || event.proxy) {
    for (const t of game.computer_turns || []) {
      for (const s of t.steps) steps.push({ ...s, seat: t.seat, round: t.round });
    }
  }
  return steps;
}

/** This view's state `fn(ui, action)` for the opening `serial` of the room. */
const onRoom = (fn) => (state, action) => {
  const p = state.page;
  if (!p || p.view !== "room") return state;
  const ui = fn(p.ui, action, p);
  return ui === p.ui ? state : { ...state, page: { ...p, ui } };
};

function roomEvent(state, { serial, event, at }) {
  const page = state.page;
  if (!page || page.serial !== serial || !page.data || !page.data.room) return state;
  const room = applyEvent(page.data.room, event);
  let ui = page.ui;
  if (event.kind === "reaction") {
    ui = { ...ui, reactions: { ...(ui.reactions || {}), [event.seat]: { id: event.reaction, at } } };
  }
  if (event.kind === "rematch") ui = { ...ui, rematch: event.room };
  // The server's clock against this browser's: the countdown reads the server's deadline.
  if (typeof event.now === "number") ui = { ...ui, skew: event.now - at / 1000 };
  return { ...state, page: { ...page, data: { ...page.data, room }, ui } };
}

function settled(page, room) {
  return { ...page, data: { ...page.data, room }, ui: { ...page.ui, busy: false, error: null, notice: null } };
}

/** A room from an answer (join, start, remove; its game is the board's). The stream may
 * have brought newer events before the answer came: then the room as it stands is kept,
 * with what only the answer knows (this browser's seat, whether it is the creator's). */
function roomData(state, { serial, room }) {
  const page = state.page;
  if (!page || page.serial !== serial) return state;
  const current = page.data.room;
  if (!current || room.last_event_id >= current.last_event_id) return { ...state, page: settled(page, room) };
  const mine = new Set(room.seats.filter((s) => s.you).map((s) => s.name));
  const seats = current.seats.map((s) => ({ ...s, you: s.kind === "human" && mine.has(s.name) }));
  const merged = { ...current, seats, creator: room.creator, your_seat: room.your_seat, invite_url: room.invite_url, watch_url: room.watch_url };
  return { ...state, page: settled(page, merged) };
}

/** The room's named actions (pure; node-tested). */
export const reducers = {
  roomEvent,
  roomData,
  /** A room request asked (busy), or failed (`error`: the server's words). */
  roomBusy: onRoom((ui) => ({ ...ui, busy: true, error: null, notice: null })),
  roomFailed: onRoom((ui, { error }) => ({ ...ui, busy: false, error, notice: null })),
  roomIdle: onRoom((ui) => (ui.busy ? { ...ui, busy: false } : ui)),
  /** The event stream's state: null while live, else {message} saying why not (F9). */
  roomStream: onRoom((ui, { stream }) => ({ ...ui, stream })),
  /** The clock the countdown reads (ticked each second while the room is open). */
  roomTick: onRoom((ui, { now }) => ({ ...ui, now })),
  /** The invite link was copied. */
  roomCopied: onRoom((ui) => ({ ...ui, copied: true })),
  /** 「提醒他」 (W4): the message the server made for seat `nudge.seat` ({seat, name, text,
   * url, …}; null: the sheet closed), shared, copied (`copied`) or refused (`error`). */
  roomNudge: onRoom((ui, { nudge }) => ({ ...ui, nudge, nudgeError: null })),
  roomNudgeCopied: onRoom((ui) => (ui.nudge ? { ...ui, nudge: { ...ui.nudge, copied: true } } : ui)),
  roomNudgeFailed: onRoom((ui, { seat, error }) => ({ ...ui, nudge: null, nudgeError: { seat, error } })),
};

/** The room without its game (the board holds that), and the game. */
const split = ({ game = null, ...room }) => [room, game];

/** The room of /rooms/<id> (views.js LAZY.room; /rooms/new: a new room's form): the link's
 * token rides in the fragment (#t= to join, #w= to watch), sent only as `token`. (The
 * view's stylesheet is the registry's `css`: the view is drawn once it has loaded.) */
export function load({ id }) {
  if (id === "new") return Promise.resolve({ fresh: true });
  const m = location.hash.match(/^#([tw])=([A-Za-z0-9_-]{22})$/);
  const token = m ? m[2] : null;
  const path = token ? `${API.room(id)}?${new URLSearchParams({ token })}` : API.room(id);
  return request("GET", path).then(
    (r) => {
      const [room, game] = split(r.room);
      return { room, game, token, watch: Boolean(m && m[1] === "w") };
    },
    (err) => {
      // U17: an address without its link (an address bar shared without the #t= part)
      // says how to get in.
      if (!token && err instanceof ApiError && err.code === "not_found") throw new ApiError(404, "not_found", t("room.no_link"));
      throw err;
    },
  );
}

const post = (path, body = {}) => request("POST", path, body);

/** The room as the server has it now, read with the page's link token (if any). */
function readRoom(data) {
  const { room, token } = data;
  const path = token ? `${API.room(room.id)}?${new URLSearchParams({ token })}` : API.room(room.id);
  return request("GET", path).then((r) => r.room);
}

// -- the room's session: its stream, and its game on the board ------------------------------
// The stream is read as a fetch (api.js openStream) rather than an EventSource: a refused
// EventSource (429, 503, 404) closes without saying why, and the page must say it (F9). The
// page keeps the id of the last event it has and asks again from there (Last-Event-ID)
// whenever the stream ends: the server ends every stream after its lifetime, and after a
// renewed link or a removed seat, to check the browser again. A stream the server ended is
// opened again at once; a failure waits 1 s, 2 s, 4 s… (30 s at most, or the server's
// Retry-After) and says so on the page.

function mount(page, ctx) {
  const { data, serial } = page;
  if (!data.room) return { stop() {} };
  const { dispatch, state } = ctx;
  const root = el("div");
  const ours = () => {
    const p = state().page;
    return p && p.serial === serial ? p : null;
  };
  let feeding = false; // the board is on for this room and takes the stream's news
  let at = null;

  const mode = {
    owner: "room",
    transport: {
      roll: ctx.api.roll,
      score: ctx.api.score,
      read: () =>
        readRoom(data).then((r) => {
          const [room, game] = split(r);
          dispatch({ type: "roomData", serial, room });
          return game;
        }),
      // The holds, shown live on the other screens as they change.
      hold: (game, hold) => post(API.room(data.room.id, "hold"), { hold }).catch(() => {}),
    },
    hints: () => false, // no hints in a room
    confirm: () => true,
    lobby: () => ctx.open(href("lobby")),
    get movedOn() {
      return t("room.moved_on");
    },
    feed: () => {
      feeding = true;
      return () => (feeding = false);
    },
    // W3: what the page has shown is seen (after a replay, a turn, the end)
    turnOver: () => seen(),
    ended: () => seen(),
  };

  // W3: the room's events this seat has seen, told to the server once shown (so that the
  // next visit replays only what came after). Only forward, never twice for one event.
  let told = data.room.seen_event_id;
  let last = data.room.last_event_id; // the stream's last event read
  function seen() {
    const p = ours();
    if (told === null || told === undefined || !p || !p.data.room.seats.some((s) => s.you)) return;
    if (ctx.board.state && ctx.board.state.replay) return; // (after the replay)
    if (last <= told) return;
    told = last;
    post(API.room(data.room.id, "seen"), { event_id: last }).catch(() => {});
  }

  /** W3: the turns written since this seat last looked (the server marks them `new`: the
   * other seats', and those 托管 played for it) replayed on the board, as a computer's are
   * (skippable); the cards show the game as it stands, 本局记录 each turn as it is reached. */
  function replayNew(game) {
    const fresh = (game.turns || []).filter((x) => x.new);
    const steps = fresh.map((x) => ({ action: "score", seat: x.seat, round: x.round, dice: x.dice, category: x.category, points: x.points }));
    if (steps.length) ctx.board.replay(game, steps);
    else seen();
  }

  /** A game the room's news brought: on the board (opened on it the first time). */
  function show(game, event = null) {
    const p = ours();
    if (!game || !p) return;
    if (!feeding) {
      const mine = p.data.room.seats.filter((s) => s.you).map((s) => s.index);
      at = ctx.board.mount(root, mode, { game, mine });
      replayNew(game);
      return;
    }
    const b = ctx.board.state;
    const steps = event ? roomSteps(b.game, event, ctx.board.you(), b.theirHold) : [];
    ctx.board.feed({ ...game, turns: mergeTurns(b.game.turns || [], game.turns || []) }, steps);
  }

  /** A room request (join, start, remove, back, links): its answer is the room. */
  function act(call) {
    dispatch({ type: "roomBusy" });
    return call().then(
      (r) => {
        if (!r || !r.room) return dispatch({ type: "roomIdle" });
        const [room, game] = split(r.room);
        dispatch({ type: "roomData", serial, room });
        keepLink(room);
        show(game);
      },
      (err) => dispatch({ type: "roomFailed", error: err.message }),
    );
  }

  const path = `${API.room(data.room.id, "events")}${data.token ? `?${new URLSearchParams({ token: data.token })}` : ""}`;
  function handle(text) {
    let event;
    try {
      event = JSON.parse(text);
    } catch {
      return;
    }
    dispatch({ type: "roomEvent", serial, event, at: Date.now() });
    if (event.kind === "hold" && feeding) ctx.board.theirHold(event.seat, event.hold);
    if (event.game) show(event.game, event);
    if (event.kind === "links") {
      // New links (F7): a seat holder's page reads them (the event carries no token; for
      // anyone else the read is refused, and the stream, checked again, says why).
      readRoom(data).then((r) => {
        const [room] = split(r);
        dispatch({ type: "roomData", serial, room });
        keepLink(room);
      }, () => {});
    }
  }

  show(data.game);
  keepLink(data.room);
  const stream = followStream((from, signal) => openStream(path, from, signal), last, {
    onEvents: (events) => {
      for (const event of events) {
        last = Math.max(last, event.id);
        handle(event.data);
      }
    },
    onStatus: (status) => dispatch({ type: "roomStream", stream: status }),
    words: {
      retrying: t("room.stream.retrying"),
      gone: t("room.stream.gone"),
      later: (message) => t("room.stream.later", { message }),
    },
  });
  const tick = setInterval(() => dispatch({ type: "roomTick", now: Date.now() }), 1000);
  /** 「提醒他」 (W4): the server's message for seat `seat`, shared by the browser's share
   * sheet where it has one, else copied; the sheet shows it with the room's QR code. */
  function nudge(seat) {
    post(API.room(data.room.id, "nudge"), { seat }).then(
      (r) => {
        dispatch({ type: "roomNudge", nudge: { ...r, copied: false } });
        if (navigator.share) navigator.share({ text: r.text }).catch(() => {});
        else copyNudge(r.text);
      },
      (err) => dispatch({ type: "roomNudgeFailed", seat, error: err.message }),
    );
  }
  function copyNudge(text) {
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => dispatch({ type: "roomNudgeCopied" }), () => {});
  }

  return {
    root,
    act,
    nudge,
    copyNudge,
    stop() {
      clearInterval(tick);
      stream.stop();
      if (at !== null) ctx.board.stop(at);
    },
  };
}

// -- drawing --------------------------------------------------------------------------------

/** A seat's name as every view says it (U13: 「电脑3（普通）」 here as in 复盘). */
function seatLabel(seat, room) {
  if (seat.kind === "human" && seat.name === null) return t("room.seat.open");
  return seatName(room.seats, room.seats.indexOf(seat));
}

function seatsList(room, ui, game, session) {
  const list = el("ol", "rm-seats");
  const turn = game && room.status === "playing" ? game.turn : null;
  const now = Date.now();
  for (const seat of room.seats) {
    const li = el("li", `rm-seat${seat.index === turn ? " rm-on-turn" : ""}`, null, {
      "data-testid": `room-seat-${seat.index}`,
    });
    li.append(el("span", "rm-seat-name", seatLabel(seat, room)));
    if (seat.you) li.append(el("span", "rm-chip", t("room.seat.you")));
    if (seat.index === 0 && seat.kind === "human") li.append(el("span", "rm-chip", t("room.seat.host")));
    if (seat.away) {
      li.append(el("span", "rm-chip rm-away", t("room.seat.away"), { "data-testid": `away-${seat.index}` }), term("autopilot"));
    }
    const total = game ? game.seats[seat.index]?.total : null;
    if (total !== null && total !== undefined) li.append(el("span", "rm-total", tn("room.seat.points", total, { n: total })));
    if (seat.index === turn && seat.kind === "human" && !seat.you && seat.name !== null && room.seats.some((s) => s.you)) {
      // W4: a friend whose turn it is can be reminded from here
      const b = el("button", "btn btn-small rm-nudge", t("room.nudge.button"), { type: "button", "data-testid": `nudge-${seat.index}` });
      b.addEventListener("click", () => session.nudge(seat.index));
      li.append(b);
    }
    if (ui.nudgeError && ui.nudgeError.seat === seat.index) {
      li.append(el("span", "rv-error rm-nudge-error", ui.nudgeError.error, { role: "alert", "data-testid": "nudge-error" }));
    }
    const said = ui.reactions && ui.reactions[seat.index];
    if (said && now - said.at < REACTION_SHOWN_MS) {
      li.append(el("span", "rm-bubble", REACTION_NAMES[said.id] || "", { role: "status" }));
    }
    list.append(li);
  }
  return list;
}

function invitePanel(room, ctx) {
  const box = el("div", "panel rm-invite");
  box.append(el("h2", "", t("room.invite.title")));
  box.append(el("p", "fine", t("room.invite.how")));
  const link = el("input", "rm-link", null, {
    type: "text",
    readonly: "",
    value: room.invite_url,
    "aria-label": t("room.invite.link"),
    "data-testid": "invite-link",
  });
  link.value = room.invite_url;
  const copy = el("button", "btn", t("room.invite.copy"), { type: "button", "data-testid": "copy-invite" });
  copy.addEventListener("click", () => {
    const done = () => ctx.dispatch({ type: "roomCopied" });
    if (navigator.clipboard) navigator.clipboard.writeText(room.invite_url).then(done, () => link.select());
    else link.select();
  });
  const row = el("div", "rm-link-row");
  row.append(link, copy);
  if (navigator.share) {
    const share = el("button", "btn", t("room.invite.share"), { type: "button", "data-testid": "share-invite" });
    share.addEventListener("click", () => {
      navigator.share({ title: t("room.invite.share_title"), url: room.invite_url }).catch(() => {});
    });
    row.append(share);
  }
  box.append(row);
  box.append(
    el("img", "rm-qr", null, {
      src: room.qr_url,
      alt: t("room.invite.qr"),
      width: "180",
      height: "180",
      "data-testid": "invite-qr",
    }),
  );
  return box;
}

function joinPanel(room, page, session) {
  const box = el("div", "panel rm-join");
  box.append(el("h2", "", t("room.join.title")));
  const free = room.seats.some((s) => s.kind === "human" && !s.taken);
  if (!free) {
    box.append(el("p", "", t("room.join.full", { watching: watching() }), { "data-testid": "room-watching" }));
    return box;
  }
  const label = el("label", "rm-field", t("room.your_name"));
  const input = el("input", "", null, {
    type: "text",
    maxlength: String(CONFIG.limits.max_name_chars),
    autocomplete: "nickname",
    "data-testid": "join-name",
  });
  label.append(input);
  const button = el("button", "btn btn-primary", t("room.join.sit"), { type: "button", "data-testid": "join-room" });
  button.disabled = Boolean(page.ui.busy);
  button.addEventListener("click", () => {
    session.act(() => post(API.room(room.id, "join"), { token: page.data.token, name: input.value }));
  });
  box.append(label, button);
  return box;
}

function hostPanel(room, page, session, ctx) {
  const box = el("div", "rm-host");
  const start = el("button", "btn btn-primary", t("room.host.start"), { type: "button", "data-testid": "start-room" });
  start.disabled = Boolean(page.ui.busy);
  start.addEventListener("click", () => session.act(() => post(API.room(room.id, "start"))));
  box.append(start);
  for (const seat of room.seats) {
    if (seat.index === 0 || !seat.taken) continue;
    const b = el("button", "btn btn-small", t("room.host.remove", { name: seat.name }), {
      type: "button",
      "data-testid": `remove-seat-${seat.index}`,
    });
    // F27: the removal renewed the invite link; the host is told to share the new one.
    const removed = (r) => (ctx.dispatch({ type: "say", text: t("room.links.removed", { url: r.room.invite_url }), view: "room" }), r);
    b.addEventListener("click", () => session.act(() => post(API.room(room.id, "remove"), { seat: seat.index }).then(removed)));
    box.append(b);
  }
  box.append(el("p", "fine", t("room.host.open_seats")));
  return box;
}

function linksPanel(room, page, session) {
  // F7: the creator gives the room new links; the old invite and watch links stop working.
  const box = el("div", "rm-links");
  const renew = el("button", "btn btn-small", t("room.links.renew"), { type: "button", "data-testid": "renew-links" });
  renew.disabled = Boolean(page.ui.busy);
  renew.addEventListener("click", () => session.act(() => post(API.room(room.id, "links"))));
  box.append(renew, el("p", "fine", t("room.links.note")));
  return box;
}

/** 「提醒他」's sheet (W4): the message (as the server wrote it, in this page's language),
 * whether it was copied, a copy button, and the room's QR code. */
function nudgePanel(room, ui, session, ctx) {
  const n = ui.nudge;
  const box = el("div", "panel rm-nudge-sheet", null, { role: "region", "aria-label": t("room.nudge.title"), "data-testid": "nudge-sheet" });
  box.append(el("h2", "", t("room.nudge.title")));
  box.append(el("p", "rm-nudge-text", n.text, { "data-testid": "nudge-text" }));
  if (n.copied) box.append(el("p", "fine", t("room.nudge.copied"), { role: "status", "data-testid": "nudge-copied" }));
  const row = el("div", "rm-link-row");
  const copy = el("button", "btn", t("room.nudge.copy"), { type: "button", "data-testid": "nudge-copy" });
  copy.addEventListener("click", () => session.copyNudge(n.text));
  row.append(copy);
  if (navigator.share) {
    const share = el("button", "btn", t("room.invite.share"), { type: "button", "data-testid": "nudge-share" });
    share.addEventListener("click", () => navigator.share({ text: n.text }).catch(() => {}));
    row.append(share);
  }
  const close = el("button", "btn btn-small", t("room.nudge.close"), { type: "button", "data-testid": "nudge-close" });
  close.addEventListener("click", () => ctx.dispatch({ type: "roomNudge", nudge: null }));
  row.append(close);
  box.append(row);
  if (room.qr_url) {
    box.append(el("img", "rm-qr", null, { src: room.qr_url, alt: t("room.invite.qr"), width: "180", height: "180", "data-testid": "nudge-qr" }));
  }
  return box;
}

/** W1: in a waiting room, whose turn it is and the time left, as a person reads it. */
function turnLeft(room, ui, game) {
  const live = paces().find((p) => p.live);
  if (room.status !== "playing" || !game || (live && room.pace === live.id)) return null;
  const seat = room.seats[game.turn];
  const who = seat ? seatLabel(seat, room) : "";
  const now = Date.now() / 1000 + (ui.skew || 0);
  const words = seat && seat.you ? t("room.left.yours", { left: timeLeft(room.deadline, now) }) : t("room.left.theirs", { name: who, left: timeLeft(room.deadline, now) });
  return el("p", "rm-left", words, { "data-testid": "room-left" });
}

function countdown(room, ui, game) {
  if (room.status !== "playing" || typeof room.deadline !== "number" || !game) return null;
  const skew = ui.skew || 0;
  const left = Math.ceil(room.deadline - (Date.now() / 1000 + skew));
  if (left > ROOMS.countdown_seconds || left < 0) return null;
  const seat = room.seats[game.turn];
  const who = seat ? seatLabel(seat, room) : "";
  return el("p", "rm-countdown", tn("room.countdown", left, { name: who, n: left }), {
    role: "timer",
    "data-testid": "countdown",
  });
}

function reactionsBar(room) {
  const bar = el("div", "rm-reactions", null, { role: "group", "aria-label": t("room.reactions") });
  for (const r of ROOMS.reactions) {
    const b = el("button", "btn btn-small", REACTION_NAMES[r.id], { type: "button", "data-testid": `reaction-${r.id}` });
    b.addEventListener("click", () => post(API.room(room.id, "react"), { reaction: r.id }).catch(() => {}));
    bar.append(b);
  }
  return bar;
}

function endPanel(room, game, ctx, page) {
  const box = el("div", "panel rm-end");
  box.append(el("h2", "", t("room.ranking.title")));
  const list = el("ol", "rm-ranking");
  for (const place of game.ranking || []) {
    const seat = room.seats[place.seat];
    list.append(el("li", "", tn("room.ranking.place", place.total, { place: place.place, name: seat ? seatLabel(seat, room) : "", n: place.total })));
  }
  box.append(list);
  if (room.ended && room.ended.reason === "idle") {
    box.append(el("p", "fine", tn("room.end.idle", room.ended.days, { n: room.ended.days }), { "data-testid": "room-idle-end" }));
  }
  const mine = room.seats.find((s) => s.you);
  if (mine) {
    // U17: 复盘 of this browser's own seat (T6: any person's seat of the game).
    const review = `${href("review", { id: game.id })}?seat=${mine.index}`;
    box.append(el("a", "btn", t("room.end.review"), { href: review, "data-page": "review", "data-testid": "room-review" }));
  }
  const target = room.rematch_id || page.ui.rematch;
  if (target && mine) {
    const go = el("a", "btn btn-primary", t("room.end.go_rematch"), { href: href("room", { id: target }), "data-page": "room", "data-testid": "rematch" });
    box.append(go);
  } else if (mine) {
    const again = el("button", "btn btn-primary", t("room.end.rematch"), { type: "button", "data-testid": "rematch" });
    again.disabled = Boolean(page.ui.busy);
    again.addEventListener("click", () => {
      ctx.dispatch({ type: "roomBusy" });
      post(API.room(room.id, "rematch")).then(
        (r) => ctx.open(href("room", { id: r.room.id })),
        (err) => ctx.dispatch({ type: "roomFailed", error: err.message }),
      );
    });
    box.append(again);
  }
  return box;
}

function drawRoom(body, page, ctx, session) {
  const room = page.data.room;
  const ui = page.ui;
  const b = ctx.board.state;
  const game = b && b.owner === "room" && b.game.id === room.game_id ? b.game : null;
  const playing = Boolean(game) && room.status !== "waiting";
  const view = el("div");
  view.append(el("p", "rm-status", t("room.status.line", { status: STATUS[room.status] ? STATUS[room.status]() : room.status, pace: paceSaid(room) }), { role: "status" }));
  if (ui.error) view.append(el("p", "rv-error", ui.error, { role: "alert", "data-testid": "room-error" }));
  if (ui.stream) view.append(el("p", "rv-error", ui.stream.message, { role: "status", "data-testid": "room-stream" }));
  // S4: the server was busy; the action is sent once more (api.js), said meanwhile.
  if (ui.notice) view.append(el("p", "rm-notice", ui.notice, { role: "status", "data-testid": "room-notice" }));
  const clock = countdown(room, ui, game);
  if (clock) view.append(clock);
  const left = turnLeft(room, ui, game);
  if (left) view.append(left);
  const mine = room.seats.find((s) => s.you);
  if (mine && mine.away) {
    const back = el("button", "btn btn-gold", t("room.back"), { type: "button", "data-testid": "room-im-back" });
    back.addEventListener("click", () => session.act(() => post(API.room(room.id, "back"))));
    view.append(back);
  }
  if (!mine && room.status === "playing") {
    // U13: a latecomer (or a watch link) is told they are watching, and why there is no
    // seat for them
    const said = page.data.watch ? watching() : t("room.latecomer", { watching: watching() });
    view.append(el("p", "rm-watching", said, { role: "note", "data-testid": "room-watching" }));
  }
  if (game && room.status === "finished") view.append(endPanel(room, game, ctx, page));
  // The seats (who is here, 托管, reactions) and the room's own buttons under the board
  // (which, during the game, fits the screen: P1).
  const seats = [seatsList(room, ui, game, session)];
  if (ui.nudge) seats.push(nudgePanel(room, ui, session, ctx));
  if (room.status === "waiting") {
    if (mine) seats.push(invitePanel(room, ctx));
    else if (page.data.token && !page.data.watch) seats.push(joinPanel(room, page, session));
    if (room.creator) seats.push(hostPanel(room, page, session, ctx));
    else if (mine) seats.push(el("p", "fine", t("room.waiting_host")));
  }
  if (mine && room.status !== "expired") seats.push(reactionsBar(room));
  if (room.creator && room.status !== "expired") seats.push(linksPanel(room, page, session));
  // The board between them stays in place (its dice keep their animation, its focus).
  const board = session.root;
  board.hidden = !playing;
  if (body.firstChild === null || body.children[1] !== board) {
    body.replaceChildren(el("div", "rm-view rm-top"), board, el("div", "rm-view rm-after"));
  }
  body.firstChild.replaceChildren(...view.children);
  body.lastChild.replaceChildren(...seats);
}

function drawNew(body, page, ctx) {
  // A new room: the creator's name, how many friends and computers, the turn time.
  const form = el("form", "panel rm-new");
  const name = el("input", "", null, {
    type: "text",
    maxlength: String(CONFIG.limits.max_name_chars),
    autocomplete: "nickname",
    "data-testid": "room-your-name",
  });
  const nameLabel = el("label", "rm-field", t("room.your_name"));
  nameLabel.append(name);
  const friends = el("select", "", null, { "data-testid": "room-friends" });
  const computers = el("select", "", null, { "data-testid": "room-computers" });
  const max = CONFIG.limits.max_seats - 1;
  for (let n = 0; n <= max; n += 1) {
    friends.append(el("option", "", tn("room.new.friends", n, { n }), { value: String(n) }));
    computers.append(el("option", "", tn("room.new.computers", n, { n }), { value: String(n) }));
  }
  friends.value = "1";
  const level = el("select", "", null, { "data-testid": "room-level" });
  for (const d of CONFIG.difficulties) level.append(el("option", "", DIFFICULTY_NAMES[d.id], { value: d.id }));
  level.value = CONFIG.suggested_difficulty;
  const pace = el("select", "", null, { "data-testid": "room-pace" });
  for (const p of paces()) pace.append(el("option", "", paceOption(p), { value: p.id }));
  pace.value = paces()[0].id;
  const turn = el("input", "", null, {
    type: "number",
    min: String(ROOMS.turn_seconds.min),
    max: String(ROOMS.turn_seconds.max),
    value: String(ROOMS.turn_seconds.default),
    "aria-describedby": "rm-turn-note",
    "data-testid": "room-turn-seconds",
  });
  const live = () => paces().find((p) => p.id === pace.value).live;
  for (const [text, control] of [
    [t("room.new.friends_label"), friends],
    [t("room.new.computers_label"), computers],
    [t("room.new.level"), level],
    [t("room.new.pace"), pace],
    [t("room.new.turn_seconds"), turn],
  ]) {
    const label = el("label", "rm-field", text);
    label.append(control);
    form.append(label);
    if (control === pace) {
      form.append(el("p", "rm-field-note", t("room.new.pace_note"), { "data-testid": "room-pace-note" }));
    }
    if (control === turn) {
      // (a live room's seconds: a waiting pace has its own time)
      const note = el("p", "rm-field-note", t("room.new.turn_note"), { id: "rm-turn-note", "data-testid": "room-turn-note" });
      form.append(note);
      // (the form's own controls keep their values in the DOM until 「开房间」 reads them)
      const shown = () => (label.hidden = note.hidden = !live());
      pace.addEventListener("change", shown);
      shown();
    }
  }
  form.prepend(nameLabel);
  if (page.ui.error) form.append(el("p", "rv-error", page.ui.error, { role: "alert", "data-testid": "room-error" }));
  const create = el("button", "btn btn-primary", t("room.new.create"), { type: "submit", "data-testid": "create-room" });
  create.disabled = Boolean(page.ui.busy);
  form.append(create);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const seats = [{ kind: "human", name: name.value }];
    for (let i = 0; i < Number(friends.value); i += 1) seats.push({ kind: "human" });
    for (let i = 0; i < Number(computers.value); i += 1) seats.push({ kind: "computer", difficulty: level.value });
    ctx.dispatch({ type: "roomBusy" });
    const timing = live() ? { pace: pace.value, turn_seconds: Number(turn.value) } : { pace: pace.value };
    post(API.room(), { seats, ...timing }).then(
      // U17: the address bar holds the room's invite link, which a friend can open.
      (r) => ctx.open(`${href("room", { id: r.room.id })}${r.room.invite_url.slice(r.room.invite_url.indexOf("#"))}`),
      (err) => ctx.dispatch({ type: "roomFailed", error: err.message }),
    );
  });
  body.replaceChildren(form);
}

/** U17: a seat holder's address bar holds the room's invite link (its #t= part), so that
 * the address a friend is given opens the room; a renewed link replaces it. */
function keepLink(room) {
  if (!room.invite_url || location.pathname !== href("room", { id: room.id })) return;
  const hash = room.invite_url.slice(room.invite_url.indexOf("#"));
  if (location.hash !== hash) history.replaceState(null, "", `${location.pathname}${hash}`);
}

export const view = {
  reducers,
  mount: (page, ctx) => mount(page, ctx),
  render(body, page, ctx, session) {
    if (page.data.fresh) {
      const key = JSON.stringify([page.ui, language()]);
      if (body.dataset.drawn === key) return;
      body.dataset.drawn = key;
      drawNew(body, page, ctx);
      return;
    }
    if (!session) return;
    // Drawn again when the room, the view's state, the board's game or the countdown's
    // second changes; the name being typed is kept (it is only read when 「入座」 is pressed).
    const typed = body.querySelector('[data-testid="join-name"]');
    const value = typed ? typed.value : null;
    const active = document.activeElement;
    const focused = active && body.contains(active) && !session.root.contains(active) ? active.getAttribute("data-testid") : null;
    const { now, ...rest } = page.ui;
    const b = ctx.board.state;
    const game = b && b.owner === "room" ? b.game : null;
    const clock = countdown(page.data.room, page.ui, game);
    const left = turnLeft(page.data.room, page.ui, game);
    const totals = game ? [game.id, game.status, game.turn, game.seats.map((s) => s.total)] : null;
    const key = JSON.stringify([language(), page.data.room, rest, totals, clock && clock.textContent, left && left.textContent, Math.floor((now || 0) / REACTION_SHOWN_MS)]);
    if (body.dataset.drawn === key) return;
    body.dataset.drawn = key;
    // A 「?」 opened (L11) stays open across the countdown's redraws.
    const open = [...body.querySelectorAll(".rm-view details.term-help[open]")].map((d) => d.dataset.term);
    drawRoom(body, page, ctx, session);
    for (const id of open) {
      const d = body.querySelector(`.rm-view details.term-help[data-term="${id}"]`);
      if (d) d.open = true;
    }
    const again = body.querySelector('[data-testid="join-name"]');
    if (again && value !== null) again.value = value;
    if (focused) {
      const target = body.querySelector(`[data-testid="${focused}"]`);
      if (target) target.focus();
    }
  },
};
