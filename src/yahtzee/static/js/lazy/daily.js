// 每日挑战 (/daily) and 小组 (/groups, /groups/join#token, /groups/{id}): lazy views
// (views.js), one module for the four. The server does every rule and every figure (the
// day, the dice, the ranks, the share text, the mark names); this module draws
// `state.page.data` and turns clicks into requests whose answers go back through the store.
// Names typed by people are shown as text only (el() sets textContent, never markup).
//
// Each view's own state is `page.ui`: {busy, error, focus, drafts, ...}. A form's typed
// values are read when it is sent and kept in `ui.drafts`, so a redraw (an error, say)
// shows them again.

import { request } from "../api.js";
import { confirmDialog } from "../dialog.js";
import { formatDate, formatNumber, language, load as loadWords, t, tn } from "../i18n.js";
import { API, href } from "../paths.js";
import { el, labelled, pageSlice, requestReducers, term, verdictEl } from "./dom.js";

// Its words are chunk `daily` (G1), said when drawn. What the server sends is codes and
// values (G5): a board's entries (names people typed, figures), a result's marks and
// figures; the share text alone is a sentence, said in the sharer's language (it is what
// they send to others), the marks' names in the reader's (asked again when the language
// changes).

/** A figure to one decimal as the page's language writes it: the server rounded it already
 * (the share text says the same figure, D5), so this only writes it. */
const fmt = (v, digits = 1) =>
  v === null || v === undefined ? "—" : formatNumber(v, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });

/** 每日挑战 and 小组's own state: requests, a copied text (`what`: its testid, or
 * `${testid}:select`), the week's board. */
export const dailyReducers = pageSlice(["daily", "groups", "groupJoin", "group"], {
  ...requestReducers("daily"),
  dailyCopied: (ui, { what }) => ({ ...ui, copied: what }),
  dailyWeek: (ui, { board }) => ({ ...ui, week: board }),
});

// ------------------------------------------------------------------------------ the API

// This module's own calls (D2-D6, docs/api.md): only these views make them, so they load
// with the views, not with the page (api.js holds the first load's calls).
const get = (path) => request("GET", path);
const post = (path, body = {}) => request("POST", path, body);
const call = {
  daily: () => get(API.daily()),
  // body: {name?, replace?}
  startDaily: (body) => post(API.daily(), body),
  // query: {limit, period, group}
  leaderboard: (day, query) => get(`${API.leaderboard(day)}?${new URLSearchParams(query)}`),
  groups: () => get(API.groups()),
  createGroup: (name, yourName) => post(API.groups(), { name, your_name: yourName }),
  groupLookup: (token) => post(API.groupLookup(), { token }),
  joinGroup: (token, name) => post(API.groupJoin(), { token, name }),
  group: (id) => get(API.group(id)),
  newInvite: (id) => post(API.groupInvite(id)),
  leaveGroup: (id) => post(API.groupLeave(id)),
  closeGroup: (id) => post(API.groupClose(id)),
  removeMember: (id, member) => request("DELETE", API.groupMember(id, member)),
};

/** Each view's data when its address is opened (views.js LAZY's `load`), by view. */
const words = (data) => loadWords("daily").then(() => data);
const today = () => {
  const lang = language(); // (the language the day's marks were named in)
  return call.daily().then((day) => ({ ...day, lang }));
};
export const load = {
  daily: () => words(today().then((day) => call.leaderboard(day.date, { limit: 20 }).then((board) => ({ day, board })))),
  groups: () => words(Promise.all([call.groups(), call.daily()]).then(([g, day]) => ({ ...g, name: day.name }))),
  // The invite link's token rides in the address's fragment, which the server never sees.
  groupJoin: () => {
    const token = location.hash.slice(1);
    return words(Promise.all([call.groupLookup(token), call.daily()]).then(([g, day]) => ({ ...g, token, name: day.name })));
  },
  group: ({ id }) => words(call.group(id)),
};

/** A day (its ISO date, the server's) as the page's language writes a month and day. */
const dayLabel = (iso) => {
  const [y, m, d] = iso.split("-").map(Number);
  return formatDate(new Date(Date.UTC(y, m - 1, d)), { month: "short", day: "numeric", timeZone: "UTC" });
};
const percent = (v) => t("daily.percent", { value: fmt(v) });

function button(text, testid, onClick, className = "btn") {
  const b = el("button", className, text, { type: "button", ...(testid ? { "data-testid": testid } : {}) });
  b.addEventListener("click", onClick);
  return b;
}

/** A link to another of the page's addresses (main.js keeps it in the page). */
const link = (text, view, params, attrs = {}) =>
  el("a", attrs.className || "", text, { href: href(view, params), "data-page": view, ...attrs });

/** A labelled text field (the length limit is the server's: it answers invalid_name). */
function field(label, id, value) {
  const wrap = el("p", "dl-field");
  const input = el("input", "dl-input", null, { id, type: "text", autocomplete: "off", maxlength: "40" });
  input.value = value || "";
  wrap.append(el("label", "", label, { for: id }), input);
  return { wrap, input };
}

const panel = (className, title, id, attrs = {}) => {
  const s = el("section", `panel ${className}`, null, { "aria-labelledby": id, ...attrs });
  s.append(el("h2", "", title, { id }));
  return s;
};

// ------------------------------------------------------------------------------ requests

/** A handler's request: busy while it runs, then `done(answer)`; a failure is shown in the
 * view (with the drafts kept) and the focus goes back to `focus` (an element's id). */
function requester(ctx, page) {
  return (promise, done, { drafts = {}, focus = null } = {}) => {
    ctx.dispatch({ type: "dailyBusy", drafts });
    return promise.then(
      (answer) => {
        ctx.dispatch({ type: "dailyIdle" });
        return done(answer);
      },
      (err) => {
        ctx.dispatch({ type: "dailyFailed", error: err.message, code: err.code });
        if (focus) ctx.afterRender(() => document.getElementById(focus)?.focus());
      },
    );
  };
}

/** The page's data again (after a change on the server), under the same opening. */
function refresh(ctx, page, load) {
  return load().then((data) => ctx.dispatch({ type: "dailyData", serial: page.serial, data }));
}

function errorLine(ui) {
  return ui.error ? el("p", "dl-error", ui.error, { role: "alert", "data-testid": "daily-error" }) : null;
}

/** Text to copy (and to share where the browser can): the result, an invite link. */
function shareBox(text, testid, label, ui, ctx) {
  const box = el("div", "dl-share");
  const pre = el("pre", "dl-share-text", text, { "data-testid": testid, "aria-label": label, tabindex: "0" });
  const copied = ui.copied === testid;
  const status = el("p", "fine", copied ? t("daily.copied") : ui.copied === `${testid}:select` ? t("daily.selected") : "", { role: "status" });
  const copy = button(t("daily.copy"), `${testid}-copy`, () => {
    const say = (what) => ctx.dispatch({ type: "dailyCopied", what });
    navigator.clipboard.writeText(text).then(
      () => say(testid),
      () => {
        say(`${testid}:select`);
        ctx.afterRender(() => {
          const shown = document.querySelector(`[data-testid="${testid}"]`);
          if (!shown) return;
          getSelection().selectAllChildren(shown);
          shown.focus();
        });
      },
    );
  });
  const actions = el("p", "dl-actions");
  actions.append(copy);
  if (navigator.share) actions.append(button(t("daily.share"), `${testid}-share`, () => navigator.share({ text }).catch(() => {})));
  box.append(pre, actions, status);
  return box;
}

// -------------------------------------------------------------------------------- boards

/** A board as a table: the top entries, then this browser's own entry if it is not among
 * them (D4). `week`: the weekly board's columns (days played, mean accuracy). A board of
 * everyone that does not list this browser yet says so at its foot (the day's result says
 * where it would stand and why, F13). */
function boardTable(board, { caption, testid = "leaderboard", week = false }) {
  const table = el("table", "dl-board", null, { "data-testid": testid });
  table.append(el("caption", "", caption));
  const head = el("tr");
  // L11, L13: each figure's word has its 「?」; the verdict (stars from the points lost)
  // sits beside 准确率, as in 复盘 and 统计.
  const columns = week
    ? [[t("daily.col.rank")], [t("daily.col.name")], [t("daily.col.days")], [t("daily.col.mean_accuracy"), "accuracy"], [t("daily.col.mean_skill_loss"), "skill_loss"], [t("daily.col.verdict"), "verdict"]]
    : [[t("daily.col.rank")], [t("daily.col.name")], [t("daily.col.skill_loss"), "skill_loss"], [t("daily.col.accuracy"), "accuracy"], [t("daily.col.verdict"), "verdict"], [t("daily.col.score")]];
  for (const [h, id] of columns) {
    const th = id ? labelled(h, id, "th") : el("th", "", h);
    th.setAttribute("scope", "col");
    head.append(th);
  }
  const thead = el("thead");
  thead.append(head);
  const tbody = el("tbody");
  const row = (e) => {
    const tr = el("tr", e.you ? "dl-you" : "", null, { "data-testid": "leaderboard-row" });
    const name = el("td", "dl-name");
    name.append(el("span", "", e.name)); // a person's name: text only
    // U18: an entry the board does not list yet has no place on it (its would-be place is
    // said under the board).
    const unlisted = e.listed === false;
    if (e.you) name.append(el("span", "dl-you-tag", unlisted ? t("daily.you_unlisted") : t("daily.you")));
    const mark = el("td", "dl-verdict");
    mark.append(verdictEl(e.skill_loss, { perGame: week, compact: true }));
    const cells = week
      ? [String(e.days), percent(e.accuracy), fmt(e.skill_loss), mark]
      : [fmt(e.skill_loss), percent(e.accuracy), mark, String(e.score)];
    const td = (c) => (typeof c === "string" ? el("td", "", c) : c);
    tr.append(el("th", "dl-rank", unlisted ? "—" : String(e.rank), { scope: "row" }), name, ...cells.map(td));
    return tr;
  };
  for (const e of board.entries) tbody.append(row(e));
  if (board.you && !board.entries.some((e) => e.you)) {
    const gap = el("tr", "dl-gap");
    gap.append(el("td", "", "…", { colspan: 6 }));
    tbody.append(gap, row(board.you));
  }
  const unlisted = board.you && board.you.listed === false;
  if (!board.entries.length) {
    const empty = el("tr");
    empty.append(el("td", "fine", unlisted ? t("daily.board.nobody_listed") : t("daily.board.empty"), { colspan: 6 }));
    tbody.append(empty);
  }
  table.append(thead, tbody);
  const wrap = el("div", "dl-board-wrap");
  // U18: the board of everyone's foot while it does not list this browser
  const foot = unlisted
    ? board.players
      ? tn("daily.board.unlisted", board.players, { n: board.players })
      : t("daily.board.unlisted_nobody")
    : tn("daily.board.players", board.players, { n: board.players });
  wrap.append(table, el("p", "fine", foot, { "data-testid": `${testid}-count` }));
  return wrap;
}

// ------------------------------------------------------------------------ the day's page

/** The result's place (F13, U18): on the board of everyone, or where it would stand there. */
const rankText = (r) =>
  r.listed !== false ? tn("daily.result.rank", r.players, { rank: r.rank, n: r.players }) : t("daily.result.rank_unlisted", { rank: r.rank });

/** U18: why the board of everyone does not list this browser yet, and where it would stand. */
const unlistedText = (r) =>
  tn("daily.result.unlisted", r.board_min_days, { days: r.board_min_days }) +
  (r.players ? tn("daily.result.unlisted_place", r.players, { rank: r.rank, n: r.players }) : t("daily.result.unlisted_alone", { rank: r.rank }));

function resultPanel(day, r, ui, ctx) {
  const box = panel("dl-result", t("daily.result.title", { date: dayLabel(day.date) }), "dl-result-title", { "data-testid": "daily-result" });
  const dl = el("dl", "dl-figures");
  const add = (label, value, testid = null, id = null) => {
    const div = el("div", "dl-figure");
    const dt = id ? labelled(label, id, "dt") : el("dt", "", label);
    div.append(dt, el("dd", "", value, testid ? { "data-testid": testid } : {}));
    dl.append(div);
  };
  const points = (v) => t("daily.points", { points: v });
  add(t("daily.col.score"), points(r.score), "daily-score");
  add(t("daily.col.accuracy"), percent(r.accuracy), null, "accuracy");
  add(t("daily.col.skill_loss"), points(fmt(r.skill_loss)), null, "skill_loss");
  add(t("daily.result.luck"), points(`${r.luck >= 0 ? "+" : "−"}${fmt(Math.abs(r.luck))}`), null, "luck");
  add(t("daily.result.expert"), t("daily.result.expert_score", { score: r.expert_score, loss: fmt(r.expert_skill_loss) }), "daily-expert-score");
  add(t("daily.col.rank"), r.rank ? rankText(r) : "—", "daily-rank");
  box.append(dl);
  if (r.listed === false) box.append(el("p", "fine", unlistedText(r), { "data-testid": "daily-unlisted" }));
  // L13: the verdict beside 准确率, as in 复盘, 统计 and the boards.
  const mark = el("p", "dl-verdict-line");
  mark.append(verdictEl(r.skill_loss), term("verdict"));
  box.append(mark);
  const marks = el("ol", "dl-marks", null, { "aria-label": t("daily.marks") });
  r.marks.forEach((m, i) => {
    const said = t("daily.mark", { round: i + 1, mark: r.mark_names[m] });
    marks.append(el("li", `dl-mark mark-${m}`, String(i + 1), { title: said, "aria-label": said }));
  });
  box.append(marks);
  if (r.share_squares) {
    // The share text's squares, explained (the server names them: `share_squares`).
    const legend = Object.entries(r.share_squares).map(([m, sq]) => `${sq} ${r.mark_names[m]}`);
    box.append(el("p", "fine dl-legend", t("daily.legend", { squares: legend.join(t("daily.legend_separator")) }), { "data-testid": "daily-share-legend" }));
  }
  box.append(el("p", "fine", t("daily.ranked_by")));
  // (the share text is the sharer's: said in the language the result was asked in)
  box.append(shareBox(r.share, "daily-share", t("daily.share_text"), ui, ctx));
  // Where the skill went: the game's own 复盘, move by move beside the expert's choice.
  const more = el("p", "dl-actions");
  more.append(link(t("daily.review"), "review", { id: day.game_id }, { className: "btn", "data-testid": "daily-review" }));
  box.append(more);
  return box;
}

function startPanel(page, ctx) {
  const { day } = page.data;
  const ui = page.ui;
  const send = requester(ctx, page);
  const box = el("div", "panel dl-start");
  let name = null;
  if (day.name === null) {
    name = field(t("daily.start.name"), "dl-name", ui.drafts?.name);
    box.append(name.wrap);
  } else {
    box.append(el("p", "fine", t("daily.start.named", { name: day.name })));
  }
  const start = (replace) => {
    const typed = name ? name.input.value : null;
    const body = { ...(typed !== null ? { name: typed } : {}), ...(replace ? { replace: true } : {}) };
    send(call.startDaily(body), (game) => ctx.play(game), {
      drafts: typed !== null ? { name: typed } : {},
      focus: name ? "dl-name" : "dl-start",
    });
  };
  const label = day.status === "in_progress" ? t("daily.start.continue") : t("daily.start.start");
  const go = button(label, "start-daily", () => start(false), "btn btn-primary");
  go.id = "dl-start";
  go.disabled = Boolean(ui.busy);
  box.append(go);
  if (ui.errorCode === "game_in_progress") {
    // F2: an ordinary game is unfinished; the server named it. Abandon it only on a yes.
    box.append(
      el("p", "fine", t("daily.replace.note")),
      button(t("daily.replace.button"), "daily-replace", () => {
        confirmDialog({ title: t("daily.replace.title"), text: ui.error, yes: t("daily.replace.yes"), no: t("daily.replace.no") }).then(
          (yes) => yes && start(true),
        );
      }),
    );
  }
  const error = errorLine(ui);
  if (error) box.append(error);
  return box;
}

function drawDay(body, page, ctx) {
  const { day, board } = page.data;
  const ui = page.ui;
  const intro = el("div", "panel dl-intro");
  intro.append(
    el("p", "dl-date", t("daily.intro.date", { date: dayLabel(day.date) })),
    el("p", "fine", t("daily.intro.rules") + t("daily.ties"), { "data-testid": "daily-ties" }),
  );
  const nodes = [intro];
  if (day.status === "finished" && day.result) nodes.push(resultPanel(day, day.result, ui, ctx));
  else if (day.status === "abandoned") nodes.push(el("p", "panel", t("daily.abandoned"), { "data-testid": "daily-abandoned" }));
  else nodes.push(startPanel(page, ctx));

  const boards = panel("dl-boards", t("daily.boards"), "dl-boards-title");
  boards.append(boardTable(board, { caption: t("daily.board.day", { date: dayLabel(day.date) }) }));
  if (ui.week) {
    boards.append(boardTable(ui.week, { caption: t("daily.board.week"), testid: "week-leaderboard", week: true }));
  } else {
    const week = button(t("daily.board.week_button"), "week-board", () => {
      requester(ctx, page)(call.leaderboard(day.date, { period: "week", limit: 20 }), (w) =>
        ctx.dispatch({ type: "dailyWeek", board: w }),
      );
    });
    week.disabled = Boolean(ui.busy);
    boards.append(week);
  }
  const links = el("p", "dl-links");
  links.append(link(t("daily.groups.mine"), "groups", {}, { "data-testid": "groups-link" }));
  boards.append(links);
  nodes.push(boards);
  body.replaceChildren(...nodes);
}

// -------------------------------------------------------------------------------- groups

function inviteBox(invite, ui, ctx) {
  const box = el("div", "dl-invite", null, { "data-testid": "group-invite" });
  box.append(el("p", "", t("daily.invite.send")));
  box.append(shareBox(invite.invite_url, "invite-link", t("daily.invite.link"), ui, ctx));
  box.append(el("img", "dl-qr", null, { src: invite.qr_url, alt: t("daily.invite.qr_alt"), width: 200, height: 200, "data-testid": "group-qr" }));
  return box;
}

function drawGroups(body, page, ctx) {
  const { groups, name } = page.data;
  const ui = page.ui;
  const mine = panel("dl-mine", t("daily.groups.mine"), "dl-mine-title");
  const about = el("p", "fine", t("daily.groups.about"));
  about.append(term("group"));
  mine.append(about);
  const nodes = [];
  if (groups.length) {
    const list = el("ul", "dl-groups");
    for (const g of groups) {
      const li = el("li");
      const notes = tn("daily.group.members", g.members, { n: g.members }) + (g.creator ? t("daily.group.mine") : "") + (g.closed ? t("daily.group.closed") : "");
      li.append(link(g.name, "group", { id: g.id }), el("span", "fine", notes));
      list.append(li);
    }
    mine.append(list);
  } else {
    mine.append(el("p", "fine", t("daily.groups.none")));
  }

  const form = panel("dl-create", t("daily.create.title"), "dl-create-title");
  const groupName = field(t("daily.create.group_name"), "dl-group-name", ui.drafts?.group);
  const yourName = field(t("daily.create.your_name"), "dl-your-name", ui.drafts?.yours ?? name);
  const create = button(
    t("daily.create.button"),
    "create-group",
    () => {
      const drafts = { group: groupName.input.value, yours: yourName.input.value };
      requester(ctx, page)(
        call.createGroup(drafts.group, drafts.yours),
        (created) => {
          ctx.dispatch({ type: "groupCreated", serial: page.serial, created });
          ctx.afterRender(() => document.querySelector('[data-testid="group-invite"] [data-testid="invite-link"]')?.focus());
        },
        { drafts, focus: "dl-group-name" },
      );
    },
    "btn btn-primary",
  );
  create.disabled = Boolean(ui.busy);
  form.append(groupName.wrap, yourName.wrap, create);
  const error = errorLine(ui);
  if (error) form.append(error);
  if (ui.created) {
    const c = ui.created;
    form.append(
      el("p", "dl-done", t("daily.create.done", { name: c.group.name }), { role: "status" }),
      inviteBox(c, ui, ctx),
      link(t("daily.create.enter"), "group", { id: c.group.id }, { className: "btn" }),
    );
  }
  nodes.push(mine, form);
  body.replaceChildren(...nodes);
}

function drawJoin(body, page, ctx) {
  const { group: g, token, name } = page.data;
  const ui = page.ui;
  const box = panel("dl-join", t("daily.join.title", { name: g.name }), "dl-join-title");
  box.append(el("p", "fine", tn("daily.join.about", g.members, { n: g.members, max: g.max_members })));
  const input = field(t("daily.join.name"), "dl-join-name", ui.drafts?.name ?? g.your_name ?? name);
  const join = button(
    g.member ? t("daily.join.rename") : t("daily.join.button"),
    "join-group",
    () => {
      const typed = input.input.value;
      requester(ctx, page)(call.joinGroup(token, typed), (joined) => ctx.open(href("group", { id: joined.group.id })), {
        drafts: { name: typed },
        focus: "dl-join-name",
      });
    },
    "btn btn-primary",
  );
  join.disabled = Boolean(ui.busy);
  box.append(input.wrap, join);
  const error = errorLine(ui);
  if (error) box.append(error);
  body.replaceChildren(box);
}

/** The creator's view of each member's accuracy by day (D6: a class's progress). */
function trendTable(trends) {
  const table = el("table", "dl-board dl-trends", null, { "data-testid": "group-trends" });
  table.append(el("caption", "", t("daily.trends.caption")));
  const head = el("tr");
  const heads = [t("daily.col.name"), t("daily.col.days"), t("daily.trends.mean"), t("daily.trends.change"), t("daily.trends.each_day")];
  for (const h of heads) head.append(el("th", "", h, { scope: "col" }));
  const thead = el("thead");
  thead.append(head);
  const tbody = el("tbody");
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  for (const member of trends) {
    const values = member.days.map((x) => x.accuracy);
    const half = Math.floor(values.length / 2);
    const change = values.length >= 2 ? `${percent(mean(values.slice(0, half)))} → ${percent(mean(values.slice(half)))}` : "—";
    const days =
      member.days.map((x) => t("daily.trends.day", { date: dayLabel(x.date), accuracy: fmt(x.accuracy) })).join(t("daily.list_separator")) ||
      t("daily.trends.not_yet");
    const tr = el("tr");
    const avg = mean(values);
    tr.append(
      el("th", "dl-name", member.name, { scope: "row" }),
      el("td", "", String(values.length)),
      el("td", "", avg === null ? "—" : percent(avg)),
      el("td", "", change),
      el("td", "dl-days", days),
    );
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const wrap = panel("dl-trends-panel", t("daily.trends.title"), "dl-trends-title");
  const scroll = el("div", "dl-board-wrap");
  scroll.append(table);
  wrap.append(scroll);
  return wrap;
}

function drawGroup(body, page, ctx) {
  const p = page.data;
  const g = p.group;
  const ui = page.ui;
  const send = requester(ctx, page);
  const again = () => refresh(ctx, page, () => call.group(g.id));
  const confirmThen = (question, promise, done) =>
    confirmDialog({ no: t("daily.cancel"), ...question }).then((yes) => yes && send(promise(), done));

  const head = el("div", "panel dl-group-head");
  const about =
    tn("daily.group.members", g.members, { n: g.members }) +
    (g.closed ? t("daily.group.closed") : "") +
    (g.your_name ? t("daily.group.your_name", { name: g.your_name }) : "");
  head.append(el("h2", "dl-group-name", g.name, { "data-testid": "group-name" }), el("p", "fine", about));
  const error = errorLine(ui);
  if (error) head.append(error);
  const nodes = [head];

  const boards = panel("dl-group-boards", t("daily.group.boards"), "dl-gb-title", { "data-testid": "group-board" });
  boards.append(boardTable(p.today, { caption: t("daily.group.today", { date: dayLabel(p.date) }) }));
  boards.append(boardTable(p.week, { caption: t("daily.board.week"), testid: "group-week-board", week: true }));
  nodes.push(boards);

  if (p.invite_url) {
    const inv = panel("dl-invites", t("daily.invite.title"), "dl-inv-title");
    inv.append(inviteBox(p, ui, ctx));
    const fresh = button(t("daily.invite.renew"), "new-invite", () => send(call.newInvite(g.id), again));
    fresh.disabled = Boolean(ui.busy);
    inv.append(fresh);
    nodes.push(inv);
  }
  if (p.trends) nodes.push(trendTable(p.trends));

  const done = p.members.filter((m) => m.played_today).length;
  const members = panel("dl-members-panel", t("daily.members.title", { done, n: p.members.length }), "dl-members-title");
  const ul = el("ul", "dl-members");
  for (const m of p.members) {
    const li = el("li");
    li.append(el("span", "dl-name", m.name), el("span", "fine", (m.creator ? t("daily.members.creator") : "") + (m.you ? t("daily.you") : "")));
    li.append(el("span", m.played_today ? "dl-done-today" : "dl-not-yet", m.played_today ? t("daily.members.done") : t("daily.members.not_yet")));
    if (m.member_id && !m.creator) {
      const remove = button(
        t("daily.members.remove"),
        "remove-member",
        () =>
          confirmThen(
            { title: t("daily.members.remove_ask.title"), text: t("daily.members.remove_ask.text", { name: m.name }), yes: t("daily.members.remove") },
            () => call.removeMember(g.id, m.member_id),
            (r) => {
              // F27: the removal renewed the invite link (the old one would let them back)
              const text = r.invite_url ? t("daily.members.removed_renewed", { url: r.invite_url }) : t("daily.members.removed");
              ctx.dispatch({ type: "say", text, view: page.view });
              return again();
            },
          ),
        "btn btn-small",
      );
      remove.setAttribute("aria-label", t("daily.members.remove_label", { name: m.name }));
      li.append(remove);
    }
    ul.append(li);
  }
  members.append(ul);

  const actions = el("p", "dl-actions");
  if (g.creator && !g.closed) {
    actions.append(
      button(t("daily.group.close"), "close-group", () =>
        confirmThen(
          { title: t("daily.group.close_ask.title"), text: t("daily.group.close_ask.text"), yes: t("daily.group.close_ask.yes") },
          () => call.closeGroup(g.id),
          again,
        ),
      ),
    );
  }
  if (!g.creator) {
    actions.append(
      button(t("daily.group.leave"), "leave-group", () =>
        confirmThen(
          { title: t("daily.group.leave_ask.title"), text: t("daily.group.leave_ask.text"), yes: t("daily.group.leave_ask.yes") },
          () => call.leaveGroup(g.id),
          () => ctx.open(href("groups")),
        ),
      ),
    );
  }
  members.append(actions, link(t("daily.group.back"), "groups", {}, { className: "dl-back" }));
  nodes.push(members);
  body.replaceChildren(...nodes);
}

const DRAW = { daily: drawDay, groups: drawGroups, groupJoin: drawJoin, group: drawGroup };

export const view = {
  reducers: {
    ...dailyReducers,
    /** Fresh data for the page opened as `serial` (after a change: a member removed, a new
     * invite link); the view's own state stays, its error goes. */
    dailyData(state, { serial, data }) {
      const page = state.page;
      if (!page || page.serial !== serial) return state;
      return { ...state, page: { ...page, data, ui: { ...page.ui, error: null, errorCode: null } } };
    },
    /** The day's marks named again in a new language (the result's share text stays the
     * sharer's, as it was said). */
    dailyMarks(state, { serial, day }) {
      const page = state.page;
      if (!page || page.serial !== serial || !page.data.day || !page.data.day.result || !day.result) return state;
      const result = { ...page.data.day.result, mark_names: day.result.mark_names };
      return { ...state, page: { ...page, data: { ...page.data, day: { ...page.data.day, result, lang: day.lang } } } };
    },
    /** U13: a group just created is in 我的小组 at once (newest first, as the server lists
     * them), with its invite shown under the form. */
    groupCreated(state, { serial, created }) {
      const page = state.page;
      if (!page || page.serial !== serial) return state;
      const groups = page.data.groups || [];
      const listed = groups.some((g) => g.id === created.group.id) ? groups : [created.group, ...groups];
      const ui = { ...page.ui, created, drafts: {} };
      return { ...state, page: { ...page, data: { ...page.data, groups: listed }, ui } };
    },
  },
  render(body, page, ctx) {
    // Drawn again whenever the data or the view's own state changes (a few dozen
    // elements); typed values survive in ui.drafts.
    const lang = language();
    const day = page.data.day;
    if (day && day.result && day.lang !== lang && body.dataset.asked !== `${page.serial} ${lang}`) {
      body.dataset.asked = `${page.serial} ${lang}`;
      today().then((fresh) => ctx.dispatch({ type: "dailyMarks", serial: page.serial, day: fresh }), (err) => console.warn(err));
    }
    const key = JSON.stringify([page.serial, page.data, page.ui, lang]);
    if (body.dataset.drawn === key) return;
    body.dataset.drawn = key;
    DRAW[page.view](body, page, ctx);
  },
};
