// 提醒我 (W4): reminders that reach this device — a row in 设置 with this device's on/off
// and the player's 免打扰 hours (docs/push.md). Started by pwa.js once the service worker is
// ready (a push subscription is the worker's), so it adds nothing to the first load.
//
// Nothing is asked on page load: the browser's permission prompt comes only after a tap on
// 「开启」. Turned on, the browser subscribes with the server's VAPID key (GET /api/push) and
// the subscription goes to the server with this device's time zone; turned off, it is
// unsubscribed and deleted. On later visits the row says again what the server has and
// mends what drifted (a new key, a new endpoint); a browser that became another device (its
// old one removed, the player's data deleted) stops the reminders it set up for the old one.
// The notification's words are written, in the page's language, to the worker's cache,
// where sw.js reads them (again when the language changes).
//
// The row is this module's own DOM, drawn from its own small state by one function (`draw`):
// it needs nothing of the page's store, and the store's first load has no byte to spare.

import { ApiError, request } from "../api.js";
import { API, asset } from "../paths.js";
import { language, load, t } from "../i18n.js";
import { read, write } from "../remember.js";

// The device this browser subscribed as (its tag, from GET /api/push).
const DEVICE_KEY = "yahtzee.push";
// Where sw.js reads the notification's words (its cache, this origin's).
const WORDS_CACHE = "yahtzee-push";
const WORDS_URL = "/push-words.json";
const HOURS = Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, "0")}:00`);

const state = {
  status: "off", // off | on | busy | unsupported | denied | failed
  error: "", // the server's words (or ours) when it failed
  quiet: { from: "22:00", to: "08:00" }, // null: none
};
let registration = null;
let rows = null; // {row, toggle, status, quietRow, quietNote, from, to}
// The rows join 设置 while it is closed, or at its next opening: never under the eyes of a
// person reading it (the worker, and so this module, may be ready at any moment).
let shown = false;

const el = (tag, attrs = {}, text = null) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  return e;
};

function set(change) {
  Object.assign(state, change);
  draw();
}

function draw() {
  if (!rows) return;
  rows.row.hidden = !shown;
  rows.status.hidden = !shown;
  const on = state.status === "on";
  rows.toggle.textContent = on ? t("push.settings.turn_off") : t("push.settings.turn_on");
  rows.toggle.setAttribute("aria-pressed", String(on));
  rows.toggle.disabled = ["busy", "unsupported"].includes(state.status);
  rows.toggle.hidden = state.status === "unsupported";
  const said = {
    on: t("push.status.on"),
    busy: t("push.status.busy"),
    unsupported: t("push.status.unsupported"),
    denied: t("push.status.denied"),
    failed: state.error,
    off: t("push.status.off"),
  };
  rows.status.textContent = said[state.status];
  rows.status.dataset.status = state.status;
  rows.quietRow.hidden = !shown || state.status === "unsupported";
  rows.quietNote.hidden = rows.quietRow.hidden;
  for (const [select, value] of [
    [rows.from, state.quiet ? state.quiet.from : "off"],
    [rows.to, state.quiet ? state.quiet.to : "08:00"],
  ]) {
    // (hours set elsewhere to the minute, through the API: shown as they are)
    if (![...select.options].some((o) => o.value === value)) select.append(el("option", { value }, value));
    select.value = value;
  }
  rows.to.disabled = !state.quiet;
}

function build() {
  const dialog = document.getElementById("settings-dialog");
  const before = dialog.querySelector(".fine");
  const row = el("div", { class: "field push-row" });
  const title = el("span", {});
  title.append(el("span", { "data-i18n": "push.settings.label" }, t("push.settings.label")));
  title.append(el("span", { class: "field-note", "data-i18n": "push.settings.note" }, t("push.settings.note")));
  const toggle = el("button", { type: "button", class: "btn btn-small", "data-testid": "push-toggle" });
  row.append(title, toggle);
  const status = el("p", { class: "fine push-status", role: "status", "data-testid": "push-status" });
  const quietRow = el("div", { class: "field push-row" });
  const from = el("select", { "data-testid": "push-quiet-from", "aria-label": t("push.quiet.from") });
  from.dataset.i18nAttr = "aria-label=push.quiet.from";
  from.append(el("option", { value: "off", "data-i18n": "push.quiet.off" }, t("push.quiet.off")));
  const to = el("select", { "data-testid": "push-quiet-to", "aria-label": t("push.quiet.to") });
  to.dataset.i18nAttr = "aria-label=push.quiet.to";
  for (const hour of HOURS) {
    from.append(el("option", { value: hour }, hour));
    to.append(el("option", { value: hour }, hour));
  }
  const quietTitle = el("span", {});
  quietTitle.append(el("span", { "data-i18n": "push.quiet.label" }, t("push.quiet.label")));
  // (the note under the row, the width of the dialog: beside the hours it wrapped into two
  // lines that axe could not tell the colours of)
  const quietNote = el("p", { class: "fine push-note", "data-i18n": "push.quiet.note" }, t("push.quiet.note"));
  const pick = el("span", { class: "push-hours" });
  pick.append(from, el("span", { "data-i18n": "push.quiet.until" }, t("push.quiet.until")), to);
  quietRow.append(quietTitle, pick);
  dialog.insertBefore(row, before);
  dialog.insertBefore(status, before);
  dialog.insertBefore(quietRow, before);
  dialog.insertBefore(quietNote, before);
  rows = { row, toggle, status, quietRow, quietNote, from, to };
  shown = !dialog.open;
  toggle.addEventListener("click", () => (state.status === "on" ? turnOff() : turnOn()));
  // (from = to would be no quiet hours at all: that is 「不设」)
  const quietChanged = () =>
    saveQuiet(from.value === "off" || from.value === to.value ? null : { from: from.value, to: to.value });
  from.addEventListener("change", quietChanged);
  to.addEventListener("change", quietChanged);
}

const failed = (err) => {
  if (!(err instanceof ApiError)) console.warn(err);
  set({ status: "failed", error: err instanceof ApiError ? err.message : t("push.status.failed") });
};

function fromServer(server) {
  state.quiet = server.quiet;
  return server;
}

/** The server's key as the Push API takes it (bytes from base64url). */
function keyBytes(key) {
  const text = atob(key.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function sameKey(subscription, key) {
  const mine = subscription.options && subscription.options.applicationServerKey;
  if (!mine) return true; // (a browser that does not say: the server's answer will tell)
  const a = new Uint8Array(mine);
  const b = keyBytes(key);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

async function register(subscription) {
  const body = { subscription: subscription.toJSON(), time_zone: timeZone() };
  return fromServer(await request("POST", API.push("/subscriptions"), body));
}

/** The notification's words in the page's language, where sw.js finds them. */
async function keepWords() {
  const words = {
    lang: language(),
    turn: { title: t("push.notify.turn.title"), body: t("push.notify.turn.body") },
    deadline: { title: t("push.notify.deadline.title"), body: t("push.notify.deadline.body") },
    computer: t("push.notify.computer"),
    separator: t("push.notify.separator"),
  };
  const cache = await caches.open(WORDS_CACHE);
  await cache.put(WORDS_URL, new Response(JSON.stringify(words), { headers: { "Content-Type": "application/json" } }));
}

async function turnOn() {
  // The permission is asked here, in the tap's own handler (Safari wants it so), never before.
  const asked = Notification.requestPermission();
  set({ status: "busy" });
  try {
    if ((await asked) !== "granted") {
      set({ status: Notification.permission === "denied" ? "denied" : "off" });
      return;
    }
    const server = await request("GET", API.push());
    let subscription = await registration.pushManager.getSubscription();
    if (subscription && !sameKey(subscription, server.public_key)) {
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription =
      subscription ||
      (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(server.public_key) }));
    await keepWords();
    const after = await register(subscription);
    write(DEVICE_KEY, after.device);
    set({ status: "on" });
  } catch (err) {
    failed(err);
  }
}

async function turnOff() {
  set({ status: "busy" });
  try {
    const subscription = await registration.pushManager.getSubscription();
    if (subscription) await subscription.unsubscribe();
    fromServer(await request("DELETE", API.push("/subscriptions")));
    write(DEVICE_KEY, null);
    set({ status: "off" });
  } catch (err) {
    failed(err);
  }
}

// The hours' saves one after another, in the order chosen (two at once could reach the
// server in either order), and only the last one's answer drawn (an earlier answer would put
// back the hour just changed).
let saves = Promise.resolve();
let latest = 0;

function saveQuiet(quiet) {
  const mine = ++latest;
  state.quiet = quiet;
  saves = saves.then(async () => {
    try {
      const server = await request("PUT", API.push("/quiet"), { quiet });
      if (mine === latest) set({ quiet: server.quiet });
    } catch (err) {
      failed(err);
    }
  });
}

/** What the server has, and what this browser has, made to agree (a visit's look). */
async function look() {
  const server = fromServer(await request("GET", API.push()));
  let subscription = await registration.pushManager.getSubscription();
  const mine = read(DEVICE_KEY);
  if (!subscription || Notification.permission !== "granted") {
    if (subscription) await subscription.unsubscribe();
    if (server.subscribed) fromServer(await request("DELETE", API.push("/subscriptions")));
    write(DEVICE_KEY, null);
    set({ status: Notification.permission === "denied" ? "denied" : "off" });
    return;
  }
  if (mine && mine !== server.device) {
    // This browser is another device now (the earlier one removed, its data deleted): the
    // reminders it asked for were the earlier player's. They stop; a tap starts them again.
    await subscription.unsubscribe();
    write(DEVICE_KEY, null);
    set({ status: "off" });
    return;
  }
  if (!sameKey(subscription, server.public_key)) {
    await subscription.unsubscribe(); // (the server's key changed: subscribe anew)
    subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(server.public_key),
    });
  }
  await keepWords();
  if (!server.subscribed || server.endpoint !== subscription.endpoint) {
    write(DEVICE_KEY, (await register(subscription)).device);
  } else if (!mine) write(DEVICE_KEY, server.device);
  set({ status: "on" });
}

/** Start the row (pwa.js, with the service worker's registration). */
export async function start(worker) {
  registration = worker;
  await load("push");
  const link = el("link", { rel: "stylesheet", href: asset("css/push.css") });
  // (its rules in place before the rows are drawn: they are laid out once)
  await new Promise((done) => {
    link.addEventListener("load", done);
    link.addEventListener("error", done);
    document.head.append(link);
  });
  build();
  const dialog = document.getElementById("settings-dialog");
  new MutationObserver(() => {
    if (dialog.open || shown) return;
    shown = true; // (closed: shown from the next opening on)
    draw();
  }).observe(dialog, { attributes: true, attributeFilter: ["open"] });
  if (!("PushManager" in window) || !("Notification" in window) || !registration.pushManager) {
    set({ status: "unsupported" }); // (iOS Safari outside the home screen: the row says so)
    return;
  }
  draw();
  // Opening 设置 shows what the server has (another device may have changed the hours).
  new MutationObserver(() => {
    if (dialog.open && state.status !== "busy") look().catch(failed);
  }).observe(dialog, { attributes: true, attributeFilter: ["open"] });
  // A new language: the row's words and the notification's.
  new MutationObserver(() => {
    draw();
    if (state.status === "on") keepWords().catch((err) => console.warn(err));
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  if ((await registration.pushManager.getSubscription()) || read(DEVICE_KEY)) await look().catch(failed);
}
