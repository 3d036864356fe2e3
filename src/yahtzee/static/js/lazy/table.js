// 多人同屏 (T7): the table of a game of 2-6 seats played on one device (/table), and the seat
// editor (/table/new, drawn by lazy/seats.js): two lazy views of one module (views.js). The
// game is played on the page's one board (board/board.js), given this mode: every person's
// seat is this device's, the server plays the computers (their turns replayed by the
// board), and between two different people a handover screen covers the table until the
// person on turn taps (off in 设置). What is this mode's own — the handover, the end panel
// with the ranking, 重新开始 at the same seats — is drawn here from its state (`page.ui`,
// changed by the named actions below) and the board's; the server is the referee.

//
// Its words are chunk `table` (G1), loaded before the table's data and said when drawn:
// the handover screen and the end panel are built again in a new language, 设置's row
// carries its keys (data-i18n: i18n.js's translate() says it again).

import { el, seatName } from "./dom.js";
import { create, drawEditor, seats } from "./seats.js";
import { ApiError } from "../api.js";
import { computerSteps, ownUndo } from "../board/state.js";
import { confirmDialog } from "../dialog.js";
import { language, load as loadWords, t } from "../i18n.js";
import * as say from "../messages.js";
import { href } from "../paths.js";
import { loadWrote, storedHold } from "../remember.js";
import { CATEGORY_NAMES, ROUNDS } from "../state.js";

export { seats };

const SUMS = ["upper_subtotal", "upper_bonus", "lower_total", "yahtzee_bonus", "total"];

/** The table view's data: the saved game, which must be a table (a game just started is
 * the saved game; `mount` takes the one 开始 answered, with its computers' turns). */
export async function loadGame(api) {
  await loadWords("table");
  const NO_TABLE = t("table.none");
  let game;
  try {
    game = await api.current();
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") throw new ApiError(404, "not_found", NO_TABLE);
    throw err;
  }
  if (game.mode !== "table") throw new ApiError(404, "not_found", NO_TABLE);
  return { game };
}

// ----------------------------------------------------------------------- its state

const onTable = (fn) => (state, action) => {
  const p = state.page;
  if (!p || p.view !== "table") return state;
  const ui = fn(p.ui, action);
  return ui === p.ui ? state : { ...state, page: { ...p, ui } };
};
const onEditor = (fn) => (state, action) => {
  const p = state.page;
  return p && p.view === "seats" ? { ...state, page: { ...p, ui: fn(p.ui, action) } } : state;
};

/** This mode's named actions (pure; node-tested): the handover screen, the editor's rows. */
export const reducers = {
  /** The handover screen for seat `seat` (null: closed). */
  tableHandover: onTable((ui, { seat }) => (ui.handover === seat ? ui : { ...ui, handover: seat })),
  /** The seat editor's rows (each keeps its `id`, the DOM's key). */
  tableSeats: onEditor((ui, { seats: rows }) => ({ ...ui, seats: rows })),
  /** 开始多人同屏 was pressed (a second press waits for the first). */
  tableStarting: onEditor((ui, { on }) => ({ ...ui, starting: on })),
  /** The game a 开始 just created, for the table's mount (then its computers replayed). */
  tableHandoff: (state, { game }) => ({ ...state, tableHandoff: game }),
};

const handover = (state) => {
  const p = state.page;
  return p && p.view === "table" && p.ui.handover !== undefined ? p.ui.handover : null;
};

// ---------------------------------------------------------------------- its mode

/** The board's mode for this table (board/board.js). */
function tableMode(ctx) {
  return {
    owner: "table",
    transport: {
      roll: ctx.api.roll,
      score: ctx.api.score,
      hint: ctx.api.hint,
      undo: ctx.api.undo,
      read: (g) => ctx.api.game(g.id),
    },
    hints: () => true,
    confirm: () => true,
    buttons: [{ text: t("table.restart"), testid: "restart", onClick: () => restart(ctx) }],
    lobby: () => ctx.open(href("lobby")),
    paused: (state) => handover(state) !== null,
    endButton: "table-again",
    endOverlay: true,
    /** A turn is over: the next person — with the handover screen between two different
     * people (T7; off in 设置). */
    turnOver(game, lastPerson) {
      const next =
        ctx.state().settings.handover !== "off" && lastPerson !== null && lastPerson !== game.turn ? game.turn : null;
      ctx.dispatch({ type: "tableHandover", seat: next });
      if (next !== null) focusOn(ctx, "handover-go");
    },
    /** A game read again (it went on elsewhere): a handover shown turns to whoever is on turn. */
    resynced(game) {
      if (handover(ctx.state()) !== null) {
        ctx.dispatch({ type: "tableHandover", seat: game.status === "in_progress" ? game.turn : null });
      }
    },
  };
}

function focusOn(ctx, testid) {
  ctx.afterRender(() => {
    const target = document.querySelector(`[data-testid="${testid}"]`);
    if (target && !target.disabled && target.offsetParent !== null) target.focus({ preventScroll: true });
  });
}

const people = (game) => game.seats.map((s, i) => (s.kind === "human" ? i : null)).filter((i) => i !== null);

/** Put `game` on the board (`fresh`: just started, its computers' first turns replayed). */
function open(ctx, root, game, fresh) {
  const holdable = game.status === "in_progress" && people(game).includes(game.turn) && game.dice !== null;
  const at = ctx.board.mount(root, tableMode(ctx), {
    game,
    mine: people(game),
    hold: holdable ? storedHold(game) : null,
    wrote: loadWrote(),
  });
  // 继续游戏 at the start of a person's turn, at a table of several people: the handover
  // screen first, so that the device goes to whoever is on turn.
  const first =
    !fresh &&
    ctx.state().settings.handover !== "off" &&
    people(game).length > 1 &&
    game.status === "in_progress" &&
    game.dice === null;
  ctx.dispatch({ type: "tableHandover", seat: first ? game.turn : null });
  if (first) focusOn(ctx, "handover-go");
  const steps = fresh ? computerSteps(game) : [];
  if (steps.length) ctx.board.replay(null, steps);
  else {
    const turn = { name: seatName(game.seats, game.turn), round: game.round, rounds: ROUNDS };
    ctx.board.say(game.status === "finished" ? t("table.finished") : t("table.turn", turn));
  }
  return at;
}

async function restart(ctx) {
  const b = ctx.board.state;
  if (!b || b.busy || ctx.state().busy) return;
  const g = b.game;
  const playing = g.status === "in_progress";
  const scored = g.seats.some((s) => Object.values(s.scores).some((v) => v !== null));
  if (playing && scored) {
    const yes = await confirmDialog({
      title: t("table.restart_ask.title"),
      text: t("table.restart_ask.text", { round: g.round }),
      yes: t("table.restart_ask.yes"),
      no: t("table.restart_ask.no"),
    });
    if (!yes) return;
  }
  const seatsOf = g.seats.map((s) => (s.kind === "human" ? { kind: "human", name: s.name } : { kind: "computer", difficulty: s.difficulty }));
  const game = await create(ctx, seatsOf, playing, "table");
  if (!game || !ctx.board.root) return;
  ctx.dispatch({ type: "say", text: t("table.restarted"), view: "table" });
  open(ctx, ctx.board.root, game, true);
}

// --------------------------------------------------------------------- its drawing

const button = (text, testid, cls, handler) => {
  const b = el("button", `btn ${cls}`, text, { type: "button", "data-testid": testid });
  b.addEventListener("click", handler);
  return b;
};

/** The handover screen and the end panel, once per opening of the view. */
function build(body, ctx) {
  body.dataset.lang = language();
  const cover = el("div", "tb-handover", null, { "data-testid": "handover", role: "dialog", "aria-modal": "true", "aria-labelledby": "handover-title" });
  cover.append(
    // U13: what the person handing over just wrote, before the screen covers their table
    el("p", "tb-handover-last", "", { "data-testid": "handover-last", role: "status" }),
    el("h2", "", "", { id: "handover-title" }),
    el("p", "fine", t("table.handover.note")),
    button("", "handover-go", "btn-primary btn-roll", () => {
      ctx.dispatch({ type: "tableHandover", seat: null });
      focusOn(ctx, "roll");
    }),
    button("", "handover-undo", "", () => {
      ctx.dispatch({ type: "tableHandover", seat: null });
      ctx.board.undo();
    }),
  );
  cover.hidden = true;
  const end = el("div", "overlay tb-end-overlay");
  const panel = el("section", "game-over panel tb-end", null, { role: "dialog", "aria-modal": "true", "aria-labelledby": "table-result-title", tabindex: "-1" });
  const actions = el("div", "game-over-actions");
  actions.append(
    button(t("table.end.again"), "table-again", "btn-primary", () => restart(ctx)),
    button(t("table.end.review"), "table-review", "", () => ctx.open(reviewHref(ctx.board.state.game))),
    button(t("table.end.lobby"), "table-end-lobby", "", () => ctx.open(href("lobby"))),
    button(t("table.end.close"), "table-end-close", "", () => ctx.board.showEnd(false)),
  );
  panel.append(
    el("h2", "", t("table.end.title"), { id: "table-result-title" }),
    el("ol", "tb-ranking", null, { "data-testid": "ranking", "aria-label": t("table.end.places") }),
    el("table", "final-table tb-breakdown", null, { "data-testid": "table-breakdown" }),
    actions,
  );
  end.append(panel);
  end.hidden = true;
  body.append(cover, end);
}

/** T6: a table's 复盘 opens on its first person's seat. */
function reviewHref(game) {
  const first = game.seats.find((s) => s.kind === "human");
  return href("review", { id: game.id }) + (first ? `?seat=${first.index}` : "");
}

function drawHandover(body, b, seat) {
  const cover = body.querySelector(".tb-handover");
  const shown = seat !== null && !b.replay;
  if (cover.hidden === shown) cover.hidden = !shown;
  if (!shown) return;
  const g = b.game;
  const name = seatName(g.seats, seat);
  const last = [...(g.turns || [])].reverse().find((t) => g.seats[t.seat] && g.seats[t.seat].kind === "human");
  const said = last
    ? t("table.handover.last", { name: seatName(g.seats, last.seat), box: CATEGORY_NAMES[last.category], points: say.turnPoints(last) })
    : "";
  const line = body.querySelector('[data-testid="handover-last"]');
  if (line.textContent !== said) line.textContent = said;
  line.hidden = !said;
  body.querySelector("#handover-title").textContent = t("table.handover.title", { name });
  body.querySelector('[data-testid="handover-go"]').textContent = t("table.handover.go", { name });
  const u = ownUndo(b);
  const undo = body.querySelector('[data-testid="handover-undo"]');
  undo.hidden = !u;
  if (u) undo.textContent = t("table.handover.undo", { name: seatName(g.seats, u.seat), box: CATEGORY_NAMES[u.category] });
}

function drawEnd(body, b) {
  const g = b.game;
  const overlay = body.querySelector(".tb-end-overlay");
  const shown = g.status === "finished" && b.showEnd && !b.replay;
  if (overlay.hidden === shown) overlay.hidden = !shown;
  if (!shown) return;
  const ol = body.querySelector(".tb-ranking");
  const key = JSON.stringify(g.ranking);
  if (ol.dataset.key === key) return;
  ol.dataset.key = key;
  ol.replaceChildren(
    ...g.ranking.map((p) => {
      const li = el("li", `tb-place place-${p.place}`, null, { "data-testid": `ranking-${p.seat}` });
      li.append(
        el("span", "tb-place-no", t("table.end.place", { place: p.place })),
        el("span", "tb-place-name", seatName(g.seats, p.seat)),
        el("span", "tb-place-total", t("table.end.points", { points: p.total })),
      );
      return li;
    }),
  );
  // Each total's breakdown, in the ranking's order (the figures are the server's).
  const head = el("tr");
  head.append(el("th", "", "", { scope: "col" }));
  for (const p of g.ranking) head.append(el("th", "", seatName(g.seats, p.seat), { scope: "col" }));
  const rows = SUMS.map((f) => {
    const tr = el("tr", f === "total" ? "total-row" : "");
    tr.append(el("th", "", say.SUM_NAMES[f], { scope: "row" }));
    for (const p of g.ranking) tr.append(el("td", "", String(g.seats[p.seat][f])));
    return tr;
  });
  body.querySelector(".tb-breakdown").replaceChildren(head, ...rows);
  body.querySelector('[data-testid="table-review"]').hidden = !g.seats.some((s) => s.kind === "human");
}

/** 设置's row for the handover screen (T7), added once this module is loaded. */
function installSetting(ctx) {
  if (document.getElementById("handover-setting")) return;
  const label = el("label", "field");
  // (each text with its key: translate() says it again in a new language, js/i18n.js)
  const name = el("span", "", t("table.setting.name"), { "data-i18n": "table.setting.name" });
  const note = el("span", "field-note", t("table.setting.note"), { "data-i18n": "table.setting.note" });
  const row = el("span");
  row.append(name, note);
  const select = el("select", "", null, { id: "handover-setting", "data-testid": "handover-setting" });
  select.append(
    el("option", "", t("table.setting.on"), { value: "on", "data-i18n": "table.setting.on" }),
    el("option", "", t("table.setting.off"), { value: "off", "data-i18n": "table.setting.off" }),
  );
  select.value = ctx.state().settings.handover;
  select.addEventListener("change", () => ctx.dispatch({ type: "setting", name: "handover", value: select.value }));
  label.append(row, select);
  const dialog = document.getElementById("settings-dialog");
  dialog.insertBefore(label, dialog.querySelector(".fine"));
}

export const view = {
  reducers,
  /** Once the data is in: the table's board (a game 开始 just answered: its computers
   * replayed first). Returns its session: the board's root and how to stop it. */
  mount(page, ctx) {
    installSetting(ctx);
    if (page.view !== "table") return { stop() {} };
    const handoff = ctx.state().tableHandoff;
    const fresh = Boolean(handoff && handoff.id === page.data.game.id);
    if (handoff) ctx.dispatch({ type: "tableHandoff", game: null });
    const root = el("div");
    const at = open(ctx, root, fresh ? handoff : page.data.game, fresh);
    return { root, stop: () => ctx.board.stop(at) };
  },
  render(body, page, ctx, session) {
    if (page.view === "seats") return drawEditor(body, page, ctx);
    const b = ctx.board.state;
    if (!session || !b || b.owner !== "table") return;
    if (body.dataset.lang !== language()) {
      // a new language: the handover screen and the end panel built again in it
      for (const e of body.querySelectorAll(".tb-handover, .tb-end-overlay")) e.remove();
    }
    if (!body.querySelector(".tb-handover")) build(body, ctx);
    const root = ctx.board.root;
    if (root && root.parentElement !== body) body.prepend(root);
    // (the board builds the mode's buttons once: their words follow the language here)
    const again = root && root.querySelector('[data-testid="restart"]');
    if (again && again.textContent !== t("table.restart")) again.textContent = t("table.restart");
    const select = document.getElementById("handover-setting");
    if (select && select.value !== ctx.state().settings.handover) select.value = ctx.state().settings.handover;
    drawHandover(body, b, handover(ctx.state()));
    drawEnd(body, b);
  },
};
