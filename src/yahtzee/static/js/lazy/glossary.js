// Words a child can read (L11, L13, L14): the glossary, the verdict beside 准确率, 定级中.
// Page copy like messages.js, kept apart from it because the first load does not need it
// (the 40 KB first-load budget, benchmarks/first_load.py): the lazy views import it, and
// it is a lazy overlay (views.js OVERLAYS.words) that loads, with css/words.css, once the
// page is up. One source: the 规则 page lists GLOSSARY (lazy/rules.js), every 「?」 shows
// its words (lazy/dom.js `term`), the 写 0 dialog its entry (dialog.js). It is not in the
// server's config either: the server uses none of it, and the config is embedded in
// index.html (first load too).

import { CONFIG } from "../config.js";
import { LIMITS } from "../state.js";

/** The glossary (L11): every term a number is shown with, in one or two short sentences a
 * child of 8–10 can read, with an example from the game. `also`: other words the page
 * shows for the same idea. */
export const GLOSSARY = {
  expected_final: {
    term: "预计终局",
    text: "已经得的分，加上以后照最好的方法平均还能得的分。比如已经有 100 分，以后平均还能得 150 分，预计终局就是 250 分。",
  },
  expected_value: {
    term: "期望值",
    also: ["开局期望"],
    text: "把每种可能按机会大小平均起来的分。比如一局刚开始，照最好的方法玩，平均能得 254.6 分，这就是开局期望。",
  },
  luck: {
    term: "运气",
    text: "骰子掷得好不好。想要第三个 6，真掷出来了，预计终局变高，运气就是「+」；没掷出来就是「−」。玩很多局，好坏运气差不多抵消。",
  },
  skill_loss: {
    term: "技术损失",
    text: "因为没选最好的做法，平均少得的分。比如技术损失 12 分：每一步都照高手做，这局平均能多得 12 分。越小越好。",
  },
  accuracy: {
    term: "准确率",
    text: "每一步和高手比打的分，每步都和高手一样好就是 100%。小心：少得好几十分也可能还有 88%，所以要看旁边的星星和「少得多少分」。",
  },
  verdict: {
    term: "星星",
    also: ["评价"],
    text: "看这局因为选择少得多少分：少于 5 分五颗星，少于 15 分四颗，少于 30 分三颗，少于 60 分两颗，更多是一颗。",
  },
  marks: {
    term: "最佳、欠佳、失误、大错",
    also: ["最佳", "欠佳", "失误", "大错"],
    text: "每一步的评价：和高手一样好是最佳；少得不到 1 分是欠佳，1 到 5 分是失误，5 分以上是大错。",
  },
  win_chance: {
    term: "胜率",
    also: ["得第一的机会"],
    text: "照现在的分数和还空着的格子，算出你最后赢（得第一）的机会。比如 60%：像这样的局面打 10 次，大约赢 6 次。",
  },
  practice_rating: {
    term: "练习分",
    text: "你做练习题的本领。答对了涨，答错了跌。比如练习分 1600 的人，做难度分 1600 左右的题，大约一半能答对。",
  },
  difficulty: {
    term: "难度分",
    text: "一道题有多难：答错的人越多，难度分越高。题目会挑和你的练习分差不多的。",
  },
  settling: {
    term: "定级中",
    text: "刚开始做题时，分数还不准，每答一题会涨跌很多，所以先不写数字。多做一些题（二三十题）就会显示。",
  },
  autopilot: {
    term: "托管",
    text: "好友房间里，有人时间到了还没动，或者离开了，电脑先替他下；他回来就接着自己下。托管时电脑下的步不算他的。",
  },
  group: {
    term: "小组",
    text: "几个人（比如一个班）一起玩每日挑战，在同一个排行榜上比。用邀请链接加入，不用注册。",
  },
  zero: {
    term: "写 0",
    text: "找不到合适的格子时，把一格记成 0 分，那一格以后就不能用了。比如没掷出快艇，在「快艇」写 0，把好格子留给以后。",
  },
};

// U19: what each box of the card needs and scores, and what each sum is, one tap away on
// the board's row names (board/draw.js); the numbers are /api/config's (the server's rules).
const BOX_RULES = {
  three_of_a_kind: "至少三颗一样，记五颗骰子的总和（6、6、6、1、2 记 21 分）。",
  four_of_a_kind: "至少四颗一样，记五颗骰子的总和。",
  full_house: "三颗一样加另一对（如 3、3、3、5、5），记 {points} 分。",
  small_straight: "有四颗连号（1234、2345 或 3456），记 {points} 分。",
  large_straight: "五颗连号（12345 或 23456），记 {points} 分。",
  yahtzee: "五颗全一样，记 {points} 分；快艇格是 {points} 分以后，每再登记一次快艇另加 {yahtzee_bonus} 分（快艇加成）。",
  chance: "什么骰子都行，记五颗骰子的总和。",
  upper_subtotal: "一点到六点六格相加。满 {upper_bonus_threshold} 分，再奖励 {upper_bonus} 分。",
  upper_bonus: "上区小计满 {upper_bonus_threshold} 分就得 {upper_bonus} 分，不满是 0 分。",
  progress: "上区小计 / {upper_bonus_threshold}：满了奖励 {upper_bonus} 分。「差」是还差几分；「拿不到」是剩下的上区格子全拿满也不够了。",
  yahtzee_bonus: "快艇格记了 {yahtzee} 分以后，每再登记一次快艇，另加 {yahtzee_bonus} 分。",
  total: "上区小计 + 上区奖励 + 下区七格 + 快艇加成。",
};

/** The words of a row of the card (U19): box `id` (or a sum) named `name`. */
export function boxWords(id, name) {
  const c = CONFIG.categories.find((x) => x.id === id);
  const points = (box) => CONFIG.categories.find((x) => x.id === box).points;
  const numbers = { ...LIMITS, points: c ? c.points : null, yahtzee: points("yahtzee") };
  const rule = c && c.face
    ? `只算点数是 ${c.face} 的骰子，把它们加起来（三个 ${c.face} 记 ${3 * c.face} 分）。上区六格满 ${LIMITS.upper_bonus_threshold} 分，再奖励 ${LIMITS.upper_bonus} 分。`
    : BOX_RULES[id].replace(/\{(\w+)\}/g, (_, k) => String(numbers[k]));
  return `${name}：${rule}`;
}

/** The glossary id of a word the page shows (its term or one of its other words). */
export function glossaryId(word) {
  for (const [id, g] of Object.entries(GLOSSARY)) {
    if (g.term === word || (g.also || []).includes(word)) return id;
  }
  return null;
}

/** 「?」's label for a screen reader. */
export const termQuestion = (id) => `${GLOSSARY[id].term}是什么意思？`;

/** Stars from the points a game lost by its choices (L13): 5 below 5 points, 4 below 15,
 * 3 below 30, 2 below 60, else 1. Read beside 准确率 (88.8% can be 61 points lost). */
export const VERDICT_STEPS = [
  [5, "高手水平"],
  [15, "很棒"],
  [30, "不错"],
  [60, "还要多练"],
  [Infinity, "多看看复盘"],
];

/** The verdict of a game (or, `perGame`, a mean over games) that lost `loss` points by its
 * choices: {stars (1-5), word, short ("★★☆☆☆ 还要多练"), text (the sentence), label (what
 * a screen reader hears for the stars)}. The same everywhere it is shown (复盘, 统计, the
 * daily result, the boards). */
export function verdict(loss, perGame = false) {
  const i = VERDICT_STEPS.findIndex(([below]) => loss < below);
  const stars = 5 - i;
  const word = VERDICT_STEPS[i][1];
  const drawn = "★".repeat(stars) + "☆".repeat(5 - stars);
  const points = Number(loss).toFixed(1);
  const text = perGame
    ? `${word}：因为选择，平均每局比高手少得 ${points} 分。`
    : `${word}：因为选择，这局比高手少得 ${points} 分。`;
  return { stars, word, short: `${drawn} ${word}`, text, label: `${stars} 颗星（满分 5 颗），${word}` };
}

/** A rating still settling (L14: Glicko-2 deviation above the server's threshold). */
export const SETTLING = "定级中";

/** As a lazy overlay (views.js): nothing to draw; loading it brings css/words.css. */
export const overlay = { render() {} };
