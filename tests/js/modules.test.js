// The page's modules as files: one table of addresses (paths.js, with the lazy views'
// own from their registry entries in views.js) that agrees with the server's and the API's
// docs, one fetch (api.js), one storage (remember.js), and no import cycle — the lazy views
// included (a cycle would load one view's code with another's).

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";

const ROOT = new URL("../../", import.meta.url);
const JS = new URL("src/yahtzee/static/js/", ROOT);
const read = (url) => readFileSync(url, "utf-8");
const MODULES = [
  ...readdirSync(JS).filter((f) => f.endsWith(".js")),
  ...["board", "lazy"].flatMap((dir) =>
    readdirSync(new URL(`${dir}/`, JS)).filter((f) => f.endsWith(".js")).map((f) => `${dir}/${f}`),
  ),
];
const source = Object.fromEntries(MODULES.map((m) => [m, read(new URL(m, JS))]));

/** Every module a module imports, statically or with import(), as paths under js/. */
function imports(name) {
  const dir = name.includes("/") ? name.slice(0, name.lastIndexOf("/") + 1) : "";
  const found = source[name].matchAll(/^import\s[^;]*?"(\.{1,2}\/[^"]+)"|import\(\s*"(\.{1,2}\/[^"]+)"/gm);
  return [...found].map(([, a, b]) => new URL(a || b, new URL(dir, "file:///js/")).pathname.slice(4));
}

test("the modules form no import cycle (lazy views included)", () => {
  const state = {}; // undefined: not seen, 1: on the path, 2: done
  const visit = (name, path) => {
    assert.ok(name in source, `${path.at(-1)} imports a missing ${name}`);
    if (state[name] === 2) return;
    assert.notEqual(state[name], 1, `import cycle: ${[...path, name].join(" → ")}`);
    state[name] = 1;
    for (const next of imports(name)) visit(next, [...path, name]);
    state[name] = 2;
  };
  for (const name of MODULES) visit(name, []);
  assert.ok(imports("views.js").includes("lazy/review.js"), "the graph sees import()");
  assert.ok(imports("render.js").includes("state.js"), "and imports over several lines");
  assert.ok(imports("lazy/stats.js").includes("state.js"), "and ../ paths");
});

test("one fetch, one storage, one table of API paths", () => {
  for (const [name, text] of Object.entries(source)) {
    if (name !== "api.js") assert.doesNotMatch(text, /\bfetch\(/, `${name} fetches by itself`);
    if (name !== "remember.js") assert.doesNotMatch(text, /localStorage/, `${name} uses storage`);
    if (name !== "paths.js" && name !== "views.js") assert.doesNotMatch(text, /["`]\/api\//, `${name} writes an API path`);
  }
});

test("every page address is one the server answers with the page (SPA_PATHS)", async () => {
  const config = read(new URL("config.json", import.meta.url));
  globalThis.document = { getElementById: (id) => (id === "game-config" ? { textContent: config } : null) };
  const { PAGES, API, match, href } = await import(new URL("paths.js", JS));
  const { LAZY } = await import(new URL("views.js", JS)); // (registers each view's path)
  for (const [view, entry] of Object.entries(LAZY)) assert.equal(PAGES[view], entry.path, `${view} has its path`);
  const app = read(new URL("src/yahtzee/web/app.py", ROOT));
  // The tuple up to its closing line (a comment inside may hold parentheses), and each
  // feature package's spa_paths (the app adds them to SPA_PATHS).
  const tuples = [app.match(/SPA_PATHS = \(([\s\S]*?)\n\)/)[1]];
  const pkg = new URL("src/yahtzee/", ROOT);
  for (const name of readdirSync(pkg)) {
    const init = new URL(`${name}/__init__.py`, pkg);
    const found = existsSync(init) ? read(init).match(/spa_paths=\(([^)]*)\)/) : null;
    if (found) tuples.push(found[1]);
  }
  const spa = tuples.flatMap((t) => [...t.matchAll(/"([^"]+)"/g)].map((m) => m[1]));
  const placeholders = (path) => path.replace(/:\w+|\{\w+\}/g, "{}"); // any name: one segment
  for (const [view, path] of Object.entries(PAGES)) {
    const served = placeholders(path);
    assert.ok(spa.map(placeholders).includes(served), `${view} (${path}) is missing from SPA_PATHS (web/app.py or its feature's spa_paths)`);
    const params = path.includes(":") ? { id: "aZ_-9" } : {};
    assert.deepEqual(match(href(view, params)), { view, params });
  }
  assert.equal(match("/review/a b").view, "lobby", "not a game id");
  assert.equal(match("/stats/").view, "stats");
  assert.equal(match("/nowhere").view, "lobby");
  // Each API path is documented (docs/api.md writes the id as {id}).
  const docs = read(new URL("docs/api.md", ROOT));
  const documentedPaths = docs.replace(/\{\w+\}/g, "{id}"); // {date}, {member_id}: a segment
  for (const [name, path] of Object.entries(API)) {
    // Every argument an id ({member_id}: a group's member), or only the first (a room's
    // action is a word of its own: /api/rooms/{id}/join).
    const args = Array.from({ length: path.length }, () => "{id}");
    const shown = [path(...args), path("{id}")].map((p) => p.replaceAll("%7Bid%7D", "{id}"));
    assert.ok(shown.some((p) => documentedPaths.includes(p)), `API.${name}: ${shown[0]} is not in docs/api.md`);
  }
});
