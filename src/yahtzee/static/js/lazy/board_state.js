// The board's own state in a lazy view's `page.ui` (多人同屏 and 好友房间), changed only by
// the named actions below: pure reducers `(state, action) => state`, added to the one
// funnel when the view's module loads (views.js), unit-tested with `node --test`. No DOM,
// no timer, no request: the views dispatch these with what the server answered.
//
// ui of a board: {game?, hold, busy, rolled, rollSerial, hintHold, hintCategory, lastDice,
// pick: {version, category}|null, replay: {before, steps, index}|null}; 多人同屏 adds
// {handover, shown, showEnd, meterKey, chances, seats, starting, wrote, offline}, 好友房间
// {myHold, holds, reactions, error, notice, now, skew, stream, copied, rematch, offline}.

const NO_HOLD = Object.freeze([false, false, false, false, false]);

/** The views whose page.ui is a board's (an action for another page changes nothing). */
const BOARD_VIEWS = new Set(["table", "seats", "room"]);

/** `state` with `page.ui` changed by `fn(ui)`, when the page open is one of `views`. */
function onUi(state, views, fn) {
  const p = state.page;
  if (!p || !views.has(p.view)) return state;
  const ui = fn(p.ui);
  return ui === p.ui ? state : { ...state, page: { ...p, ui } };
}

const board = (fn) => (state, action) => onUi(state, BOARD_VIEWS, (ui) => fn(ui, action));
const TABLE = new Set(["table"]);
const SEATS = new Set(["seats"]);
const ROOM = new Set(["room"]);
const table = (fn) => (state, action) => onUi(state, TABLE, (ui) => fn(ui, action));
const room = (fn) => (state, action) => onUi(state, ROOM, (ui) => fn(ui, action));

const clearMarks = { hintHold: null, hintCategory: null, pick: null };

/** The table showing `game`, read from the server, in place of a position that went on. */
function movedOn(ui, game, hold) {
  const on = game.status === "in_progress";
  const handover = ui.handover !== null && ui.handover !== undefined && on ? game.turn : null;
  return {
    ...ui,
    game,
    hold: hold.slice(),
    rolled: null,
    replay: null,
    offline: null,
    handover,
    shown: null,
    showEnd: game.status === "finished",
    ...clearMarks,
  };
}

export const boardReducers = {
  /** A request of the board is in flight (its buttons wait) or answered. */
  boardBusy: board((ui, { busy }) => (Boolean(ui.busy) === busy ? ui : { ...ui, busy })),

  /** The game as the server has it (a load, a resync after an error, 撤销). */
  boardGame: board((ui, { game, hold = NO_HOLD }) => ({ ...ui, game, hold: hold.slice(), rolled: null, ...clearMarks })),

  /** A roll answered: the dice not held tumble (`rollSerial` replays the animation). */
  boardRolled: board((ui, { game, hold }) => ({
    ...ui,
    game,
    hold: hold.slice(),
    rolled: hold.map((h) => !h),
    rollSerial: (ui.rollSerial || 0) + 1,
    ...clearMarks,
  })),

  /** A box written; `lastDice` stays on the table when the game is over; `wrote` (U14):
   * the box this tab wrote, the only one it may take back. */
  boardScored: board((ui, { game, lastDice, wrote = ui.wrote ?? null }) => ({
    ...ui,
    game,
    hold: NO_HOLD,
    rolled: null,
    lastDice,
    wrote,
    ...clearMarks,
  })),

  /** A hint's answer: the dice to keep (gold, and held), or the box to write (gold). */
  boardHinted: board((ui, { game, hold = null, category = null }) =>
    hold
      ? { ...ui, game, hold: hold.slice(), hintHold: hold.slice(), hintCategory: null }
      : { ...ui, game, hintHold: null, hintCategory: category },
  ),

  /** One die held or let go (the view checks that the player may). */
  boardToggle: board((ui, { index }) => {
    const hold = (ui.hold || NO_HOLD).slice();
    hold[index] = !hold[index];
    return { ...ui, hold };
  }),

  /** 登记前确认: the box a first tap picked, for the position `version`. */
  boardPick: board((ui, { version, category }) => ({ ...ui, pick: { version, category } })),

  /** Other seats' steps to show one by one (`before`: the game as it was before them).
   * Steps arriving while a replay runs join its end (a room's events come one by one). */
  boardReplayAdd: board((ui, { steps, before = null }) => {
    if (!steps.length) return ui;
    if (ui.replay) return { ...ui, replay: { ...ui.replay, steps: [...ui.replay.steps, ...steps] } };
    return { ...ui, replay: { before, steps, index: 0 } };
  }),

  /** The replay's next step (nothing past its last). */
  boardReplayStep: board((ui) => {
    const r = ui.replay;
    if (!r || r.index + 1 >= r.steps.length) return ui;
    return { ...ui, replay: { ...r, index: r.index + 1 } };
  }),

  /** The replay is over (played out or skipped). */
  boardReplayEnd: board((ui) => (ui.replay ? { ...ui, replay: null } : ui)),

  // -- 多人同屏 (T7)

  /** The table's first state once its game is in (`wrote`: the box this tab wrote last,
   * as remembered for this tab, U14). */
  tableOpened: table((ui, { game, hold, handover, wrote = null }) => ({
    ...ui,
    game,
    hold: hold.slice(),
    wrote,
    handover,
    shown: null,
    showEnd: game.status === "finished",
    busy: false,
    replay: null,
    chances: null,
    meterKey: null,
  })),

  /** U14: the game went on elsewhere (another tab or device): `game` as it stands, this
   * turn's marks gone (the holds `hold`, as stored for its position), no replay, no lost
   * tap waiting; a handover screen shown turns to whoever is on turn now. */
  tableMovedOn: table((ui, { game, hold = NO_HOLD }) => movedOn(ui, game, hold)),

  /** U14: a tap the network lost, on position `version` of game `id`: never sent later;
   * the table waits for the server to answer again (`tableBack`). */
  tableOffline: table((ui, { id, version }) => ({ ...ui, offline: { id, version } })),

  /** U14: the server answers again (`game`, read just now): the same position as the lost
   * tap's keeps the table as it is; another is shown as a game that went on. */
  tableBack: table((ui, { game, hold = NO_HOLD }) => {
    const lost = ui.offline;
    if (!lost) return ui;
    if (lost.id !== game.id) return { ...ui, offline: null };
    if (game.version === lost.version) return { ...ui, game, offline: null };
    return movedOn(ui, game, hold);
  }),

  /** A tap went through after a lost one: nothing is waited for any more. */
  tableOfflineOver: table((ui) => (ui.offline ? { ...ui, offline: null } : ui)),

  /** A new game at the same seats (重新开始, 再来一局). */
  tableRestarted: table((ui, { game }) => ({
    ...ui,
    game,
    hold: NO_HOLD,
    replay: null,
    handover: null,
    showEnd: false,
    shown: null,
    lastDice: null,
    chances: null,
    rolled: null,
    ...clearMarks,
  })),

  /** The handover screen for seat `seat` (null: closed); the card shows the seat on turn. */
  tableHandover: table((ui, { seat }) => ({ ...ui, handover: seat, shown: null })),

  /** The card of seat `seat` shown (a tap on the standings). */
  tableShown: table((ui, { seat }) => ({ ...ui, shown: seat })),

  /** The end panel shown or closed. */
  tableShowEnd: table((ui, { show }) => ({ ...ui, showEnd: show })),

  /** L4/T5: the chances of position `key` were asked for. */
  tableMeterAsked: table((ui, { key }) => ({ ...ui, meterKey: key })),

  /** The chances of position `key`; an answer for an older position is dropped. */
  tableChances: table((ui, { key, chances }) => (ui.meterKey === key ? { ...ui, chances } : ui)),

  /** The seat editor's rows (each keeps its `id`, the DOM's key). */
  tableSeats: (state, { seats }) => onUi(state, SEATS, (ui) => ({ ...ui, seats })),

  /** 开始多人同屏 was pressed (a second press waits for the first). */
  tableStarting: (state, { on }) => onUi(state, SEATS, (ui) => ({ ...ui, starting: on })),

  /** The game a 开始 just created, for the table's load (then its computers replayed). */
  tableHandoff: (state, { game }) => ({ ...state, tableHandoff: game }),

  // -- 好友房间

  /** The player's own holds on their turn (sent to the room as they change). */
  roomMyHold: room((ui, { hold }) => ({ ...ui, myHold: hold.slice() })),

  /** The player threw the dice not in `hold` (they tumble; the holds start again), and a
   * replay still running is over (its outcome is on the table). */
  roomRolled: room((ui, { hold }) => ({
    ...ui,
    myHold: [false, false, false, false, false],
    rolled: hold.map((h) => !h),
    rollSerial: (ui.rollSerial || 0) + 1,
    replay: null,
  })),

  /** A room request asked (busy), or failed (`error`: the server's words). */
  roomBusy: room((ui) => ({ ...ui, busy: true, error: null, notice: null })),
  roomFailed: room((ui, { error }) => ({ ...ui, busy: false, error, notice: null })),
  roomIdle: room((ui) => (ui.busy ? { ...ui, busy: false } : ui)),

  /** U14: a game action the network lost, tapped on the game's position `version`: never
   * sent later; `error` says so until the room is read again (`roomBack`). */
  roomOffline: room((ui, { version, error }) => ({ ...ui, busy: false, notice: null, error, offline: { version } })),

  /** U14: the room was read again after a lost tap (or a tap went through): nothing is
   * waited for any more, and what the lost tap's message said no longer holds. */
  roomBack: room((ui) => (ui.offline ? { ...ui, offline: null, error: null } : ui)),

  /** The event stream's state: null while live, else {message} saying why not (F9). */
  roomStream: room((ui, { stream }) => ({ ...ui, stream })),

  /** The clock the countdown reads (ticked each second while the room is open). */
  roomTick: room((ui, { now }) => ({ ...ui, now })),

  /** The room a rematch opened. */
  roomRematch: room((ui, { room: id }) => ({ ...ui, rematch: id })),

  /** The invite link was copied. */
  roomCopied: room((ui) => ({ ...ui, copied: true })),
};

/** Seat `i`'s card while a replay runs: as it was before the replay until the step where
 * that seat writes its box (a replay shows the past, then the present). */
export function shownCard(replay, game, i) {
  if (!replay) return game.seats[i];
  const mine = replay.steps.map((s, j) => (s.seat === i && s.action === "score" ? j : -1)).filter((j) => j >= 0);
  if (!mine.length || replay.index >= mine[mine.length - 1]) return game.seats[i];
  return replay.before ? replay.before.seats[i] : emptyCard(game.seats[i]);
}

/** A seat's card before its first box (a new game's replay shows it filling). */
function emptyCard(seat) {
  const scores = Object.fromEntries(Object.keys(seat.scores).map((c) => [c, null]));
  return { ...seat, scores, upper_subtotal: 0, upper_bonus: 0, lower_total: 0, yahtzee_bonus: 0, total: 0 };
}

/** 登记前确认's picked box (polish 8): `pick` ({version, category}) while the game is still at
 * that version and the server still offers that box; else null (a stale pick is never written). */
export function pickedBox(pick, game) {
  if (!pick || !game || pick.version !== game.version) return null;
  const option = game.preview && game.preview[pick.category];
  return option && option.allowed ? pick.category : null;
}

/** The step on show, or null. */
export const replayStep = (replay) => (replay ? replay.steps[replay.index] : null);

/** 好友房间: the steps a room event shows to the viewer sitting at `mine` (null: a watcher),
 * `before` the room's game as it was and `holds` the last holds seen ({seat, hold}). Another
 * seat's roll is one step (its dice, what it held); a box written — by a friend, or by 托管
 * for an away seat, whose whole turn is one event — one step with the box and points (the
 * game's turn log's line); the computers' turns that followed, theirs (`computer_turns`). The
 * viewer's own actions are not replayed to them (their page showed them), but the computers
 * after them are. */
export function roomSteps(before, event, mine, holds) {
  const game = event.game;
  if (!game || !["roll", "score"].includes(event.kind)) return [];
  const steps = [];
  const own = event.seat === mine && !event.proxy;
  if (!own && (event.kind === "score" || event.proxy)) {
    const t = (game.turns || []).filter((x) => x.seat === event.seat).at(-1);
    if (t) steps.push({ action: "score", seat: t.seat, round: t.round, dice: t.dice, category: t.category, points: t.points });
  } else if (!own && game.dice && game.turn === event.seat) {
    const kept = before && before.dice && holds && holds.seat === event.seat ? holds.hold : [false, false, false, false, false];
    steps.push({ action: "roll", seat: event.seat, round: game.round, dice: game.dice, hold: kept.slice() });
  }
  if (event.kind === "score" || event.proxy) {
    for (const t of game.computer_turns || []) {
      for (const s of t.steps) steps.push({ ...s, seat: t.seat, round: t.round });
    }
  }
  return steps;
}

/** The game's turn log as far as a replay has shown it: a box not yet reached is left out. */
export function shownTurns(turns, replay) {
  if (!replay) return turns;
  const ahead = replay.steps.slice(replay.index + 1).filter((s) => s.action === "score");
  return turns.filter((t) => !ahead.some((s) => s.seat === t.seat && s.category === t.category && s.round === t.round));
}
