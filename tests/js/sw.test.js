// The service worker (static/sw.js) in Node, with a fake Cache Storage and network: what it
// keeps as the offline page (issue 28 item 11). Before, every successful navigation was
// stored as the page, so visiting /docs or /openapi.json made the API page the offline
// "game"; now only the app's own page, fetched by its own address when the page says which
// release it loaded, is kept.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SOURCE = readFileSync(new URL("../../src/yahtzee/static/sw.js", import.meta.url), "utf-8");
const ORIGIN = "https://yahtzee.example";

function response(body, { status = 200, type = "text/html" } = {}) {
  return {
    body,
    status,
    ok: status >= 200 && status < 300,
    headers: new Map([["content-type", type]]),
    clone() {
      return response(body, { status, type });
    },
  };
}

/** A service worker global scope: its listeners, a Cache Storage and a network. */
function worker(site) {
  const listeners = {};
  const stores = new Map();
  const key = (request) => new URL(typeof request === "string" ? request : request.url, ORIGIN).href;
  const state = { online: true };
  async function fetch(request) {
    if (!state.online) throw new TypeError("offline");
    const path = new URL(key(request)).pathname;
    if (typeof site[path] === "function") return site[path](request);
    return path in site ? site[path].clone() : response("not found", { status: 404, type: "application/json" });
  }
  const cacheOf = (entries) => ({
    match: async (request) => entries.get(key(request)),
    put: async (request, value) => void entries.set(key(request), value),
    addAll: async (requests) => {
      // As the real one: all or nothing, and a response that is not ok fails it.
      const got = await Promise.all(requests.map((r) => fetch(r)));
      if (got.some((r) => !r.ok)) throw new TypeError("addAll: a response was not ok");
      requests.forEach((request, i) => entries.set(key(request), got[i]));
    },
    keys: async () => [...entries.keys()].map((url) => ({ url })),
    delete: async (request) => entries.delete(key(request)),
  });
  const caches = {
    open: async (name) => {
      if (!stores.has(name)) stores.set(name, new Map());
      return cacheOf(stores.get(name));
    },
    match: async (request) => {
      for (const entries of stores.values()) if (entries.has(key(request))) return entries.get(key(request));
      return undefined;
    },
  };
  const self = {
    location: new URL(ORIGIN),
    addEventListener: (type, fn) => (listeners[type] = fn),
    skipWaiting: () => {},
    clients: { claim: async () => {} },
  };
  vm.runInNewContext(SOURCE, { self, caches, fetch, URL, Request, console });
  return {
    state,
    kept: (path) => stores.get("yahtzee-shell")?.get(new URL(path, ORIGIN).href),
    /** A navigation (or another GET) through the worker: its answer, once any caching is done. */
    async get(path, mode = "navigate") {
      let answer = null;
      const waits = [];
      listeners.fetch({
        request: { method: "GET", url: new URL(path, ORIGIN).href, mode },
        respondWith: (p) => (answer = p),
        waitUntil: (p) => waits.push(p),
      });
      const result = answer === null ? null : await answer;
      await Promise.all(waits);
      return result;
    },
    async shell(release, urls, lang) {
      const waits = [];
      listeners.message({ data: { type: "shell", release, urls, lang }, waitUntil: (p) => waits.push(p) });
      await Promise.all(waits);
    },
  };
}

const SITE = {
  "/": response("<!doctype html><title>快艇骰子</title>GAME"),
  "/daily": response("<!doctype html><title>快艇骰子</title>GAME"),
  "/docs": response("<!doctype html><title>API</title>DOCS"),
  "/openapi.json": response('{"openapi": "3.1.0"}', { type: "application/json" }),
  "/v/abc123/js/main.js": response("export {};", { type: "text/javascript" }),
};

test("issue 28: visiting /docs or /openapi.json online does not make it the offline page", async () => {
  const sw = worker(SITE);
  await sw.shell("/v/abc123", ["/v/abc123/js/main.js"]);
  assert.match(sw.kept("/").body, /GAME/);
  for (const path of ["/docs", "/openapi.json", "/daily"]) {
    const answer = await sw.get(path);
    assert.equal(answer.body, SITE[path].body, "online, the network answers");
    assert.match(sw.kept("/").body, /GAME/, `${path} must not replace the kept page`);
  }
  sw.state.online = false;
  for (const path of ["/", "/daily", "/rules"]) {
    const answer = await sw.get(path);
    assert.match(answer.body, /GAME/, `offline, ${path} opens the game`);
  }
});

test("issue 28: before the page has said what to keep, a navigation keeps nothing", async () => {
  const sw = worker(SITE);
  await sw.get("/docs");
  await sw.get("/openapi.json");
  assert.equal(sw.kept("/"), undefined);
  sw.state.online = false;
  await assert.rejects(sw.get("/"), /offline/);
});

test("the page's release files are kept, other releases' go, and a foreign release is ignored", async () => {
  const sw = worker({ ...SITE, "/v/new/js/main.js": response("export {};", { type: "text/javascript" }) });
  await sw.shell("/v/abc123", ["/v/abc123/js/main.js"]);
  await sw.shell("/v/new", ["/v/new/js/main.js", "/docs"]);
  assert.ok(sw.kept("/v/new/js/main.js"));
  assert.equal(sw.kept("/v/abc123/js/main.js"), undefined);
  assert.equal(sw.kept("/docs"), undefined);
  await sw.shell("/docs", ["/docs/x"]); // not a release prefix: nothing is fetched or kept
  assert.equal(sw.kept("/docs/x"), undefined);
  assert.ok(sw.kept("/v/new/js/main.js"));
});

test("G2: the page kept is in the language the page says it is read in, and follows a change", async () => {
  const asked = [];
  const sw = worker({
    ...SITE,
    // The server: the cookie's stored choice first (the old one, while the page is still
    // sending the new), else Accept-Language.
    "/": (request) => {
      asked.push(request);
      const lang = request.credentials === "omit" ? request.headers.get("accept-language") : "zh-Hans";
      return response(`<!doctype html><html lang="${lang || "zh-Hans"}">GAME`);
    },
  });
  await sw.shell("/v/abc123", ["/v/abc123/js/main.js"], "zh-Hans");
  assert.match(sw.kept("/").body, /lang="zh-Hans"/);
  await sw.shell("/v/abc123", ["/v/abc123/js/main.js"], "en");
  assert.match(sw.kept("/").body, /lang="en"/, "the page kept follows the language");
  const last = asked.at(-1);
  assert.equal(last.headers.get("accept-language"), "en");
  assert.equal(last.credentials, "omit", "asked without the cookie: the stored choice may be the old one");
  sw.state.online = false;
  assert.match((await sw.get("/daily")).body, /lang="en"/, "offline, the game opens in it");
  // A language that is not a tag is not sent: the page as the browser would get it.
  sw.state.online = true;
  await sw.shell("/v/abc123", ["/v/abc123/js/main.js"], "en\r\nX-Evil: 1");
  assert.equal(asked.at(-1).headers.get("accept-language"), null);
  assert.match(sw.kept("/").body, /lang="zh-Hans"/);
});
