// 多人同屏 (T7): the table of a game of 2-6 seats played on one device (/table), and the seat
// editor (/table/new, drawn by lazy/seats.js): two lazy views of one module (views.js). The server is the referee:
// every total, preview and ranking drawn here is the game object's (GET/POST /api/games);
// the seat limits, names of levels and boxes come from /api/config. The view's own state
// is `page.ui`, changed only by named actions (board_state.js, the one funnel); `render`
// only draws it, with the board's modules (board_dice, board_card, board_replay). The
// handlers below ask the server and dispatch what it answered; the computers' turns are
// replayed by a timer the page owns (its session), at the pace of 设置, as in vs games.

import { el, labelled, seatName } from "./dom.js";
import { installKeyboard } from "../keyboard.js";
import { create, drawEditor, seats } from "./seats.js";
import { ApiError, request } from "../api.js";
import { boardReducers, pickedBox, replayStep, shownCard } from "./board_state.js";
import { buildDice, diceLook, drawDice } from "./board_dice.js";
import { buildCard, drawCard, drawConfirm, mountConfirm, scoreFlow } from "./board_card.js";
import { computerSteps, createReplayTimer, describeStep } from "./board_replay.js";
import { confirmDialog } from "../dialog.js";
import { createLookAgain, createReconnect, onLookedAt, unanswered } from "../reconnect.js";
import * as say from "../messages.js";
import { API, href } from "../paths.js";
import { loadWrote, saveHold, saveWrote, storedHold } from "../remember.js";
import { REPLAY_STEP_MS } from "../settings.js";
import { CATEGORY_NAMES, LIMITS, LOWER, ROUNDS, UPPER, holdable, ownUndo } from "../state.js";

const NO_HOLD = [false, false, false, false, false];
const ALL_HELD = [true, true, true, true, true];
const SUMS = [
  ["upper_subtotal", "上区小计"],
  ["upper_bonus", "上区奖励"],
  ["lower_total", "下区"],
  ["yahtzee_bonus", "快艇加成"],
  ["total", "总分"],
];
const list = (dice) => dice.join("、");
const box = (c) => CATEGORY_NAMES[c] || c;

export { seats };

// ----------------------------------------------------------------------------- load

/** The table view's data: the saved game, which must be a table (a game just started is
 * the saved game; `loaded` takes the one 开始 answered, with its computers' turns). */
export async function loadGame(api) {
  let game;
  try {
    game = await api.current();
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") throw new ApiError(404, "not_found", NO_TABLE);
    throw err;
  }
  if (game.mode !== "table") throw new ApiError(404, "not_found", NO_TABLE);
  return { game, fresh: false };
}

const NO_TABLE = "没有进行中的多人同屏对局。回大厅开一局吧。";

// ------------------------------------------------------------------- the table: state

const G = (page) => page.ui.game || page.data.game;
const uiOf = (ctx) => ctx.state().page.ui;
/** U14: the box this tab may take back: only one it wrote itself (`ui.wrote`). */
const undoable = (page) => ownUndo({ game: G(page), wrote: page.ui.wrote || null });

/** This turn's holds kept in this browser, so that a reload shows them (U6, T3). */
function keepHold(ctx) {
  const p = ctx.state().page;
  if (p && p.view === "table") saveHold({ view: "game", game: G(p), hold: p.ui.hold || NO_HOLD });
}

function announce(ctx, text, kind = "info") {
  ctx.dispatch({ type: "say", text, kind, view: "table" });
}

function turnText(game) {
  const name = seatName(game.seats, game.turn);
  return `轮到 ${name} 了（第 ${game.round} / ${ROUNDS} 回合）。`;
}

/** What this page of the table owns besides its state: the replay's timer, who acted before
 * the replay running now, and the meter's one request at a time. Made for each opening of
 * the table (page serial) and kept on its body; a new opening stops the old one's timer. */
function sessionOf(ctx) {
  const page = ctx.state().page;
  const body = document.getElementById("table-body");
  const old = body.boardSession;
  if (old && old.serial === page.serial) return old;
  if (old) old.timer.stop();
  const session = { serial: page.serial, lastPerson: null, meterBusy: false, meterAgain: false, timer: null };
  const current = () => {
    const p = ctx.state().page;
    return p && p.serial === session.serial && ctx.state().view === "table" ? p : null;
  };
  session.timer = createReplayTimer({
    pace: () => REPLAY_STEP_MS[ctx.state().settings.replay],
    step: () => {
      const p = current();
      const r = p && p.ui.replay;
      if (!r || r.index + 1 >= r.steps.length) return false;
      ctx.dispatch({ type: "boardReplayStep" });
      announce(ctx, describeStep(r.steps, r.index + 1, G(p).seats));
      return true;
    },
    end: () => {
      if (current()) endReplay(ctx, false);
    },
  });
  // U14, as on the solo table (reconnect.js): after a lost tap the game is asked for until
  // the server answers; a table looked at again reads the game in case it went on elsewhere.
  const lost = () => {
    const p = current();
    const waiting = p && p.ui.offline;
    return waiting && G(p).id === waiting.id ? waiting : null;
  };
  const read = (g) => ctx.api.game(g.id).catch(() => null);
  session.reconnect = createReconnect({
    lost,
    busy: () => Boolean(ctx.state().busy || (current() && current().ui.busy)),
    read: () => read(G(current())),
    back: (fresh, waiting) => {
      ctx.dispatch({ type: "tableBack", game: fresh, hold: storedHold(fresh) || NO_HOLD });
      announce(ctx, fresh.version === waiting.version ? say.BACK_SAME : say.BACK_CHANGED);
      askMeter(ctx);
    },
  });
  session.lookAgain = createLookAgain({
    lost,
    reconnect: session.reconnect,
    shown: () => {
      const p = current();
      const g = p && p.status === "ready" ? G(p) : null;
      const still = g && g.status === "in_progress" && !p.ui.busy && !ctx.state().busy && !p.ui.replay;
      return still ? g : null;
    },
    read,
    movedOn: (fresh) => movedOn(ctx, fresh),
  });
  body.boardSession = session;
  return session;
}

/** U14: the game went on on another device or tab: shown as it stands, and said. */
function movedOn(ctx, fresh) {
  ctx.dispatch({ type: "tableMovedOn", game: fresh, hold: storedHold(fresh) || NO_HOLD });
  announce(ctx, say.MOVED_ON);
  askMeter(ctx);
}

// ------------------------------------------------------------------ the table: replay

/** Replay the computers' turns of `game` (the answer to the last person's action; `before`
 * the game as it was), then hand the turn over. `lastPerson`: who acted before them. */
function play(ctx, game, before, lastPerson) {
  const session = sessionOf(ctx);
  session.timer.stop();
  const steps = computerSteps(game);
  const pace = REPLAY_STEP_MS[ctx.state().settings.replay];
  if (!steps.length || pace === 0) {
    if (steps.length) announce(ctx, describeStep(steps, steps.length - 1, game.seats));
    return turnOver(ctx, game, lastPerson);
  }
  ctx.dispatch({ type: "boardReplayAdd", before, steps });
  announce(ctx, describeStep(steps, 0, game.seats));
  ctx.afterRender(() => focusOn("table-skip"));
  session.lastPerson = lastPerson;
  session.timer.run();
}

function endReplay(ctx, skipped) {
  const session = sessionOf(ctx);
  session.timer.stop();
  const page = ctx.state().page;
  const r = page && page.ui.replay;
  if (!r) return;
  ctx.dispatch({ type: "boardReplayEnd" });
  const game = G(page);
  if (skipped) announce(ctx, describeStep(r.steps, r.steps.length - 1, game.seats));
  turnOver(ctx, game, session.lastPerson);
}

/** A turn is over (and the computers' replayed): the end panel, or the next person — with
 * the handover screen between two different people (T7; off in 设置). */
function turnOver(ctx, game, lastPerson) {
  if (game.status === "finished") {
    ctx.dispatch({ type: "tableShowEnd", show: true });
    const first = game.ranking.filter((p) => p.place === 1).map((p) => seatName(game.seats, p.seat));
    announce(ctx, `游戏结束：${first.join("、")} 第 1 名。`);
    ctx.afterRender(() => focusOn("table-again"));
    return;
  }
  const handover =
    ctx.state().settings.handover !== "off" && lastPerson !== null && lastPerson !== game.turn
      ? game.turn
      : null;
  // The turn line (aria-live) says whose turn it is now (T7).
  ctx.dispatch({ type: "tableHandover", seat: handover });
  ctx.afterRender(() => focusOn(handover !== null ? "handover-go" : "table-roll"));
}

function focusOn(testid) {
  const target = document.querySelector(`[data-testid="${testid}"]`);
  if (target && !target.disabled && target.offsetParent !== null) target.focus({ preventScroll: true });
}

// ------------------------------------------------------------- the live meter (T5)

/** Every seat's chance of first place for the position now (GET /api/games/{id}/meter),
 * shown in the standings while 设置's 实时预计 is on; asked once per position, one request
 * at a time (a table's figures take a while: positions passed meanwhile are never asked). */
function askMeter(ctx) {
  const state = ctx.state();
  const page = state.page;
  if (state.settings.meter !== "shown" || !page || page.view !== "table") return;
  const session = sessionOf(ctx);
  if (session.meterBusy) {
    session.meterAgain = true;
    return;
  }
  const g = G(page);
  const key = `${g.id}:${g.version}`;
  if (page.ui.meterKey === key) return;
  session.meterBusy = true;
  ctx.dispatch({ type: "tableMeterAsked", key });
  const done = () => {
    session.meterBusy = false;
    if (session.meterAgain) {
      session.meterAgain = false;
      askMeter(ctx);
    }
  };
  ctx.api.meter(g.id).then(
    (m) => {
      if (m.win_probabilities) ctx.dispatch({ type: "tableChances", key, chances: m.win_probabilities });
      done();
    },
    done, // no figure this time: the last one stays (the meter is never an error)
  );
}

// ---------------------------------------------------------------- the table: actions

function canAct(page, state) {
  const g = G(page);
  const ui = page.ui;
  return (
    g.status === "in_progress" &&
    g.current_player === "human" &&
    !ui.replay &&
    (ui.handover === null || ui.handover === undefined) &&
    !ui.busy &&
    !state.busy
  );
}

/** One server action; a failure is said and the table re-synced from the server. U14: a
 * tap the network lost is dropped and said, never sent later; the game is read again once
 * the server answers (reconnect.js, as on the solo table). */
async function act(ctx, fn) {
  const page = ctx.state().page;
  if (!canAct(page, ctx.state())) return;
  const shown = G(page);
  ctx.dispatch({ type: "boardBusy", busy: true });
  try {
    await fn(shown);
    ctx.dispatch({ type: "tableOfflineOver" });
  } catch (err) {
    if (unanswered(err)) {
      ctx.dispatch({ type: "tableOffline", id: shown.id, version: shown.version });
      announce(ctx, say.OFFLINE_NOT_SENT, "error");
      sessionOf(ctx).reconnect();
      return;
    }
    if (!(err instanceof ApiError)) console.warn(err);
    const stale = err instanceof ApiError && err.code === "stale_version";
    if (!stale) announce(ctx, err instanceof ApiError ? err.message : say.PAGE_RESYNCED, "error");
    try {
      const fresh = await ctx.api.game(shown.id);
      // U14: refused as stale, the game went on on another device or tab: said.
      if (stale && fresh.version !== shown.version) movedOn(ctx, fresh);
      else ctx.dispatch({ type: "boardGame", game: fresh, hold: storedHold(fresh) || NO_HOLD });
    } catch {
      // the message above stands; the next click tries again
    }
  } finally {
    ctx.dispatch({ type: "boardBusy", busy: false });
  }
}

function roll(ctx) {
  const g0 = G(ctx.state().page);
  if (g0.rolls_left <= 0) return;
  const hold = g0.dice === null ? NO_HOLD : uiOf(ctx).hold;
  if (hold.every(Boolean)) return;
  return act(ctx, async (g) => {
    const game = await ctx.api.roll(g, hold);
    ctx.dispatch({ type: "boardRolled", game, hold });
    const who = seatName(game.seats, game.turn);
    const rest = game.rolls_left === 0 ? "三次掷完，请选一格登记。" : `还能再掷 ${game.rolls_left} 次。`;
    keepHold(ctx);
    announce(ctx, `${who} 掷出了 ${list(game.dice)}。${rest}`);
    askMeter(ctx);
  });
}

function toggle(ctx, i) {
  const page = ctx.state().page;
  const g = G(page);
  if (!canAct(page, ctx.state()) || g.dice === null || g.rolls_left === 0) return;
  ctx.dispatch({ type: "boardToggle", index: i });
  keepHold(ctx);
}

/** The box a first tap picked under 登记前确认 (polish 8), while the position is the same. */
function picked(page, state) {
  return canAct(page, state) ? pickedBox(page.ui.pick, G(page)) : null;
}

/** A tap on a box (or 「确定」): picked, confirmed or written (board_card.js scoreFlow). */
function score(ctx, category) {
  const page = ctx.state().page;
  const before = G(page);
  if (!canAct(page, ctx.state())) return;
  return scoreFlow({
    category,
    option: before.preview && before.preview[category],
    confirmOn: ctx.state().settings.confirm === "on",
    picked: picked(page, ctx.state()),
    pick: (c) => ctx.dispatch({ type: "boardPick", version: before.version, category: c }),
    said: (text) => announce(ctx, text),
    declined: () => announce(ctx, "已取消，什么都没有改变。"),
    send: (c, confirmZero) =>
      act(ctx, async (g) => {
        const game = await ctx.api.score(g, c, confirmZero);
        const who = seatName(game.seats, before.turn);
        // U14: the box this tab wrote (only that one may this tab take back)
        const wrote = { id: game.id, version: game.version, category: c };
        saveWrote(wrote);
        ctx.dispatch({ type: "boardScored", game, lastDice: before.dice, wrote });
        keepHold(ctx);
        announce(ctx, `${who} 把 ${list(before.dice)} 登记在「${box(c)}」，得 ${game.seats[before.turn].scores[c]} 分。`);
        askMeter(ctx);
        play(ctx, game, before, before.turn);
      }),
  });
}

/** 撤销 (polish 8): the box just written is taken back (the server says which, and whether
 * it may: `game.undo`); its seat plays on with the same dice. The handover screen shown
 * for the next person closes. */
function undo(ctx) {
  const u = undoable(ctx.state().page);
  if (!u) return;
  ctx.dispatch({ type: "tableHandover", seat: null });
  return act(ctx, async (g) => {
    const game = await request("POST", API.undo(g.id), { version: g.version });
    ctx.dispatch({ type: "boardGame", game });
    keepHold(ctx);
    announce(ctx, `已撤销 ${seatName(game.seats, u.seat)} 的「${box(u.category)}」：骰子还是刚才的，请重新选一格登记。`);
    askMeter(ctx);
    ctx.afterRender(() => focusOn("table-roll"));
  });
}

function hint(ctx) {
  const g0 = G(ctx.state().page);
  if (g0.dice === null) return announce(ctx, "先掷骰子，再来要提示。");
  if (g0.hints_left <= 0) return announce(ctx, `这一局的 ${LIMITS.hints_per_game} 次提示已经用完了。`, "error");
  return act(ctx, async (g) => {
    const res = await ctx.api.hint(g);
    const game = res.game;
    ctx.dispatch({ type: "boardHinted", game, hold: res.hold || null, category: res.hold ? null : res.category });
    keepHold(ctx);
    const left = `（${seatName(game.seats, game.turn)} 还剩 ${game.hints_left} 次提示）`;
    let text;
    if (res.hold) {
      const kept = res.hold.map((h, i) => (h ? game.dice[i] : null)).filter((v) => v !== null);
      text = kept.length ? `提示：保留金色标出的 ${list(kept)}，再掷其余的${left}。` : `提示：全部重掷${left}。`;
    } else {
      text = `提示：登记在金色标出的「${box(res.category)}」${left}。`;
    }
    announce(ctx, text);
  });
}

async function restart(ctx) {
  const page = ctx.state().page;
  const g = G(page);
  if (page.ui.busy || ctx.state().busy) return;
  const playing = g.status === "in_progress";
  const scored = g.seats.some((s) => Object.values(s.scores).some((v) => v !== null));
  if (playing && scored) {
    const yes = await confirmDialog({
      title: "重新开始？",
      text: `这一局已经打到第 ${g.round} 回合。重新开始会放弃它（座位不变），已登记的分数都不再保留，确定吗？`,
      yes: "放弃这局，重新开始",
      no: "继续这局",
    });
    if (!yes) return;
  }
  sessionOf(ctx).timer.stop();
  const seats = g.seats.map((s) => (s.kind === "human" ? { kind: "human", name: s.name } : { kind: "computer", difficulty: s.difficulty }));
  const game = await create(ctx, seats, playing, "table");
  if (!game) return;
  ctx.dispatch({ type: "tableRestarted", game });
  announce(ctx, "已重新开始一局（座位不变）。");
  askMeter(ctx);
  play(ctx, game, null, null);
}

// ------------------------------------------------------------------ the table: render

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function build(body, ctx) {
  const top = el("div", "tb-top");
  const actions = el("div", "tb-actions");
  const btn = (text, testid, cls = "btn btn-small", handler = null) => {
    const b = el("button", cls, text, { type: "button", "data-testid": testid });
    if (handler) b.addEventListener("click", handler);
    return b;
  };
  actions.append(
    btn("重新开始", "table-restart", "btn btn-small", () => restart(ctx)),
    btn("提示", "table-hint", "btn btn-small btn-gold", () => hint(ctx)),
    btn("大厅", "table-lobby", "btn btn-small", () => ctx.open(href("lobby"))),
  );
  const status = el("div", "tb-status");
  status.append(el("span", "round", "", { "data-testid": "table-round" }), el("span", "rolls", "", { "data-testid": "table-rolls" }));
  top.append(actions, status);

  // Whose turn it is, said to screen readers whenever it changes (T7).
  const turn = el("p", "tb-turn", "", { "data-testid": "table-turn", "aria-live": "polite", "aria-atomic": "true" });

  const felt = el("div", "felt tb-felt");
  const dice = el("div", "dice-row tb-dice", null, { role: "group", "aria-label": "骰子" });
  buildDice(dice, { prefix: "table", onToggle: (i) => toggle(ctx, i) });
  const rollRow = el("div", "roll-row");
  const rollBtn = btn("掷骰子", "table-roll", "btn btn-roll");
  rollBtn.addEventListener("click", (event) => {
    if (event.detail <= 1) roll(ctx);
  });
  const skip = btn("跳过", "table-skip", "btn btn-small btn-ghost", () => endReplay(ctx, true));
  skip.setAttribute("aria-label", "跳过电脑回合");
  const result = btn("查看结算", "table-show-result", "btn btn-small btn-gold", () => {
    ctx.dispatch({ type: "tableShowEnd", show: true });
    ctx.afterRender(() => focusOn("table-again"));
  });
  rollRow.append(rollBtn, skip, result);
  felt.append(dice, rollRow);

  // Every seat's total; a tap shows that seat's card (on a phone the card shows one seat).
  const standings = el("ol", "tb-standings", null, { "data-testid": "standings", "aria-label": "各位总分" });

  const card = el("div", "tb-card");
  buildCard(card, {
    prefix: "table",
    col: "tb",
    parts: [
      { cls: "tb-sheet tb-upper", caption: "计分表 · 上区", rows: UPPER.map(([c]) => c), sums: ["upper_subtotal", "upper_bonus"] },
      { cls: "tb-sheet tb-lower", caption: "计分表 · 下区", rows: LOWER.map(([c]) => c), sums: ["yahtzee_bonus", "total"] },
    ],
    onPick: (c) => score(ctx, c),
  });

  const handover = el("div", "tb-handover", null, {
    "data-testid": "handover",
    role: "dialog",
    "aria-modal": "true",
    "aria-labelledby": "handover-title",
  });
  handover.append(
    // U13: what the person handing over just wrote, before the screen covers their table
    el("p", "tb-handover-last", "", { "data-testid": "handover-last", role: "status" }),
    el("h2", "", "", { id: "handover-title" }),
    el("p", "fine", "请把设备交给下一位。轮到的人点下面的按钮再开始，免得替别人掷了骰子。"),
    btn("", "handover-go", "btn btn-primary btn-roll", () => {
      ctx.dispatch({ type: "tableHandover", seat: null });
      ctx.afterRender(() => focusOn("table-roll"));
    }),
    btn("", "handover-undo", "btn", () => undo(ctx)),
  );
  // 撤销 and 登记前确认's 「确定」 at the end of the table's message bar (css/mistap.css).
  const slot = document.querySelector('.message-slot[data-slot="table"]');
  if (slot && !slot.querySelector('[data-testid="table-undo"]')) {
    slot.append(btn("撤销", "table-undo", "btn btn-small slot-act", () => undo(ctx)));
    mountConfirm(slot, { testid: "table-confirm-score", picked: () => picked(ctx.state().page, ctx.state()), onConfirm: (c) => score(ctx, c) });
  }

  const end = el("div", "overlay tb-end-overlay");
  const panel = el("section", "game-over panel tb-end", null, {
    role: "dialog",
    "aria-modal": "true",
    "aria-labelledby": "table-result-title",
    tabindex: "-1",
  });
  panel.append(
    el("h2", "", "游戏结束", { id: "table-result-title" }),
    el("ol", "tb-ranking", null, { "data-testid": "ranking", "aria-label": "名次" }),
    el("table", "final-table tb-breakdown", null, { "data-testid": "table-breakdown" }),
  );
  const endActions = el("div", "game-over-actions");
  endActions.append(
    btn("再来一局（座位不变）", "table-again", "btn btn-primary", () => restart(ctx)),
    btn("复盘", "table-review", "btn", () => ctx.open(reviewHref(G(ctx.state().page)))),
    btn("回大厅", "table-end-lobby", "btn", () => ctx.open(href("lobby"))),
    btn("关闭", "table-end-close", "btn", () => ctx.dispatch({ type: "tableShowEnd", show: false })),
  );
  panel.append(endActions);
  end.append(panel);

  body.append(top, turn, el("div", "tb-layout"), handover, end);
  const layout = body.querySelector(".tb-layout");
  const play = el("div", "tb-play");
  // L11: the bare percentages beside the totals, named and explained (shown with them).
  const chanceNote = labelled("百分比：得第一的机会", "win_chance", "p", "fine tb-chance-note");
  chanceNote.hidden = true;
  play.append(felt, standings, chanceNote);
  layout.append(play, card);
}

function reviewHref(game) {
  const first = game.seats.find((s) => s.kind === "human");
  return href("review", { id: game.id }) + (first ? `?seat=${first.index}` : "");
}

function renderDice(body, page, state) {
  const g = G(page);
  const ui = page.ui;
  const step = replayStep(ui.replay);
  let look;
  if (step) {
    look = { dice: step.dice, held: step.action === "roll" ? step.hold : ALL_HELD, locked: step.action === "score", computer: true };
  } else if (g.status === "finished" && ui.lastDice) {
    look = { dice: ui.lastDice, held: ALL_HELD, locked: true };
  } else {
    const act = canAct(page, { ...state, busy: false }) && !ui.busy;
    look = { dice: g.dice, held: ui.hold, locked: g.dice !== null && g.rolls_left === 0, act, hint: ui.hintHold };
  }
  drawDice(body.querySelector(".tb-dice"), diceLook({ ...look, rollSerial: ui.rollSerial, rolled: ui.rolled }));
  const rollBtn = body.querySelector('[data-testid="table-roll"]');
  const act = canAct(page, { ...state, busy: false }) && !ui.busy;
  setText(rollBtn, g.dice === null ? "掷骰子" : "再掷");
  rollBtn.disabled = !act || g.rolls_left <= 0 || (g.dice !== null && ui.hold.every(Boolean));
  body.querySelector('[data-testid="table-skip"]').hidden = !ui.replay;
  body.querySelector('[data-testid="table-show-result"]').hidden = !(g.status === "finished" && !ui.showEnd && !ui.replay);
}

/** The seat whose card a phone shows, and the seat playing (during a replay: its seat). */
function seatsOnShow(page) {
  const g = G(page);
  const ui = page.ui;
  const step = replayStep(ui.replay);
  const playing = step ? step.seat : g.status === "in_progress" ? g.turn : null;
  return { shown: ui.shown ?? (step ? step.seat : g.turn), playing };
}

function renderCard(body, page, state) {
  const g = G(page);
  const ui = page.ui;
  const { shown, playing } = seatsOnShow(page);
  const mine = !ui.replay && g.status === "in_progress";
  drawCard(body.querySelector(".tb-card"), {
    seats: g.seats,
    cards: g.seats.map((_, i) => shownCard(ui.replay, g, i)),
    offerSeat: mine ? g.turn : null,
    preview: g.preview,
    act: canAct(page, { ...state, busy: false }) && !ui.busy,
    hint: ui.hintCategory,
    picked: picked(page, state),
    shown,
    playing,
  });
}

function renderStandings(body, page, ctx, state) {
  const g = G(page);
  const ui = page.ui;
  const ol = body.querySelector(".tb-standings");
  const { shown, playing } = seatsOnShow(page);
  const showChances =
    state.settings.meter === "shown" && !ui.replay && Array.isArray(ui.chances) && ui.chances.length === g.seats.length;
  const note = body.querySelector(".tb-chance-note");
  if (note && note.hidden !== !showChances) note.hidden = !showChances;
  if (ol.childElementCount !== g.seats.length) {
    ol.replaceChildren(
      ...g.seats.map((_, i) => {
        const li = el("li");
        const b = el("button", "tb-seat", null, { type: "button", "data-testid": `standing-${i}` });
        const figures = el("span", "tb-seat-figures");
        figures.append(el("span", "tb-seat-total"), el("span", "tb-seat-chance"));
        b.append(el("span", "tb-seat-name"), figures);
        b.addEventListener("click", () => {
          ctx.dispatch({ type: "tableShown", seat: i });
        });
        li.append(b);
        return li;
      }),
    );
  }
  g.seats.forEach((_, i) => {
    const b = ol.children[i].firstElementChild;
    const card = shownCard(ui.replay, g, i);
    setText(b.querySelector(".tb-seat-name"), seatName(g.seats, i));
    setText(b.querySelector(".tb-seat-total"), String(card.total));
    // The chances are the position's after the replay: not shown while it runs.
    const p = showChances ? ui.chances[i] : null;
    setText(b.querySelector(".tb-seat-chance"), p === null ? "" : `${Math.round(p * 100)}%`);
    b.setAttribute("aria-pressed", String(i === shown));
    if (i === playing) b.setAttribute("aria-current", "true");
    else b.removeAttribute("aria-current");
    const chance = p === null ? "" : `，得第一的机会 ${Math.round(p * 100)}%`;
    const label = `${seatName(g.seats, i)}：${card.total} 分${chance}${i === playing ? "，正在打" : ""}。点这里看他的计分表`;
    if (b.getAttribute("aria-label") !== label) b.setAttribute("aria-label", label);
  });
}

function renderTop(body, page, state) {
  const g = G(page);
  const ui = page.ui;
  const step = replayStep(ui.replay);
  const round = step ? step.round : g.round;
  setText(body.querySelector('[data-testid="table-round"]'), `第 ${round} / ${ROUNDS} 回合`);
  setText(
    body.querySelector('[data-testid="table-rolls"]'),
    ui.replay ? "电脑回合" : g.status !== "in_progress" ? "已结束" : `剩余 ${g.rolls_left} 次`,
  );
  const hintBtn = body.querySelector('[data-testid="table-hint"]');
  const person = g.seats[g.turn];
  const left = person && person.kind === "human" ? person.hints_left : 0;
  setText(hintBtn, `提示 (${left})`);
  hintBtn.disabled = !canAct(page, { ...state, busy: false }) || left <= 0 || g.dice === null;
  let turn;
  if (step) turn = `${seatName(g.seats, step.seat)} 正在打……`;
  else if (g.status !== "in_progress") turn = "游戏结束";
  else turn = `轮到 ${seatName(g.seats, g.turn)} 了`;
  setText(body.querySelector('[data-testid="table-turn"]'), turn);
  body.querySelector(".tb-felt").classList.toggle("computer-turn", Boolean(ui.replay));
}

function renderHandover(body, page) {
  const g = G(page);
  const ui = page.ui;
  const box = body.querySelector(".tb-handover");
  const show = ui.handover !== null && ui.handover !== undefined && !ui.replay;
  if (box.hidden === show) box.hidden = !show;
  if (!show) return;
  const name = seatName(g.seats, ui.handover);
  const turns = g.turns || [];
  const last = [...turns].reverse().find((t) => g.seats[t.seat] && g.seats[t.seat].kind === "human");
  const said = last ? `${seatName(g.seats, last.seat)} 刚在「${CATEGORY_NAMES[last.category]}」登记了 ${say.turnPoints(last)}` : "";
  const lastLine = box.querySelector('[data-testid="handover-last"]');
  setText(lastLine, said);
  lastLine.hidden = !said;
  setText(box.querySelector("h2"), `轮到 ${name} 了`);
  setText(box.querySelector('[data-testid="handover-go"]'), `我是 ${name}，开始`);
  const u = undoable(page);
  const undoBtn = box.querySelector('[data-testid="handover-undo"]');
  undoBtn.hidden = !u;
  if (u) setText(undoBtn, `撤销 ${seatName(g.seats, u.seat)} 的「${CATEGORY_NAMES[u.category]}」`);
}

/** 撤销 and 「确定」 in the message bar; the picked box framed (polish 8). */
function renderMistap(body, page, state) {
  const g = G(page);
  const ui = page.ui;
  const slot = document.querySelector('.message-slot[data-slot="table"]');
  if (!slot) return;
  const undoBtn = slot.querySelector('[data-testid="table-undo"]');
  const okBtn = slot.querySelector('[data-testid="table-confirm-score"]');
  const u = !ui.replay && !(ui.handover !== null && ui.handover !== undefined) ? undoable(page) : null;
  undoBtn.hidden = !u;
  undoBtn.disabled = Boolean(ui.busy || state.busy);
  if (u) undoBtn.setAttribute("aria-label", `撤销 ${seatName(g.seats, u.seat)} 的「${box(u.category)}」`);
  const ok = drawConfirm(okBtn, picked(page, state));
  slot.classList.toggle("has-act", Boolean(u || ok));
}

function renderEnd(body, page) {
  const g = G(page);
  const overlay = body.querySelector(".tb-end-overlay");
  const show = g.status === "finished" && Boolean(page.ui.showEnd) && !page.ui.replay;
  if (overlay.hidden === show) overlay.hidden = !show;
  if (!show) return;
  const ol = body.querySelector(".tb-ranking");
  const key = JSON.stringify(g.ranking);
  if (ol.dataset.key === key) return;
  ol.dataset.key = key;
  ol.replaceChildren(
    ...g.ranking.map((p) => {
      const li = el("li", `tb-place place-${p.place}`, null, { "data-testid": `ranking-${p.seat}` });
      li.append(el("span", "tb-place-no", `第 ${p.place} 名`), el("span", "tb-place-name", seatName(g.seats, p.seat)), el("span", "tb-place-total", `${p.total} 分`));
      return li;
    }),
  );
  // Each total's breakdown, in the ranking's order (the figures are the server's).
  const table = body.querySelector(".tb-breakdown");
  const head = el("tr");
  head.append(el("th", "", "", { scope: "col" }));
  for (const p of g.ranking) head.append(el("th", "", seatName(g.seats, p.seat), { scope: "col" }));
  const rows = SUMS.map(([f, name]) => {
    const tr = el("tr", f === "total" ? "total-row" : "");
    tr.append(el("th", "", name, { scope: "row" }));
    for (const p of g.ranking) tr.append(el("td", "", String(g.seats[p.seat][f])));
    return tr;
  });
  table.replaceChildren(head, ...rows);
  body.querySelector('[data-testid="table-review"]').hidden = !g.seats.some((s) => s.kind === "human");
}

function renderTable(body, page, ctx) {
  if (!body.firstChild) build(body, ctx);
  const state = ctx.state();
  const pick = document.getElementById("handover-setting");
  if (pick && pick.value !== state.settings.handover) pick.value = state.settings.handover;
  renderTop(body, page, state);
  renderDice(body, page, state);
  renderStandings(body, page, ctx, state);
  renderCard(body, page, state);
  renderHandover(body, page);
  renderMistap(body, page, state);
  renderEnd(body, page);
}

/** The table's keys (keyboard.js, as on the solo table) and its looks (U14): once, for the
 * table's view (the view's body, which outlives its pages, says it is done). */
function installKeys(ctx) {
  const body = document.getElementById("table-body");
  if (body.dataset.keys) return;
  body.dataset.keys = "on";
  const page = () => {
    const p = ctx.state().page;
    return ctx.state().view === "table" && p && p.view === "table" && p.status === "ready" ? p : null;
  };
  // U14: the table looked at again (focus, visibilitychange) reads its game, as the solo one.
  onLookedAt(() => {
    if (page()) sessionOf(ctx).lookAgain();
  });
  installKeyboard({
    onTable: () => Boolean(page()) && (page().ui.handover ?? null) === null,
    gameOverShown: () => Boolean(page() && page().ui.showEnd),
    closeGameOver: () => ctx.dispatch({ type: "tableShowEnd", show: false }),
    roll: () => roll(ctx),
    toggleDie: (i) => toggle(ctx, i),
    hint: () => hint(ctx),
  });
}

/** 设置's row for the handover screen (T7), added once this module is loaded. */
function installSetting(ctx) {
  if (document.getElementById("handover-setting")) return;
  const label = el("label", "field");
  const name = el("span", "", "多人同屏换人提示");
  name.append(el("span", "field-note", "「轮到 … 了」"));
  const select = el("select", "", null, { id: "handover-setting", "data-testid": "handover-setting" });
  for (const [value, text] of [["on", "显示"], ["off", "不显示"]]) select.append(el("option", "", text, { value }));
  select.value = ctx.state().settings.handover;
  select.addEventListener("change", () => ctx.dispatch({ type: "setting", name: "handover", value: select.value }));
  label.append(name, select);
  const dialog = document.getElementById("settings-dialog");
  dialog.insertBefore(label, dialog.querySelector(".fine"));
}

export const view = {
  reducers: boardReducers,
  render(body, page, ctx) {
    if (page.view === "seats") drawEditor(body, page, ctx);
    else renderTable(body, page, ctx);
  },
  /** After the data arrived (views.js): the table's first state, and a new game's
   * computers replayed. */
  loaded(page, ctx) {
    installSetting(ctx);
    if (page.view !== "table") return;
    installKeys(ctx);
    const handoff = ctx.state().tableHandoff;
    const fresh = Boolean(handoff && handoff.id === page.data.game.id);
    if (handoff) ctx.dispatch({ type: "tableHandoff", game: null });
    const game = fresh ? handoff : page.data.game;
    sessionOf(ctx); // a new opening: the last one's replay stops
    // 继续游戏 at the start of a person's turn, at a table of several people: the handover
    // screen first, so that the device goes to whoever is on turn.
    const people = game.seats.filter((x) => x.kind === "human").length;
    const handover =
      !fresh &&
      ctx.state().settings.handover !== "off" &&
      people > 1 &&
      game.status === "in_progress" &&
      game.dice === null
        ? game.turn
        : null;
    ctx.dispatch({ type: "tableOpened", game, hold: (holdable(game) && storedHold(game)) || NO_HOLD, wrote: loadWrote(), handover });
    if (handover !== null) ctx.afterRender(() => focusOn("handover-go"));
    askMeter(ctx);
    if (fresh) play(ctx, game, null, null);
    else announce(ctx, game.status === "finished" ? "这一局已经结束。" : turnText(game));
  },
};
