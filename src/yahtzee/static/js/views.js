// Lazy views: pages whose code loads on their first visit only, so the first load of the
// game stays small (P6): 规则, 复盘, 统计, 练习, 每日挑战, 小组 and 我的设备. A new page is added the
// same way (a new feature's page touches, outside its package and its lazy module, only
// this registry, messages.js, index.html's lobby entry and web/app.py's FEATURES):
//
//   1. Here, in LAZY: its address, `path` (`:name` is one segment; paths.js `register`s it
//      for `href` and `match`), the same address as its feature's spa_paths
//      (yahtzee/<feature>/__init__.py), or in web/app.py's SPA_PATHS for a page of no
//      feature (tests/js/modules.test.js checks); its feature's API paths, `api`, as
//      functions of their ids (they join paths.js's API; docs/api.md lists each).
//   2. Also in its entry: its heading, its loading text, `load(params)` (the requests for its
//      data, run as an effect when the address is opened) and `module` (the import). A
//      view's own requests belong in its module, so that they load with it, not with the
//      page: `...own(view, module)` gives both, `load` running the module's
//      `load[view](params)` (built on api.js's `request`) once the module is in;
//      `back: "return"` for a 「← 返回」 to the view it was opened from, which keeps the
//      table as it was (the default is 「← 大厅」, and the table's replay stops).
//   3. lazy/<name>.js exports `view = {render(body, page, ctx), reducers?}`. `render` draws
//      `state.page` ({params, status, data, ui}; only called once data is "ready") into
//      the view's body: DOM only — no fetch, no storage — and any number of times (the
//      loader empties the body for each new page; draw what is missing, update the rest).
//      Its event handlers call `ctx.dispatch(action)`: named actions of its own for the
//      view's small state in `page.ui` (`reducers`, pure, added to the funnel on load;
//      each view's own module holds them, never a free-form patch);
//      `ctx.afterRender(fn)` moves the focus; `ctx.api` and `ctx.open(path)` are there
//      for a handler's requests and links, `ctx.play(game)` takes a game to the table,
//      `ctx.board` is the page's one board (board/board.js: a view that plays a game says
//      `board: true` in its entry, and puts the board in its body with its mode). Shared helpers live in lazy/dom.js (never import
//      one view from another: the modules form no cycle, tests/js/modules.test.js checks).
//      `ctx.state()` reads the store.
//   4. messages.js VIEW_TITLES: its document title; css: an optional stylesheet of its own;
//      `chunk`: its words' chunk of the catalogs (G1, docs/i18n.md: its keys are
//      `<chunk>.*`), loaded in the page's language before the view first draws (and in a
//      new language when the player changes it, js/i18n.js).
//   5. A view with a life of its own (a board, a live stream) exports `mount(page, ctx)`,
//      called once its data is ready; it returns its session (`{stop()}` and what its
//      `render` needs, which receives it: `render(body, page, ctx, session)`), stopped when
//      the view is left or opened anew. A view that plays a saved game from 继续游戏 names
//      its mode in its entry: `continues`.
// This module builds each view's <section> (back link, heading, message slot, body), so
// index.html needs nothing for a new view.

import { ApiError, api } from "./api.js";
import { language, load as loadWords, t, translate } from "./i18n.js";
import { asset, href, register } from "./paths.js";
import * as say from "./messages.js";
import { addReducers } from "./reducer.js";
import { boardShown } from "./state.js";

/** Marks a key held in a table (the extractor finds it; `t` says it when drawn). */
const N_ = (key) => key;
const room = () => import("./lazy/room.js"); // 好友房间
const race = () => import("./lazy/race.js"); // 同骰竞速
const tutorial = () => import("./lazy/tutorial.js");
const T = (data) => {
  const module = () => import("./lazy/table.js");
  // (its words' chunk before its data: the seat editor's first seats are named in it)
  const load = () => Promise.all([module(), loadWords("table")]).then(([m]) => data(m));
  return { heading: N_("core.view.table"), loading: N_("core.view.loading_short"), chunk: "table", css: "css/table.css", load, module };
};
/** A view whose module makes its own requests (they load with it, not with the page):
 * `load` brings the module, then its data, the module's `load[view](params)`. */
const own = (view, module) => ({ module, load: (params) => module().then((m) => m.load[view](params)) });
const review = () => import("./lazy/review.js");
const stats = () => import("./lazy/stats.js");
const practice = () => import("./lazy/practice.js"); // 练习 and 「练习这一步」
const daily = () => import("./lazy/daily.js"); // 每日挑战 and 小组
const D = (view, heading, path) => ({ path, heading, loading: N_("core.view.opening"), css: "css/daily.css", className: "daily-view", ...own(view, daily) });
const enc = encodeURIComponent;

export const LAZY = {
  rules: {
    path: "/rules",
    heading: N_("core.view.rules"),
    loading: N_("core.view.rules_loading"),
    back: "return",
    className: "rules",
    css: "css/rules.css",
    load: () => api.text(asset(`i18n/${language()}/rules.html`)), // (made per language by the server)
    module: () => import("./lazy/rules.js"),
  },
  review: { path: "/review/:id", heading: N_("core.view.review"), loading: N_("core.view.review_loading"), css: "css/review.css", ...own("review", review) },
  stats: { path: "/stats", heading: N_("core.view.stats"), loading: N_("core.view.stats_loading"), css: "css/review.css", ...own("stats", stats) },
  practice: {
    path: "/practice",
    heading: N_("core.view.practice"),
    loading: N_("core.view.practice_loading"),
    css: "css/practice.css",
    ...own("practice", practice),
    api: {
      puzzleNext: () => "/api/puzzles/next",
      puzzleAnswer: (id) => `/api/puzzles/${enc(id)}/answer`,
      puzzleProgress: () => "/api/puzzles/progress",
      puzzleThemes: () => "/api/puzzles/themes",
    },
  },
  // 「练习这一步」: decision n of game g (复盘) as a puzzle, at /practice/g-n (one segment: a
  // game id has no "-").
  drill: {
    path: "/practice/:id",
    heading: N_("core.view.drill"),
    loading: N_("core.view.practice_loading"),
    css: "css/practice.css",
    back: "return",
    className: "practice-view",
    ...own("drill", practice),
  },
  // 好友房间 (/rooms/new: a new one); a room's API: /api/rooms[/{id}[/{action}]].
  room: {
    path: "/rooms/:id",
    heading: N_("core.view.room"),
    loading: N_("core.view.loading_short"),
    chunk: "room",
    css: "css/room.css",
    module: room,
    load: (p) => Promise.all([room(), loadWords("room")]).then(([m]) => m.load(p)),
    board: true, // a started room's game is played on the page's board
    api: { room: (id, a) => `/api/rooms${id ? `/${enc(id)}` : ""}${a ? `/${a}` : ""}`, roomTurns: () => "/api/rooms/turns" },
  },
  // 同骰竞速 (W5): a race room (/races/new: a new one), played on the board; its API is the
  // rooms' (API.room above).
  race: {
    path: "/races/:id",
    heading: N_("core.view.race"),
    loading: N_("core.view.loading_short"),
    chunk: "race",
    css: "css/race.css",
    module: race,
    load: (p) => Promise.all([race(), loadWords("race")]).then(([m]) => m.load(p)),
    board: true, // this seat's own game is played on the page's board
  },
  // 多人同屏 (T7): the seat editor and the table, one module; 继续游戏 of a table game.
  seats: { path: "/table/new", ...T((m) => m.seats()) },
  table: { path: "/table", continues: "table", board: true, ...T((m) => m.loadGame(api)) },
  // 每日挑战 and 小组 (D2-D6): four addresses, one module (lazy/daily.js, which also makes
  // their requests). An invite link is /groups/join#<token>: the token stays in the
  // fragment (never sent to the server); join comes before :id so it is not an id.
  daily: {
    ...D("daily", N_("core.view.daily"), "/daily"),
    api: {
      daily: () => "/api/daily",
      leaderboard: (day) => `/api/daily/${enc(day)}/leaderboard`,
      groups: () => "/api/groups",
      groupLookup: () => "/api/groups/lookup",
      groupJoin: () => "/api/groups/join",
      group: (id) => `/api/groups/${enc(id)}`,
      groupInvite: (id) => `/api/groups/${enc(id)}/invite`,
      groupLeave: (id) => `/api/groups/${enc(id)}/leave`,
      groupClose: (id) => `/api/groups/${enc(id)}/close`,
      groupMember: (id, member) => `/api/groups/${enc(id)}/members/${enc(member)}`,
    },
  },
  groups: D("groups", N_("core.view.groups"), "/groups"),
  groupJoin: D("groupJoin", N_("core.view.group_join"), "/groups/join"),
  group: D("group", N_("core.view.group"), "/groups/:id"),
  // 我的设备 (I1-I4); a link code's QR link is /devices#code=ABCD-EFGH (the fragment).
  devices: {
    path: "/devices",
    // /api/devices, /api/devices/{code,link,recovery,recover,signout},
    // /api/devices/{id}/{remove,confirm}, /api/devices/recovery/remove,
    // /api/devices/requests/{id}/refuse
    api: {
      devices: (a, id) => `/api/devices${id ? `/${enc(id)}` : ""}${a ? `/${a}` : ""}`,
      deviceRefuse: (id) => `/api/devices/requests/${enc(id)}/refuse`,
      meExport: () => "/api/me/export",
      meDelete: () => "/api/me/delete",
      push: (a = "") => `/api/push${a}`,
    },
    heading: N_("core.view.devices"),
    loading: N_("core.view.opening"),
    css: "css/devices.css",
    className: "daily-view",
    back: "return",
    ...own("devices", () => import("./lazy/devices.js")),
  },
};

for (const [id, entry] of Object.entries(LAZY)) register(id, entry);

// Lazy overlays (新手教程 over the table, L10; the live meter, L4): fetched the first time
// `wanted(state)`; `module` exports `overlay = {render(state, shown, ctx), reducers?,
// effect?, install?}`, `load()` (if any) its data (into `state.overlays[id]`), `failed(ctx)`
// (if any) says a failed load (asked again the next time it is wanted). See installOverlays.
// 撤销 / 登记前确认 (polish 8) and 声音 (polish 9) load once the page is up (their 设置 rows).
export const OVERLAYS = {
  tutorial: {
    css: "css/tutorial.css",
    wanted: (state) => {
      const b = boardShown(state);
      // (the overlay's own state, once loaded: the game it was ended for)
      return b !== null && b.game.kind === "tutorial" && (state.tutorial || {}).closedFor !== b.game.id;
    },
    load: () => tutorial().then((m) => m.load()),
    module: tutorial,
    // (not asked again for this game: only once it is wanted anew, views.js)
    failed: (ctx) => ctx.dispatch({ type: "say", text: say.tutorialFailed(), kind: "error" }),
  },
  // The live meter's drawing (its figures are asked for by effects.js, in the first load):
  // only a board shows it. Wanted once the lobby's data is in (its start buttons wait for
  // that, so the module is in before a game can start) or a board is shown; a page opened
  // elsewhere (规则, 复盘) never loads it. Until it is in, the box stays hidden.
  meter: {
    css: "css/meter.css",
    wanted: (state) => state.lobbyReady || boardShown(state) !== null,
    module: () => import("./lazy/meter.js"),
  },
  mistap: { css: "css/mistap.css", wanted: () => true, load: () => null, module: () => import("./lazy/mistap.js") },
  sound: { wanted: () => true, load: () => null, module: () => import("./lazy/sound.js") },
  // U16: a 快艇's and a 新纪录's celebration, once a table is shown (not on a first visit).
  celebrate: {
    css: "css/celebrate.css",
    wanted: (state) => boardShown(state) !== null,
    load: () => null,
    module: () => import("./lazy/celebrate.js"),
  },
  // U20: a browser whose device ended (removed, deleted, expired, signed out) is told so
  // once, on whatever page it opens (api.js onNotice → state.notice).
  notice: {
    css: "css/devices.css",
    wanted: (state) => state.notice !== null,
    load: () => null,
    module: () => import("./lazy/notice.js"),
  },
  // W2: 「轮到你了」 on the lobby's 好友房间 card, the title's count and the app's badge: once
  // the lobby's data is in, or a room is open (its words load only when it lists a game).
  turns: {
    css: "css/turns.css",
    wanted: (state) => state.lobbyReady || Boolean(state.page && state.page.view === "room"),
    load: () => null,
    module: () => import("./lazy/turns.js"),
  },
  // L11: the glossary's words and the 「?」 / verdict styles, once the page is up.
  words: { css: "css/words.css", wanted: () => true, load: () => null, module: () => import("./lazy/glossary.js") },
};

const loaded = new Map(); // view id → its module's `view` (loaded code, not page state)

function el(tag, attrs, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.textContent = text;
  return e;
}

function stylesheet(name) {
  const url = asset(name);
  if (document.querySelector(`link[href="${url}"]`)) return Promise.resolve();
  return new Promise((resolve) => {
    const link = el("link", { rel: "stylesheet", href: url });
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve); // the page still works unstyled
    document.head.append(link);
  });
}

async function loadModule(id) {
  const entry = LAZY[id];
  if (!loaded.has(id)) {
    const [m] = await Promise.all([
      entry.module(),
      entry.css ? stylesheet(entry.css) : null,
      entry.chunk ? loadWords(entry.chunk) : null,
    ]);
    if (m.view.reducers) addReducers(m.view.reducers);
    loaded.set(id, m.view);
  }
  return loaded.get(id);
}

/** Build the lazy views' sections; returns {open(view, params), render(state), translate()}. `open`
 * shows the view at once (its heading has the focus) and loads its module and data;
 * `render` is called by the page's render with the state (pure: DOM only). */
export function installLazyViews(store, { open: openPath, play, boards }) {
  const main = document.getElementById("main");
  const sections = [];
  for (const [id, entry] of Object.entries(LAZY)) {
    const section = el("section", {
      id: `view-${id}`,
      class: `view ${entry.className || `${id}-view`}`,
      "aria-labelledby": `${id}-title`,
    });
    section.hidden = true;
    const back = el("p", {});
    const attrs = { class: "btn btn-small", "data-testid": `${id}-back`, id: `${id}-back` };
    back.append(
      entry.back === "return"
        ? el("button", { type: "button", ...attrs, "data-i18n": "core.view.back" }, t("core.view.back"))
        : el("a", { href: href("lobby"), "data-nav": "lobby", ...attrs, "data-i18n": "core.view.back_lobby" }, t("core.view.back_lobby")),
    );
    section.append(
      back,
      // (data-i18n: i18n.js's translate() says the heading again after a change of language)
      el("h1", { id: `${id}-title`, class: "view-title", tabindex: "-1", "data-i18n": entry.heading }, t(entry.heading)),
      el("div", { class: "message-slot", "data-slot": id }),
      el("div", { id: `${id}-body`, "data-testid": `${id}-body` }),
    );
    main.append(section);
    sections.push(section);
  }

  const ctx = {
    dispatch: (action) => store.dispatch(action),
    state: () => store.state,
    afterRender: (fn) => store.afterRender(fn),
    api,
    open: openPath,
    play,
    /** The page's one board (board/board.js): there for a view whose entry says `board`. */
    get board() {
      return boards.get();
    },
  };

  let live = null; // {serial, session} of the page open (step 5)
  const stopLive = () => live && (live.session.stop(), (live = null));

  function open(view, params) {
    stopLive();
    store.dispatch({ type: "pageOpen", view, params });
    const { serial } = store.state.page;
    store.afterRender(() => {
      window.scrollTo(0, 0);
      document.getElementById(`${view}-title`).focus({ preventScroll: true });
    });
    Promise.all([loadModule(view), LAZY[view].load(params), LAZY[view].board ? boards.load() : null]).then(
      ([module, data]) => {
        store.dispatch({ type: "pageLoaded", serial, data });
        if (module.mount && store.state.page.serial === serial) {
          live = { serial, session: module.mount(store.state.page, ctx) };
        }
      },
      (err) => {
        if (!(err instanceof ApiError)) console.warn(err);
        const error = err instanceof ApiError ? err.message : t("core.view.failed");
        store.dispatch({ type: "pageFailed", serial, error });
      },
    );
  }

  function render(state) {
    const page = state.page;
    if (live && (!page || page.serial !== live.serial || page.view !== state.view)) stopLive();
    if (!LAZY[state.view] || !page || page.view !== state.view) return;
    const body = document.getElementById(`${page.view}-body`);
    const key = `${page.serial}:${page.status}`;
    if (body.dataset.key !== key) {
      body.dataset.key = key;
      if (page.status === "loading") {
        body.setAttribute("aria-busy", "true");
        body.replaceChildren(el("p", { class: "fine", "data-i18n": LAZY[page.view].loading }, t(LAZY[page.view].loading)));
      } else {
        body.removeAttribute("aria-busy");
        body.replaceChildren();
      }
      if (page.status === "error") {
        const attrs = { class: "rv-error", role: "alert", "data-testid": `${page.view}-error` };
        body.append(el("p", attrs, page.error));
      }
    }
    const session = live && live.serial === page.serial ? live.session : null;
    if (page.status === "ready") loaded.get(page.view).render(body, page, ctx, session);
  }

  /** Say the sections' words (headings, back links) again: once the page's first chunk is
   * in (main.js builds them before), and i18n.js's translate() after a change. */
  const words = () => sections.forEach((section) => translate(section));

  return { open, render, translate: words };
}

/** {effect, render} of the lazy overlays for the store (main.js); ctx: dispatch,
 * afterRender, state(), api and the page's actions. */
export function installOverlays(store, actions) {
  const ready = new Map(); // id → overlay, once loaded
  const asked = new Set();
  const ctx = {
    dispatch: (a) => store.dispatch(a),
    afterRender: (fn) => store.afterRender(fn),
    state: () => store.state,
    api,
    actions,
  };
  const failed = new Set(); // asked again once unwanted and wanted anew (no retry loop)
  const fetchOverlay = (id, entry) => {
    asked.add(id);
    const data = entry.load ? entry.load() : null;
    const words = entry.chunk ? loadWords(entry.chunk) : null; // (as a view's, G1)
    Promise.all([entry.module(), data, entry.css && stylesheet(entry.css), words]).then(
      ([m, data]) => {
        if (m.overlay.reducers) addReducers(m.overlay.reducers);
        if (m.overlay.install) m.overlay.install(ctx);
        ready.set(id, m.overlay);
        store.dispatch({ type: "overlayLoaded", id, data });
      },
      (err) => {
        failed.add(id);
        if (!(err instanceof ApiError)) console.warn(err);
        if (entry.failed) entry.failed(ctx);
      },
    );
  };
  return {
    effect(state, previous) {
      for (const [id, entry] of Object.entries(OVERLAYS)) {
        const overlay = ready.get(id);
        if (overlay) overlay.effect && overlay.effect(store.state, previous, ctx);
        else if (entry.wanted(state)) {
          if (!asked.has(id)) fetchOverlay(id, entry);
        } else if (failed.delete(id)) asked.delete(id);
      }
    },
    render(state) {
      for (const [id, overlay] of ready) overlay.render(state, OVERLAYS[id].wanted(state), ctx);
    },
  };
}
