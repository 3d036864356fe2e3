// The store (chessground's way): the state is only changed by `dispatch(action)`, through
// the pure reducer; the DOM is rendered at most once per animation frame, however many
// actions came in between. Work that needs the rendered DOM (moving the focus, scrolling)
// is queued with `afterRender(fn)` and runs right after the next render.

export function createStore(reduce, initial, render) {
  let state = initial;
  let frame = null;
  let after = [];

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

  return {
    /** The current state (read-only by convention: change it with dispatch). */
    get state() {
      return state;
    },
    dispatch(action) {
      const next = reduce(state, action);
      if (next !== state) {
        state = next;
        schedule();
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
}
