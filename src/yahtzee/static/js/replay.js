// The computer's turn, replayed step by step at the pace chosen in the settings (U8, P5).
// Only a timer: each tick dispatches `replayStep`; the last one ends the replay.

import { REPLAY_STEP_MS } from "./settings.js";

export function createReplay(store, onEnd) {
  let timer = null;
  let frame = null;

  function stop() {
    if (timer !== null) clearTimeout(timer);
    if (frame !== null) cancelAnimationFrame(frame);
    timer = null;
    frame = null;
  }

  function end() {
    stop();
    if (!store.state.replay) return;
    store.dispatch({ type: "replayEnd" });
    onEnd();
  }

  // The next step is due `pace` after this one is drawn, not on a fixed clock: after a
  // stall (a busy phone, a tab in the background) a fixed interval fires its late ticks back
  // to back and two steps flash past together. The store draws in an animation frame; this
  // frame callback, asked for after the dispatch, runs just after that drawing.
  function next(pace) {
    frame = requestAnimationFrame(() => {
      frame = null;
      timer = setTimeout(tick, pace);
    });
  }

  function tick() {
    timer = null;
    const r = store.state.replay;
    if (!r || r.index + 1 >= r.steps.length) {
      end();
      return;
    }
    store.dispatch({ type: "replayStep" });
    next(REPLAY_STEP_MS[store.state.settings.replay]);
  }

  return {
    /** Replay `turn`; `before` is the game as it was before the computer played. */
    start(before, turn) {
      stop();
      store.dispatch({ type: "replayStart", before, turn });
      const pace = REPLAY_STEP_MS[store.state.settings.replay];
      if (pace === 0) {
        end(); // 直接跳过: the outcome at once
        return;
      }
      next(pace);
    },
    skip() {
      end();
    },
    stop,
  };
}
