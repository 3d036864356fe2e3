// The page's words in its language (G1, G3; docs/i18n.md). The catalogs are the server's
// (src/yahtzee/locale/): it compiles each language's into one small module per chunk, a
// key's first segment (`core.*` the first view's, `page.*` index.html's own words, one per
// lazy view), served under the release prefix as i18n/<lang>/<chunk>.js. Nothing here
// evaluates text as code: the plural rule is module code (the CSP stays strict).
//
//   t("core.brand")                       a text
//   t("core.x", { name })                 with its placeholders ({name}) filled
//   tn("core.games", n, { n })            the plural form for n (English one/other)
//   formatNumber(1234.5), formatDate(d)   as the page's language writes them (Intl)
//   named({ ones: "core.box.ones" })      names /api/config gives as keys, said when read
//
// The page's language is <html lang>, which the server set (the player's stored choice,
// else Accept-Language); `use(lang)` changes it at once, without a reload: it loads the
// new language's chunks for every chunk in use, then fills index.html's `data-i18n`
// elements and `data-i18n-attr` attributes again and sets <html lang>; the caller then
// re-renders (settings.js dispatches the setting: every view draws its words with t()).
// A key is a literal in the code (`pybabel extract` finds it, scripts/i18n.py); a name a
// person typed is a value, never a key.

import { asset } from "./paths.js";

/** The language the server wrote the page in (or the product's, outside a page). */
export function pageLanguage() {
  const root = typeof document !== "undefined" && document.documentElement;
  return (root && root.lang) || "zh-Hans";
}

let current = pageLanguage();
const catalogs = new Map(); // lang → {messages (merged chunks), plural, chunks: Set}
const wanted = new Set(["core"]); // the chunks in use: a new language loads them all

/** The language the page speaks now. */
export const language = () => current;

function catalog(lang) {
  if (!catalogs.has(lang)) catalogs.set(lang, { messages: {}, plural: null, chunks: new Map() });
  return catalogs.get(lang);
}

function add(cat, module) {
  Object.assign(cat.messages, module.messages);
  cat.plural = module.plural;
}

/** Load chunk `name` of `lang` (once; the first view's is preloaded by the page). */
export function load(name, lang = current) {
  wanted.add(name);
  const cat = catalog(lang);
  if (!cat.chunks.has(name)) {
    const loading = import(asset(`i18n/${lang}/${name}.js`)).then((m) => add(cat, m));
    loading.catch(() => cat.chunks.delete(name)); // asked again next time
    cat.chunks.set(name, loading);
  }
  return cat.chunks.get(name);
}

const PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function fill(text, values) {
  return text.replace(PLACEHOLDER, (whole, name) => {
    if (name === undefined) return whole[0];
    return name in values ? String(values[name]) : whole;
  });
}

function lookup(key) {
  const found = catalog(current).messages[key];
  if (found === undefined) console.warn(`i18n: no text for ${key} in ${current}`);
  return found;
}

/** Chunk `name` of `lang` from a module already imported (the tests run the page's modules
 * in Node, where no server makes the chunks: tests/js/core.zh-Hans.js is its copy). */
export function provide(lang, name, module) {
  wanted.add(name);
  const cat = catalog(lang);
  add(cat, module);
  cat.chunks.set(name, Promise.resolve());
}

/** The text of `key` in the page's language, its placeholders filled from `values`. */
export function t(key, values = {}) {
  const found = lookup(key);
  if (found === undefined) return key;
  return fill(typeof found === "string" ? found : found.other, values);
}

/** The form of plural entry `key` for the count `n`, its placeholders filled. */
export function tn(key, n, values = {}) {
  const found = lookup(key);
  if (found === undefined) return key;
  if (typeof found === "string") return fill(found, values);
  const cat = catalog(current);
  const form = cat.plural ? cat.plural(n) : "other";
  return fill(found[form] ?? found.other, values);
}

/** Names the server gives as catalog keys (/api/config's boxes, levels, kinds, results:
 * the page copies no name): `named({ id: key })` is an object whose `obj[id]` reads
 * `t(key)` each time, so a name is said in the language the page speaks when it is drawn,
 * after a change of language too. Its keys are in the `core` chunk. */
export function named(keys) {
  const out = {};
  for (const [id, key] of Object.entries(keys)) {
    Object.defineProperty(out, id, { get: () => t(key), enumerable: true });
  }
  return out;
}

/** `[id, name]` whose name reads `t(key)` each time (as `named`), for lists of pairs. */
export function namedPair(id, key) {
  const pair = [id, ""];
  Object.defineProperty(pair, 1, { get: () => t(key), enumerable: true });
  return pair;
}

/** `n` as the page's language writes numbers (`options`: Intl.NumberFormat's). */
export function formatNumber(n, options = {}) {
  // Rounded first as the server's figures are (the binary value's digits: 261.45 is
  // 261.4499…, so 261.4, as Python's format says it); Intl rounds the shortest decimal
  // (261.5) and the page and the server would disagree on the same figure (U18).
  const digits = options.maximumFractionDigits;
  let value = n;
  if (typeof n === "number" && Number.isInteger(digits)) {
    value = options.style === "percent" ? Number((n * 100).toFixed(digits)) / 100 : Number(n.toFixed(digits));
  }
  return new Intl.NumberFormat(current, options).format(value);
}

/** A date as the page's language writes it (`options`: Intl.DateTimeFormat's). */
export function formatDate(date, options = { dateStyle: "medium" }) {
  return new Intl.DateTimeFormat(current, options).format(date);
}

/** Fill index.html's words (and any element built with the same attributes) under `root`:
 * `data-i18n="key"` sets the text, `data-i18n-attr="title=key aria-label=key"` attributes. */
export function translate(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    const text = t(el.dataset.i18n);
    if (el.textContent !== text) el.textContent = text;
  }
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(/\s+/)) {
      const [name, key] = pair.split("=");
      if (name && key) el.setAttribute(name, t(key));
    }
  }
}

/** The page's first chunk, in the language the server wrote the page in (preloaded; the
 * words of index.html itself, chunk `page`, are already in it: loaded only for a change). */
export function start() {
  return load("core").catch((err) => console.warn(err));
}

const listeners = [];

/** Call `fn` each time the page has changed its language (after its words are in): for a
 * value kept in a module's binding, said again (a module's own words are otherwise said
 * when drawn). */
export function onLanguage(fn) {
  listeners.push(fn);
}

/** Speak `lang` from now on: its chunks for every chunk in use, then index.html's words and
 * <html lang>. Resolves once the page speaks it (rejects, changing nothing, if a chunk
 * cannot be loaded: the network). */
export async function use(lang) {
  wanted.add("page");
  await Promise.all([...wanted].map((name) => load(name, lang)));
  current = lang;
  document.documentElement.lang = lang;
  translate();
  for (const fn of listeners) fn(lang);
}
