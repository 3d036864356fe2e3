// Every sentence the page's first view says to the player, in one place (G1: said with
// the catalog's `core.*` keys, in the page's language when called: no text is kept at the
// module's top level, the language can change after it loaded). Pure functions of plain
// data: no DOM, no state; the reducer and the actions call them.

import { formatDate, formatNumber, t, tn } from "./i18n.js";
import { CATEGORY_NAMES, DIFFICULTY_NAMES, KIND_NAMES, LIMITS } from "./state.js";

/** Dice (or any values) as a list: 「3、4、5」, "3, 4, 5". */
const list = (dice) => dice.join(t("core.list_sep"));
const box = (category) => CATEGORY_NAMES[category] || category;
const comma = () => t("core.comma");

// The board's sentences (js/board/board.js) name a seat by `who`: `you()` for the seat
// this device plays alone, else the seat's name (U13: lazy/dom.js seatName, 「电脑（普通）」).
/** The word for the seat this device plays alone: 「你」. */
export const you = () => t("core.you");
const isYou = (who) => who === you();

/** 你掷出了 …: after a roll of this device's. */
export function rolled(game, who = you()) {
  const left = game.rolls_left;
  const rest = left === 0 ? t("core.say.locked") : tn("core.say.rolls_left", left, { n: left });
  const dice = list(game.dice);
  return isYou(who) ? t("core.say.rolled_you", { dice, rest }) : t("core.say.rolled", { who, dice, rest });
}

/** After a box this device wrote. */
export function scored(dice, category, points, who = you()) {
  const values = { who, dice: list(dice), box: box(category), points };
  return isYou(who) ? tn("core.say.scored_you", points, values) : tn("core.say.scored", points, values);
}

/** Whether step `j` of `steps` is the first of its seat's turn (said 「掷出」, not 「再掷」). */
const firstOfTurn = (steps, j) => j === 0 || steps[j - 1].seat !== steps[j].seat || steps[j - 1].action === "score";

/** Step `j` of another seat's turn replayed (U8: also announced); `who` its seat's name. */
export function describeStep(steps, j, who) {
  const step = steps[j];
  if (step.action === "score") return scored(step.dice, step.category, step.points, who);
  const dice = list(step.dice);
  const me = isYou(who);
  if (firstOfTurn(steps, j) || !step.hold) return me ? t("core.say.rolls_you", { dice }) : t("core.say.rolls", { who, dice });
  const kept = keptFaces(step.hold, step.dice);
  if (!kept.length) return me ? t("core.say.rerolled_all_you", { dice }) : t("core.say.rerolled_all", { who, dice });
  const values = { who, dice, kept: list(kept) };
  return me ? t("core.say.held_rolled_you", values) : t("core.say.held_rolled", values);
}

/** Other seats' turns replayed: what they scored (`done`: [who, step] of each box written),
 * and whose turn it is now (`next`: a sentence or ""). The steps themselves stay in the
 * record beside the table, so they are not said again. */
export function othersDone(done, next) {
  const boxes = done
    .map(([who, s]) => tn("core.say.other_scored", s.points, { who, box: box(s.category), points: s.points }))
    .join(t("core.semicolon"));
  if (!boxes) return next;
  return next ? t("core.say.done_then", { done: boxes, next }) : t("core.say.done", { done: boxes });
}

/** Whose turn it is: 「轮到你了。」, 「轮到 甲 了。」. */
export const turnNow = (who) => (isYou(who) ? t("core.say.turn_you") : t("core.say.turn", { who }));

/** The end of a game, said in the board's message: the total alone, or every seat's
 * (`who(i)`: seat i's name) by the ranking; U7: a 新纪录 is the server's word. */
export function gameOver(game, who) {
  if (game.seats.length === 1) {
    const total = game.seats[0].total;
    return game.new_record ? t("core.say.game_over_record", { total }) : t("core.say.game_over_solo", { total });
  }
  const places = (game.ranking || []).map((p) => tn("core.seat_points", p.total, { who: who(p.seat), points: p.total }));
  return t("core.say.game_over", { places: places.join(comma()) });
}

export function keptFaces(hold, dice) {
  return hold.map((h, i) => (h ? dice[i] : null)).filter((v) => v !== null);
}

// ------------------------------------------------------------- the live meter (L4)

const percent = (p) => formatNumber(p, { style: "percent", maximumFractionDigits: 0 });
const oneDecimal = (x) => formatNumber(x, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** The meter's figures as {before, num, after} parts (the number gets a fixed-width box):
 * `m` = the meter's answer, or null before it came (a dash holds the number's place);
 * `vs`: the game has other seats (the chance to win, of the seat reckoned for). */
export function meterText(m, vs) {
  const ef = m ? oneDecimal(m.expected_final) : "—";
  const out = { expected: { before: t("core.meter.expected") + " ", num: ef, after: "" } };
  if (vs) {
    const p = m && m.win_probability !== null ? percent(m.win_probability) : "—";
    out.chance = { before: t("core.meter.chance") + " ", num: p, after: "" };
  }
  return out;
}

/** What a screen reader hears once a turn (the meter's hidden live region): the chance to
 * win where there is one (a game of several seats), else the expected final score. */
export function meterSaid(m) {
  if (m.win_probability !== null && m.win_probability !== undefined) {
    return t("core.meter.said_chance", { chance: percent(m.win_probability) });
  }
  return t("core.meter.said_expected", { points: oneDecimal(m.expected_final) });
}

export const noHintsLeft = () => tn("core.say.no_hints_left", LIMITS.hints_per_game, { n: LIMITS.hints_per_game });
export const rollFirst = () => t("core.say.roll_first");
export const zeroCancelled = () => t("core.say.zero_cancelled");
export const tutorialFailed = () => t("core.say.tutorial_failed");
export const gameGone = () => t("core.say.game_gone");
export const gameNotFound = () => t("core.say.game_not_found");
export const pageResynced = () => t("core.say.page_resynced");
/** U14: a tap the network lost is never sent later behind the player's back: it is dropped
 * and said; once the server answers again the page shows the game as it stands. */
export const offlineNotSent = () => t("core.say.offline_not_sent");
export const backSame = () => t("core.say.back_same");
export const backChanged = () => t("core.say.back_changed");
/** U14: the game went on in another tab or on another linked device. */
export const movedOn = () => t("core.say.moved_on");
export const backOnlineLobby = () => t("core.say.back_online");
/** S4: the server refused a request before doing anything (too busy); sent once more. */
export const busyRetrying = (seconds) =>
  seconds > 0 ? tn("core.say.busy_retry_in", seconds, { seconds }) : t("core.say.busy_retrying");
export const restarted = () => t("core.say.restarted");

export function continued(game) {
  const round = game.round;
  return game.dice === null ? t("core.say.continued_roll", { round }) : t("core.say.continued", { round });
}

/** A saved game's short name: 人机对战（普通），第 5 回合. */
export function savedName(game) {
  const mode = kindName(game.kind || game.mode, game.difficulty, "paren");
  return t("core.saved_name", { mode, round: game.round });
}

/** F2: asking before a saved game is abandoned; `text` names it. */
export function confirmAbandon(text) {
  return { title: t("core.abandon.title"), text, yes: t("core.abandon.yes"), no: t("core.cancel") };
}

export function abandonSaved(game) {
  return t("core.abandon.text", { what: savedName(game) });
}

/** U3 + F2: 重新开始 once a box is scored. */
export function confirmRestart(game) {
  return {
    title: t("core.restart.title"),
    text: t("core.restart.text", { round: game.round }),
    yes: t("core.restart.yes"),
    no: t("core.restart.no"),
  };
}

/** Polish 8, 登记前确认: a first tap picked a box. */
export const pickedBox = (category, points) => tn("core.say.picked_box", points, { box: box(category), points });

/** U2: the zero confirmation dialog; `final` (the preview's): no 撤销 could undo it (U18). */
export function confirmZero(category, final = true) {
  const after = final ? t("core.zero.final") : t("core.zero.undoable");
  return {
    title: t("core.zero.title"),
    text: t("core.zero.text", { box: box(category), after }),
    yes: t("core.zero.yes"),
    no: t("core.zero.no"),
    help: "zero",
  };
}

// ------------------------------------------------------- the page's labels (render.js)

const level = (difficulty) => DIFFICULTY_NAMES[difficulty] || difficulty;

/** The card's totals' names (said when read: getters). */
export const SUM_NAMES = {
  get upper_subtotal() {
    return t("core.sum.upper_subtotal");
  },
  get upper_bonus() {
    return t("core.sum.upper_bonus");
  },
  get lower_total() {
    return t("core.sum.lower_total");
  },
  get yahtzee_bonus() {
    return t("core.card.yahtzee_bonus");
  },
  get total() {
    return t("core.sum.total");
  },
};

/** The document's title per view (said when read: getters). */
export const VIEW_TITLES = {
  get lobby() {
    return t("core.brand");
  },
  get game() {
    return t("core.title.game");
  },
  get rules() {
    return t("core.title.rules");
  },
  get review() {
    return t("core.title.review");
  },
  get stats() {
    return t("core.title.stats");
  },
  get practice() {
    return t("core.title.practice");
  },
  get drill() {
    return t("core.title.drill");
  },
  get room() {
    return t("core.title.room");
  },
  get race() {
    return t("core.title.race");
  },
  get seats() {
    return t("core.title.table");
  },
  get table() {
    return t("core.title.table");
  },
  get daily() {
    return t("core.title.daily");
  },
  get groups() {
    return t("core.title.groups");
  },
  get groupJoin() {
    return t("core.title.group_join");
  },
  get group() {
    return t("core.title.groups");
  },
  get devices() {
    return t("core.title.devices");
  },
};
export const review = () => t("core.review");
export const reviewLabel = (mode, score) => t("core.review_label", { mode, score });
export const computer = () => t("core.computer");

/** What a game is, by its kind (K2, /api/config's names): 单人挑战, 每日挑战, 好友房间, and
 * the level of a game played against one computer: 人机对战 · 普通 (`sep` " · ", or "paren"
 * for 人机对战（普通）). */
export function kindName(kind, difficulty, sep = " · ") {
  const name = KIND_NAMES[kind] || kind;
  if (!difficulty) return name;
  const values = { kind: name, level: level(difficulty) };
  return sep === "paren" ? t("core.kind_level_paren", values) : t("core.kind_level", values);
}

/** The lobby's line about the game left unfinished: its kind, round and, when one person
 * plays it, every seat's total. */
export function savedSummary(saved, rounds) {
  const mode = kindName(saved.kind || saved.mode, saved.difficulty, "paren"); // K2: 每日挑战…
  // No-break spaces: 「第 2 / 13 回合」 is one unit and must not be split over two lines.
  const round = roundLabel(saved.round, rounds).replaceAll(" ", "\u00a0");
  const seats = saved.seats || [];
  if (seats.filter((s) => s.kind === "human").length !== 1) return t("core.saved", { mode, round });
  const totals = seats
    .map((s) => tn("core.seat_points", s.total, { who: s.kind === "human" ? you() : computer(), points: s.total }))
    .join(comma());
  return t("core.saved_totals", { mode, round, totals });
}

/** U18: the lobby's badge of a finished game of a kind that has its own (a 每日挑战 is not
 * listed as a solo game), by the server's kinds; the others show their result. */
export const KIND_BADGES = {
  get daily() {
    return t("core.badge.daily");
  },
};

/** `n` points: 「12 分」. */
export const points = (n) => tn("core.points", n, { n });

export function recentScore(g) {
  // 多人同屏 and 好友房间 (T6): 4 人 · 第 2 名 (a person's best place)
  if (g.seats) {
    return t("core.recent_table", { players: tn("core.players", g.seats, { n: g.seats }), place: g.place, points: points(g.human_total) });
  }
  return g.computer_total === null ? points(g.human_total) : `${g.human_total} : ${g.computer_total}`;
}

export function shortDate(d) {
  return formatDate(d, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

export function dieTag(locked, held) {
  return locked ? t("core.die.locked") : held ? t("core.die.held") : "";
}

export function dieLabel(i, value, locked, held) {
  const values = { i: i + 1, value };
  if (value === null) return t("core.die.label_unrolled", values);
  if (locked) return t("core.die.label_locked", values);
  return held ? t("core.die.label_held", values) : t("core.die.label", values);
}

/** A box's accessible name: what it holds or would score. */
export function boxLabel(name, kind, p, hinted) {
  let label;
  if (kind === "filled") label = tn("core.box_label.filled", p, { name, points: p });
  else if (kind === "forbidden") label = tn("core.box_label.forbidden", p.points, { name, points: p.points });
  else if (kind === "preview") {
    label = tn("core.box_label.preview", p.points, { name, points: p.points });
    if (p.yahtzee_bonus) label += t("core.box_label.yacht_bonus", { bonus: p.yahtzee_bonus });
    if (p.upper_bonus) label += t("core.box_label.upper_bonus", { bonus: p.upper_bonus });
  } else label = t("core.box_label.empty", { name });
  return hinted ? t("core.box_label.hinted", { label }) : label;
}

// (a no-break space: one tag)
export const upperBonusTag = (bonus) => t("core.upper_bonus_tag", { bonus });
export const forbiddenTitle = () => t("core.forbidden_title");

/** P4: the upper-bonus progress line (`best` = the most the upper boxes can still reach);
 * `short`: a narrow column's words (several seats side by side). */
export function upperProgress(subtotal, goal, earned, best, short = false) {
  // (narrow no-break spaces, U18: a figure never runs into Chinese text, the column stays narrow)
  const values = { subtotal, goal, missing: goal - subtotal };
  if (short) {
    if (earned) return t("core.progress.short_earned", values);
    return best < goal ? t("core.progress.short_lost", values) : t("core.progress.short_missing", values);
  }
  if (earned) return t("core.progress.earned", values);
  if (best < goal) return t("core.progress.lost", values);
  return t("core.progress.missing", values);
}
/** The progress row's name where each seat has a column of its own. */
export const progressName = () => t("core.progress.name");

export const hintButton = (left) => t("core.hint_button", { left });

export function hintTitle(left, rolled, perGame) {
  if (left <= 0) return tn("core.hint_title.used", perGame, { n: perGame });
  return rolled ? t("core.hint_title.key") : t("core.hint_title.roll_first");
}

export const roundLabel = (round, rounds) => t("core.round_of", { round, rounds });

/** The rolls' pill: 剩余 n 次; during a replay whose turn it shows (a computer's: 电脑回合). */
export function rollsLabel(replayed, over, left) {
  if (replayed) return replayed.kind === "computer" ? t("core.computer_turn") : t("core.replaying");
  return over ? t("core.over") : tn("core.rolls_left", left, { n: left });
}

export const rollButton = (first) => (first ? t("core.roll") : t("core.roll_again"));

/** The felt's line: whose turn (`who`), or who is being replayed. */
export const BANNER = {
  replay: (who) => t("core.banner.replay", { who }),
  get over() {
    return t("core.banner.over");
  },
  turn: (who) => (isYou(who) ? t("core.banner.turn_you") : t("core.banner.turn", { who })),
};

export const HELP = {
  get replay() {
    return t("core.help.replay");
  },
  get over() {
    return t("core.help.over");
  },
  get start() {
    return t("core.help.start");
  },
  get joker() {
    return t("core.help.joker");
  },
  get locked() {
    return t("core.help.locked");
  },
  get allHeld() {
    return t("core.help.all_held");
  },
  get play() {
    return t("core.help.play");
  },
  wait: (who) => t("core.help.wait", { who }),
};

/** The board's own words (board/draw.js): its controls, headings and labels (getters:
 * said when read). */
export const BOARD = {
  get hint() {
    return t("core.board.hint");
  },
  get lobby() {
    return t("core.board.lobby");
  },
  get rules() {
    return t("core.board.rules");
  },
  get log() {
    return t("core.board.log");
  },
  get settings() {
    return t("core.board.settings");
  },
  get dice() {
    return t("core.board.dice");
  },
  get skip() {
    return t("core.board.skip");
  },
  get showResult() {
    return t("core.board.show_result");
  },
  get keys() {
    return t("core.board.keys");
  },
  get more() {
    return t("core.board.more");
  },
  get undo() {
    return t("core.board.undo");
  },
  get confirm() {
    return t("core.board.confirm");
  },
  confirmLabel: (name) => t("core.board.confirm_label", { name }),
  get standings() {
    return t("core.board.standings");
  },
  get chanceNote() {
    return t("core.board.chance_note");
  },
  get chanceWord() {
    return t("core.board.chance_word");
  },
  get meter() {
    return t("core.board.meter");
  },
  get meterBar() {
    return t("core.meter.chance");
  },
  get hide() {
    return t("core.board.hide");
  },
  get logTitle() {
    return t("core.board.log_title");
  },
  get close() {
    return t("core.board.close");
  },
  get logEmpty() {
    return t("core.board.log_empty");
  },
  get proxy() {
    return t("core.board.proxy");
  },
  get boxes() {
    return t("core.board.boxes");
  },
  get captions() {
    return [t("core.board.caption_upper"), t("core.board.caption_lower"), t("core.sum.total")];
  },
  /** A word's 「?」, for a screen reader. */
  termQuestion: (word) => t("core.board.term_question", { what: word }),
  /** A glossary entry as its 「?」 shows it. */
  termWords: (g) => t("core.board.term_words", { term: g.term, text: g.text }),
};

/** U13: a computer seat's name: 「电脑（普通）」, or 「电脑3（普通）」 (its seat's number) where
 * a game has several computers. */
export const computerName = (level, number = null) =>
  number === null ? t("core.computer_level", { level }) : t("core.computer_number_level", { level, number });
/** Where a computer's name gives its level (the column head shows it apart on a phone). */
export const levelOpen = () => t("core.level_open");

/** 「跳过」 and its long words (a computer's turn, or another seat's, replayed). */
export const skipWords = (computer) => (computer ? t("core.computer_turn") : t("core.board.skip_replay"));

/** A seat in the strip, for a screen reader. */
export const standingLabel = (name, total, chance, playing) =>
  tn("core.standing.total", total, { name, total }) +
  (chance ? t("core.standing.chance", { chance }) : "") +
  (playing ? t("core.standing.playing") : "") +
  t("core.standing.end");

/** The record of the last turns other seats played (`who` of one seat, or null for several). */
export const replayLogTitle = (who, round) => (who ? t("core.replay_log.seat", { who, round }) : t("core.replay_log.computers"));

/** A new game begins (`kind`: its name, /api/config's) and what to do: the plain way, against
 * the computer (who moves first), or the tutorial (follow the hints). solo.js picks which:
 * only a mode's module names its kinds (A4). */
export const startedSolo = (kind) => t("core.started.solo", { kind });
export const startedVsComputer = (kind) => t("core.started.vs_computer", { kind });
export const startedTutorial = (kind) => t("core.started.tutorial", { kind });
export const dailyStarted = () => t("core.started.daily");
export const noDailyHints = () => t("core.say.no_daily_hints");
export const restart = () => t("core.restart.button");
/** The end panel's title, by the game's result against others (win, loss, draw). */
export function resultTitle(result) {
  if (result === "win") return t("core.result_title.win");
  if (result === "loss") return t("core.result_title.loss");
  return result === "draw" ? t("core.result_title.draw") : t("core.banner.over");
}
/** The end panel's title of a game played alone: its score. */
export const resultTitleAlone = (total) => t("core.result_title.solo", { total });

/** 撤销 said (polish 8): the box taken back (`who`'s), the dice as they were. */
export function undone(category, who, rollsLeft) {
  const values = { who, box: box(category) };
  if (isYou(who)) return rollsLeft > 0 ? t("core.undone.you_roll", values) : t("core.undone.you", values);
  return rollsLeft > 0 ? t("core.undone.other_roll", values) : t("core.undone.other", values);
}
export const undoLabel = (category, who) =>
  isYou(who) ? t("core.undo_label.you", { box: box(category) }) : t("core.undo_label.other", { who, box: box(category) });

export const turnRound = (round) => t("core.turn_round", { round });
export const turnBox = (category) => `→ ${box(category)}`;
export const turnPoints = (s) => points(s.points) + (s.yahtzee_bonus ? ` +${s.yahtzee_bonus}` : "");

// The hint's full figures' disclosure (L15).
export const detailSummary = () => t("core.detail_summary");
