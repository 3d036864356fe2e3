// 同骰竞速 (W5): /races/new a new race; /races/<id> the race, a lazy view (views.js). A race
// is a room (docs/api.md "Rooms": `race_days`, the room's `race`): every seat plays its own
// game on the room's dice, here on the page's one board (this browser's seat only: the
// server rolls the race's stream); the others' progress (rounds played, score so far, never
// their dice) is the strip above it, kept up by the room's event stream (any event: the
// room read again). Once the race is over: the ranking with each seat's skill loss and
// luck, and 复盘 side by side on the same dice (each picked seat's review, the round chosen,
// the review's read-only card). No rules maths here: ranks, totals and losses are the
// server's. Names are shown with textContent only (dom.js `el`). The view's own state,
// page.ui: {busy, error, copied, picked (seats whose 复盘 is shown), round, reviews
// ({game id: review | {error}}), stream (null while live, else {message})}.

import { el, fmt } from "./dom.js";
import { followStream } from "./events.js";
import { CONFIG } from "../config.js";
import { openStream, request } from "../api.js";
import { API, href } from "../paths.js";
import { formatDate, language, t, tn } from "../i18n.js";
import { readCard } from "../board/draw.js";
import { CATEGORY_NAMES } from "../state.js";

const DAYS = CONFIG.rooms.race_days;
const post = (path, body = {}) => request("POST", path, body);
const tokenOf = () => {
  const m = location.hash.match(/^#([tw])=([A-Za-z0-9_-]{22})$/);
  return m ? m[2] : null;
};
const withToken = (path, token) => (token ? `${path}?${new URLSearchParams({ token })}` : path);

// -- state (pure) ---------------------------------------------------------------------------

const onPage = (change) => (state, action) => {
  const page = state.page;
  if (!page || page.view !== "race" || (action.serial !== undefined && page.serial !== action.serial)) return state;
  return { ...state, page: change(page, action) };
};
const onUi = (change) => onPage((page, action) => ({ ...page, ui: change(page.ui || {}, action, page) }));

/** The race's named actions (pure; node-tested). */
export const reducers = {
  /** The room as the server sent it (a newer read never loses to an older one). */
  raceData: onPage((page, { room }) => {
    const had = page.data.room;
    if (had && room.last_event_id < had.last_event_id) return page;
    return { ...page, data: { ...page.data, room }, ui: { ...(page.ui || {}), busy: false, error: null } };
  }),
  raceBusy: onUi((ui) => ({ ...ui, busy: true, error: null })),
  raceFailed: onUi((ui, { error }) => ({ ...ui, busy: false, error })),
  raceCopied: onUi((ui) => ({ ...ui, copied: true })),
  raceStream: onUi((ui, { stream }) => ({ ...ui, stream })),
  /** A seat's 复盘 shown or hidden beside the others. */
  racePick: onUi((ui, { seat }, page) => {
    const picked = pickedSeats(page);
    return { ...ui, picked: picked.includes(seat) ? picked.filter((s) => s !== seat) : [...picked, seat] };
  }),
  raceRound: onUi((ui, { round }) => ({ ...ui, round })),
  /** A seat's review arrived (or failed: `{error}`). */
  raceReview: onUi((ui, { id, review }) => ({ ...ui, reviews: { ...(ui.reviews || {}), [id]: review } })),
};

/** The seats whose 复盘 is shown: the player's choice, else this browser's seat and the
 * winner's (the finished ones only: an unfinished game has no review). */
export function pickedSeats(page) {
  const ui = page.ui || {};
  if (ui.picked) return ui.picked;
  const race = page.data.room && page.data.room.race;
  const done = ((race && race.ranking) || []).filter((e) => e.finished).map((e) => e.seat);
  const mine = page.data.room.your_seat;
  const out = done.includes(mine) ? [mine] : [];
  for (const seat of done) if (out.length < 2 && !out.includes(seat)) out.push(seat);
  return out;
}

// -- data -----------------------------------------------------------------------------------

/** The race of /races/<id> (views.js LAZY.race; /races/new: the form): the invite link's
 * token rides in the fragment (#t=), sent only as `token`. */
export function load({ id }) {
  if (id === "new") return Promise.resolve({ fresh: true });
  const token = tokenOf();
  return request("GET", withToken(API.room(id), token)).then((r) => ({ room: r.room, token }));
}

// -- the session: the stream and the board ----------------------------------------------------

function mount(page, ctx) {
  const { data, serial } = page;
  if (!data.room) return { stop() {} };
  const { dispatch, state } = ctx;
  const root = el("div");
  const ours = () => {
    const p = state().page;
    return p && p.serial === serial ? p : null;
  };
  let at = null; // the board's mounting, once this seat's game is on it
  const read = () =>
    request("GET", withToken(API.room(data.room.id), data.token)).then((r) => {
      dispatch({ type: "raceData", serial, room: r.room });
      return r.room;
    });
  const mode = {
    owner: "race",
    transport: { roll: ctx.api.roll, score: ctx.api.score, read: () => read().then((room) => room.game) },
    hints: () => false, // no hints in a race (the server refuses them too)
    confirm: () => true,
    lobby: () => ctx.open(href("lobby")),
  };
  /** This seat's game on the board, the first time the room has it in play. */
  function show(room) {
    if (at !== null || !ours() || !room.game || room.status !== "playing") return;
    at = ctx.board.mount(root, mode, { game: room.game, mine: [0] });
  }
  function act(call) {
    dispatch({ type: "raceBusy", serial });
    return call().then(
      (r) => {
        dispatch({ type: "raceData", serial, room: r.room });
        show(r.room);
      },
      (err) => dispatch({ type: "raceFailed", serial, error: err.message }),
    );
  }
  function review(entry) {
    const ui = ours() && ours().ui;
    if (!entry.finished || (ui && ui.reviews && entry.game_id in ui.reviews)) return;
    dispatch({ type: "raceReview", serial, id: entry.game_id, review: { loading: true } });
    request("GET", API.review(entry.game_id)).then(
      (r) => dispatch({ type: "raceReview", serial, id: entry.game_id, review: r }),
      (err) => dispatch({ type: "raceReview", serial, id: entry.game_id, review: { error: err.message } }),
    );
  }

  const path = withToken(API.room(data.room.id, "events"), data.token);
  show(data.room);
  // Progress events carry no dice: each is a sign to read the race as it stands.
  const stream = followStream((from, signal) => openStream(path, from, signal), data.room.last_event_id, {
    onEvents: () => read().then(show, () => {}),
    onStatus: (status) => dispatch({ type: "raceStream", serial, stream: status }),
    words: {
      retrying: t("race.stream.retrying"),
      gone: t("room.stream.gone"),
      later: (message) => t("room.stream.later", { message }),
    },
  });
  return {
    root,
    act,
    review,
    stop() {
      stream.stop();
      if (at !== null) ctx.board.stop(at);
    },
  };
}

// -- drawing --------------------------------------------------------------------------------

/** The room's status, said. */
function statusText(status) {
  if (status === "waiting") return t("race.status.waiting");
  if (status === "starting") return t("race.status.starting");
  if (status === "finished") return t("race.status.finished");
  if (status === "expired") return t("race.status.expired");
  return t("race.status.playing");
}

function button(text, testid, onClick, cls = "btn-primary") {
  const b = el("button", `btn ${cls}`, text, { type: "button", "data-testid": testid });
  b.addEventListener("click", onClick);
  return b;
}

function drawNew(body, page, ctx) {
  const form = el("form", "rc-new");
  const name = el("input", "", null, { id: "race-name", maxlength: "12", required: "", "data-testid": "race-name" });
  const friends = el("select", "", null, { id: "race-friends", "data-testid": "race-friends" });
  for (let n = 1; n <= 5; n += 1) friends.append(el("option", "", String(n), { value: String(n) }));
  const days = el("select", "", null, { id: "race-days", "data-testid": "race-days" });
  for (const d of DAYS) days.append(el("option", "", tn("race.new.days_option", d, { n: d }), { value: String(d) }));
  days.value = String(DAYS[1] ?? DAYS[0]);
  form.append(
    el("p", "fine", t("race.new.pitch")),
    el("label", "", t("race.new.name"), { for: "race-name" }),
    name,
    el("label", "", t("race.new.friends"), { for: "race-friends" }),
    friends,
    el("label", "", t("race.new.days"), { for: "race-days" }),
    days,
  );
  if (page.ui.error) form.append(el("p", "rv-error", page.ui.error, { role: "alert", "data-testid": "race-error" }));
  const create = el("button", "btn btn-primary", t("race.new.create"), { type: "submit", "data-testid": "race-create" });
  create.disabled = Boolean(page.ui.busy);
  form.append(create);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const seats = [{ kind: "human", name: name.value }];
    for (let i = 0; i < Number(friends.value); i += 1) seats.push({ kind: "human" });
    ctx.dispatch({ type: "raceBusy" });
    post(API.room(), { seats, race_days: Number(days.value) }).then(
      (r) => ctx.open(`${href("race", { id: r.room.id })}${r.room.invite_url.slice(r.room.invite_url.indexOf("#"))}`),
      (err) => ctx.dispatch({ type: "raceFailed", error: err.message }),
    );
  });
  body.replaceChildren(form);
}

/** The others' progress: each seat's rounds played and score so far (W5). */
function progressStrip(room) {
  const list = el("ol", "rc-progress", null, { "data-testid": "race-progress", "aria-label": t("race.progress.label") });
  for (const s of room.race.seats) {
    const li = el("li", `rc-seat${s.finished ? " rc-done" : ""}`, null, { "data-testid": `race-seat-${s.index}` });
    li.append(el("span", "rc-name", s.name || ""));
    if (s.index === room.your_seat) li.append(el("span", "rc-chip", t("race.you")));
    li.append(
      el("span", "rc-rounds", t("race.progress.rounds", { n: s.rounds }), { "data-testid": `race-rounds-${s.index}` }),
      el("span", "rc-score", tn("race.points", s.score, { n: s.score }), { "data-testid": `race-score-${s.index}` }),
    );
    if (s.finished) li.append(el("span", "rc-chip", t("race.progress.finished")));
    list.append(li);
  }
  return list;
}

function seatsPanel(room, page, session, ctx) {
  const out = el("div", "rc-waiting");
  const list = el("ol", "rc-seats");
  for (const s of room.seats) {
    list.append(el("li", "", s.name === null ? t("race.seat.open") : s.name, { "data-testid": `race-waiting-${s.index}` }));
  }
  out.append(list);
  const mine = room.your_seat !== null;
  if (mine && room.invite_url) {
    const link = el("input", "", null, { readonly: "", value: room.invite_url, "data-testid": "race-invite", "aria-label": t("race.invite.label") });
    out.append(el("p", "", t("race.invite.say")), link);
    out.append(
      button(page.ui.copied ? t("race.invite.copied") : t("race.invite.copy"), "race-copy", () => {
        link.select();
        navigator.clipboard?.writeText(room.invite_url).then(() => ctx.dispatch({ type: "raceCopied" }), () => {});
      }, "btn-small"),
    );
  }
  if (!mine && page.data.token) {
    const name = el("input", "", null, { id: "race-join-name", maxlength: "12", "data-testid": "race-join-name" });
    out.append(el("label", "", t("race.join.name"), { for: "race-join-name" }), name);
    out.append(button(t("race.join.take"), "race-join", () => session.act(() => post(API.room(room.id, "join"), { token: page.data.token, name: name.value }))));
  }
  if (room.creator) {
    out.append(button(t("race.start"), "race-start", () => session.act(() => post(API.room(room.id, "start")))));
  } else if (mine) {
    out.append(el("p", "fine", t("race.wait_start")));
  }
  return out;
}

function ranking(room) {
  const table = el("table", "rc-ranking", null, { "data-testid": "race-ranking" });
  const head = el("tr");
  const heads = [t("race.rank.place"), t("race.rank.name"), t("race.rank.score"), t("race.rank.skill_loss"), t("race.rank.luck")];
  for (const text of heads) head.append(el("th", "", text, { scope: "col" }));
  table.append(el("thead", "", null), el("tbody"));
  table.firstChild.append(head);
  for (const e of room.race.ranking) {
    const row = el("tr", e.seat === room.your_seat ? "rc-mine" : "", null, { "data-testid": `race-rank-${e.seat}` });
    const name = room.seats[e.seat] ? room.seats[e.seat].name : "";
    row.append(
      el("td", "", String(e.rank)),
      el("th", "", name, { scope: "row" }),
      el("td", "", e.finished ? String(e.score) : t("race.rank.unfinished", { score: e.score, rounds: e.rounds })),
      el("td", "", fmt(e.skill_loss)),
      el("td", "", e.luck === null ? "—" : `${e.luck > 0 ? "+" : ""}${fmt(e.luck)}`),
    );
    table.lastChild.append(row);
  }
  return table;
}

/** A decision's choice as said: a box, the dice kept, or no more rolls ("stop"). */
function choice(d, c) {
  if (d.kind === "score") return CATEGORY_NAMES[c.category];
  if (!Array.isArray(c.keep)) return t("race.review.stop");
  return t("race.review.keep", { dice: c.keep.join(" ") || "—" });
}

/** One seat's column of 复盘 side by side: its decisions in the round chosen and its card
 * then (the review's read-only card). */
function reviewColumn(entry, review, round, name) {
  const col = el("section", "rc-column", null, { "data-testid": `race-review-${entry.seat}`, "aria-label": name });
  col.append(el("h3", "", name), el("p", "fine", t("race.review.summary", { score: entry.score, loss: fmt(entry.skill_loss), luck: fmt(entry.luck) })));
  if (!review || review.loading) return col.append(el("p", "fine", t("race.review.loading"))), col;
  if (review.error) return col.append(el("p", "rv-error", review.error)), col;
  const steps = review.decisions.filter((d) => d.round === round);
  const list = el("ol", "rc-steps");
  for (const d of steps) {
    const chosen = choice(d, d.chosen);
    const best = choice(d, d.best);
    const li = el("li", `rc-step mark-${d.mark}`);
    li.append(
      el("span", "rc-dice", t("race.review.roll", { n: d.roll, dice: d.dice.join(" ") })),
      el("span", "", t("race.review.chose", { choice: chosen })),
    );
    if (d.loss > 0) li.append(el("span", "fine", t("race.review.best", { choice: best, loss: fmt(d.loss) })));
    list.append(li);
  }
  col.append(list);
  const last = steps.filter((d) => d.kind === "score").pop();
  if (last) col.append(readCard(last.card));
  col.append(el("a", "btn btn-small", t("race.review.full"), { href: href("review", { id: entry.game_id }), "data-page": "review" }));
  return col;
}

function sideBySide(room, page, ctx, session) {
  const out = el("section", "rc-review", null, { "data-testid": "race-side-by-side" });
  out.append(el("h2", "", t("race.review.title")), el("p", "fine", t("race.review.pitch")));
  const picked = pickedSeats(page);
  const pick = el("div", "rc-pick", null, { role: "group", "aria-label": t("race.review.pick") });
  for (const e of room.race.ranking) {
    if (!e.finished) continue;
    const on = picked.includes(e.seat);
    const b = button(room.seats[e.seat].name, `race-pick-${e.seat}`, () => ctx.dispatch({ type: "racePick", seat: e.seat }), on ? "btn-small btn-gold" : "btn-small");
    b.setAttribute("aria-pressed", String(on));
    pick.append(b);
  }
  const round = page.ui.round || 1;
  const rounds = el("div", "rc-rounds", null, { role: "group", "aria-label": t("race.review.round_label") });
  for (let r = 1; r <= 13; r += 1) {
    const b = button(String(r), `race-round-${r}`, () => ctx.dispatch({ type: "raceRound", round: r }), r === round ? "btn-small btn-gold" : "btn-small");
    b.setAttribute("aria-pressed", String(r === round));
    b.setAttribute("aria-label", t("race.review.round", { n: r }));
    rounds.append(b);
  }
  const columns = el("div", "rc-columns");
  const reviews = page.ui.reviews || {};
  for (const seat of picked) {
    const entry = room.race.ranking.find((e) => e.seat === seat);
    if (!entry) continue;
    session.review(entry);
    columns.append(reviewColumn(entry, reviews[entry.game_id], round, room.seats[seat].name));
  }
  out.append(pick, rounds, columns);
  return out;
}

function drawRace(body, page, ctx, session) {
  const room = page.data.room;
  const ui = page.ui;
  const top = el("div", "rc-view");
  const days = room.race ? room.race.days : 0;
  let status = statusText(room.status) + " · " + tn("race.days", days, { n: days });
  if (room.status === "playing" && room.race.ends_at) {
    const when = formatDate(new Date(room.race.ends_at * 1000), { dateStyle: "medium", timeStyle: "short" });
    status += " · " + t("race.ends", { when });
  }
  top.append(el("p", "rc-status", status, { role: "status", "data-testid": "race-status" }));
  if (ui.error) top.append(el("p", "rv-error", ui.error, { role: "alert", "data-testid": "race-error" }));
  if (ui.stream) top.append(el("p", "rv-error", ui.stream.message, { role: "status" }));
  if (room.status === "playing") {
    top.append(progressStrip(room));
    const mine = room.race.seats.find((s) => s.index === room.your_seat);
    if (mine && mine.finished) top.append(el("p", "rc-notice", t("race.you_finished"), { "data-testid": "race-you-finished" }));
    if (room.your_seat === null) top.append(el("p", "fine", t("race.watching")));
  }
  if (room.status === "finished" && room.race.ranking) {
    top.append(el("h2", "", t("race.result")), ranking(room), sideBySide(room, page, ctx, session));
  }
  const after = el("div", "rc-view");
  if (room.status === "waiting") after.append(seatsPanel(room, page, session, ctx));
  const board = session.root;
  board.hidden = room.status !== "playing" || !room.game;
  if (body.children.length !== 3 || body.children[1] !== board) body.replaceChildren(el("div"), board, el("div"));
  body.firstChild.replaceChildren(top);
  body.lastChild.replaceChildren(after);
}

export const view = {
  reducers,
  mount: (page, ctx) => mount(page, ctx),
  render(body, page, ctx, session) {
    if (page.data.fresh) {
      const key = JSON.stringify([page.ui, language()]); // (a new language redraws)
      if (body.dataset.drawn === key) return;
      body.dataset.drawn = key;
      drawNew(body, page, ctx);
      return;
    }
    if (!session) return;
    const key = JSON.stringify([page.data.room, page.ui, language()]);
    if (body.dataset.drawn === key) return;
    body.dataset.drawn = key;
    const typed = body.querySelector('[data-testid="race-join-name"]');
    const value = typed ? typed.value : null;
    drawRace(body, page, ctx, session);
    const again = body.querySelector('[data-testid="race-join-name"]');
    if (again && value !== null) again.value = value;
  },
};
