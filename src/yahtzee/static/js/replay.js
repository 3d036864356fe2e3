// The computer's turn, replayed step by step at the pace chosen in the settings (U8, P5).
// Only a timer: each tick dispatches `replayStep`; the last one ends the replay.

import { REPLAY_STEP_MS } from "./settings.js";

export function createReplay(store, onEnd) {
  let timer = null;

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  function end(skipped) {
    stop();
    if (!store.state.replay) return;
    store.dispatch({ type: "replayEnd", skipped });
    onEnd();
  }

  return {
    /** Replay `turn`; `before` is the game as it was before the computer played. */
    start(before, turn) {
      stop();
      store.dispatch({ type: "replayStart", before, turn });
      const pace = REPLAY_STEP_MS[store.state.settings.replay];
      if (pace === 0) {
        end(true); // 直接跳过: the outcome at once
        return;
      }
      timer = setInterval(() => {
        const r = store.state.replay;
        if (!r || r.index + 1 >= r.steps.length) end(false);
        else store.dispatch({ type: "replayStep" });
      }, pace);
    },
    skip() {
      end(true);
    },
    stop,
  };
}
