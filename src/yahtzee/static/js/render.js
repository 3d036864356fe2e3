// State → DOM for what every view shares: the lobby, the views shown, the message bar and
// the settings (a game's board draws itself: board/board.js; a lazy view its body: views.js).
// `render(state)` may run any number of times: it builds the static parts once and
// afterwards only updates text and attributes, so focus and running animations survive.
// It reads nothing but the state and writes nothing but the DOM: no fetch, no storage, no
// dispatch (what follows from a new state is in effects.js; tests/e2e/test_render.py checks).

import { RESULT_NAMES, ROUNDS, boardShown } from "./state.js";
import { setText } from "./dom.js";
import { language, t } from "./i18n.js";
import * as say from "./messages.js";
import { href } from "./paths.js";
import { LAZY } from "./views.js";

const $ = (sel) => document.querySelector(sel);
const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

// ---------------------------------------------------------------------------- views

const VIEWS = ["lobby", "game", ...Object.keys(LAZY)];

function renderViews(state) {
  for (const view of VIEWS) {
    const el = $(`#view-${view}`);
    const hidden = state.view !== view;
    if (el.hidden !== hidden) el.hidden = hidden;
  }
  if (document.body.dataset.view !== state.view) document.body.dataset.view = state.view;
  // A board on the view shown (a phone gives it the whole screen, P1).
  const board = boardShown(state) ? "on" : "off";
  if (document.body.dataset.board !== board) document.body.dataset.board = board;
  // W2: how many games wait for the player (lazy/turns.js), before the view's title
  const view = say.VIEW_TITLES[state.view];
  const title = state.titleCount > 0 ? t("core.title_count", { n: state.titleCount, title: view }) : view;
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
        const own = say.KIND_BADGES[g.kind]; // U18: a kind's own badge (每日挑战's)
        li.className = `recent-item result-${own ? g.kind : g.result}`;
        const mode = say.kindName(g.kind, g.difficulty); // K2: 每日挑战, 好友房间…
        const score = say.recentScore(g);
        const badge = document.createElement("span");
        badge.className = "recent-result";
        badge.textContent = own || RESULT_NAMES[g.result] || "";
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
        review.textContent = say.review();
        review.setAttribute("aria-label", say.reviewLabel(mode, score));
        li.append(badge, text, when, review);
        return li;
      }),
    );
  }
  $("#recent-empty").hidden = recent.length > 0;

  // F2: the start buttons never act on a previous visit's data (is a game saved?). The levels
  // wait with them: 继续游戏's card appears above them with that data, and a tap must not
  // land on the level that slid under the finger meanwhile.
  for (const button of document.querySelectorAll(
    '#view-lobby [data-start], #continue-box .btn, #view-lobby [data-testid="difficulty"]',
  )) {
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

// -------------------------------------------------------------------------- message

// The one message element (index.html), moved into the slot of the view shown: held here,
// as a slot it stood in may have been taken off the page (a board built again).
const MESSAGE = byTestId("message");

function renderMessage(state) {
  const el = MESSAGE;
  // The one message element sits in the visible view, in the flow, so it never covers the
  // dice or the scorecard: in its board's bar when a board is shown there.
  const slot =
    document.querySelector(`#view-${state.view} .board .message-slot`) ||
    document.querySelector(`.message-slot[data-slot="${state.view}"]`);
  if (slot && el.parentElement !== slot) slot.append(el);
  // P3: a message belongs to the view it was said for; elsewhere the slot stays empty.
  const m = state.message;
  const shown = (!m.view || m.view === state.view) && Boolean(m.text);
  const key = `${m.serial}|${shown ? 1 : 0}|${language()}`;
  if (el.dataset.serial === key) return;
  // G3: a message that can be said again is said in the language the page speaks now.
  const said = shown && m.again ? m.again() : m;
  const { short, detail } = typeof said === "string" ? { short: null, detail: null } : said;
  const text = shown ? (typeof said === "string" ? said : said.text) : "";
  el.dataset.serial = key;
  el.dataset.kind = m.kind;
  el.classList.toggle("error", m.kind === "error");
  el.classList.toggle("empty", !text);
  // Re-setting identical text would not be re-announced; the serial makes each new message
  // a fresh node so screen readers hear repeats too.
  if (text && short) {
    // Both wordings; the css shows the phone's on a phone, the full one elsewhere (a hidden
    // one is not read out either).
    const full = document.createElement("span");
    full.className = "msg-full";
    full.textContent = text;
    const phone = document.createElement("span");
    phone.className = "msg-short";
    phone.textContent = short;
    el.replaceChildren(full, phone);
  } else {
    el.replaceChildren(text ? document.createTextNode(text) : "");
  }
  if (text && detail) {
    // L15: the hint's full figures, one tap away (a disclosure: keyboard and screen reader
    // reach it without a script of its own).
    const more = document.createElement("details");
    more.className = "msg-detail";
    const summary = document.createElement("summary");
    summary.textContent = say.detailSummary();
    summary.dataset.testid = "message-detail-toggle";
    const body = document.createElement("span");
    body.textContent = detail;
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
}
