// The home-screen app's service worker (polish 10): it keeps the page's own files so the game
// opens at once, and opens at all without a network — where the page then says plainly that
// the server is needed. The game itself always goes to the server: /api/ is never touched.
//
// The page's files live under /v/<release>/ and never change (a new release is a new prefix),
// so they are served from the cache first. The page itself is asked of the network first (a
// new release shows at once); for when the network is gone, the worker keeps the app's own
// page, fetched by its own address "/" when the page says which release it loaded. It never
// keeps whatever a navigation happened to get: a visit to /docs or /openapi.json would
// otherwise become the offline "game" (issue 28).

const CACHE = "yahtzee-shell";
const PAGE = "/";
const RELEASE = /^\/v\/[A-Za-z0-9_-]+$/;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// The page tells the worker what it loaded (its release and files): they are cached now,
// from the browser's HTTP cache, and the files of older releases go.
self.addEventListener("message", (event) => {
  const { type, release, urls } = event.data || {};
  if (type !== "shell" || typeof release !== "string" || !RELEASE.test(release) || !Array.isArray(urls)) return;
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll([PAGE, ...urls.filter((u) => u.startsWith(`${release}/`))]);
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
    const kept = await (await caches.open(CACHE)).match(PAGE);
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
