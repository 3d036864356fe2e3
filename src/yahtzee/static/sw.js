// The home-screen app's service worker (polish 10): it keeps the page's own files so the game
// opens at once, and opens at all without a network — where the page then says plainly that
// the server is needed. The game itself always goes to the server: /api/ is never touched.
//
// The page's files live under /v/<release>/ and never change (a new release is a new prefix),
// so they are served from the cache first. The page itself is asked of the network first (a
// new release shows at once); for when the network is gone, the worker keeps the app's own
// page, fetched by its own address "/" when the page says which release it loaded. It never
// keeps whatever a navigation happened to get: a visit to /docs or /openapi.json would
// otherwise become the offline "game" (issue 28). The page kept is in the language the
// player reads now (G2): the page says it with the files, and again when it changes.

const CACHE = "yahtzee-shell";
const PAGE = "/";
const RELEASE = /^\/v\/[A-Za-z0-9_-]+$/;
const LANG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/;

// The page in `lang`, as the server writes it for a reader asking for it: by
// Accept-Language and without the cookie, so that the player's stored choice (which the
// page may be sending at this moment) does not answer in the language it replaces.
function pageRequest(lang) {
  const url = new URL(PAGE, self.location.origin).href;
  if (typeof lang !== "string" || !LANG.test(lang)) return new Request(url);
  return new Request(url, { headers: { "Accept-Language": lang }, credentials: "omit" });
}

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// The page tells the worker what it loaded (its release, files and language): they are
// cached now, from the browser's HTTP cache, and the files of older releases go.
self.addEventListener("message", (event) => {
  const { type, release, urls, lang } = event.data || {};
  if (type !== "shell" || typeof release !== "string" || !RELEASE.test(release) || !Array.isArray(urls)) return;
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const page = await fetch(pageRequest(lang));
      if (!page.ok) throw new TypeError(`the page: ${page.status}`);
      await cache.addAll(urls.filter((u) => typeof u === "string" && u.startsWith(`${release}/`)));
      await cache.put(PAGE, page);
      for (const request of await cache.keys()) {
        const path = new URL(request.url).pathname;
        if (path.startsWith("/v/") && !path.startsWith(`${release}/`)) await cache.delete(request);
      }
    })(),
  );
});

async function fromCacheFirst(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

async function pageFromNetworkFirst(request) {
  try {
    return await fetch(request);
  } catch (err) {
    // Every view of the game is the same page: the one kept serves any of its addresses.
    // (one page is kept, in one language: whatever the request's headers, it is the one)
    const kept = await (await caches.open(CACHE)).match(PAGE, { ignoreVary: true });
    if (kept) return kept;
    throw err;
  }
}

async function fromNetworkFirst(request) {
  try {
    return await fetch(request);
  } catch (err) {
    const kept = await caches.match(request);
    if (kept) return kept;
    throw err;
  }
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/")) return;
  if (url.pathname.startsWith("/v/")) event.respondWith(fromCacheFirst(request));
  else if (request.mode === "navigate") event.respondWith(pageFromNetworkFirst(request));
  else event.respondWith(fromNetworkFirst(request));
});

// W4: a reminder (docs/push.md). The server sends only values — the topic, the seats' names,
// the round, the link, the deadline — and the worker says them in the words the page kept
// in its cache for this device's language (push.js), so nothing of the sentence travels.
// A tap opens the link (a path of this site, never another's), or focuses a window on it.
const PUSH_CACHE = "yahtzee-push";
const PUSH_WORDS = "/push-words.json";

const fill = (text, values) =>
  String(text || "").replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
const pathOf = (link) => (typeof link === "string" && /^\/(?!\/)/.test(link) ? link : "/");

async function remind(data) {
  const kept = await (await caches.open(PUSH_CACHE)).match(PUSH_WORDS);
  const words = kept ? await kept.json() : null;
  const link = pathOf(data.link);
  const said = words && words[data.topic];
  const options = { tag: link, renotify: true, icon: "/icons/icon-192.png", data: { link } };
  if (!said) return self.registration.showNotification(self.location.host, options);
  const seats = Array.isArray(data.seats) ? data.seats.map((name) => name || words.computer) : [];
  const values = { seats: seats.join(words.separator), round: Number(data.round) || "" };
  if (typeof data.due === "number") {
    const time = { hour: "2-digit", minute: "2-digit", month: "numeric", day: "numeric" };
    values.time = new Intl.DateTimeFormat(words.lang, time).format(new Date(data.due * 1000));
  }
  const body = fill(said.body, values);
  return self.registration.showNotification(fill(said.title, values), { ...options, body, lang: words.lang });
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = (event.data && event.data.json()) || {};
  } catch {
    // (not JSON: shown as a bare reminder, which opens the lobby)
  }
  event.waitUntil(remind(data));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(pathOf(event.notification.data && event.notification.data.link), self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const same = windows.find((client) => client.url === url);
      if (same) return same.focus();
      const any = windows.find((client) => "navigate" in client);
      const moved = any ? await any.navigate(url) : null;
      return moved ? moved.focus() : self.clients.openWindow(url);
    })(),
  );
});
