// 好友房间 (/rooms: a new room; /rooms/<id>: the room, live), a lazy view (views.js).
// The room is `page.data.room` as the server sent it (GET/POST /api/rooms…); its event
// stream (`live`: read as it comes, and asked again with Last-Event-ID whenever it ends)
// folds each event into it through the `roomEvent` reducer. The view does no rules maths:
// the boxes a seat can score in and their points are the server's preview, the countdown
// is the server's deadline. Names are shown with textContent only (dom.js `el`).
// The view's own state, page.ui: {holds: {seat, hold}, reactions: {seat: {id, at}},
// busy, error, notice (S4: a busy server's retry, said), now (the clock the countdown
// reads, ticked by `live`), stream (null while the stream is live, else {message} saying
// why not), replay (other seats' steps shown one by one, board_state.js)}, changed only
// by named actions (board_state.js and the reducers below). The board — dice, scorecard,
// 本局记录, the replay — is drawn by the board modules, as on every table.

import { el, seatName, term } from "./dom.js";
import { RETRY_MIN_MS, parseEvents, retryDelay } from "./events.js";
import { boardReducers, pickedBox, replayStep, roomSteps, shownCard, shownTurns } from "./board_state.js";
import { buildDice, diceLook, drawDice } from "./board_dice.js";
import { buildCard, drawCard, drawConfirm, mountConfirm, scoreFlow } from "./board_card.js";
import { buildTurnLog, drawTurnLog } from "./board_log.js";
import { createReplayTimer, describeStep } from "./board_replay.js";
import { REPLAY_STEP_MS } from "../settings.js";
import { installKeyboard } from "../keyboard.js";
import { CONFIG } from "../config.js";
import { ApiError, openStream, request } from "../api.js";
import { createReconnect, unanswered } from "../reconnect.js";
import { confirmDialog } from "../dialog.js";
import * as say from "../messages.js";
import { ROOM_LINKS, ROOM_MOVED_ON, ROOM_STREAM, ROOM_TURN_NOTE } from "./views_messages.js";
import { API, href } from "../paths.js";
import { DIFFICULTY_NAMES, LOWER, UPPER } from "../state.js";
import { named } from "../i18n.js";

const ROOMS = CONFIG.rooms;
const REACTION_NAMES = named(Object.fromEntries(ROOMS.reactions.map((r) => [r.id, r.name_key])));
const REACTION_SHOWN_MS = 4000;
const WATCHING = "你在观战：能看到每个人的骰子和分数，但不能掷骰子。";
const STATUS = {
  waiting: "等朋友加入",
  starting: "正在开始……",
  playing: "对局中",
  finished: "对局结束",
  expired: "房间已过期（等了一天没有开始）",
};

// -- state: the room's events folded in (pure) ---------------------------------------------

function withSeat(room, index, change) {
  const seats = room.seats.map((s) => (s.index === index ? { ...s, ...change } : s));
  return { ...room, seats };
}

/** The room after one event of its stream (docs/api.md "The event stream"). */
export function applyEvent(room, event) {
  if (event.id <= room.last_event_id) return room; // already in the room as loaded
  let next = { ...room, last_event_id: event.id };
  if (event.game) next = { ...next, game: event.game, game_id: event.game.id };
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
      return { ...next, status: "finished", deadline: null };
    case "rematch":
      return { ...next, rematch_id: event.room };
    case "expired":
      return { ...next, status: "expired" };
    default:
      return next;
  }
}

function roomEvent(state, { serial, event, at }) {
  const page = state.page;
  if (!page || page.serial !== serial || !page.data || !page.data.room) return state;
  const before = page.data.room;
  const room = applyEvent(before, event);
  let ui = page.ui;
  if (room !== before) {
    // Another seat's turn, shown step by step as its events arrive (after any still shown).
    const me = before.seats.find((s) => s.you);
    const steps = roomSteps(before.game, event, me ? me.index : null, ui.holds);
    if (steps.length) {
      // The game before this event: this browser's own answer may have brought it already.
      const answered = before.game && event.game && before.game.version >= event.game.version;
      const base = answered && ui.priorGame ? ui.priorGame : before.game;
      const replay = ui.replay
        ? { ...ui.replay, steps: [...ui.replay.steps, ...steps] }
        : { before: base, steps, index: 0 };
      ui = { ...ui, replay };
    }
  }
  if (event.kind === "hold") ui = { ...ui, holds: { seat: event.seat, hold: event.hold } };
  if (event.kind === "roll" || event.kind === "score" || event.kind === "start") {
    ui = { ...ui, holds: null };
  }
  if (event.kind === "reaction") {
    ui = { ...ui, reactions: { ...(ui.reactions || {}), [event.seat]: { id: event.reaction, at } } };
  }
  // The server's clock against this browser's: the countdown reads the server's deadline.
  if (typeof event.now === "number") ui = { ...ui, skew: event.now - at / 1000 };
  return { ...state, page: { ...page, data: { ...page.data, room }, ui } };
}

function settled(page, room) {
  return { ...page, data: { ...page.data, room }, ui: { ...page.ui, busy: false, error: null, notice: null } };
}

/** A room from an answer (join, start, remove). The stream may have brought newer events
 * before the answer came: then the room as it stands is kept, with what only the answer
 * knows (this browser's seat, whether it is the creator's). */
function roomData(state, { serial, room }) {
  const page = state.page;
  if (!page || page.serial !== serial) return state;
  const current = page.data.room;
  if (!current || room.last_event_id >= current.last_event_id) return { ...state, page: settled(page, room) };
  const mine = new Set(room.seats.filter((s) => s.you).map((s) => s.name));
  const seats = current.seats.map((s) => ({ ...s, you: s.kind === "human" && mine.has(s.name) }));
  const merged = { ...current, seats, creator: room.creator, your_seat: room.your_seat };
  return { ...state, page: settled(page, merged) };
}

/** The game from a game action's answer, unless the stream already brought it or newer. */
function roomGame(state, { serial, game }) {
  const page = state.page;
  if (!page || page.serial !== serial || !page.data.room) return state;
  const current = page.data.room;
  const newer = !current.game || game.version > current.game.version;
  const next = settled(page, newer ? { ...current, game } : current);
  // The game this answer replaced: the replay of the computers after it starts from there.
  const ui = newer ? { ...next.ui, priorGame: current.game } : next.ui;
  return { ...state, page: { ...next, ui } };
}

/** The room of /rooms/<id> (views.js LAZY.room; /rooms/new: a new room's form): the link's
 * token rides in the fragment (#t= to join, #w= to watch), sent only as `token`. (The
 * view's stylesheet is the registry's `css`: the view is drawn once it has loaded.) */
export function load({ id }) {
  if (id === "new") return Promise.resolve({ fresh: true });
  const m = location.hash.match(/^#([tw])=([A-Za-z0-9_-]{22})$/);
  const token = m ? m[2] : null;
  const path = token ? `${API.room(id)}?${new URLSearchParams({ token })}` : API.room(id);
  return request("GET", path).then((r) => ({ ...r, token, watch: Boolean(m && m[1] === "w") }));
}

const post = (path, body = {}) => request("POST", path, body);

// -- the live stream ------------------------------------------------------------------------
// Read as a fetch (api.js openStream) rather than an EventSource: a refused EventSource (429, 503, 404) closes
// without saying why, and the page must say it (F9). The page keeps the id of the last event
// it has and asks again from there (Last-Event-ID) whenever the stream ends: the server ends
// every stream after its lifetime, and after a renewed link or a removed seat, to check the
// browser again. A stream the server ended is opened again at once; a failure waits 1 s,
// 2 s, 4 s… (30 s at most, or the server's Retry-After) and says so on the page.

function live({ data, serial, dispatch, state }) {
  if (!data.room) return () => {};
  const { room, token } = data;
  const path = `${API.room(room.id, "events")}${token ? `?${new URLSearchParams({ token })}` : ""}`;
  let last = room.last_event_id;
  let stopped = false;
  let failures = 0;
  let controller = null;
  let timer = null;
  const say = (stream) => dispatch({ type: "roomStream", stream });
  // The replay of other seats' turns: this page's timer (stopped with the stream).
  const ours = () => {
    const p = state().page;
    return p && p.serial === serial ? p : null;
  };
  const replay = createReplayTimer({
    pace: () => REPLAY_STEP_MS[state().settings.replay],
    step: () => {
      const p = ours();
      const r = p && p.ui.replay;
      if (!r || r.index + 1 >= r.steps.length) return false;
      dispatch({ type: "boardReplayStep" });
      dispatch({ type: "say", text: describeStep(r.steps, r.index + 1, p.data.room.seats), view: "room" });
      return true;
    },
    end: () => {
      if (ours()) dispatch({ type: "boardReplayEnd" });
    },
  });
  const again = (ms) => {
    if (!stopped) timer = setTimeout(connect, ms);
  };
  const fail = (message, retryAfter) => {
    failures += 1;
    say({ message });
    again(retryDelay(failures, retryAfter));
  };

  function handle(text) {
    let event;
    try {
      event = JSON.parse(text);
    } catch {
      return;
    }
    const shown = ours() && ours().ui.replay;
    dispatch({ type: "roomEvent", serial, event, at: Date.now() });
    // A page nobody looks at shows the present: a replay would wait for it (its timer
    // runs on animation frames) and play a long backlog once it is looked at again.
    if (document.hidden) dispatch({ type: "boardReplayEnd" });
    const p = ours();
    if (p && p.ui.replay && p.ui.replay !== shown && !shown) {
      // A replay begins: its first step said at once, the rest at the pace of 设置.
      const r = p.ui.replay;
      dispatch({ type: "say", text: describeStep(r.steps, 0, p.data.room.seats), view: "room" });
    }
    if (p && p.ui.replay) replay.run();
    if (event.kind === "rematch") dispatch({ type: "roomRematch", room: event.room });
    if (event.kind === "links") {
      // New links (F7): a seat holder's page reads them (the event carries no token; for
      // anyone else the read is refused, and the stream, checked again, says why).
      request("GET", API.room(room.id)).then(
        (r) => dispatch({ type: "roomData", serial, room: r.room }),
        () => {},
      );
    }
  }

  async function connect() {
    if (stopped) return;
    controller = new AbortController();
    let response;
    try {
      response = await openStream(path, last, controller.signal);
    } catch {
      if (!stopped) fail(ROOM_STREAM.retrying);
      return;
    }
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      const message = (body && body.error && body.error.message) || ROOM_STREAM.retrying;
      if (response.status === 404 || response.status === 403) {
        say({ message: response.status === 404 ? ROOM_STREAM.gone : message }); // for good
        return;
      }
      fail(`${message}${ROOM_STREAM.later}`, response.headers.get("Retry-After"));
      return;
    }
    failures = 0;
    say(null);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const { events, rest } = parseEvents(buffer + value);
        buffer = rest;
        for (const event of events) {
          last = Math.max(last, event.id);
          handle(event.data);
        }
      }
    } catch {
      if (!stopped) fail(ROOM_STREAM.retrying); // dropped (a process that went away)
      return;
    }
    again(RETRY_MIN_MS); // ended by the server: again at once, from the last event
  }

  connect();
  const tick = setInterval(() => dispatch({ type: "roomTick", now: Date.now() }), 1000);
  return () => {
    stopped = true;
    replay.stop();
    clearInterval(tick);
    clearTimeout(timer);
    if (controller) controller.abort();
  };
}

// -- drawing --------------------------------------------------------------------------------

/** A seat's name as every view says it (U13: 「电脑3（普通）」 here as in 复盘). */
function seatLabel(seat, room) {
  if (seat.kind === "human" && seat.name === null) return "（空位，等朋友加入）";
  return seatName(room.seats, room.seats.indexOf(seat));
}

function seatsList(room, ui) {
  const list = el("ol", "rm-seats");
  const turn = room.game && room.status === "playing" ? room.game.turn : null;
  const now = Date.now();
  for (const seat of room.seats) {
    const li = el("li", `rm-seat${seat.index === turn ? " rm-on-turn" : ""}`, null, {
      "data-testid": `room-seat-${seat.index}`,
    });
    li.append(el("span", "rm-seat-name", seatLabel(seat, room)));
    if (seat.you) li.append(el("span", "rm-chip", "你"));
    if (seat.index === 0 && seat.kind === "human") li.append(el("span", "rm-chip", "房主"));
    if (seat.away) {
      li.append(el("span", "rm-chip rm-away", "托管", { "data-testid": `away-${seat.index}` }), term("autopilot"));
    }
    const total = room.game ? room.game.seats[seat.index]?.total : null;
    if (total !== null && total !== undefined) li.append(el("span", "rm-total", `${total} 分`));
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
  box.append(el("h2", "", "邀请朋友"));
  box.append(el("p", "fine", "把这个链接发给朋友，他们打开后起个名字就能入座。"));
  const link = el("input", "rm-link", null, {
    type: "text",
    readonly: "",
    value: room.invite_url,
    "aria-label": "邀请链接",
    "data-testid": "invite-link",
  });
  link.value = room.invite_url;
  const copy = el("button", "btn", "复制链接", { type: "button", "data-testid": "copy-invite" });
  copy.addEventListener("click", () => {
    const done = () => ctx.dispatch({ type: "roomCopied" });
    if (navigator.clipboard) navigator.clipboard.writeText(room.invite_url).then(done, () => link.select());
    else link.select();
  });
  const row = el("div", "rm-link-row");
  row.append(link, copy);
  if (navigator.share) {
    const share = el("button", "btn", "分享…", { type: "button", "data-testid": "share-invite" });
    share.addEventListener("click", () => {
      navigator.share({ title: "快艇骰子 · 好友房间", url: room.invite_url }).catch(() => {});
    });
    row.append(share);
  }
  box.append(row);
  box.append(
    el("img", "rm-qr", null, {
      src: room.qr_url,
      alt: "邀请链接的二维码：用手机扫一扫就能加入",
      width: "180",
      height: "180",
      "data-testid": "invite-qr",
    }),
  );
  return box;
}

function joinPanel(room, ctx, page) {
  const box = el("div", "panel rm-join");
  box.append(el("h2", "", "加入房间"));
  const free = room.seats.some((s) => s.kind === "human" && !s.taken);
  if (!free) {
    box.append(el("p", "", `这个房间已经坐满了。${WATCHING}`, { "data-testid": "room-watching" }));
    return box;
  }
  const label = el("label", "rm-field", "你的名字");
  const input = el("input", "", null, {
    type: "text",
    maxlength: String(CONFIG.limits.max_name_chars),
    autocomplete: "nickname",
    "data-testid": "join-name",
  });
  label.append(input);
  const button = el("button", "btn btn-primary", "入座", { type: "button", "data-testid": "join-room" });
  button.disabled = Boolean(page.ui.busy);
  button.addEventListener("click", () => {
    act(ctx, page, () => post(API.room(room.id, "join"), { token: page.data.token, name: input.value }));
  });
  box.append(label, button);
  return box;
}

function act(ctx, page, call) {
  ctx.dispatch({ type: "roomBusy" });
  call().then(
    (r) => {
      if (r && r.room) ctx.dispatch({ type: "roomData", serial: page.serial, room: r.room });
      else ctx.dispatch({ type: "roomIdle" });
    },
    (err) => ctx.dispatch({ type: "roomFailed", error: err.message }),
  );
}

/** The room as the server has it now, read with the page's link token (if any). */
function readRoom(page) {
  const { room, token } = page.data;
  const path = token ? `${API.room(room.id)}?${new URLSearchParams({ token })}` : API.room(room.id);
  return request("GET", path).then((r) => r.room);
}

function gameAct(ctx, page, call) {
  // A game action: its answer is the game; the room's stream brings the same to everyone.
  // U14: a tap refused as stale (the game went on: a friend, 托管, this seat in another
  // tab — faster than the stream) reads the room and says so: the page can do what a
  // "refresh" would. A tap the network lost is said, never sent later, and the room is
  // read again once the server answers (reconnect.js, as on the solo table).
  const shown = page.data.room.game;
  ctx.dispatch({ type: "roomBusy" });
  return call().then(
    (game) => {
      ctx.dispatch({ type: "roomGame", serial: page.serial, game });
      ctx.dispatch({ type: "roomBack" });
    },
    (err) => {
      if (err instanceof ApiError && err.code === "stale_version") return movedOn(ctx, page);
      if (!unanswered(err)) return ctx.dispatch({ type: "roomFailed", error: err.message });
      ctx.dispatch({ type: "roomOffline", version: shown.version, error: say.OFFLINE_NOT_SENT });
      return sessionOf(ctx, page).reconnect();
    },
  );
}

/** U14: the game went on before this tap reached the server: the room as it stands, said. */
function movedOn(ctx, page) {
  const said = () => ctx.dispatch({ type: "say", text: ROOM_MOVED_ON, view: "room" });
  return readRoom(page).then(
    (room) => {
      ctx.dispatch({ type: "roomData", serial: page.serial, room });
      said();
    },
    () => {
      ctx.dispatch({ type: "roomIdle" }); // the stream brings the room as it goes on
      said();
    },
  );
}

/** What this page of the room owns besides its state: the asking after a lost tap. Made
 * for each opening of a room (page serial) and kept on the view's body. */
function sessionOf(ctx, page) {
  const body = document.getElementById("room-body");
  const old = body.roomSession;
  if (old && old.serial === page.serial) return old;
  const current = () => {
    const p = roomOf(ctx);
    return p && p.serial === page.serial ? p : null;
  };
  const session = { serial: page.serial };
  session.reconnect = createReconnect({
    lost: () => (current() ? current().ui.offline || null : null),
    busy: () => Boolean(current() && current().ui.busy),
    read: () => readRoom(current()).catch(() => null),
    back: (room, lost) => {
      const changed = !room.game || room.game.version !== lost.version;
      ctx.dispatch({ type: "roomData", serial: page.serial, room });
      ctx.dispatch({ type: "roomBack" });
      ctx.dispatch({ type: "say", text: changed ? say.BACK_CHANGED : say.BACK_SAME, view: "room" });
    },
  });
  body.roomSession = session;
  return session;
}

function hostPanel(room, ctx, page) {
  const box = el("div", "rm-host");
  const start = el("button", "btn btn-primary", "开始对局", { type: "button", "data-testid": "start-room" });
  start.disabled = Boolean(page.ui.busy);
  start.addEventListener("click", () => act(ctx, page, () => post(API.room(room.id, "start"))));
  box.append(start);
  for (const seat of room.seats) {
    if (seat.index === 0 || !seat.taken) continue;
    const b = el("button", "btn btn-small", `请 ${seat.name} 离座`, {
      type: "button",
      "data-testid": `remove-seat-${seat.index}`,
    });
    const removed = (r) => (ctx.dispatch({ type: "say", text: ROOM_LINKS.removed(r.room.invite_url), view: "room" }), r);
    b.addEventListener("click", () =>
      act(ctx, page, () => post(API.room(room.id, "remove"), { seat: seat.index }).then(removed)),
    );
    box.append(b);
  }
  box.append(el("p", "fine", "没人坐的空位在开始时会去掉。"));
  return box;
}

function linksPanel(room, ctx, page) {
  // F7: the creator gives the room new links; the old invite and watch links stop working.
  const box = el("div", "rm-links");
  const renew = el("button", "btn btn-small", ROOM_LINKS.renew, { type: "button", "data-testid": "renew-links" });
  renew.disabled = Boolean(page.ui.busy);
  renew.addEventListener("click", () => act(ctx, page, () => post(API.room(room.id, "links"))));
  box.append(renew, el("p", "fine", ROOM_LINKS.note));
  return box;
}

function countdown(room, ui) {
  if (room.status !== "playing" || typeof room.deadline !== "number") return null;
  const skew = ui.skew || 0;
  const left = Math.ceil(room.deadline - (Date.now() / 1000 + skew));
  if (left > ROOMS.countdown_seconds || left < 0) return null;
  const seat = room.seats[room.game.turn];
  const who = seat ? seatLabel(seat, room) : "";
  return el("p", "rm-countdown", `${who} 还有 ${left} 秒，之后由电脑托管`, {
    role: "timer",
    "data-testid": "countdown",
  });
}

function myTurn(room) {
  if (room.status !== "playing" || !room.game || room.game.status !== "in_progress") return false;
  const seat = room.seats[room.game.turn];
  return Boolean(seat && seat.you);
}

function reactionsBar(room, ctx) {
  const bar = el("div", "rm-reactions", null, { role: "group", "aria-label": "表情" });
  for (const r of ROOMS.reactions) {
    const b = el("button", "btn btn-small", REACTION_NAMES[r.id], { type: "button", "data-testid": `reaction-${r.id}` });
    b.addEventListener("click", () => post(API.room(room.id, "react"), { reaction: r.id }).catch(() => {}));
    bar.append(b);
  }
  return bar;
}

function endPanel(room, ctx, page) {
  const box = el("div", "panel rm-end");
  box.append(el("h2", "", "排名"));
  const list = el("ol", "rm-ranking");
  for (const place of room.game.ranking || []) {
    const seat = room.seats[place.seat];
    list.append(el("li", "", `第 ${place.place} 名：${seat ? seatLabel(seat, room) : ""}，${place.total} 分`));
  }
  box.append(list);
  const mine = room.seats.find((s) => s.you);
  if (mine) {
    const review = el("a", "btn", "复盘这局", { href: href("review", { id: room.game.id }), "data-page": "review" });
    box.append(review);
  }
  const target = room.rematch_id || page.ui.rematch;
  if (target && mine) {
    const go = el("a", "btn btn-primary", "去新房间", { href: href("room", { id: target }), "data-page": "room", "data-testid": "rematch" });
    box.append(go);
  } else if (mine) {
    const again = el("button", "btn btn-primary", "再来一局", { type: "button", "data-testid": "rematch" });
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

function drawRoom(body, page, ctx) {
  const room = page.data.room;
  const ui = page.ui;
  const view = el("div", "rm-view");
  view.append(el("p", "rm-status", `${STATUS[room.status] || room.status} · 每回合 ${room.turn_seconds} 秒`, { role: "status" }));
  if (ui.error) view.append(el("p", "rv-error", ui.error, { role: "alert", "data-testid": "room-error" }));
  if (ui.stream) view.append(el("p", "rv-error", ui.stream.message, { role: "status", "data-testid": "room-stream" }));
  // S4: the server was busy; the action is sent once more (api.js), said meanwhile.
  if (ui.notice) view.append(el("p", "rm-notice", ui.notice, { role: "status", "data-testid": "room-notice" }));
  const clock = countdown(room, ui);
  if (clock) view.append(clock);
  view.append(seatsList(room, ui));
  const mine = room.seats.find((s) => s.you);
  if (mine && mine.away) {
    const back = el("button", "btn btn-gold", "我回来了", { type: "button", "data-testid": "room-im-back" });
    back.addEventListener("click", () => act(ctx, page, () => post(API.room(room.id, "back"))));
    view.append(back);
  }
  if (room.status === "waiting") {
    if (mine) view.append(invitePanel(room, ctx));
    else if (page.data.token && !page.data.watch) view.append(joinPanel(room, ctx, page));
    if (room.creator) view.append(hostPanel(room, ctx, page));
    else if (mine) view.append(el("p", "fine", "等房主开始对局……"));
  }
  if (!mine && room.status === "playing") {
    // U13: a latecomer (or a watch link) is told they are watching, and why there is no
    // seat for them
    const why = page.data.watch ? "" : "这局已经开始，座位都有人了。";
    view.append(el("p", "rm-watching", `${why}${WATCHING}`, { role: "note", "data-testid": "room-watching" }));
  }
  if (room.game && room.status === "finished") view.append(endPanel(room, ctx, page));
  const after = el("div", "rm-after");
  if (mine && room.status !== "expired") after.append(reactionsBar(room, ctx));
  if (room.creator && room.status !== "expired") after.append(linksPanel(room, ctx, page));
  // The board between them is drawn in place (its dice keep their animation).
  let board = body.querySelector(".rm-board");
  if (!board) {
    board = el("div", "rm-board");
    buildBoard(board, ctx);
    installKeys(body, ctx);
  }
  body.replaceChildren(view, board, after);
  board.hidden = !(room.game && room.status !== "waiting");
  if (!board.hidden) drawBoard(board, page, ctx);
  drawRoomConfirm(board.hidden ? null : offeredPick(page), ctx);
}

/** The box 登记前确认 picked, while the person on turn may write it (no replay on show). */
function offeredPick(page) {
  const room = page.data.room;
  const game = room.game;
  if (!myTurn(room) || !game.dice || page.ui.replay || page.ui.busy) return null;
  return pickedBox(page.ui.pick, game);
}

/** 登记前确认's 「确定」 at the end of the room's message bar, as on every table. */
function drawRoomConfirm(category, ctx) {
  const slot = document.querySelector('.message-slot[data-slot="room"]');
  if (!slot) return;
  const ok = mountConfirm(slot, {
    testid: "room-confirm-score",
    picked: () => {
      const p = roomOf(ctx);
      return p ? offeredPick(p) : null;
    },
    onConfirm: (c) => scoreBox(ctx, c),
  });
  slot.classList.toggle("has-act", drawConfirm(ok, category));
}

// -- the board: the shared board modules, as on every table -----------------------------------

function buildBoard(board, ctx) {
  const panel = el("div", "rm-dice-panel");
  // Whose turn it is, or whose turn is being shown, said as it changes.
  panel.append(el("h2", "rm-turn", "", { "data-testid": "room-turn", "aria-live": "polite" }));
  const row = el("div", "dice-row rm-dice", null, { role: "group", "aria-label": "骰子" });
  buildDice(row, { prefix: "room", onToggle: (i) => toggleDie(ctx, i) });
  const controls = el("div", "rm-controls");
  const skip = el("button", "btn btn-small btn-ghost", "跳过", { type: "button", "data-testid": "room-skip", "aria-label": "跳过回放" });
  skip.addEventListener("click", () => ctx.dispatch({ type: "boardReplayEnd" }));
  controls.append(skip);
  panel.append(row, el("p", "fine rm-dice-note", ""), controls);
  const card = el("div", "rm-card-wrap");
  buildCard(card, {
    prefix: "room",
    col: "rm",
    parts: [{ cls: "rm-card", caption: "计分表", rows: [...UPPER, ...LOWER].map(([c]) => c), sums: ["total"] }],
    onPick: (c) => scoreBox(ctx, c),
  });
  const log = el("div", "rm-log-wrap");
  buildTurnLog(log, { prefix: "room", cls: "rm-log rm-turn-log" });
  board.append(panel, card, log);
}

const NO_HOLD = [false, false, false, false, false];
const ALL_HELD = [true, true, true, true, true];

function drawBoard(board, page, ctx) {
  const room = page.data.room;
  const game = room.game;
  const ui = page.ui;
  const step = replayStep(ui.replay);
  const mine = myTurn(room);
  const playing = room.status === "playing";
  const busy = Boolean(ui.busy);
  const seatOf = (i) => (room.seats[i] ? seatLabel(room.seats[i], room) : "");
  let turnLine = "";
  if (step) turnLine = `${seatOf(step.seat)} 正在打……`;
  else if (playing) turnLine = mine ? "轮到你了" : `轮到 ${seatOf(game.turn)}`;
  const h2 = board.querySelector(".rm-turn");
  if (h2.textContent !== turnLine) h2.textContent = turnLine;
  board.querySelector(".rm-dice-panel").hidden = !playing && !step;
  let look;
  if (step) {
    const held = step.action === "roll" ? step.hold : ALL_HELD;
    look = { dice: step.dice, held, locked: step.action === "score", computer: true, rollSerial: `s${ui.replay.steps.length}:${ui.replay.index}`, rolled: step.action === "roll" ? step.hold.map((h) => !h) : null };
  } else {
    const holds = ui.holds && ui.holds.seat === game.turn ? ui.holds.hold : null;
    const held = mine ? ui.myHold || NO_HOLD : holds || NO_HOLD;
    look = { dice: game.dice, held, locked: game.dice !== null && game.rolls_left === 0, act: mine && !busy, rollSerial: ui.rollSerial || 0, rolled: ui.rolled };
  }
  drawDice(board.querySelector(".rm-dice"), diceLook(look));
  const note = board.querySelector(".rm-dice-note");
  const noteText = !step && playing && !game.dice ? "还没掷骰子。" : mine && game.dice && !step ? "点骰子保留它，或在下面的计分表里选一项登记。" : "";
  if (note.textContent !== noteText) note.textContent = noteText;
  board.querySelector('[data-testid="room-skip"]').hidden = !step;
  // 掷骰子 only for the person on turn (a replay still shown ends when they roll).
  const controls = board.querySelector(".rm-controls");
  let roll = controls.querySelector('[data-testid="room-roll"]');
  if (mine && !roll) {
    roll = el("button", "btn btn-primary", "", { type: "button", "data-testid": "room-roll" });
    roll.addEventListener("click", () => rollDice(ctx));
    controls.prepend(roll);
  } else if (!mine && roll) {
    roll.remove();
    roll = null;
  }
  if (roll) {
    const text = game.dice ? `再掷（还剩 ${game.rolls_left} 次）` : "掷骰子";
    if (roll.textContent !== text) roll.textContent = text;
    roll.disabled = busy || (game.dice !== null && game.rolls_left === 0);
  }
  const offer = mine && game.dice && !step ? game.turn : null;
  drawCard(board.querySelector(".rm-card-wrap"), {
    seats: room.seats,
    cards: game.seats.map((_, i) => shownCard(ui.replay, game, i)),
    offerSeat: offer,
    preview: game.preview,
    act: offer !== null && !busy,
    picked: offeredPick(page),
    playing: step ? step.seat : playing ? game.turn : null,
    scoreIds: true,
  });
  drawTurnLog(board.querySelector(".rm-log-wrap"), { turns: shownTurns(game.turns || [], ui.replay), seats: room.seats });
}

/** The room's keys (keyboard.js, as on every table; no hints in a room): once, for the
 * room's view (its body, which outlives its pages, says it is done). */
function installKeys(body, ctx) {
  if (body.dataset.keys) return;
  body.dataset.keys = "on";
  const playing = () => {
    const p = roomOf(ctx);
    return Boolean(p && ctx.state().view === "room" && p.data.room.status === "playing");
  };
  installKeyboard({
    onTable: playing,
    gameOverShown: () => false,
    closeGameOver: () => {},
    roll: () => rollDice(ctx),
    toggleDie: (i) => toggleDie(ctx, i),
  });
}

function roomOf(ctx) {
  const p = ctx.state().page;
  return p && p.view === "room" && p.data && p.data.room ? p : null;
}

function toggleDie(ctx, i) {
  const page = roomOf(ctx);
  if (!page || !myTurn(page.data.room) || page.ui.replay) return;
  const game = page.data.room.game;
  if (!game.dice || game.rolls_left === 0) return;
  const next = (page.ui.myHold || NO_HOLD).slice();
  next[i] = !next[i];
  ctx.dispatch({ type: "roomMyHold", hold: next });
  post(API.room(page.data.room.id, "hold"), { hold: next }).catch(() => {});
}

function rollDice(ctx) {
  const page = roomOf(ctx);
  if (!page || !myTurn(page.data.room) || page.ui.busy) return;
  const game = page.data.room.game;
  if (game.dice && game.rolls_left === 0) return;
  const hold = game.dice ? page.ui.myHold || NO_HOLD : NO_HOLD;
  ctx.dispatch({ type: "roomRolled", hold });
  gameAct(ctx, page, () => ctx.api.roll(game, hold));
}

/** Write a box (board_card.js scoreFlow): 登记前确认 under 设置, and the zero confirmation
 * when the server's preview asks for one (U2): a 0 while another box would score is never
 * written by one tap. */
function scoreBox(ctx, category) {
  const page = roomOf(ctx);
  if (!page || !myTurn(page.data.room) || page.ui.busy) return;
  const game = page.data.room.game;
  return scoreFlow({
    category,
    option: game.preview && game.preview[category],
    confirmOn: ctx.state().settings.confirm === "on",
    picked: pickedBox(page.ui.pick, game),
    pick: (c) => ctx.dispatch({ type: "boardPick", version: game.version, category: c }),
    said: (text) => ctx.dispatch({ type: "say", text, view: "room" }),
    declined: () => ctx.dispatch({ type: "say", text: say.ZERO_CANCELLED, view: "room" }),
    send: (c, confirmZero) => gameAct(ctx, page, () => ctx.api.score(game, c, confirmZero)),
  });
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
  const nameLabel = el("label", "rm-field", "你的名字");
  nameLabel.append(name);
  const friends = el("select", "", null, { "data-testid": "room-friends" });
  const computers = el("select", "", null, { "data-testid": "room-computers" });
  const max = CONFIG.limits.max_seats - 1;
  for (let n = 0; n <= max; n += 1) {
    friends.append(el("option", "", `${n} 位朋友`, { value: String(n) }));
    computers.append(el("option", "", `${n} 个电脑`, { value: String(n) }));
  }
  friends.value = "1";
  const level = el("select", "", null, { "data-testid": "room-level" });
  for (const d of CONFIG.difficulties) level.append(el("option", "", DIFFICULTY_NAMES[d.id], { value: d.id }));
  level.value = CONFIG.suggested_difficulty;
  const turn = el("input", "", null, {
    type: "number",
    min: String(ROOMS.turn_seconds.min),
    max: String(ROOMS.turn_seconds.max),
    value: String(ROOMS.turn_seconds.default),
    "aria-describedby": "rm-turn-note",
    "data-testid": "room-turn-seconds",
  });
  for (const [text, control] of [
    ["朋友", friends],
    ["电脑", computers],
    ["电脑难度", level],
    ["每回合秒数", turn],
  ]) {
    const label = el("label", "rm-field", text);
    label.append(control);
    form.append(label);
    if (control === turn) {
      form.append(el("p", "rm-field-note", ROOM_TURN_NOTE, { id: "rm-turn-note", "data-testid": "room-turn-note" }));
    }
  }
  form.prepend(nameLabel);
  if (page.ui.error) form.append(el("p", "rv-error", page.ui.error, { role: "alert", "data-testid": "room-error" }));
  const create = el("button", "btn btn-primary", "开房间", { type: "submit", "data-testid": "create-room" });
  create.disabled = Boolean(page.ui.busy);
  form.append(create);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const seats = [{ kind: "human", name: name.value }];
    for (let i = 0; i < Number(friends.value); i += 1) seats.push({ kind: "human" });
    for (let i = 0; i < Number(computers.value); i += 1) seats.push({ kind: "computer", difficulty: level.value });
    ctx.dispatch({ type: "roomBusy" });
    post(API.room(), { seats, turn_seconds: Number(turn.value) }).then(
      (r) => ctx.open(href("room", { id: r.room.id })),
      (err) => ctx.dispatch({ type: "roomFailed", error: err.message }),
    );
  });
  body.replaceChildren(form);
}

export const view = {
  reducers: { ...boardReducers, roomEvent, roomData, roomGame },
  live: (args) => live(args),
  render(body, page, ctx) {
    if (page.data.fresh) {
      const key = JSON.stringify(page.ui);
      if (body.dataset.drawn === key) return;
      body.dataset.drawn = key;
      drawRoomConfirm(null, ctx);
      drawNew(body, page, ctx);
      return;
    }
    // Drawn again when the room, the view's state or the countdown's second changes; the
    // name being typed is kept (it is only read when 「入座」 is pressed).
    const typed = body.querySelector('[data-testid="join-name"]');
    const value = typed ? typed.value : null;
    const focused = document.activeElement && body.contains(document.activeElement)
      ? document.activeElement.getAttribute("data-testid")
      : null;
    const { now, ...rest } = page.ui;
    const clock = countdown(page.data.room, page.ui);
    const key = JSON.stringify([page.data.room, rest, clock && clock.textContent, Math.floor((now || 0) / REACTION_SHOWN_MS)]);
    if (body.dataset.drawn === key) return;
    body.dataset.drawn = key;
    // A 「?」 opened (L11) stays open across the countdown's redraws.
    const open = [...body.querySelectorAll("details.term-help[open]")].map((d) => d.dataset.term);
    drawRoom(body, page, ctx);
    for (const id of open) {
      const d = body.querySelector(`details.term-help[data-term="${id}"]`);
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
