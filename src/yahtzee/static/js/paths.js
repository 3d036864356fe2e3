// The one table of addresses: the page's own (each view has a real address, and the server
// answers every one of them with the same page: SPA_PATHS in web/app.py, with the feature
// packages' spa_paths, checked by tests/js/modules.test.js) and the API's (docs/api.md).
// Nothing else in the page writes a path.

const enc = encodeURIComponent;

/** The page's addresses. `:name` is one path segment (a game's or a group's id). */
export const PAGES = {
  lobby: "/",
  game: "/game",
  rules: "/rules",
  review: "/review/:id",
  stats: "/stats",
  practice: "/practice",
  // 「练习这一步」: decision n of game g as /practice/g-n (one segment: a game id has no "-").
  drill: "/practice/:id",

  room: "/rooms/:id", // 好友房间 (/rooms/new: a new one)
  // 多人同屏 (T7): the seat editor and the table
  seats: "/table/new",
  table: "/table",
  // 每日挑战 and 小组 (D2-D6). An invite link is /groups/join#<token>: the token stays in
  // the fragment (never sent to the server); join comes before :id so it is not an id.
  daily: "/daily",
  groups: "/groups",
  groupJoin: "/groups/join",
  group: "/groups/:id",
  // 我的设备 (I1-I4); a link code's QR link is /devices#code=ABCD-EFGH (the fragment).
  devices: "/devices",
};

/** The API's paths, by what they answer (docs/api.md). */
export const API = {
  config: () => "/api/config",
  records: () => "/api/records",
  games: () => "/api/games",
  current: () => "/api/games/current",
  game: (id) => `/api/games/${enc(id)}`,
  roll: (id) => `/api/games/${enc(id)}/roll`,
  score: (id) => `/api/games/${enc(id)}/score`,
  hint: (id) => `/api/games/${enc(id)}/hint`,
  undo: (id) => `/api/games/${enc(id)}/undo`,
  abandon: (id) => `/api/games/${enc(id)}/abandon`,
  meter: (id) => `/api/games/${enc(id)}/meter`,
  review: (id) => `/api/games/${enc(id)}/review`,
  stats: () => "/api/stats",
  puzzleNext: () => "/api/puzzles/next",
  puzzleAnswer: (id) => `/api/puzzles/${enc(id)}/answer`,
  puzzleProgress: () => "/api/puzzles/progress",
  puzzleThemes: () => "/api/puzzles/themes",
  tutorial: () => "/api/tutorial",
  room: (id, a) => `/api/rooms${id ? `/${enc(id)}` : ""}${a ? `/${a}` : ""}`,
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
  // 我的设备: /api/devices, /api/devices/{code,link,recovery,recover}, /api/devices/{id}/remove
  devices: (a, id) => `/api/devices${id ? `/${enc(id)}` : ""}${a ? `/${a}` : ""}`,
  meExport: () => "/api/me/export",
  meDelete: () => "/api/me/delete",
};

// An id as the server writes it (a game's, a group's: URL-safe, at most 64 characters).
const SEGMENT = "([0-9A-Za-z_-]{1,64})";
const PATTERNS = Object.entries(PAGES).map(([view, path]) => {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  return { view, names, re: new RegExp(`^${path.replace(/:\w+/g, SEGMENT)}$`) };
});

/** The address of one of the page's own files (`name` relative to static/, e.g.
 * "css/review.css"), under the same release prefix as this module (server/assets.py). */
export const asset = (name) => new URL(`../${name}`, import.meta.url).href;

/** `{view, params}` for an address (trailing slashes ignored); the lobby for anything else. */
export function match(pathname) {
  const path = pathname.replace(/\/+$/, "") || "/";
  for (const { view, names, re } of PATTERNS) {
    const m = path.match(re);
    if (m) return { view, params: Object.fromEntries(names.map((n, i) => [n, m[i + 1]])) };
  }
  return { view: "lobby", params: {} };
}

/** The address of `view` (with its `params`, e.g. `{id}` for a review). */
export function href(view, params = {}) {
  return PAGES[view].replace(/:(\w+)/g, (_, name) => enc(params[name]));
}
