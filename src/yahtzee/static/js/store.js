// The store (chessground's way): one state, changed only by `dispatch(action)` through the
// pure reducer (the one mutation funnel); the DOM is rendered at most once per animation
// frame, however many actions came in between. After each change the effects run
// (effects.js: storage, the meter's request) — never inside the render. Work that needs
// the rendered DOM (moving the focus, scrolling) is queued with `afterRender(fn)`.

export function createStore(reduce, initial, { render, effects = [] }) {
  let state = initial;
  let frame = null;
  let after = [];
  const changes = []; // [state, previous] pairs not yet shown to the effects
  let running = false;

  function flush() {
    if (frame !== null) cancelAnimationFrame(frame);
    frame = null;
    render(state);
    const queued = after;
    after = [];
    for (const fn of queued) fn();
  }

  function schedule() {
    if (frame === null) frame = requestAnimationFrame(flush);
  }

  const store = {
    /** The current state (read-only by convention: change it with dispatch). */
    get state() {
      return state;
    },
    dispatch(action) {
      const previous = state;
      const next = reduce(state, action);
      if (next === previous) return state;
      state = next;
      schedule();
      changes.push([next, previous]);
      // An effect that dispatches queues its change: every effect sees every change, in order.
      if (!running) {
        running = true;
        try {
          while (changes.length) {
            const [now, before] = changes.shift();
            for (const effect of effects) effect(now, before, store);
          }
        } finally {
          running = false;
        }
      }
      return state;
    },
    /** Run `fn` once the DOM shows the current state. */
    afterRender(fn) {
      after.push(fn);
      schedule();
    },
    /** Render now (a dialog is about to open and must see the current page). */
    flush,
  };
  return store;
}
