// State → DOM. `render(state)` may run any number of times: it builds the static parts once
// and afterwards only updates text and attributes, so focus and running animations survive.
// It reads nothing but the state and writes nothing but the DOM: no fetch, no storage, no
// dispatch (what follows from a new state is in effects.js; tests/e2e/test_render.py checks).

import {
  FACES,
  LIMITS,
  LOWER,
  RESULT_NAMES,
  ROUNDS,
  UPPER,
  canAct,
} from "./state.js";
import { diceLook, drawBox, drawDice, turnLogItem } from "./board.js";
import * as say from "./messages.js";
import { href } from "./paths.js";
import { LAZY } from "./views.js";

const $ = (sel) => document.querySelector(sel);
const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function setAttr(el, name, value) {
  if (value === null || value === undefined || value === false) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else {
    const v = value === true ? "true" : String(value);
    if (el.getAttribute(name) !== v) el.setAttribute(name, v);
  }
}

// ---------------------------------------------------------------- scorecard skeleton

function buildRow(category, name) {
  const tr = document.createElement("tr");
  tr.dataset.category = category;
  const th = document.createElement("th");
  th.scope = "row";
  th.className = "col-name";
  th.textContent = name;
  const human = document.createElement("td");
  human.className = "cell cell-human";
  human.dataset.testid = `cell-human-${category}`;
  human.dataset.category = category;
  const btn = document.createElement("button");
  btn.type = "button";
  btn.className = "cell-btn";
  btn.dataset.category = category;
  btn.disabled = true;
  human.append(btn);
  const computer = document.createElement("td");
  computer.className = "cell cell-computer col-computer";
  computer.dataset.testid = `cell-computer-${category}`;
  tr.append(th, human, computer);
  return tr;
}

function buildSumRow(key, name, testHuman, testComputer, cls) {
  const tr = document.createElement("tr");
  tr.className = cls;
  tr.dataset.sum = key;
  const th = document.createElement("th");
  th.scope = "row";
  th.className = "col-name";
  th.textContent = name;
  const h = document.createElement("td");
  h.className = "sum sum-human";
  if (testHuman) h.dataset.testid = testHuman;
  const c = document.createElement("td");
  c.className = "sum sum-computer col-computer";
  if (testComputer) c.dataset.testid = testComputer;
  tr.append(th, h, c);
  return tr;
}

export function buildScorecard() {
  const upper = $("#upper-body");
  if (upper.childElementCount) return;
  for (const [cat, name] of UPPER) upper.append(buildRow(cat, name));
  const sums = $("#upper-sums");
  const N = say.SUM_NAMES;
  sums.append(buildSumRow("upper_subtotal", N.upper_subtotal, "upper-subtotal-human", null, "sum-row"));
  // P4: how far the player is from the upper bonus, right under the subtotal. Its cells
  // are the rows' columns (the computer's hidden in solo), so both halves of the card keep
  // one grid: a span over a hidden column would add a column to one half only.
  const progress = document.createElement("tr");
  progress.className = "progress-row";
  const cell = document.createElement("td");
  cell.colSpan = 2;
  cell.dataset.testid = "upper-progress";
  const computer = document.createElement("td");
  computer.className = "col-computer";
  progress.append(cell, computer);
  sums.append(progress);
  sums.append(buildSumRow("upper_bonus", N.upper_bonus, "upper-bonus-human", null, "sum-row"));
  const lower = $("#lower-body");
  for (const [cat, name] of LOWER) lower.append(buildRow(cat, name));
  $("#lower-sums").append(
    buildSumRow("yahtzee_bonus", N.yahtzee_bonus, "yahtzee-bonus-human", null, "sum-row"),
  );
  $("#totals").append(buildSumRow("total", N.total, "total-human", "total-computer", "total-row"));
}

// ---------------------------------------------------------------------------- views

const VIEWS = ["lobby", "game", ...Object.keys(LAZY)];

function renderViews(state) {
  for (const view of VIEWS) {
    const el = $(`#view-${view}`);
    const hidden = state.view !== view;
    if (el.hidden !== hidden) el.hidden = hidden;
  }
  if (document.body.dataset.view !== state.view) document.body.dataset.view = state.view;
  const title = say.VIEW_TITLES[state.view];
  if (document.title !== title) document.title = title;
}

// ---------------------------------------------------------------------------- lobby

function formatDate(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return say.shortDate(d);
}

function renderLobby(state) {
  const r = state.records;
  setText(byTestId("best-score"), r && r.best_score !== null ? String(r.best_score) : "—");
  setText(byTestId("wins"), String(r ? r.wins : 0));
  setText(byTestId("losses"), String(r ? r.losses : 0));
  setText(byTestId("draws"), String(r ? r.draws : 0));

  const list = $("#recent-list");
  const recent = r ? r.recent : [];
  const key = JSON.stringify(recent);
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    list.replaceChildren(
      ...recent.map((g) => {
        const li = document.createElement("li");
        const daily = g.kind === "daily"; // U18: its own badge
        li.className = `recent-item result-${daily ? "daily" : g.result}`;
        const mode = say.kindName(g.kind, g.difficulty); // K2: 每日挑战, 好友房间…
        const score = say.recentScore(g);
        const badge = document.createElement("span");
        badge.className = "recent-result";
        badge.textContent = daily ? say.DAILY_BADGE : RESULT_NAMES[g.result] || "";
        const text = document.createElement("span");
        text.className = "recent-text";
        text.textContent = `${mode} · ${score}`;
        const when = document.createElement("span");
        when.className = "recent-when";
        when.textContent = formatDate(g.finished_at);
        // 复盘: the review page of this game (a lazy view; main.js handles the link).
        const review = document.createElement("a");
        review.className = "recent-review";
        review.href = href("review", { id: g.id });
        review.dataset.page = "review";
        review.dataset.testid = "recent-review";
        review.textContent = say.REVIEW;
        review.setAttribute("aria-label", say.reviewLabel(mode, score));
        li.append(badge, text, when, review);
        return li;
      }),
    );
  }
  $("#recent-empty").hidden = recent.length > 0;

  // F2: the start buttons never act on a previous visit's data (is a game saved?).
  for (const id of ["start-solo", "start-vs", "continue", "start-tutorial"]) {
    const button = byTestId(id);
    if (button.disabled === state.lobbyReady) button.disabled = !state.lobbyReady;
  }

  // L10: offered to a new browser (no game played, not offered before); always reopenable.
  const offer = !state.tutorialSeen && r !== null && r.games_played === 0;
  $("#tutorial-panel").classList.toggle("offer", offer);

  const saved = state.saved;
  $("#continue-box").hidden = !saved;
  if (saved) {
    setText($("#continue-summary"), say.savedSummary(saved, ROUNDS));
  }
}

// ----------------------------------------------------------------------------- dice

/** What the dice tray shows: the player's dice, or the computer's during a replay. */
function diceView(state) {
  const g = state.game;
  if (state.replay) {
    const step = state.replay.steps[state.replay.index];
    const held = step.action === "roll" ? step.hold : [true, true, true, true, true];
    return { dice: step.dice, held, locked: step.action === "score", computer: true };
  }
  if (g.status === "finished" && state.lastDice) {
    // The game is over: leave the last dice on the table rather than blank ones.
    return { dice: state.lastDice, held: [true, true, true, true, true], locked: true, computer: false };
  }
  const locked = g.dice !== null && g.rolls_left === 0;
  return { dice: g.dice, held: state.hold, locked, computer: false };
}

function renderDice(state) {
  // The dice row of every board (board.js drawDice): held, locked, hinted, tumbling.
  const view = diceView(state);
  const look = diceLook({
    ...view,
    act: canAct(state),
    hint: view.computer ? null : state.hintHold,
    rollSerial: state.rollSerial,
    rolled: state.rolledMask,
  });
  drawDice($("#dice-row"), look);
}

// ------------------------------------------------------------------------ scorecard

const UPPER_GOAL = LIMITS.upper_bonus_threshold;

/** P4: the upper-bonus progress line, honest when 63 can no longer be reached. */
export function upperProgress(card) {
  const sub = card.upper_subtotal;
  let best = sub;
  for (const [cat] of UPPER) if (card.boxes[cat] === null) best += LIMITS.dice * FACES[cat];
  return say.upperProgress(sub, UPPER_GOAL, card.upper_bonus > 0, best);
}

function renderScorecard(state) {
  const g = state.game;
  // Not disabled while a request is in flight (clicks are ignored then): a disabled button
  // would drop the keyboard focus to the page body (P2).
  const act = canAct({ ...state, busy: false });
  const isVs = g.mode === "vs_computer";
  $("#view-game").classList.toggle("solo", !isVs);
  const level = say.computerHeadLevel(g.difficulty);
  for (const head of document.querySelectorAll(".computer-head")) {
    if (head.dataset.level !== level) {
      head.dataset.level = level;
      const small = document.createElement("span");
      small.className = "head-level";
      small.textContent = level;
      head.replaceChildren(say.COMPUTER, small);
    }
  }

  const human = g.players.human;
  // While the computer's turn is replayed, its column shows the card from before that turn
  // until the step where it writes its box.
  let computer = g.players.computer || null;
  let justScored = null;
  if (state.replay) {
    const step = state.replay.steps[state.replay.index];
    if (step.action === "score") justScored = step.category;
    else computer = state.replay.before.players.computer || computer;
  }

  for (const [cat, name] of [...UPPER, ...LOWER]) {
    const td = byTestId(`cell-human-${cat}`);
    const btn = td.firstElementChild;
    const filled = human.boxes[cat];
    const p = !state.replay && g.preview ? g.preview[cat] : null;
    const hinted = state.hintCategory === cat && !state.replay;
    drawBox(td, btn, { filled, p, name, act, hinted, cls: "cell cell-human" });

    const ctd = byTestId(`cell-computer-${cat}`);
    const cval = computer ? computer.boxes[cat] : null;
    setText(ctd, cval === null || cval === undefined ? "" : String(cval));
    ctd.classList.toggle("zero", cval === 0);
    ctd.classList.toggle("just-scored", justScored === cat);
  }

  const sums = [
    ["upper_subtotal", (pl) => `${pl.upper_subtotal}`],
    ["upper_bonus", (pl) => `${pl.upper_bonus}`],
    ["yahtzee_bonus", (pl) => `${pl.yahtzee_bonus}`],
    ["total", (pl) => `${pl.total}`],
  ];
  for (const [key, fmt] of sums) {
    const row = document.querySelector(`tr[data-sum="${key}"]`);
    setText(row.children[1], fmt(human));
    setText(row.children[2], computer ? fmt(computer) : "");
  }
  const sub = document.querySelector('tr[data-sum="upper_subtotal"] th');
  setText(sub, say.SUM_NAMES.upper_subtotal);
  setAttr(sub, "title", say.upperSubtotalTitle(UPPER_GOAL, LIMITS.upper_bonus));
  setText(byTestId("upper-progress"), upperProgress(human));
}

// --------------------------------------------------------------------------- topbar

function renderTopbar(state) {
  const g = state.game;
  const hint = byTestId("hint");
  setText(hint, say.hintButton(g.hints_left));
  // Busy is not a reason to disable (that would drop the focus, P2): clicks wait instead.
  const daily = Boolean(g.daily); // D2/D3: one attempt without hints, so no 重新开始 either
  hint.disabled = !canAct({ ...state, busy: false }) || g.hints_left <= 0 || g.dice === null;
  setAttr(hint, "title", say.hintTitle(g.hints_left, g.dice !== null, LIMITS.hints_per_game));
  // U12: each mode shows only its controls: 每日挑战 has no 提示 at all (not a greyed one)
  const only = [["hint", daily], ["restart", daily], ["play-again", daily], ["game-over-daily", !daily]];
  for (const [id, hidden] of only) {
    const button = byTestId(id);
    if (button.hidden !== hidden) button.hidden = hidden;
  }
  let round = g.round;
  if (state.replay) round = state.replay.round || round;
  setText(byTestId("round"), say.roundLabel(round, ROUNDS));
  const rollsLeft = say.rollsLabel(Boolean(state.replay), g.status !== "in_progress", g.rolls_left);
  setText(byTestId("rolls-left"), rollsLeft);
  setText($("#mode-badge"), say.kindName(g.kind || g.mode, g.difficulty));
  setAttr($("#view-game"), "aria-busy", state.busy ? "true" : null);
}

function allHeld(state) {
  return state.hold.every(Boolean);
}

function renderRoll(state) {
  const g = state.game;
  const act = canAct({ ...state, busy: false });
  const roll = byTestId("roll");
  setText(roll, say.rollButton(g.dice === null));
  roll.disabled = !act || g.rolls_left <= 0 || (g.dice !== null && allHeld(state));
  byTestId("skip-replay").hidden = !state.replay;
  byTestId("show-result").hidden = !(g.status === "finished" && !state.showGameOver && !state.replay);

  const banner = $("#turn-banner");
  const help = $("#dice-help");
  $(".felt").classList.toggle("computer-turn", Boolean(state.replay));
  if (state.replay) {
    // Each step of the computer's turn is said once, in the message bar (the live region);
    // the felt only says what is going on.
    setText(banner, say.BANNER.computer);
    setText(help, say.HELP.computer);
  } else if (g.status !== "in_progress") {
    setText(banner, say.BANNER.over);
    setText(help, say.HELP.over);
  } else {
    setText(banner, say.BANNER.you);
    if (g.dice === null) setText(help, say.HELP.start);
    else if (g.preview && Object.values(g.preview).some((p) => !p.allowed))
      setText(help, say.HELP.joker);
    else if (g.rolls_left === 0) setText(help, say.HELP.locked);
    else if (allHeld(state)) setText(help, say.HELP.allHeld);
    else setText(help, say.HELP.play);
  }
}

// -------------------------------------------------- the computer's last turn, in words

/** The record of the computer's last turn, once its replay is over: while it is replayed,
 * the message bar says each step, and a second copy beside it would say it twice (polish 5). */
function renderComputerLog(state) {
  const g = state.game;
  const log = $("#computer-log");
  const turn = state.replay ? null : g.computer_turn;
  const show = g.mode === "vs_computer" && Boolean(turn) && turn.steps.length > 0;
  if (log.hidden === show) log.hidden = !show;
  if (!show) return;
  setText($("#computer-log-title"), say.computerLogTitle(turn.round));
  const list = $("#computer-log-steps");
  const key = JSON.stringify(turn);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(
    ...turn.steps.map((step, i) => {
      const li = document.createElement("li");
      li.textContent = say.describeStep(step, i);
      return li;
    }),
  );
}

// ------------------------------------------------------------- the turn log (P4)

/** The finished turns to list: during a replay the computer's turn being shown stays out
 * until the replay reaches its score step (no spoiler). Newest first. */
function loggedTurns(state) {
  const g = state.game;
  let turns = g.turns || [];
  const r = state.replay;
  if (r && r.steps[r.index].action !== "score") {
    const last = turns[turns.length - 1];
    if (last && last.player === "computer" && last.round === r.round) turns = turns.slice(0, -1);
  }
  return turns.slice().reverse();
}

function renderTurnLog(state) {
  const g = state.game;
  const turns = loggedTurns(state);
  const toggle = byTestId("turn-log-toggle");
  setAttr(toggle, "aria-expanded", state.turnLogOpen ? "true" : "false");
  $("#turn-log-panel").classList.toggle("open", Boolean(state.turnLogOpen));
  $("#turn-log-empty").hidden = turns.length > 0;
  const list = byTestId("turn-log");
  list.hidden = turns.length === 0; // no empty tab stop
  const vs = g.mode === "vs_computer";
  const key = JSON.stringify([g.id, vs, turns.length]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...turns.map((t) => turnLogItem(t, vs ? say.turnPlayer(t.player) : null, `by-${t.player}`)));
}

// ------------------------------------------------------------------------ game over

function renderGameOver(state) {
  const overlay = $("#game-over-overlay");
  const g = state.game;
  const show = state.view === "game" && state.showGameOver && g && g.status === "finished";
  if (overlay.hidden === show) overlay.hidden = !show;
  if (!show) return;
  const h = g.players.human;
  const c = g.players.computer;
  setText(byTestId("result"), say.resultTitle(g));
  byTestId("new-record").hidden = !(g.new_record && g.result === "solo"); // U7: never in vs
  const rows = ["upper_subtotal", "upper_bonus", "lower_total", "yahtzee_bonus", "total"].map(
    (field) => [say.SUM_NAMES[field], field],
  );
  const table = $("#final-table");
  const key = JSON.stringify([h, c]);
  if (table.dataset.key === key) return;
  table.dataset.key = key;
  const head = document.createElement("tr");
  for (const t of ["", say.YOU, ...(c ? [say.COMPUTER] : [])]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = t;
    head.append(th);
  }
  const body = rows.map(([name, field]) => {
    const tr = document.createElement("tr");
    if (field === "total") tr.className = "total-row";
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = name;
    const a = document.createElement("td");
    a.textContent = String(h[field]);
    if (field === "total") a.dataset.testid = "final-total-human";
    tr.append(th, a);
    if (c) {
      const b = document.createElement("td");
      b.textContent = String(c[field]);
      if (field === "total") b.dataset.testid = "final-total-computer";
      tr.append(b);
    }
    return tr;
  });
  table.replaceChildren(head, ...body);
}

// -------------------------------------------------------------------------- message

function renderMessage(state) {
  const el = byTestId("message");
  // The one message element sits in the visible view, in the flow, so it never covers the
  // dice or the scorecard.
  const slot = document.querySelector(`.message-slot[data-slot="${state.view}"]`);
  if (slot && el.parentElement !== slot) slot.append(el);
  // P3: a message belongs to the view it was said for; elsewhere the slot stays empty.
  const m = state.message;
  const text = !m.view || m.view === state.view ? m.text : "";
  const key = `${m.serial}|${text ? 1 : 0}`;
  if (el.dataset.serial === key) return;
  el.dataset.serial = key;
  el.dataset.kind = m.kind;
  el.classList.toggle("error", m.kind === "error");
  el.classList.toggle("empty", !text);
  // Re-setting identical text would not be re-announced; the serial makes each new message
  // a fresh node so screen readers hear repeats too.
  if (text && m.short) {
    // Both wordings; the css shows the phone's on a phone, the full one elsewhere (a hidden
    // one is not read out either).
    const full = document.createElement("span");
    full.className = "msg-full";
    full.textContent = text;
    const short = document.createElement("span");
    short.className = "msg-short";
    short.textContent = m.short;
    el.replaceChildren(full, short);
  } else {
    el.replaceChildren(text ? document.createTextNode(text) : "");
  }
  if (text && m.detail) {
    // L15: the hint's full figures, one tap away (a disclosure: keyboard and screen reader
    // reach it without a script of its own).
    const more = document.createElement("details");
    more.className = "msg-detail";
    const summary = document.createElement("summary");
    summary.textContent = say.DETAIL_SUMMARY;
    summary.dataset.testid = "message-detail-toggle";
    const body = document.createElement("span");
    body.textContent = m.detail;
    body.dataset.testid = "message-detail";
    more.append(summary, body);
    // Opened on a phone, the figures may not fit the message's lines: measure again (fit.js
    // cuts it and offers 「全文」).
    more.addEventListener("toggle", () => window.dispatchEvent(new Event("resize")));
    el.append(more);
  }
}

// ------------------------------------------------------------------------- settings

let theme = null; // the theme setting last applied (a test may set the attribute itself)

function renderSettings(state) {
  const s = state.settings;
  if (theme !== s.theme) {
    theme = s.theme;
    // "system" leaves the page to prefers-color-scheme (the CSS); otherwise force one theme.
    const root = document.documentElement;
    if (s.theme === "system") delete root.dataset.theme;
    else root.dataset.theme = s.theme;
  }
  // U21: 字号, the root's size (app.css)
  const root = document.documentElement;
  if (s.text === "standard") delete root.dataset.text;
  else root.dataset.text = s.text;
  for (const [id, value] of [["replay-speed", s.replay], ["theme-toggle", s.theme], ["text-size", s.text], ["meter-setting", s.meter], ["language-setting", s.lang]]) {
    const select = document.getElementById(id);
    if (select.value !== value) select.value = value;
  }
  const radio = document.querySelector(`[data-testid="difficulty"] input[value="${s.difficulty}"]`);
  if (radio && !radio.checked) radio.checked = true;
}

export function render(state) {
  renderSettings(state);
  renderViews(state);
  renderMessage(state);
  // The lobby is kept current even while hidden, so that it shows this visit's data the
  // moment it appears (the store renders one frame after the click that opens it).
  renderLobby(state);
  if (state.game) {
    renderTopbar(state);
    renderDice(state);
    renderRoll(state);
    renderScorecard(state);
    renderComputerLog(state);
    renderTurnLog(state);
  }
  renderGameOver(state); // the live meter: lazy/meter.js, a lazy overlay (views.js)
}
