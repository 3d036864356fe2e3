// Every sentence the page says to the player (Simplified Chinese), in one place. Pure
// functions of plain data: no DOM, no state; the reducer and the actions call them.

import { CATEGORY_NAMES } from "./state.js";

const list = (dice) => dice.join("、");
const box = (category) => CATEGORY_NAMES[category] || category;

/** 你掷出了 …: after the player's roll. */
export function rolled(game) {
  const rest =
    game.rolls_left === 0 ? "三次掷完，骰子已锁定，请选一格登记。" : `还能再掷 ${game.rolls_left} 次。`;
  return `你掷出了 ${list(game.dice)}。${rest}`;
}

/** After the player wrote a box. */
export function scored(dice, category, points) {
  return `你把 ${list(dice)} 登记在「${box(category)}」，得 ${points} 分。`;
}

/** One step of the computer's turn (also announced, U8). */
export function describeStep(step, index) {
  const dice = list(step.dice);
  if (step.action === "score") {
    return `电脑把 ${dice} 登记在「${box(step.category)}」，得 ${step.points} 分。`;
  }
  if (index === 0) return `电脑掷出 ${dice}。`;
  const kept = keptFaces(step.hold, step.dice);
  return kept.length ? `电脑保留 ${list(kept)}，再掷得到 ${dice}。` : `电脑全部重掷，得到 ${dice}。`;
}

/** The end of a game, said in the table's message. */
export function gameOver(game) {
  const h = game.players.human.total;
  let text =
    game.result === "solo"
      ? `游戏结束，总分 ${h}。`
      : `游戏结束：你 ${h} 分，电脑 ${game.players.computer.total} 分。`;
  if (game.new_record && game.result === "solo") text += "新纪录！"; // U7: never in vs
  return text;
}

export function keptFaces(hold, dice) {
  return hold.map((h, i) => (h ? dice[i] : null)).filter((v) => v !== null);
}

const shown = (v) => Math.round(v * 10) / 10;

/** A hint: what to do, then its expected-value lesson (P2: the gap shown is the difference
 * of the two values as shown, so the sentence adds up). */
export function hinted(res) {
  const left = `（还剩 ${res.game.hints_left} 次提示）`;
  let text;
  if (res.hold) {
    const kept = keptFaces(res.hold, res.game.dice);
    text = kept.length
      ? `提示：保留金色标出的 ${list(kept)}，再掷其余的${left}。`
      : `提示：全部重掷${left}。`;
  } else {
    text = `提示：登记在金色标出的「${box(res.category)}」${left}。`;
  }
  if (typeof res.value !== "number") return text;
  let lesson = `高手算过：照这样做，这一局往后平均还能再得 ${shown(res.value).toFixed(1)} 分`;
  const alt = res.alternative;
  if (alt) {
    let what;
    if (alt.category) what = `登记「${box(alt.category)}」`;
    else {
      const kept = keptFaces(alt.hold, res.game.dice);
      what = kept.length ? `保留 ${list(kept)} 再掷` : "全部重掷";
    }
    const gap = (shown(res.value) - shown(alt.value)).toFixed(1);
    lesson += `；次好的是${what}，平均 ${shown(alt.value).toFixed(1)} 分（少 ${gap} 分）`;
  }
  return `${text}${lesson}。`;
}

export const NO_HINTS_LEFT = "这一局的 3 次提示已经用完了。";
export const ROLL_FIRST = "先掷骰子，再来要提示。";
export const ZERO_CANCELLED = "已取消，什么都没有改变。";
export const GAME_GONE = "这一局已经结束或在别处重新开始了，已回到大厅。";
export const GAME_NOT_FOUND = "找不到这一局了，已回到大厅。";
export const PAGE_RESYNCED = "页面出了点问题，已重新同步。";
export const RESTARTED = "已重新开始一局。";

export function started(mode) {
  return mode === "solo" ? "单人挑战开始：点「掷骰子」。" : "人机对战开始，你先手：点「掷骰子」。";
}

export function continued(game) {
  return `继续上次的游戏：第 ${game.round} 回合重新开始，已登记的分数都保留。`;
}

/** Starting a new game while one is saved. */
export function confirmNewGame() {
  return {
    title: "开始新游戏？",
    text: "你还有一局没打完。开始新游戏会放弃那一局，确定吗？",
    yes: "放弃旧局，开新局",
    no: "取消",
  };
}

/** U2: the zero confirmation dialog. */
export function confirmZero(category) {
  const name = box(category);
  return {
    title: "登记 0 分？",
    text: `这一手记在「${name}」是 0 分，而别的格子还能得分。确定要在「${name}」写 0 吗？登记后不能更改。`,
    yes: "确定写 0",
    no: "再想想",
  };
}
