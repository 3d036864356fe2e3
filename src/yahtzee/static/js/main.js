// Wiring: events → API calls → state → render. The server is the referee: this file never
// decides what a roll scores or whether a move is legal; it asks and shows the answer.

import { ApiError, api } from "./api.js";
import { buildScorecard, describeStep, render } from "./render.js";
import { CONFIG } from "./config.js";
import {
  CATEGORY_NAMES,
  DIFFICULTY_NAMES,
  canAct,
  initialState,
  rememberHold,
  storedHold,
} from "./state.js";
import { confirmDialog } from "./dialog.js";
import { installKeyboard } from "./keyboard.js";
import { chosenDifficulty, installSettings, replayStepMs } from "./settings.js";
import { installPageLinks } from "./pages.js";
import { installMeter } from "./meter.js";

const state = initialState();
let messageSerial = 0;
let replayTimer = null;
let focusWanted = false;
let lobbyVisit = 0; // bumps on every arrival in the lobby: its data must be this visit's (F2)

const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

function update() {
  rememberHold(state);
  render(state);
  meter.refresh(state);
}

/** Show `text` in `view`'s message slot (P3: a message belongs to the view it was said for;
 * it is not shown on another view, e.g. a roll's answer arriving on the rules page). */
function say(text, kind = "info", view = "game") {
  messageSerial += 1;
  state.message = { text, kind, serial: messageSerial, view };
}

// ------------------------------------------------------------------------ the game

function setGame(game) {
  state.game = game;
}

function resetTurnMarks() {
  state.hold = [false, false, false, false, false];
  state.hintHold = null;
  state.hintCategory = null;
  state.rolledMask = null;
}

function enterGame(game) {
  stopReplay();
  setGame(game);
  resetTurnMarks();
  state.hold = storedHold(game) || state.hold; // U6: the holds as the player left them
  state.lastDice = null;
  state.showGameOver = game.status === "finished";
  state.saved = null;
  go("game");
  focusTable();
}

/** Put focus on the roll button when it would otherwise be lost (keyboard players, B3). */
function focusTable() {
  const active = document.activeElement;
  const lost =
    !active || active === document.body || active.disabled || active.closest("[hidden]");
  if (lost && state.view === "game") {
    // preventScroll: the whole turn fits the screen (P1); focusing must not jump the page.
    const roll = byTestId("roll");
    if (!roll.disabled) roll.focus({ preventScroll: true });
    else if (state.game && state.game.dice !== null) byTestId("die-0").focus({ preventScroll: true });
    else document.getElementById("main").focus({ preventScroll: true });
  }
}

/** Run one server action; on failure show why and re-sync from the server ("never stuck"). */
async function act(fn) {
  if (state.busy) return null;
  const view = state.view; // an error is told where the action was asked for
  state.busy = true;
  update();
  try {
    return await fn();
  } catch (err) {
    await recover(err, view);
    return null;
  } finally {
    state.busy = false;
    update();
    flushFocus();
  }
}

async function recover(err, view = "game") {
  const apiErr = err instanceof ApiError ? err : new ApiError(0, "client", "页面出了点问题，已重新同步。");
  if (!(err instanceof ApiError)) console.warn(err);
  // A stale version means another click or tab got there first: just re-sync, silently.
  if (apiErr.code !== "stale_version") say(apiErr.message, "error", view);
  if (!state.game) return;
  try {
    const fresh = await api.game(state.game.id);
    const turnChanged =
      fresh.round !== state.game.round || fresh.current_player !== state.game.current_player;
    setGame(fresh);
    if (turnChanged || fresh.dice === null) resetTurnMarks();
    state.showGameOver = fresh.status === "finished";
    if (fresh.status === "abandoned") {
      say("这一局已经结束或在别处重新开始了，已回到大厅。", "error", "lobby");
      await goLobby(true);
    }
  } catch (again) {
    if (again instanceof ApiError && again.code === "not_found") {
      say("找不到这一局了，已回到大厅。", "error", "lobby");
      state.game = null;
      await goLobby(true);
    } else if (again instanceof ApiError) {
      say(again.message, "error", view);
    }
  }
}

async function roll() {
  const g = state.game;
  if (!canAct(state) || g.rolls_left <= 0) return;
  const hold = g.dice === null ? [false, false, false, false, false] : state.hold.slice();
  if (hold.every(Boolean)) return;
  await act(async () => {
    const next = await api.roll(g, hold);
    setGame(next);
    state.hold = hold;
    state.rolledMask = hold.map((h) => !h);
    state.rollSerial += 1;
    state.hintHold = null;
    state.hintCategory = null;
    let text = `你掷出了 ${next.dice.join("、")}。`;
    text += next.rolls_left === 0 ? "三次掷完，骰子已锁定，请选一格登记。" : `还能再掷 ${next.rolls_left} 次。`;
    say(text);
    focusWanted = true; // P2: stays on 「再掷」, or the first die once the roll button is spent
  });
}

function toggleDie(index) {
  const g = state.game;
  if (!canAct(state) || g.dice === null || g.rolls_left === 0) return;
  state.hold[index] = !state.hold[index];
  update();
}

/** U2: confirm a 0 while another open box scores. Asked when the server's preview marks the
 * box `needs_confirmation` (the rule it enforces with zero_needs_confirmation, which also
 * opens this dialog should the two ever disagree). */
async function askZero(category) {
  const name = CATEGORY_NAMES[category];
  const yes = await confirmDialog({
    title: "登记 0 分？",
    text: `这一手记在「${name}」是 0 分，而别的格子还能得分。确定要在「${name}」写 0 吗？登记后不能更改。`,
    yes: "确定写 0",
    no: "再想想",
  });
  if (!yes) {
    say("已取消，什么都没有改变。");
    update();
  }
  return yes;
}

async function score(category, confirmZero = false) {
  const before = state.game;
  if (!canAct(state)) return;
  const p = before.preview ? before.preview[category] : null;
  if (!p || !p.allowed) return;
  // U2: the server marks each box whose score it would refuse without confirmation.
  if (!confirmZero && p.needs_confirmation) {
    if (await askZero(category)) await score(category, true);
    return;
  }
  let needsConfirm = false;
  await act(async () => {
    let next;
    try {
      next = await api.score(before, category, confirmZero);
    } catch (err) {
      if (err instanceof ApiError && err.code === "zero_needs_confirmation") {
        needsConfirm = true;
        return;
      }
      throw err;
    }
    setGame(next);
    resetTurnMarks();
    const turn = next.computer_turn;
    state.lastDice =
      next.mode === "vs_computer" && turn && turn.steps.length
        ? turn.steps[turn.steps.length - 1].dice
        : before.dice;
    const name = CATEGORY_NAMES[category];
    const mine = next.players.human.boxes[category];
    say(`你把 ${before.dice.join("、")} 登记在「${name}」，得 ${mine} 分。`);
    if (next.mode === "vs_computer" && next.computer_turn && next.computer_turn.steps.length) {
      startReplay(before, next.computer_turn);
    } else {
      afterTurn();
    }
  });
  if (needsConfirm && (await askZero(category))) await score(category, true);
}

function afterTurn() {
  const g = state.game;
  if (g.status === "finished") {
    state.showGameOver = true;
    let text =
      g.result === "solo"
        ? `游戏结束，总分 ${g.players.human.total}。`
        : `游戏结束：你 ${g.players.human.total} 分，电脑 ${g.players.computer.total} 分。`;
    if (g.new_record && g.result === "solo") text += "新纪录！"; // U7: never in vs
    say(text);
    refreshLobbyData();
    requestAnimationFrame(() => byTestId("play-again").focus());
  } else {
    focusWanted = true;
  }
}

/** Move focus after the DOM reflects the new state (a disabled button cannot take it). */
function flushFocus() {
  if (focusWanted) {
    focusWanted = false;
    focusTable();
  }
}

// ------------------------------------------------------- the computer's turn, replayed (U8)

function startReplay(before, turn) {
  stopReplay();
  state.replay = { before, steps: turn.steps, index: 0, round: turn.round };
  // U8 at the pace chosen in the settings (P5); 直接跳过 shows the outcome at once.
  const pace = replayStepMs();
  if (pace === 0) {
    finishReplay(true);
    return;
  }
  say(describeStep(turn.steps[0], 0));
  replayTimer = setInterval(stepReplay, pace);
  update();
  // The box just chosen is disabled now; a keyboard player lands on 「跳过」 instead.
  const active = document.activeElement;
  if (!active || active === document.body || active.disabled) byTestId("skip-replay").focus();
  // On a phone the player has just tapped a box far down the scorecard: bring the dice
  // tray into view so the computer's turn can be watched ("nearest" does nothing when the
  // tray is already visible, as on a desktop).
  const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
  document.querySelector(".felt").scrollIntoView({
    block: "nearest",
    behavior: smooth ? "smooth" : "auto",
  });
}

function stepReplay() {
  const r = state.replay;
  if (!r) return;
  if (r.index + 1 < r.steps.length) {
    r.index += 1;
    say(describeStep(r.steps[r.index], r.index));
    update();
  } else {
    finishReplay();
  }
}

function stopReplay() {
  if (replayTimer !== null) clearInterval(replayTimer);
  replayTimer = null;
  state.replay = null;
}

function finishReplay(skipped = false) {
  const r = state.replay;
  stopReplay();
  if (skipped && r) {
    const last = r.steps[r.steps.length - 1];
    say(describeStep(last, r.steps.length - 1));
  }
  afterTurn();
  update();
  flushFocus();
}

// --------------------------------------------------------------------------- hints

async function hint() {
  const g = state.game;
  if (!g || state.view !== "game" || !canAct(state)) return;
  if (g.hints_left <= 0) {
    say("这一局的 3 次提示已经用完了。", "error");
    update();
    return;
  }
  if (g.dice === null) {
    say("先掷骰子，再来要提示。");
    update();
    return;
  }
  await act(async () => {
    const res = await api.hint(g);
    setGame(res.game);
    const left = `（还剩 ${res.game.hints_left} 次提示）`;
    if (res.hold) {
      state.hold = res.hold.slice();
      state.hintHold = res.hold.slice();
      state.hintCategory = null;
      const kept = keptFaces(res.hold, res.game.dice);
      say(
        (kept.length
          ? `提示：保留金色标出的 ${kept.join("、")}，再掷其余的${left}。`
          : `提示：全部重掷${left}。`) + hintLesson(res),
      );
    } else {
      state.hintHold = null;
      state.hintCategory = res.category;
      say(`提示：登记在金色标出的「${CATEGORY_NAMES[res.category]}」${left}。` + hintLesson(res));
    }
    hintScroll = true;
  });
  if (hintScroll) showHinted();
}

let hintScroll = false;

/** P2: bring the hinted dice or box on screen (nothing moves when it already is). */
function showHinted() {
  hintScroll = false;
  const target = state.hintCategory
    ? byTestId(`cell-human-${state.hintCategory}`)
    : document.querySelector(".die.hint") || byTestId("die-0");
  if (!target) return;
  const box = target.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
  target.scrollIntoView({ block: "center", behavior: smooth ? "smooth" : "auto" });
}

function keptFaces(hold, dice) {
  return hold.map((h, i) => (h ? dice[i] : null)).filter((v) => v !== null);
}

/** The expected-value lesson of a hint: what following it is worth, and what the best other
 * choice is worth (both from the server's solver; the page computes nothing itself). */
function hintLesson(res) {
  if (typeof res.value !== "number") return "";
  // U4 in the review's words: the expected final score (the points on the card plus the
  // advice's value), so a child reads "heading for 241.8, or 239.7 the other way".
  const card = res.game && res.game.players ? res.game.players.human.total : 0;
  const shown = (v) => Math.round((card + v) * 10) / 10;
  let text = `高手算过：照这样做，预计终局 ${shown(res.value).toFixed(1)} 分`;
  const alt = res.alternative;
  if (alt) {
    let what;
    if (alt.category) what = `登记「${CATEGORY_NAMES[alt.category]}」`;
    else {
      const kept = keptFaces(alt.hold, res.game.dice);
      what = kept.length ? `保留 ${kept.join("、")} 再掷` : "全部重掷";
    }
    // P2: the gap is the difference of the two numbers as shown, so the sentence adds up.
    const gap = (shown(res.value) - shown(alt.value)).toFixed(1);
    text += `；次好的是${what}，预计终局 ${shown(alt.value).toFixed(1)} 分（少 ${gap} 分）`;
  }
  return `${text}。`;
}

// ----------------------------------------------------------------------- the lobby

async function refreshLobbyData() {
  // One request: the records carry the saved game too (no probing request that 404s).
  const visit = lobbyVisit;
  try {
    const records = await api.records();
    state.records = records;
    const current = records.current_game;
    state.saved = current && current.status === "in_progress" ? current : null;
  } catch (err) {
    if (err instanceof ApiError) say(err.message, "error", "lobby");
  }
  // Even after a failure the buttons may act: the server's 409 game_in_progress still asks.
  if (visit === lobbyVisit) state.lobbyReady = true;
  update();
}

/** Arriving in the lobby: its buttons wait for this visit's data (F2). */
function newLobbyVisit() {
  lobbyVisit += 1;
  state.lobbyReady = false;
}

async function goLobby(keepMessage = false) {
  stopReplay();
  state.showGameOver = false;
  if (!keepMessage) say("", "info", "lobby"); // the table's last announcement means nothing here
  newLobbyVisit();
  go("lobby");
  await refreshLobbyData();
}

/** Ask before a saved game is abandoned (F2); `text` names it. */
function askAbandon(text) {
  return confirmDialog({ title: "放弃没下完的那一局？", text, yes: "放弃旧局，开新局", no: "取消" });
}

function savedName(game) {
  const mode =
    game.mode === "solo" ? "单人挑战" : `人机对战（${DIFFICULTY_NAMES[game.difficulty] || "高手"}）`;
  return `${mode}，第 ${game.round} 回合`;
}

/** POST /api/games. A game saved meanwhile (another tab) makes the server answer 409
 * game_in_progress, naming it: ask, then replace it only on a yes (F2). */
async function createGame(mode, difficulty, replace) {
  let savedElsewhere = null;
  const game = await act(async () => {
    try {
      return await api.create(mode, difficulty, replace);
    } catch (err) {
      if (err instanceof ApiError && err.code === "game_in_progress") {
        savedElsewhere = err.message;
        return null;
      }
      throw err;
    }
  });
  if (game || savedElsewhere === null) return game;
  if (await askAbandon(savedElsewhere)) return act(() => api.create(mode, difficulty, true));
  if (state.view === "lobby") await refreshLobbyData(); // show the saved game to continue
  return null;
}

async function startNew(mode, difficulty) {
  if (state.busy || !state.lobbyReady) return;
  const saved = state.saved;
  if (saved) {
    const text = `你有一局${savedName(saved)}还没下完。开始新游戏会放弃那一局，确定吗？`;
    if (!(await askAbandon(text))) return;
  }
  const game = await createGame(mode, difficulty, Boolean(saved));
  if (game) {
    say(mode === "solo" ? "单人挑战开始：点「掷骰子」。" : "人机对战开始，你先手：点「掷骰子」。");
    enterGame(game);
  }
}

async function continueGame() {
  const saved = state.saved;
  if (!saved || state.busy) return;
  state.game = saved;
  // U6/F1: the saved game exactly as it stands (dice, rolls left, scores): nothing restarts.
  const game = await act(() => api.current());
  if (game) {
    say(
      game.dice === null
        ? `继续上次的游戏：第 ${game.round} 回合，请掷骰子。`
        : `继续上次的游戏：第 ${game.round} 回合，骰子和剩余次数都和离开时一样。`,
    );
    enterGame(game);
  } else {
    await refreshLobbyData();
  }
}

async function restart() {
  const g = state.game;
  if (!g || state.busy) return;
  const playing = g.status === "in_progress";
  // U3 + F2: immediate before any box is scored; after that, one tap confirms.
  if (playing && Object.values(g.players.human.boxes).some((points) => points !== null)) {
    const yes = await confirmDialog({
      title: "重新开始？",
      text: `这一局已经打到第 ${g.round} 回合。重新开始会放弃它，已登记的分数都不再保留，确定吗？`,
      yes: "放弃这局，重新开始",
      no: "继续这局",
    });
    if (!yes || state.game !== g) return;
  }
  stopReplay();
  const game = await createGame(g.mode, g.difficulty || CONFIG.default_difficulty, playing);
  if (game) {
    say("已重新开始一局。");
    enterGame(game);
  }
}

// ------------------------------------------------------------------------- routing

// The server answers /, /lobby, /game and /rules with this same page (a single-page app),
// so each view has a real address and reloads land on the right view.
const PATHS = { lobby: "/", game: "/game", rules: "/rules" };

function go(view) {
  if (state.view !== view) state.previousView = state.view;
  state.view = view;
  if (location.pathname !== PATHS[view]) history.pushState(null, "", PATHS[view]);
  update();
  if (view === "rules") window.scrollTo(0, 0);
  // Tell screen readers where they are: focus the new view's heading (the table puts focus
  // on the roll button itself, see focusTable).
  const heading = { lobby: "lobby-title", rules: "rules-title" }[view];
  if (heading) document.getElementById(heading).focus({ preventScroll: true });
}

async function route() {
  const path = location.pathname.replace(/\/+$/, "") || "/";
  if (reviewPages.route(path)) {
    stopReplay();
    return;
  }
  if (path === "/rules") {
    if (state.view !== "rules") state.previousView = state.view;
    state.view = "rules";
    update();
    window.scrollTo(0, 0);
  } else if (path === "/game" && state.game) {
    state.view = "game";
    update();
  } else if (path === "/game") {
    // A reload on the table: the saved game as it stands, as 「继续游戏」 shows it (the
    // records carry it: no request that 404s when none is saved).
    await refreshLobbyData();
    if (state.saved) enterGame(state.saved);
    else await goLobby();
  } else {
    stopReplay();
    newLobbyVisit();
    state.view = "lobby";
    state.showGameOver = false;
    if (location.pathname !== "/") history.replaceState(null, "", "/");
    update();
    await refreshLobbyData();
  }
}

// ------------------------------------------------------------------------ keyboard (B3)

function closeGameOver() {
  state.showGameOver = false;
  update();
  byTestId("show-result").focus();
}

// ---------------------------------------------------------------------------- wiring

function wire() {
  byTestId("start-solo").addEventListener("click", () => startNew("solo", null));
  byTestId("start-vs").addEventListener("click", () =>
    startNew("vs_computer", chosenDifficulty()),
  );
  byTestId("continue").addEventListener("click", continueGame);
  byTestId("roll").addEventListener("click", roll);
  byTestId("hint").addEventListener("click", hint);
  byTestId("restart").addEventListener("click", restart);
  byTestId("lobby").addEventListener("click", () => goLobby());
  byTestId("play-again").addEventListener("click", restart);
  byTestId("game-over-lobby").addEventListener("click", () => goLobby());
  byTestId("skip-replay").addEventListener("click", () => finishReplay(true));
  byTestId("show-result").addEventListener("click", () => {
    state.showGameOver = true;
    update();
    byTestId("play-again").focus();
  });
  document.getElementById("rules-back").addEventListener("click", () => {
    if (state.previousView === "game" && state.game) go("game");
    else goLobby();
  });
  // Links between views stay in the page (no reload, the game in memory is kept).
  for (const a of document.querySelectorAll("a[data-nav]")) {
    a.addEventListener("click", (event) => {
      event.preventDefault();
      if (a.dataset.nav === "rules") go("rules");
      else goLobby();
    });
  }
  // In-page anchors on the rules page: scroll without changing the hash-based route.
  for (const a of document.querySelectorAll("[data-anchor]")) {
    a.addEventListener("click", (event) => {
      event.preventDefault();
      const target = document.getElementById(a.dataset.anchor);
      target.scrollIntoView();
      target.setAttribute("tabindex", "-1");
      target.focus({ preventScroll: true });
    });
  }
  document.getElementById("dice-row").addEventListener("click", (event) => {
    const die = event.target.closest(".die");
    if (die) toggleDie(Number(die.dataset.index));
  });
  document.getElementById("scorecard").addEventListener("click", (event) => {
    const btn = event.target.closest(".cell-btn");
    if (btn && !btn.disabled) score(btn.dataset.category);
  });
  for (const die of document.querySelectorAll(".die")) {
    die.addEventListener("animationend", () => die.classList.remove("rolling"));
  }
  installKeyboard({
    onTable: () => state.view === "game",
    gameOverShown: () => state.view === "game" && state.showGameOver,
    closeGameOver,
    roll,
    toggleDie,
    hint,
  });
  window.addEventListener("popstate", route);
  installSettings();
  wireTurnLog();
}

/** On a phone the turn log (P4) is a sheet opened from the top bar; Esc or 关闭 closes it. */
function wireTurnLog() {
  const toggle = byTestId("turn-log-toggle");
  const close = () => {
    if (!state.turnLogOpen) return;
    state.turnLogOpen = false;
    update();
    toggle.focus({ preventScroll: true });
  };
  toggle.addEventListener("click", () => {
    state.turnLogOpen = !state.turnLogOpen;
    update();
    if (state.turnLogOpen) byTestId("turn-log-close").focus({ preventScroll: true });
  });
  byTestId("turn-log-close").addEventListener("click", close);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && state.turnLogOpen) close();
  });
}

const reviewPages = installPageLinks({ state, update });
const meter = installMeter();

buildScorecard();
wire();
update();
route();
