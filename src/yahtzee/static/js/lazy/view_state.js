// The own state (`page.ui`) of the lazy views without a board — 练习, 每日挑战 and 小组, 我的设备,
// 复盘 — changed only by these named actions: pure reducers `(state, action) => state`,
// added to the one funnel when a view's module loads (its `view.reducers`), unit-tested
// with `node --test`. An action for a view that is not open changes nothing.

/** A slice of reducers for the views `views`: each `fn(ui, action)` returns the next ui. */
function slice(views, fns) {
  const open = new Set(views);
  return Object.fromEntries(
    Object.entries(fns).map(([type, fn]) => [
      type,
      (state, action) => {
        const p = state.page;
        if (!p || !open.has(p.view)) return state;
        const ui = fn(p.ui, action);
        return ui === p.ui ? state : { ...state, page: { ...p, ui } };
      },
    ]),
  );
}

/** 练习 and 「练习这一步」: the dice kept, the answer's request and result. */
export const practiceReducers = slice(["practice", "drill"], {
  practiceHold: (ui, { held }) => ({ ...ui, held: held.slice() }),
  practiceBusy: (ui) => ({ ...ui, busy: true, error: null }),
  practiceFailed: (ui, { error }) => ({ ...ui, busy: false, error }),
  practiceResult: (ui, { result }) => ({ ...ui, busy: false, result }),
});

/** A request's life in a form view: asked (busy; `drafts`: what was typed, kept), answered,
 * refused (the server's words and code). */
const requests = (prefix) => ({
  [`${prefix}Busy`]: (ui, { drafts = null, note = undefined }) => ({
    ...ui,
    busy: true,
    error: null,
    ...(drafts ? { drafts: { ...ui.drafts, ...drafts } } : {}),
    ...(note !== undefined ? { note } : {}),
  }),
  [`${prefix}Idle`]: (ui) => (ui.busy ? { ...ui, busy: false } : ui),
  [`${prefix}Failed`]: (ui, { error, code = null }) => ({ ...ui, busy: false, error, errorCode: code }),
});

/** 每日挑战 and 小组: requests, a copied text (`what`: its testid, or `${testid}:select`),
 * the week's board. */
export const dailyReducers = slice(["daily", "groups", "groupJoin", "group"], {
  ...requests("daily"),
  dailyCopied: (ui, { what }) => ({ ...ui, copied: what }),
  dailyWeek: (ui, { board }) => ({ ...ui, week: board }),
});

/** 我的设备: requests, a note said, a link code or recovery code made, the merge choice, the
 * export read (its summary and its file's object URL). */
export const devicesReducers = slice(["devices"], {
  ...requests("devices"),
  devicesNote: (ui, { note }) => ({ ...ui, note, choose: null }),
  devicesPairing: (ui, { pairing }) => ({ ...ui, pairing }),
  devicesRecovery: (ui, { recovery }) => ({ ...ui, recovery }),
  devicesChoose: (ui, { choose }) => ({ ...ui, choose, error: null }),
  devicesExported: (ui, { exported }) => ({ ...ui, exported, note: null }),
});

/** 复盘: the decision selected. */
export const reviewReducers = slice(["review"], {
  reviewSelect: (ui, { index }) => ({ ...ui, selected: index }),
});
