// The one table of addresses: the page's own (each view has a real address, and the server
// answers every one of them with the same page: SPA_PATHS in web/app.py, with the feature
// packages' spa_paths, checked by tests/js/modules.test.js) and the API's (docs/api.md).
// The lazy views' entries (views.js) bring theirs, and their features' API paths, through
// `register`; nothing else in the page writes a path.

const enc = encodeURIComponent;

/** The page's addresses: the platform's eager views here, and every lazy view's, which
 * its entry in views.js's registry carries (`path`) and registers (`register`), so a new
 * view or feature adds no line here. `:name` is one path segment (a game's or a group's
 * id). */
export const PAGES = {
  lobby: "/",
  game: "/game",
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
  tutorial: () => "/api/tutorial",
  language: () => "/api/settings/language",
  // (A feature's own API paths come with its view's entry in views.js: `register`.)
};

// An id as the server writes it (a game's, a group's: URL-safe, at most 64 characters).
const SEGMENT = "([0-9A-Za-z_-]{1,64})";
const PATTERNS = [];
const pattern = (view, path) => {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  PATTERNS.push({ view, names, re: new RegExp(`^${path.replace(/:\w+/g, SEGMENT)}$`) });
};
for (const [view, path] of Object.entries(PAGES)) pattern(view, path);

/** A lazy view's page address (`path`) and its feature's API paths (`api`, if any), from
 * its registry entry (views.js). Addresses are matched in the order they are registered
 * (a literal segment before a :name one in the same place). */
export function register(view, { path, api }) {
  if (view in PAGES) throw new Error(`two views named ${view}`);
  PAGES[view] = path;
  pattern(view, path);
  for (const [name, fn] of Object.entries(api || {})) {
    if (name in API) throw new Error(`two API paths named ${name}`);
    API[name] = fn;
  }
}

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
