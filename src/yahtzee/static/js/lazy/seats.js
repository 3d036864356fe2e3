// 多人同屏's seat editor (/table/new, T7): who sits where, in what order, remembered in this
// browser; 开始 posts the table (POST /api/games) and hands the game to the table view
// (lazy/table.js, which imports this module: one lazy view of two addresses). The editor's
// rows are `page.ui.seats`, changed by the named action `tableSeats` (table.js).

import { el } from "./dom.js";
import { ApiError, request } from "../api.js";
import { CONFIG } from "../config.js";
import { confirmDialog } from "../dialog.js";
import { API, href } from "../paths.js";
import { read, write } from "../remember.js";
import { DIFFICULTY_NAMES, LIMITS, ROUNDS } from "../state.js";
import { t } from "../i18n.js";

// --------------------------------------------------------------------- the seat editor

/** `seats` with a key for the DOM each (not game data: rows keep their inputs on
 * reorder), after the keys of `taken`. */
function withIds(seats, taken = []) {
  const next = taken.reduce((m, s) => Math.max(m, s.id), 0) + 1;
  return seats.map((s, i) => ({ ...s, id: next + i }));
}

// T7: the last table started is remembered in this browser (remember.js's read/write).
const TABLE_KEY = "yahtzee.table";

/** The last table, or null (a damaged entry counts as none). */
function loadTable() {
  try {
    const seats = JSON.parse(read(TABLE_KEY) || "null");
    const levels = CONFIG.difficulties.map((d) => d.id);
    const ok =
      Array.isArray(seats) &&
      seats.length >= LIMITS.min_table_seats &&
      seats.length <= LIMITS.max_seats &&
      seats.every(
        (s) =>
          s &&
          ((s.kind === "human" && typeof s.name === "string") ||
            (s.kind === "computer" && levels.includes(s.difficulty))),
      );
    return ok ? seats : null;
  } catch {
    return null;
  }
}

/** The seat editor's data (views.js): its first table, the one remembered in this
 * browser, else two people. */
export function seats() {
  return { seats: startingSeats() };
}

function startingSeats() {
  const saved = loadTable();
  if (saved) return withIds(saved);
  return withIds([
    { kind: "human", name: t("table.seats.player", { n: 1 }) },
    { kind: "human", name: t("table.seats.player", { n: 2 }) },
  ]);
}

/** The seats as POST /api/games takes them (T1). */
export function seatsBody(seats) {
  return seats.map((s) =>
    s.kind === "human" ? { kind: "human", name: s.name } : { kind: "computer", difficulty: s.difficulty },
  );
}

function freshName(seats) {
  const taken = new Set(seats.map((s) => s.name));
  for (let n = seats.length + 1; ; n++) {
    const name = t("table.seats.player", { n });
    if (!taken.has(name)) return name;
  }
}

function shuffled(seats) {
  const out = seats.slice();
  const r = new Uint32Array(out.length);
  crypto.getRandomValues(r); // 随机顺序: the browser's randomness, never Math.random's
  for (let i = out.length - 1; i > 0; i--) {
    const j = r[i] % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export function drawEditor(body, page, ctx) {
  const seats = page.ui.seats || page.data.seats;
  const set = (next) => ctx.dispatch({ type: "tableSeats", seats: next });
  const min = LIMITS.min_table_seats;
  const max = LIMITS.max_seats;
  if (!body.firstChild) {
    body.append(
      el(
        "p",
        "fine",
        t("table.seats.intro", { min, max, rounds: ROUNDS, hints: LIMITS.hints_per_game }),
      ),
      el("ol", "seat-list", null, { "aria-label": t("table.seats.list") }),
    );
    const row = el("div", "seat-actions");
    const add = el("button", "btn", t("table.seats.add"), { type: "button", "data-testid": "add-seat" });
    add.addEventListener("click", () => {
      const now = ctx.state().page.ui.seats || seats;
      if (now.length >= max) return;
      set([...now, ...withIds([{ kind: "human", name: freshName(now) }], now)]);
      ctx.afterRender(() => {
        const input = body.querySelector(`[data-testid="seat-name-${now.length}"]`);
        if (input) input.focus();
      });
    });
    const shuffle = el("button", "btn", t("table.seats.shuffle"), { type: "button", "data-testid": "shuffle-seats" });
    shuffle.addEventListener("click", () => {
      const now = ctx.state().page.ui.seats || seats;
      set(shuffled(now));
      ctx.dispatch({ type: "say", text: t("table.seats.shuffled"), view: "seats" });
    });
    const start = el("button", "btn btn-primary", t("table.seats.start"), { type: "button", "data-testid": "start-table" });
    start.addEventListener("click", () => startTable(ctx, ctx.state().page.ui.seats || seats, false));
    row.append(add, shuffle, start);
    body.append(row);
  }
  const ol = body.querySelector(".seat-list");
  const shape = seats.map((s) => `${s.id}:${s.kind}`).join(",");
  if (ol.dataset.shape !== shape) {
    ol.dataset.shape = shape;
    const active = document.activeElement;
    const focused = active && active.dataset.testid;
    // A name being typed keeps its place: focus and selection move to the new field at
    // once, so a keystroke that arrives between the kind's change and this frame's render
    // (a select-all and its replacement, say) lands where the person put it.
    const range = active && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
    ol.replaceChildren(...seats.map((s, i) => seatRow(s, i, seats, ctx, set)));
    if (focused) {
      const again = body.querySelector(`[data-testid="${focused}"]`);
      if (again) {
        again.focus();
        if (range && typeof again.setSelectionRange === "function") again.setSelectionRange(...range);
      }
    }
  }
  seats.forEach((s, i) => {
    const name = body.querySelector(`[data-testid="seat-name-${i}"]`);
    if (name && name.value !== s.name) name.value = s.name;
    const level = body.querySelector(`[data-testid="seat-level-${i}"]`);
    if (level && level.value !== s.difficulty) level.value = s.difficulty;
  });
  body.querySelector('[data-testid="add-seat"]').disabled = seats.length >= max;
}

function seatRow(s, i, seats, ctx, set) {
  const li = el("li", `seat-row seat-${s.kind}`, null, { "data-testid": `seat-row-${i}` });
  const now = () => ctx.state().page.ui.seats || seats;
  const change = (fields) => set(now().map((x, j) => (j === i ? { ...x, ...fields } : x)));
  li.append(el("span", "seat-no", t("table.seats.no", { n: i + 1 })));
  const kind = el("select", "seat-kind", null, { "data-testid": `seat-kind-${i}`, "aria-label": t("table.seats.kind", { n: i + 1 }) });
  for (const [value, text] of [["human", t("table.seats.human")], ["computer", t("table.seats.computer")]]) {
    const o = el("option", "", text, { value });
    o.selected = s.kind === value;
    kind.append(o);
  }
  kind.addEventListener("change", () => {
    const k = kind.value;
    const x = now()[i];
    change(
      k === "human"
        ? { kind: k, name: x.name || freshName(now()), difficulty: undefined }
        : { kind: k, difficulty: x.difficulty || CONFIG.suggested_difficulty },
    );
  });
  li.append(kind);
  if (s.kind === "human") {
    const name = el("input", "seat-name", null, {
      type: "text",
      "data-testid": `seat-name-${i}`,
      "aria-label": t("table.seats.name", { n: i + 1 }),
      maxlength: LIMITS.max_name_chars,
      autocomplete: "off",
    });
    name.value = s.name;
    name.addEventListener("input", () => change({ name: name.value }));
    li.append(name);
  } else {
    const level = el("select", "seat-level", null, { "data-testid": `seat-level-${i}`, "aria-label": t("table.seats.level", { n: i + 1 }) });
    for (const d of CONFIG.difficulties) {
      const o = el("option", "", DIFFICULTY_NAMES[d.id], { value: d.id });
      o.selected = s.difficulty === d.id;
      level.append(o);
    }
    level.addEventListener("change", () => change({ difficulty: level.value }));
    li.append(level);
  }
  const move = (to, label, spoken, testid) => {
    const b = el("button", "btn btn-small", label, { type: "button", "data-testid": testid, "aria-label": spoken });
    b.disabled = to < 0 || to >= seats.length;
    b.addEventListener("click", () => {
      const next = now().slice();
      [next[i], next[to]] = [next[to], next[i]];
      set(next);
    });
    return b;
  };
  li.append(
    move(i - 1, t("table.seats.up"), t("table.seats.up_label", { n: i + 1 }), `seat-up-${i}`),
    move(i + 1, t("table.seats.down"), t("table.seats.down_label", { n: i + 1 }), `seat-down-${i}`),
  );
  const remove = el("button", "btn btn-small", t("table.seats.remove"), {
    type: "button",
    "data-testid": `remove-seat-${i}`,
    "aria-label": t("table.seats.remove_label", { n: i + 1 }),
  });
  remove.disabled = seats.length <= LIMITS.min_table_seats;
  remove.addEventListener("click", () => {
    set(now().filter((_, j) => j !== i));
    ctx.afterRender(() => {
      const b = document.querySelector('[data-testid="add-seat"]');
      if (b) b.focus();
    });
  });
  li.append(remove);
  return li;
}

/** POST the table; a saved game elsewhere (409 game_in_progress) is replaced only on a yes
 * (F2). A bad table (422 invalid_seats) is said as the server words it, naming the seat. */
export async function create(ctx, seats, replace, view) {
  try {
    const body = { mode: "table", seats: seatsBody(seats), ...(replace ? { replace: true } : {}) };
    return await request("POST", API.games(), body);
  } catch (err) {
    if (err instanceof ApiError && err.code === "game_in_progress" && !replace) {
      const yes = await confirmDialog({
        title: t("table.seats.replace.title"),
        text: t("table.seats.replace.text", { why: err.message }),
        yes: t("table.seats.replace.yes"),
        no: t("table.seats.replace.no"),
      });
      return yes ? create(ctx, seats, true, view) : null;
    }
    ctx.dispatch({ type: "say", text: err instanceof ApiError ? err.message : t("table.seats.failed"), kind: "error", view });
    return null;
  }
}

async function startTable(ctx, seats, replace) {
  if (ctx.state().page.ui.starting) return;
  ctx.dispatch({ type: "tableStarting", on: true });
  try {
    const game = await create(ctx, seats, replace, "seats");
    if (!game) return;
    write(TABLE_KEY, JSON.stringify(seatsBody(seats))); // T7: remembered
    // The table's load reads this game (then replays its computers' first turns).
    ctx.dispatch({ type: "tableHandoff", game });
    ctx.dispatch({ type: "say", text: "", view: "table" });
    ctx.open(href("table"));
  } finally {
    ctx.dispatch({ type: "tableStarting", on: false });
  }
}
