// State → DOM. `render(state)` may run any number of times: it builds the static parts once
// and afterwards only updates text and attributes, so focus and running animations survive.

import {
  CATEGORY_NAMES,
  DIFFICULTY_NAMES,
  LOWER,
  RESULT_NAMES,
  ROUNDS,
  UPPER,
  canAct,
} from "./state.js";
import { describeStep } from "./messages.js";

const $ = (sel) => document.querySelector(sel);
const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

// Where each pip sits on a 3×3 grid (1 = top left … 9 = bottom right).
const PIPS = {
  1: [5],
  2: [3, 7],
  3: [3, 5, 7],
  4: [1, 3, 7, 9],
  5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9],
};

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
  sums.append(buildSumRow("upper_subtotal", "上区小计", "upper-subtotal-human", null, "sum-row"));
  // P4: how far the player is from the upper bonus, right under the subtotal.
  const progress = document.createElement("tr");
  progress.className = "progress-row";
  const cell = document.createElement("td");
  cell.colSpan = 3;
  cell.dataset.testid = "upper-progress";
  progress.append(cell);
  sums.append(progress);
  sums.append(buildSumRow("upper_bonus", "上区奖励", "upper-bonus-human", null, "sum-row"));
  const lower = $("#lower-body");
  for (const [cat, name] of LOWER) lower.append(buildRow(cat, name));
  $("#lower-sums").append(
    buildSumRow("yahtzee_bonus", "快艇加成", "yahtzee-bonus-human", null, "sum-row"),
  );
  $("#totals").append(buildSumRow("total", "总分", "total-human", "total-computer", "total-row"));
}

// ---------------------------------------------------------------------------- views

function renderViews(state) {
  for (const view of ["lobby", "game", "rules"]) {
    const el = $(`#view-${view}`);
    const hidden = state.view !== view;
    if (el.hidden !== hidden) el.hidden = hidden;
  }
  document.body.dataset.view = state.view;
  const titles = { lobby: "快艇骰子", game: "快艇骰子 · 牌桌", rules: "快艇骰子 · 规则" };
  if (document.title !== titles[state.view]) document.title = titles[state.view];
}

// ---------------------------------------------------------------------------- lobby

function formatDate(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getMonth() + 1}月${d.getDate()}日 ${pad(d.getHours())}:${pad(d.getMinutes())}`;
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
        li.className = `recent-item result-${g.result}`;
        const mode =
          g.mode === "solo" ? "单人挑战" : `人机对战 · ${DIFFICULTY_NAMES[g.difficulty] || ""}`;
        const score =
          g.mode === "solo" ? `${g.human_total} 分` : `${g.human_total} : ${g.computer_total}`;
        const badge = document.createElement("span");
        badge.className = "recent-result";
        badge.textContent = RESULT_NAMES[g.result] || "";
        const text = document.createElement("span");
        text.className = "recent-text";
        text.textContent = `${mode}　${score}`;
        const when = document.createElement("span");
        when.className = "recent-when";
        when.textContent = formatDate(g.finished_at);
        li.append(badge, text, when);
        return li;
      }),
    );
  }
  $("#recent-empty").hidden = recent.length > 0;

  const saved = state.saved;
  $("#continue-box").hidden = !saved;
  if (saved) {
    const mode =
      saved.mode === "solo"
        ? "单人挑战"
        : `人机对战（${DIFFICULTY_NAMES[saved.difficulty] || "高手"}）`;
    setText(
      $("#continue-summary"),
      `有一局没打完：${mode}，第 ${saved.round} / ${ROUNDS} 回合，你 ${saved.players.human.total} 分` +
        (saved.players.computer ? `，电脑 ${saved.players.computer.total} 分。` : "。"),
    );
  }
}

// ----------------------------------------------------------------------------- dice

function renderPips(die, value) {
  const key = String(value || 0);
  if (die.dataset.pips === key) return;
  die.dataset.pips = key;
  const face = document.createElement("span");
  face.className = "die-face";
  face.setAttribute("aria-hidden", "true");
  if (value) {
    for (const pos of PIPS[value]) {
      const pip = document.createElement("span");
      pip.className = `pip p${pos}`;
      face.append(pip);
    }
  } else {
    const q = document.createElement("span");
    q.className = "die-blank";
    q.textContent = "?";
    face.append(q);
  }
  const tag = document.createElement("span");
  tag.className = "hold-tag";
  tag.setAttribute("aria-hidden", "true");
  die.replaceChildren(face, tag);
}

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
  const view = diceView(state);
  const act = canAct(state);
  const tray = $("#dice-row");
  tray.classList.toggle("computer-dice", view.computer);
  for (let i = 0; i < 5; i++) {
    const die = byTestId(`die-${i}`);
    const value = view.dice ? view.dice[i] : null;
    renderPips(die, value);
    const held = Boolean(view.dice) && (view.locked || view.held[i]);
    setAttr(die, "data-value", value === null ? "" : value);
    setAttr(die, "aria-pressed", held ? "true" : "false");
    die.classList.toggle("held", held && !view.locked);
    die.classList.toggle("locked", view.locked);
    die.classList.toggle("blank", value === null);
    die.classList.toggle(
      "hint",
      !view.computer && Boolean(state.hintHold) && state.hintHold[i] && !view.locked,
    );
    const usable = act && value !== null && !view.locked;
    setAttr(die, "aria-disabled", usable ? null : "true");
    const tag = die.querySelector(".hold-tag");
    setText(tag, view.locked ? "锁定" : held ? "保留" : "");
    let label = `第 ${i + 1} 颗：`;
    if (value === null) label += "还没掷";
    else label += `${value} 点` + (view.locked ? "，已锁定" : held ? "，已保留" : "");
    setAttr(die, "aria-label", label);
    // Replay the roll animation whenever a new roll landed on this die, even if the value
    // is unchanged: the class is removed, a reflow is forced, and it is added again.
    const serial = String(state.rollSerial);
    const rolled = state.rolledMask ? state.rolledMask[i] : false;
    if (die.dataset.rollSerial !== serial) {
      die.dataset.rollSerial = serial;
      if (rolled) {
        die.classList.remove("rolling");
        void die.offsetWidth;
        die.classList.add("rolling");
      }
    }
  }
}

// ------------------------------------------------------------------------ scorecard

/** A preview reads "+N" (what writing here would add), a written score a plain "N": a
 * preview 0 ("+0", italic, dashed outline) never looks like a written 0 (bold, solid). */
function previewText(p) {
  let text = `+${p.points}`;
  if (p.yahtzee_bonus) text += ` +${p.yahtzee_bonus}`;
  return text;
}

const UPPER_GOAL = 63;
const FACES = { ones: 1, twos: 2, threes: 3, fours: 4, fives: 5, sixes: 6 };

/** P4: the upper-bonus progress line, honest when 63 can no longer be reached. */
export function upperProgress(card) {
  const sub = card.upper_subtotal;
  if (card.upper_bonus > 0) return `上区 ${sub}/${UPPER_GOAL} · 已得奖励`;
  let best = sub;
  for (const [cat] of UPPER) if (card.boxes[cat] === null) best += 5 * FACES[cat];
  if (best < UPPER_GOAL) return `上区 ${sub}/${UPPER_GOAL} · 已拿不到奖励`;
  return `上区 ${sub}/${UPPER_GOAL} · 还差 ${UPPER_GOAL - sub}`;
}

function renderScorecard(state) {
  const g = state.game;
  // Not disabled while a request is in flight (clicks are ignored then): a disabled button
  // would drop the keyboard focus to the page body (P2).
  const act = canAct({ ...state, busy: false });
  const isVs = g.mode === "vs_computer";
  $("#view-game").classList.toggle("solo", !isVs);
  const level = DIFFICULTY_NAMES[g.difficulty] || "高手";
  for (const head of document.querySelectorAll(".computer-head")) {
    if (head.dataset.level !== level) {
      head.dataset.level = level;
      const small = document.createElement("span");
      small.className = "head-level";
      small.textContent = `（${level}）`;
      head.replaceChildren("电脑", small);
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
    let text = "";
    let label = `${name}：`;
    let selectable = false;
    let cls = "";
    let extra = "";
    if (filled !== null && filled !== undefined) {
      text = String(filled);
      cls = filled === 0 ? "filled zero" : "filled";
      label += `已登记 ${filled} 分`;
    } else if (p) {
      text = p.allowed ? previewText(p) : String(p.points);
      if (!p.allowed) {
        cls = "forbidden";
        label += `${p.points} 分，百搭规则不允许登记在这里`;
      } else {
        selectable = act;
        cls = p.points === 0 ? "preview zero" : "preview";
        label += `可得 ${p.points} 分`;
        if (p.yahtzee_bonus) label += `，另加快艇加成 ${p.yahtzee_bonus}`;
        if (p.upper_bonus) {
          label += `，并拿到上区奖励 ${p.upper_bonus}`;
          extra = `+${p.upper_bonus}奖`;
        }
      }
    } else {
      label += "空";
      cls = "open";
    }
    const hinted = state.hintCategory === cat && !state.replay;
    if (hinted) label += "（提示建议登记这里）";
    if (btn.dataset.text !== text + "|" + extra) {
      btn.dataset.text = text + "|" + extra;
      btn.replaceChildren(document.createTextNode(text));
      if (extra) {
        const small = document.createElement("small");
        small.className = "bonus-tag";
        small.textContent = extra;
        btn.append(small);
      }
    }
    td.className = `cell cell-human ${cls}` + (hinted ? " hint" : "");
    setAttr(td, "data-selectable", selectable ? "true" : "false");
    btn.disabled = !selectable;
    setAttr(btn, "aria-label", label);
    setAttr(btn, "title", cls === "forbidden" ? "百搭规则：这一手快艇不能登记在这里" : null);

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
  setText(sub, "上区小计");
  setAttr(sub, "title", "一点到六点相加，满 63 分奖励 35 分");
  setText(byTestId("upper-progress"), upperProgress(human));
}

// --------------------------------------------------------------------------- topbar

function renderTopbar(state) {
  const g = state.game;
  const hint = byTestId("hint");
  setText(hint, `提示 (${g.hints_left})`);
  // Busy is not a reason to disable (that would drop the focus, P2): clicks wait instead.
  hint.disabled = !canAct({ ...state, busy: false }) || g.hints_left <= 0 || g.dice === null;
  setAttr(
    hint,
    "title",
    g.hints_left <= 0 ? "这一局的 3 次提示已经用完" : g.dice === null ? "先掷骰子再要提示" : "按 H 也可以",
  );
  let round = g.round;
  if (state.replay) round = state.replay.round || round;
  setText(byTestId("round"), `第 ${round} / ${ROUNDS} 回合`);
  const rollsLeft = state.replay ? "电脑回合" : g.status !== "in_progress" ? "已结束" : `剩余 ${g.rolls_left} 次`;
  setText(byTestId("rolls-left"), rollsLeft);
  setText(
    $("#mode-badge"),
    g.mode === "solo" ? "单人挑战" : `人机对战 · ${DIFFICULTY_NAMES[g.difficulty] || "高手"}`,
  );
  setAttr($("#view-game"), "aria-busy", state.busy ? "true" : null);
}

function allHeld(state) {
  return state.hold.every(Boolean);
}

function renderRoll(state) {
  const g = state.game;
  const act = canAct({ ...state, busy: false });
  const roll = byTestId("roll");
  setText(roll, g.dice === null ? "掷骰子" : "再掷");
  roll.disabled = !act || g.rolls_left <= 0 || (g.dice !== null && allHeld(state));
  byTestId("skip-replay").hidden = !state.replay;
  byTestId("show-result").hidden = !(g.status === "finished" && !state.showGameOver && !state.replay);

  const banner = $("#turn-banner");
  const help = $("#dice-help");
  $(".felt").classList.toggle("computer-turn", Boolean(state.replay));
  if (state.replay) {
    const step = state.replay.steps[state.replay.index];
    setText(banner, "电脑回合");
    setText(help, describeStep(step, state.replay.index));
  } else if (g.status !== "in_progress") {
    setText(banner, "游戏结束");
    setText(help, "看看结算吧。");
  } else {
    setText(banner, "轮到你了");
    if (g.dice === null) setText(help, "点「掷骰子」开始这一回合。");
    else if (g.preview && Object.values(g.preview).some((p) => !p.allowed))
      setText(help, "百搭！快艇格已经填过，这手快艇只能登记在计分表里可以点的格子。");
    else if (g.rolls_left === 0) setText(help, "三次掷完了，骰子已锁定：在「你」这一列选一格登记。");
    else if (allHeld(state)) setText(help, "五颗都保留了：取消保留一颗再掷，或者直接登记。");
    else setText(help, "点骰子保留或取消，点「再掷」重掷其余的，或者直接在计分表里登记。");
  }
}

// -------------------------------------------------- the computer's last turn, in words

function renderComputerLog(state) {
  const g = state.game;
  const log = $("#computer-log");
  const turn = state.replay
    ? { round: state.replay.round, steps: state.replay.steps.slice(0, state.replay.index + 1) }
    : g.computer_turn;
  const show = g.mode === "vs_computer" && Boolean(turn) && turn.steps.length > 0;
  if (log.hidden === show) log.hidden = !show;
  if (!show) return;
  setText(
    $("#computer-log-title"),
    state.replay ? `电脑正在打第 ${turn.round} 回合` : `电脑的第 ${turn.round} 回合`,
  );
  const list = $("#computer-log-steps");
  const key = JSON.stringify(turn);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(
    ...turn.steps.map((step, i) => {
      const li = document.createElement("li");
      li.textContent = describeStep(step, i);
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
  list.replaceChildren(
    ...turns.map((t) => {
      const li = document.createElement("li");
      li.className = `turn-log-item by-${t.player}`;
      const round = document.createElement("span");
      round.className = "tl-round";
      round.textContent = `第 ${t.round} 回合`;
      const who = document.createElement("span");
      who.className = "tl-who";
      who.textContent = t.player === "human" ? "你" : "电脑";
      const dice = document.createElement("span");
      dice.className = "tl-dice";
      dice.textContent = t.dice.join(" ");
      const box = document.createElement("span");
      box.className = "tl-box";
      box.textContent = `→ ${CATEGORY_NAMES[t.category] || t.category}`;
      const points = document.createElement("span");
      points.className = "tl-points";
      points.textContent = `${t.points} 分` + (t.yahtzee_bonus ? ` +${t.yahtzee_bonus}` : "");
      li.append(round, ...(vs ? [who] : []), dice, box, points);
      return li;
    }),
  );
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
  const titles = {
    win: "你赢了！",
    loss: "电脑赢了",
    draw: "平局",
    solo: `本局得分 ${h.total}`,
  };
  setText(byTestId("result"), titles[g.result] || "游戏结束");
  byTestId("new-record").hidden = !g.new_record;
  const rows = [
    ["上区小计", "upper_subtotal"],
    ["上区奖励", "upper_bonus"],
    ["下区", "lower_total"],
    ["快艇加成", "yahtzee_bonus"],
    ["总分", "total"],
  ];
  const table = $("#final-table");
  const key = JSON.stringify([h, c]);
  if (table.dataset.key === key) return;
  table.dataset.key = key;
  const head = document.createElement("tr");
  for (const t of ["", "你", ...(c ? ["电脑"] : [])]) {
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
  el.replaceChildren(text ? document.createTextNode(text) : "");
}

export function render(state) {
  renderViews(state);
  renderMessage(state);
  if (state.view === "lobby") renderLobby(state);
  if (state.game) {
    renderTopbar(state);
    renderDice(state);
    renderRoll(state);
    renderScorecard(state);
    renderComputerLog(state);
    renderTurnLog(state);
  }
  renderGameOver(state);
}
