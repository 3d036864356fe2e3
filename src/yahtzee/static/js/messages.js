// Every sentence the page says to the player (Simplified Chinese), in one place. Pure
// functions of plain data: no DOM, no state; the reducer and the actions call them.

import { t } from "./i18n.js";
import { CATEGORY_NAMES, DIFFICULTY_NAMES, KIND_NAMES, LIMITS } from "./state.js";

const list = (dice) => dice.join("、");
const box = (category) => CATEGORY_NAMES[category] || category;

// The board's sentences (js/board/board.js) name a seat by `who`: 「你」 for the seat this
// device plays alone, else the seat's name (U13: lazy/dom.js seatName, 「电脑（普通）」).
export const YOU = "你";
const actor = (who) => (who === YOU ? YOU : `${who} `);

/** 你掷出了 …: after a roll of this device's. */
export function rolled(game, who = YOU) {
  const rest =
    game.rolls_left === 0 ? "三次掷完，骰子已锁定，请选一格登记。" : `还能再掷 ${game.rolls_left} 次。`;
  return `${actor(who)}掷出了 ${list(game.dice)}。${rest}`;
}

/** After a box this device wrote. */
export function scored(dice, category, points, who = YOU) {
  return `${actor(who)}把 ${list(dice)} 登记在「${box(category)}」，得 ${points} 分。`;
}

/** Whether step `j` of `steps` is the first of its seat's turn (said 「掷出」, not 「再掷」). */
const firstOfTurn = (steps, j) => j === 0 || steps[j - 1].seat !== steps[j].seat || steps[j - 1].action === "score";

/** Step `j` of another seat's turn replayed (U8: also announced); `who` its seat's name. */
export function describeStep(steps, j, who) {
  const step = steps[j];
  const dice = list(step.dice);
  if (step.action === "score") return `${actor(who)}把 ${dice} 登记在「${box(step.category)}」，得 ${step.points} 分。`;
  if (firstOfTurn(steps, j) || !step.hold) return `${actor(who)}掷出 ${dice}。`;
  const kept = keptFaces(step.hold, step.dice);
  return kept.length ? `${actor(who)}保留 ${list(kept)}，再掷得到 ${dice}。` : `${actor(who)}全部重掷，得到 ${dice}。`;
}

/** Other seats' turns replayed: what they scored (`done`: [who, step] of each box written),
 * and whose turn it is now (`next`: a sentence or ""). The steps themselves stay in the
 * record beside the table, so they are not said again. */
export function othersDone(done, next) {
  const boxes = done.map(([who, s]) => `${who}这回合在「${box(s.category)}」得 ${s.points} 分`).join("；");
  return boxes ? `${boxes}${next ? `，${next}` : "。"}` : next;
}

/** Whose turn it is: 「轮到你了。」, 「轮到 甲 了。」. */
export const turnNow = (who) => (who === YOU ? "轮到你了。" : `轮到 ${who} 了。`);

/** The end of a game, said in the board's message: the total alone, or every seat's
 * (`who(i)`: seat i's name) by the ranking; U7: a 新纪录 is the server's word. */
export function gameOver(game, who) {
  if (game.seats.length === 1) return `游戏结束，总分 ${game.seats[0].total}。${game.new_record ? "新纪录！" : ""}`;
  const places = (game.ranking || []).map((p) => `${who(p.seat)} ${p.total} 分`);
  return `游戏结束：${places.join("，")}。`;
}

export function keptFaces(hold, dice) {
  return hold.map((h, i) => (h ? dice[i] : null)).filter((v) => v !== null);
}

// ------------------------------------------------------------- the live meter (L4)

const percent = (p) => `${Math.round(p * 100)}%`;

/** The meter's figures as {before, num, after} parts (the number gets a fixed-width box):
 * `m` = the meter's answer, or null before it came (a dash holds the number's place);
 * `vs`: the game has other seats (the chance to win, of the seat reckoned for). */
export function meterText(m, vs) {
  const ef = m ? m.expected_final.toFixed(1) : "—";
  const out = { expected: { before: "预计终局 ", num: ef, after: "" } };
  if (vs) {
    const p = m && m.win_probability !== null ? percent(m.win_probability) : "—";
    out.chance = { before: "胜率 ", num: p, after: "" };
  }
  return out;
}

/** What a screen reader hears once a turn (the meter's hidden live region): the chance to
 * win where there is one (a game of several seats), else the expected final score. */
export function meterSaid(m) {
  if (m.win_probability !== null && m.win_probability !== undefined) {
    return `胜率 ${percent(m.win_probability)}。`;
  }
  return `预计终局 ${m.expected_final.toFixed(1)} 分。`;
}

export const NO_HINTS_LEFT = `这一局的 ${LIMITS.hints_per_game} 次提示已经用完了。`;
export const ROLL_FIRST = "先掷骰子，再来要提示。";
export const ZERO_CANCELLED = "已取消，什么都没有改变。";
export const TUTORIAL_FAILED = "新手教程没能打开，这一局照样可以玩。";
export const GAME_GONE = "这一局已经结束或在别处重新开始了，已回到大厅。";
export const GAME_NOT_FOUND = "找不到这一局了，已回到大厅。";
export const PAGE_RESYNCED = "页面出了点问题，已重新同步。";
/** U14: a tap the network lost is never sent later behind the player's back: it is dropped
 * and said; once the server answers again the page shows the game as it stands. */
export const OFFLINE_NOT_SENT =
  "连不上服务器：刚才那一步没有得到回答，页面也不会替你再送。骰子由服务器来掷，要联网才能玩；等连上了，这里会显示这一局现在的样子，你再决定下一步。"
export const BACK_SAME = "又连上服务器了：刚才那一步没有送到，局面没有变，请再点一次。";
export const BACK_CHANGED = "又连上服务器了：这一局在断线时有了变化（刚才那一步可能已经送到），下面是现在的局面。";
/** U14: the game went on in another tab or on another linked device. */
export const MOVED_ON = "这一局在别的窗口或设备上接着下了，这里已换成现在的局面。";
export const BACK_ONLINE_LOBBY = "又连上服务器了。";
/** S4: the server refused a request before doing anything (too busy); sent once more. */
export const busyRetrying = (seconds) =>
  seconds > 0 ? `服务器正忙，这一步还没有执行：${seconds} 秒后自动再试一次……` : "服务器正忙，这一步还没有执行：正在自动再试一次……";
export const RESTARTED = "已重新开始一局。";

export function continued(game) {
  return game.dice === null
    ? `继续上次的游戏：第 ${game.round} 回合，请掷骰子。`
    : `继续上次的游戏：第 ${game.round} 回合，骰子和剩余次数都和离开时一样。`;
}

/** A saved game's short name: 人机对战（普通），第 5 回合. */
export function savedName(game) {
  const mode = kindName(game.kind || game.mode, game.difficulty, "（");
  return `${mode}，第 ${game.round} 回合`;
}

/** F2: asking before a saved game is abandoned; `text` names it. */
export function confirmAbandon(text) {
  return { title: "放弃没下完的那一局？", text, yes: "放弃旧局，开新局", no: "取消" };
}

export function abandonSaved(game) {
  return `你有一局${savedName(game)}还没下完。开始新游戏会放弃那一局，确定吗？`;
}

/** U3 + F2: 重新开始 once a box is scored. */
export function confirmRestart(game) {
  return {
    title: "重新开始？",
    text: `这一局已经打到第 ${game.round} 回合。重新开始会放弃它，已登记的分数都不再保留，确定吗？`,
    yes: "放弃这局，重新开始",
    no: "继续这局",
  };
}

/** Polish 8, 登记前确认: a first tap picked a box. */
export const pickedBox = (category, points) => `已选「${box(category)}」（${points} 分）：再点一次，或点「确定」登记。`;

/** U2: the zero confirmation dialog; `final` (the preview's): no 撤销 could undo it (U18). */
export function confirmZero(category, final = true) {
  const name = box(category);
  const after = final ? "登记后不能更改。" : "下一次掷骰之前还可以「撤销」。";
  return {
    title: "登记 0 分？",
    text: `这一手记在「${name}」是 0 分，而别的格子还能得分。确定要在「${name}」写 0 吗？${after}`,
    yes: "确定写 0",
    no: "再想想",
    help: "zero",
  };
}

// ------------------------------------------------------- the page's labels (render.js)

const level = (difficulty) => DIFFICULTY_NAMES[difficulty] || difficulty;

export const SUM_NAMES = {
  upper_subtotal: "上区小计",
  upper_bonus: "上区奖励",
  lower_total: "下区",
  yahtzee_bonus: "快艇加成",
  total: "总分",
};

export const VIEW_TITLES = {
  game: "快艇骰子 · 牌桌",
  rules: "快艇骰子 · 规则",
  review: "快艇骰子 · 复盘",
  stats: "快艇骰子 · 统计",
  practice: "快艇骰子 · 练习",
  drill: "快艇骰子 · 练习这一步",
  room: "快艇骰子 · 好友房间",
  seats: "快艇骰子 · 多人同屏",
  table: "快艇骰子 · 多人同屏",
  daily: "快艇骰子 · 每日挑战",
  groups: "快艇骰子 · 小组",
  groupJoin: "快艇骰子 · 加入小组",
  group: "快艇骰子 · 小组",
  devices: "快艇骰子 · 我的设备",
};
// G1: the lobby's title is the first of these words in the catalog (said when shown).
Object.defineProperty(VIEW_TITLES, "lobby", { enumerable: true, get: () => t("core.brand") });
export const REVIEW = "复盘";
export const reviewLabel = (mode, score) => `复盘 ${mode} ${score}`;
export const COMPUTER = "电脑";

/** What a game is, by its kind (K2, /api/config's names): 单人挑战, 每日挑战, 好友房间, and
 * the level of a game played against one computer: 人机对战 · 普通 (`sep` " · ", or "（"
 * for 人机对战（普通）). */
export function kindName(kind, difficulty, sep = " · ") {
  const name = KIND_NAMES[kind] || kind;
  if (!difficulty) return name;
  const named = `${name}${sep}${level(difficulty)}`;
  return sep === "（" ? `${named}）` : named;
}

/** The lobby's line about the game left unfinished: its kind, round and, when one person
 * plays it, every seat's total. */
export function savedSummary(saved, rounds) {
  const mode = kindName(saved.kind || saved.mode, saved.difficulty, "（"); // K2: 每日挑战…
  // No-break spaces: 「第 2 / 13 回合」 is one unit and must not be split over two lines.
  const round = `第 ${saved.round} / ${rounds} 回合`.replaceAll(" ", "\u00a0");
  const seats = saved.seats || [];
  if (seats.filter((s) => s.kind === "human").length !== 1) return `有一局没打完：${mode}，${round}。`;
  const totals = seats.map((s) => `${s.kind === "human" ? YOU : COMPUTER} ${s.total} 分`).join("，");
  return `有一局没打完：${mode}，${round}，${totals}。`;
}

/** U18: the lobby's badge of a finished game of a kind that has its own (a 每日挑战 is not
 * listed as a solo game), by the server's kinds; the others show their result. */
export const KIND_BADGES = { daily: "每日" };

export function recentScore(g) {
  // 多人同屏 and 好友房间 (T6): 4 人 · 第 2 名 (a person's best place)
  if (g.seats) return `${g.seats} 人 · 第 ${g.place} 名　${g.human_total} 分`;
  return g.computer_total === null ? `${g.human_total} 分` : `${g.human_total} : ${g.computer_total}`;
}

export function shortDate(d) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getMonth() + 1}月${d.getDate()}日 ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function dieTag(locked, held) {
  return locked ? "锁定" : held ? "保留" : "";
}

export function dieLabel(i, value, locked, held) {
  if (value === null) return `第 ${i + 1} 颗：还没掷`;
  return `第 ${i + 1} 颗：${value} 点` + (locked ? "，已锁定" : held ? "，已保留" : "");
}

/** A box's accessible name: what it holds or would score. */
export function boxLabel(name, kind, p, hinted) {
  let label = `${name}：`;
  if (kind === "filled") label += `已登记 ${p} 分`;
  else if (kind === "forbidden") label += `${p.points} 分，百搭规则不允许登记在这里`;
  else if (kind === "preview") {
    label += `可得 ${p.points} 分`;
    if (p.yahtzee_bonus) label += `，另加快艇加成 ${p.yahtzee_bonus}`;
    if (p.upper_bonus) label += `，并拿到上区奖励 ${p.upper_bonus}`;
  } else label += "空";
  return hinted ? `${label}（提示建议登记这里）` : label;
}

// (a no-break space: one tag)
export const UPPER_BONUS_TAG = (bonus) => `+${bonus}\u00a0奖`;
export const FORBIDDEN_TITLE = "百搭规则：这一手快艇不能登记在这里";

/** P4: the upper-bonus progress line (`best` = the most the upper boxes can still reach);
 * `short`: a narrow column's words (several seats side by side). */
export function upperProgress(subtotal, goal, earned, best, short = false) {
  // (narrow no-break spaces, U18: a figure never runs into Chinese text, the column stays narrow)
  if (short) return `${subtotal}/${goal}\u202f${earned ? "已得" : best < goal ? "拿不到" : `差\u202f${goal - subtotal}`}`;
  if (earned) return `上区 ${subtotal}/${goal} · 已得奖励`;
  if (best < goal) return `上区 ${subtotal}/${goal} · 已拿不到奖励`;
  return `上区 ${subtotal}/${goal} · 还差 ${goal - subtotal}`;
}
/** The progress row's name where each seat has a column of its own. */
export const PROGRESS_NAME = "上区进度";

export const hintButton = (left) => `提示 (${left})`;

export function hintTitle(left, rolled, perGame) {
  if (left <= 0) return `这一局的 ${perGame} 次提示已经用完`;
  return rolled ? "按 H 也可以" : "先掷骰子再要提示";
}

export const roundLabel = (round, rounds) => `第 ${round} / ${rounds} 回合`;

/** The rolls' pill: 剩余 n 次; during a replay whose turn it shows (a computer's: 电脑回合). */
export function rollsLabel(replayed, over, left) {
  if (replayed) return replayed.kind === "computer" ? "电脑回合" : "回放中";
  return over ? "已结束" : `剩余 ${left} 次`;
}

export const rollButton = (first) => (first ? "掷骰子" : "再掷");

/** The felt's line: whose turn (`who`), or who is being replayed. */
export const BANNER = {
  replay: (who) => `${who} 正在打……`,
  over: "游戏结束",
  turn: (who) => (who === YOU ? "轮到你了" : `轮到 ${who} 了`),
};

export const HELP = {
  replay: "正在演示别人的这一回合；点「跳过」可以直接看结果。",
  over: "看看结算吧。",
  start: "点「掷骰子」开始这一回合。",
  joker: "百搭！快艇格已经填过，这手快艇只能登记在计分表里可以点的格子。",
  locked: "三次掷完了，骰子已锁定：在计分表里选一格登记。",
  allHeld: "五颗都保留了：取消保留一颗再掷，或者直接登记。",
  play: "点骰子保留或取消，点「再掷」重掷其余的，或者直接在计分表里登记。",
  wait: (who) => `等 ${who} 下这一回合……`,
};

/** The board's own words (board/draw.js): its controls, headings and labels. */
export const BOARD = {
  hint: "提示",
  lobby: "大厅",
  rules: "规则",
  log: "记录",
  settings: "设置",
  dice: "骰子",
  skip: "跳过",
  showResult: "查看结算",
  keys: "快捷键：空格/回车 掷骰 · 1–5 保留骰子 · H 提示 · Tab/方向键 选项目",
  more: "全文",
  undo: "撤销",
  confirm: "确定",
  confirmLabel: (name) => `确定登记「${name}」`,
  standings: "各位总分",
  chanceNote: "百分比：得第一的机会",
  chanceWord: "得第一的机会",
  meter: "实时预计",
  meterBar: "胜率",
  hide: "隐藏",
  logTitle: "本局记录",
  close: "关闭",
  logEmpty: "还没有登记过的回合。",
  proxy: "托管",
  boxes: "项目",
  captions: ["计分表 · 上区", "计分表 · 下区", "总分"],
  /** A word's 「?」, for a screen reader. */
  termQuestion: (word) => `${word}是什么意思？`,
  /** A glossary entry as its 「?」 shows it. */
  termWords: (g) => `${g.term}：${g.text}`,
};

/** U13: a computer seat's name: 「电脑（普通）」, or 「电脑3（普通）」 (its seat's number) where
 * a game has several computers. */
export const computerName = (level, number = null) => `${COMPUTER}${number === null ? "" : number}（${level}）`;
/** Where a computer's name gives its level (the column head shows it apart on a phone). */
export const LEVEL_OPEN = "（";

/** 「跳过」 and its long words (a computer's turn, or another seat's, replayed). */
export const skipWords = (computer) => (computer ? "电脑回合" : "演示");

/** A seat in the strip, for a screen reader. */
export const standingLabel = (name, total, chance, playing) =>
  `${name}：${total} 分${chance ? `，得第一的机会 ${chance}` : ""}${playing ? "，正在打" : ""}。点这里看他的计分表`;

/** The record of the last turns other seats played (`who` of one seat, or null for several). */
export const replayLogTitle = (who, round) => (who ? `${who}的第 ${round} 回合` : "上一轮电脑的回合");

// The words of the page's own table (单人挑战, 人机对战, 每日挑战, 新手教程: solo.js), by kind.
const STARTED = {
  tutorial: "开始：跟着提示做就行。",
  solo: "开始：点「掷骰子」。",
  vs_computer: "开始，你先手：点「掷骰子」。",
};
/** A new game of `kind` begins (its name, /api/config's, and what to do). */
export const started = (kind) => `${KIND_NAMES[kind]}${STARTED[kind]}`;
export const DAILY_STARTED = "每日挑战开始：今天大家的骰子都一样。点「掷骰子」。";
export const NO_DAILY_HINTS = "每日挑战不能用提示：排名看的是你自己的选择。";
export const RESTART = "重新开始";
/** The end panel's title, by the game's result (`total`: a game of one's score). */
export const resultTitle = (result, total) =>
  ({ win: "你赢了！", loss: "电脑赢了", draw: "平局", solo: `本局得分 ${total}` })[result] || "游戏结束";

/** 撤销 said (polish 8): the box taken back (`who`'s), the dice as they were. */
export const undone = (category, who, rollsLeft) =>
  `已撤销${who === YOU ? "" : ` ${who} 的`}「${box(category)}」：骰子还是刚才的，请重新选一项登记${rollsLeft > 0 ? "，或者再掷" : ""}。`;
export const undoLabel = (category, who) => (who === YOU ? `撤销「${box(category)}」的登记` : `撤销 ${who} 的「${box(category)}」`);

export const turnRound = (round) => `第 ${round} 回合`;
export const turnBox = (category) => `→ ${box(category)}`;
export const turnPoints = (t) => `${t.points} 分` + (t.yahtzee_bonus ? ` +${t.yahtzee_bonus}` : "");

// The hint's full figures' disclosure (L15).
export const DETAIL_SUMMARY = "看数字";
