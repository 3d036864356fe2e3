// Other seats' turns shown step by step on a board (U8, T7, 好友房间): a computer's turns in
// 多人同屏, and a friend's, 托管's or a computer's in a room, at the pace of 设置. The
// steps live in the view's state (board_state.js `replay`); this module holds no state of
// its own: `createReplayTimer` returns the timer a view owns for one page, and the rest
// are pure (which steps a game's answer holds, what a step says aloud).

import { seatName } from "./dom.js";
import { CATEGORY_NAMES } from "../state.js";

const list = (dice) => dice.join("、");
const box = (c) => CATEGORY_NAMES[c] || c;

/** The steps of the computers' turns in a game's answer (`game.computer_turns`), each with
 * its seat and round: [{action: roll|score, dice, hold?, category?, points?, seat, round}]. */
export function computerSteps(game) {
  return (game.computer_turns || []).flatMap((t) => t.steps.map((s) => ({ ...s, seat: t.seat, round: t.round })));
}

/** Whether step `j` is the first of its seat's turn (said 「掷出」, not 「再掷」). */
export function isFirstOfTurn(steps, j) {
  return j === 0 || steps[j - 1].seat !== steps[j].seat || steps[j - 1].action === "score";
}

/** What step `j` of `steps` says to a screen reader and in the message bar. */
export function describeStep(steps, j, seats) {
  const step = steps[j];
  const who = seatName(seats, step.seat);
  if (step.action === "score") return `${who} 把 ${list(step.dice)} 登记在「${box(step.category)}」，得 ${step.points} 分。`;
  if (isFirstOfTurn(steps, j) || !step.hold) return `${who} 掷出 ${list(step.dice)}。`;
  const kept = step.hold.map((h, i) => (h ? step.dice[i] : null)).filter((v) => v !== null);
  return kept.length ? `${who} 保留 ${list(kept)}，再掷得到 ${list(step.dice)}。` : `${who} 全部重掷，得到 ${list(step.dice)}。`;
}

/** A replay's timer, owned by the view that shows it. `pace()`: the milliseconds between two
 * steps now (设置 may change meanwhile; 0 shows the outcome at once); `step()`: show the
 * next step, returning false when there was none (then `end()` runs). The next step is due
 * `pace` after this one is drawn (the store draws in an animation frame), never on a fixed
 * clock whose late ticks fire back to back after a stall. */
export function createReplayTimer({ pace, step, end }) {
  let timer = null;
  let frame = null;
  const stop = () => {
    if (timer !== null) clearTimeout(timer);
    if (frame !== null) cancelAnimationFrame(frame);
    timer = null;
    frame = null;
  };
  const finish = () => {
    stop();
    end();
  };
  const tick = () => {
    timer = null;
    if (!step()) return finish();
    schedule();
  };
  const schedule = () => {
    const ms = pace();
    if (ms === 0) return finish();
    frame = requestAnimationFrame(() => {
      frame = null;
      timer = setTimeout(tick, ms);
    });
  };
  return {
    /** Start (or keep running: steps added to a running replay are reached in turn). */
    run() {
      if (timer === null && frame === null) schedule();
    },
    /** Straight to the outcome. */
    skip: finish,
    stop,
    get running() {
      return timer !== null || frame !== null;
    },
  };
}
