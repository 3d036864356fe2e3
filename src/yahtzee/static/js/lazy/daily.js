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
import { API, href } from "../paths.js";
import { el, fmt, labelled, pageSlice, requestReducers, term, verdictEl } from "./dom.js";
import { BOARD_EMPTY, BOARD_NOBODY_LISTED, TIES, YOU_UNLISTED, boardUnlisted, dailyRank, dailyUnlisted } from "./views_messages.js";

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
export const load = {
  daily: () => call.daily().then((day) => call.leaderboard(day.date, { limit: 20 }).then((board) => ({ day, board }))),
  groups: () => Promise.all([call.groups(), call.daily()]).then(([g, day]) => ({ ...g, name: day.name })),
  // The invite link's token rides in the address's fragment, which the server never sees.
  groupJoin: () => {
    const token = location.hash.slice(1);
    return Promise.all([call.groupLookup(token), call.daily()]).then(([g, day]) => ({ ...g, token, name: day.name }));
  },
  group: ({ id }) => call.group(id),
};

const dayLabel = (iso) => {
  const [, m, d] = iso.split("-").map(Number);
  return `${m}月${d}日`;
};

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
  const status = el("p", "fine", copied ? "已复制。" : ui.copied === `${testid}:select` ? "已选中：请按 Ctrl+C（手机上长按）复制。" : "", { role: "status" });
  const copy = button("复制", `${testid}-copy`, () => {
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
  if (navigator.share) actions.append(button("分享", `${testid}-share`, () => navigator.share({ text }).catch(() => {})));
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
    ? [["名次"], ["名字"], ["天数"], ["平均准确率", "accuracy"], ["平均技术损失", "skill_loss"], ["评价", "verdict"]]
    : [["名次"], ["名字"], ["技术损失", "skill_loss"], ["准确率", "accuracy"], ["评价", "verdict"], ["得分"]];
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
    if (e.you) name.append(el("span", "dl-you-tag", unlisted ? YOU_UNLISTED : "（你）"));
    const mark = el("td", "dl-verdict");
    mark.append(verdictEl(e.skill_loss, { perGame: week, compact: true }));
    const cells = week
      ? [String(e.days), `${fmt(e.accuracy)}%`, fmt(e.skill_loss), mark]
      : [fmt(e.skill_loss), `${fmt(e.accuracy)}%`, mark, String(e.score)];
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
    empty.append(el("td", "fine", unlisted ? BOARD_NOBODY_LISTED : BOARD_EMPTY, { colspan: 6 }));
    tbody.append(empty);
  }
  table.append(thead, tbody);
  const wrap = el("div", "dl-board-wrap");
  wrap.append(table, el("p", "fine", unlisted ? boardUnlisted(board.players) : `共 ${board.players} 人`, { "data-testid": `${testid}-count` }));
  return wrap;
}

// ------------------------------------------------------------------------ the day's page

function resultPanel(day, r, ui, ctx) {
  const box = panel("dl-result", `${dayLabel(day.date)}的成绩`, "dl-result-title", { "data-testid": "daily-result" });
  const dl = el("dl", "dl-figures");
  const add = (label, value, testid = null, id = null) => {
    const div = el("div", "dl-figure");
    const dt = id ? labelled(label, id, "dt") : el("dt", "", label);
    div.append(dt, el("dd", "", value, testid ? { "data-testid": testid } : {}));
    dl.append(div);
  };
  add("得分", `${r.score} 分`, "daily-score");
  add("准确率", `${fmt(r.accuracy)}%`, null, "accuracy");
  add("技术损失", `${fmt(r.skill_loss)} 分`, null, "skill_loss");
  add("运气", `${r.luck >= 0 ? "+" : "−"}${fmt(Math.abs(r.luck))} 分`, null, "luck");
  add("高手同一副骰子", `${r.expert_score} 分（技术损失 ${fmt(r.expert_skill_loss)}）`, "daily-expert-score");
  add("名次", r.rank ? dailyRank(r.rank, r.players, r.listed !== false) : "—", "daily-rank");
  box.append(dl);
  if (r.listed === false) box.append(el("p", "fine", dailyUnlisted(r.rank, r.players, r.board_min_days), { "data-testid": "daily-unlisted" }));
  // L13: the verdict beside 准确率, as in 复盘, 统计 and the boards.
  const mark = el("p", "dl-verdict-line");
  mark.append(verdictEl(r.skill_loss), term("verdict"));
  box.append(mark);
  const marks = el("ol", "dl-marks", null, { "aria-label": "每回合最差的一步" });
  r.marks.forEach((m, i) => {
    const name = r.mark_names[m];
    marks.append(el("li", `dl-mark mark-${m}`, String(i + 1), { title: `第 ${i + 1} 回合：${name}`, "aria-label": `第 ${i + 1} 回合：${name}` }));
  });
  box.append(marks);
  if (r.share_squares) {
    // The share text's squares, explained (the server names them: `share_squares`).
    const legend = Object.entries(r.share_squares).map(([m, sq]) => `${sq} ${r.mark_names[m]}`);
    box.append(el("p", "fine dl-legend", `分享文字里的方块：每回合最差的一步，${legend.join("　")}。`, { "data-testid": "daily-share-legend" }));
  }
  box.append(el("p", "fine", "排名只看技术损失：同一天大家掷同一副骰子，每一步都和高手在同一个局面下的选择比，运气不算在内。"));
  box.append(shareBox(r.share, "daily-share", "分享文字", ui, ctx));
  // Where the skill went: the game's own 复盘, move by move beside the expert's choice.
  const more = el("p", "dl-actions");
  more.append(link("复盘这一局", "review", { id: day.game_id }, { className: "btn", "data-testid": "daily-review" }));
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
    name = field("你的名字（排行榜上显示，1–12 个字）", "dl-name", ui.drafts?.name);
    box.append(name.wrap);
  } else {
    box.append(el("p", "fine", `排行榜上的名字：${day.name}`));
  }
  const start = (replace) => {
    const typed = name ? name.input.value : null;
    const body = { ...(typed !== null ? { name: typed } : {}), ...(replace ? { replace: true } : {}) };
    send(call.startDaily(body), (game) => ctx.play(game), {
      drafts: typed !== null ? { name: typed } : {},
      focus: name ? "dl-name" : "dl-start",
    });
  };
  const label = day.status === "in_progress" ? "继续今天的挑战" : "开始今天的挑战";
  const go = button(label, "start-daily", () => start(false), "btn btn-primary");
  go.id = "dl-start";
  go.disabled = Boolean(ui.busy);
  box.append(go);
  if (ui.errorCode === "game_in_progress") {
    // F2: an ordinary game is unfinished; the server named it. Abandon it only on a yes.
    box.append(
      el("p", "fine", "开始每日挑战会放弃那一局没下完的游戏。"),
      button("放弃那一局，开始挑战", "daily-replace", () => {
        confirmDialog({ title: "放弃没下完的那一局？", text: ui.error, yes: "放弃旧局，开始挑战", no: "再想想" }).then(
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
    el("p", "dl-date", `${dayLabel(day.date)} · 今天的骰子对每个人都一样`),
    el("p", "fine", `每天一局，只有一次机会，不能用提示，也不能重新开始。${TIES}`, { "data-testid": "daily-ties" }),
  );
  const nodes = [intro];
  if (day.status === "finished" && day.result) nodes.push(resultPanel(day, day.result, ui, ctx));
  else if (day.status === "abandoned") nodes.push(el("p", "panel", "今天的挑战已经放弃了，明天再来吧。", { "data-testid": "daily-abandoned" }));
  else nodes.push(startPanel(page, ctx));

  const boards = panel("dl-boards", "排行榜", "dl-boards-title");
  boards.append(boardTable(board, { caption: `${dayLabel(day.date)} · 按技术损失` }));
  if (ui.week) {
    boards.append(boardTable(ui.week, { caption: "本周 · 按平均准确率", testid: "week-leaderboard", week: true }));
  } else {
    const week = button("看本周榜（平均准确率）", "week-board", () => {
      requester(ctx, page)(call.leaderboard(day.date, { period: "week", limit: 20 }), (w) =>
        ctx.dispatch({ type: "dailyWeek", board: w }),
      );
    });
    week.disabled = Boolean(ui.busy);
    boards.append(week);
  }
  const links = el("p", "dl-links");
  links.append(link("我的小组", "groups", {}, { "data-testid": "groups-link" }));
  boards.append(links);
  nodes.push(boards);
  body.replaceChildren(...nodes);
}

// -------------------------------------------------------------------------------- groups

function inviteBox(invite, ui, ctx) {
  const box = el("div", "dl-invite", null, { "data-testid": "group-invite" });
  box.append(el("p", "", "把这个链接发给要加入的人，或者让他们扫二维码："));
  box.append(shareBox(invite.invite_url, "invite-link", "邀请链接", ui, ctx));
  box.append(el("img", "dl-qr", null, { src: invite.qr_url, alt: "小组邀请链接的二维码", width: 200, height: 200, "data-testid": "group-qr" }));
  return box;
}

function drawGroups(body, page, ctx) {
  const { groups, name } = page.data;
  const ui = page.ui;
  const mine = panel("dl-mine", "我的小组", "dl-mine-title");
  const about = el("p", "fine", "小组：一个班级、一个家庭。组员只留一个名字，不需要别的个人信息；在小组里看每日挑战的日榜和周榜。");
  about.append(term("group"));
  mine.append(about);
  const nodes = [];
  if (groups.length) {
    const list = el("ul", "dl-groups");
    for (const g of groups) {
      const li = el("li");
      const notes = `${g.members} 人${g.creator ? " · 我创建的" : ""}${g.closed ? " · 已关闭" : ""}`;
      li.append(link(g.name, "group", { id: g.id }), el("span", "fine", notes));
      list.append(li);
    }
    mine.append(list);
  } else {
    mine.append(el("p", "fine", "还没有加入任何小组。别人发给你的邀请链接打开就能加入。"));
  }

  const form = panel("dl-create", "创建小组", "dl-create-title");
  const groupName = field("小组名称（1–12 个字）", "dl-group-name", ui.drafts?.group);
  const yourName = field("你在小组里的名字", "dl-your-name", ui.drafts?.yours ?? name);
  const create = button(
    "创建",
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
      el("p", "dl-done", `小组「${c.group.name}」已创建。`, { role: "status" }),
      inviteBox(c, ui, ctx),
      link("进入小组", "group", { id: c.group.id }, { className: "btn" }),
    );
  }
  nodes.push(mine, form);
  body.replaceChildren(...nodes);
}

function drawJoin(body, page, ctx) {
  const { group: g, token, name } = page.data;
  const ui = page.ui;
  const box = panel("dl-join", `加入小组「${g.name}」`, "dl-join-title");
  box.append(el("p", "fine", `现在有 ${g.members} 人（最多 ${g.max_members} 人）。只需要一个名字，不需要其他信息；以后可以随时退出，你的成绩也会从小组的排行里去掉。`));
  const input = field("你在小组里的名字（1–12 个字）", "dl-join-name", ui.drafts?.name ?? g.your_name ?? name);
  const join = button(
    g.member ? "更新名字" : "加入",
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
  table.append(el("caption", "", "最近四周每天的准确率（从早到晚）"));
  const head = el("tr");
  for (const h of ["名字", "天数", "平均", "前一半 → 后一半", "每天"]) head.append(el("th", "", h, { scope: "col" }));
  const thead = el("thead");
  thead.append(head);
  const tbody = el("tbody");
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  for (const t of trends) {
    const values = t.days.map((x) => x.accuracy);
    const half = Math.floor(values.length / 2);
    const change = values.length >= 2 ? `${fmt(mean(values.slice(0, half)))}% → ${fmt(mean(values.slice(half)))}%` : "—";
    const days = t.days.map((x) => `${dayLabel(x.date)} ${fmt(x.accuracy)}%`).join("，") || "还没有玩过";
    const tr = el("tr");
    const avg = mean(values);
    tr.append(
      el("th", "dl-name", t.name, { scope: "row" }),
      el("td", "", String(values.length)),
      el("td", "", avg === null ? "—" : `${fmt(avg)}%`),
      el("td", "", change),
      el("td", "dl-days", days),
    );
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const wrap = panel("dl-trends-panel", "组员的进步", "dl-trends-title");
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
    confirmDialog({ no: "取消", ...question }).then((yes) => yes && send(promise(), done));

  const head = el("div", "panel dl-group-head");
  const about = `${g.members} 人${g.closed ? " · 已关闭" : ""}${g.your_name ? ` · 你在组里叫「${g.your_name}」` : ""}`;
  head.append(el("h2", "dl-group-name", g.name, { "data-testid": "group-name" }), el("p", "fine", about));
  const error = errorLine(ui);
  if (error) head.append(error);
  const nodes = [head];

  const boards = panel("dl-group-boards", "组内排行", "dl-gb-title", { "data-testid": "group-board" });
  boards.append(boardTable(p.today, { caption: `${dayLabel(p.date)} · 今日（按技术损失）` }));
  boards.append(boardTable(p.week, { caption: "本周 · 按平均准确率", testid: "group-week-board", week: true }));
  nodes.push(boards);

  if (p.invite_url) {
    const inv = panel("dl-invites", "邀请", "dl-inv-title");
    inv.append(inviteBox(p, ui, ctx));
    const fresh = button("换一个邀请链接（旧链接立即失效）", "new-invite", () => send(call.newInvite(g.id), again));
    fresh.disabled = Boolean(ui.busy);
    inv.append(fresh);
    nodes.push(inv);
  }
  if (p.trends) nodes.push(trendTable(p.trends));

  const done = p.members.filter((m) => m.played_today).length;
  const members = panel("dl-members-panel", `组员（今天 ${done}/${p.members.length} 人已完成）`, "dl-members-title");
  const ul = el("ul", "dl-members");
  for (const m of p.members) {
    const li = el("li");
    li.append(el("span", "dl-name", m.name), el("span", "fine", `${m.creator ? "（创建者）" : ""}${m.you ? "（你）" : ""}`));
    li.append(el("span", m.played_today ? "dl-done-today" : "dl-not-yet", m.played_today ? "今天已完成" : "今天还没完成"));
    if (m.member_id && !m.creator) {
      const remove = button(
        "移出",
        "remove-member",
        () =>
          confirmThen(
            { title: "移出组员？", text: `把「${m.name}」移出小组？他的成绩会从组内排行中去掉。`, yes: "移出" },
            () => call.removeMember(g.id, m.member_id),
            (r) => {
              // F27: the removal renewed the invite link (the old one would let them back)
              const text = r.invite_url ? `已移出。旧的邀请链接已失效，还要请人加入，请发新的邀请链接：${r.invite_url}` : "已移出。";
              ctx.dispatch({ type: "say", text, view: page.view });
              return again();
            },
          ),
        "btn btn-small",
      );
      remove.setAttribute("aria-label", `移出 ${m.name}`);
      li.append(remove);
    }
    ul.append(li);
  }
  members.append(ul);

  const actions = el("p", "dl-actions");
  if (g.creator && !g.closed) {
    actions.append(
      button("关闭小组", "close-group", () =>
        confirmThen(
          { title: "关闭小组？", text: "关闭后不能再加入，邀请链接失效；组员仍能看到排行。", yes: "关闭" },
          () => call.closeGroup(g.id),
          again,
        ),
      ),
    );
  }
  if (!g.creator) {
    actions.append(
      button("退出小组", "leave-group", () =>
        confirmThen(
          { title: "退出小组？", text: "退出后，你的成绩会从这个小组的排行中去掉。", yes: "退出" },
          () => call.leaveGroup(g.id),
          () => ctx.open(href("groups")),
        ),
      ),
    );
  }
  members.append(actions, link("← 我的小组", "groups", {}, { className: "dl-back" }));
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
    const key = JSON.stringify([page.serial, page.data, page.ui]);
    if (body.dataset.drawn === key) return;
    body.dataset.drawn = key;
    DRAW[page.view](body, page, ctx);
  },
};
