// W1: a waiting room's time as a person reads it (src/yahtzee/static/js/lazy/when.js): which
// words say a time left (a count under six hours, else a day and a clock time from Intl in
// the page's language) and a pace (from /api/config's paces, none copied). The words are
// stand-ins that show which key was said with which values (the catalogs' own texts are
// checked by tests/unit/test_i18n.py); the day names are Intl's.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const CONFIG_TEXT = readFileSync(new URL("./config.json", import.meta.url), "utf-8");
globalThis.document = {
  getElementById: (id) => (id === "game-config" ? { textContent: CONFIG_TEXT } : null),
  documentElement: { lang: "zh-Hans" },
};
const { provide } = await import("../../src/yahtzee/static/js/i18n.js");
const plural = (key) => ({ other: `${key}:{n}` });
provide("zh-Hans", "room", {
  plural: () => "other",
  messages: {
    "room.left.no_clock": "no_clock",
    "room.left.under_a_minute": "under",
    "room.left.minutes": plural("minutes"),
    "room.left.hours": plural("hours"),
    "room.left.before": "{day}|{time}",
    "room.pace.none": "none",
    "room.pace.days": plural("days"),
    "room.pace.hours": plural("hours"),
    "room.pace.live_choice": "live {min}-{max}",
    "room.pace.live_seconds": plural("seconds"),
  },
});
const { paceOption, paceSaid, paces, timeLeft } = await import("../../src/yahtzee/static/js/lazy/when.js");

const at = (y, m, d, h, min) => new Date(y, m - 1, d, h, min).getTime() / 1000;
const NOW = at(2026, 12, 7, 9, 30); // a Monday morning, this machine's time zone

test("a time left: a count under six hours, else the day and the time it falls", () => {
  assert.equal(timeLeft(null, NOW), "no_clock");
  assert.equal(timeLeft(NOW + 59, NOW), "under");
  assert.equal(timeLeft(NOW + 59 * 60 + 59, NOW), "minutes:59");
  assert.equal(timeLeft(NOW + 5 * 3600 + 1800, NOW), "hours:5");
  assert.equal(timeLeft(at(2026, 12, 7, 20, 0), NOW), "今天|20:00");
  assert.equal(timeLeft(at(2026, 12, 8, 20, 0), NOW), "明天|20:00");
  assert.equal(timeLeft(at(2026, 12, 11, 8, 5), NOW), "星期五|08:05");
  assert.equal(timeLeft(at(2026, 12, 14, 9, 30), NOW), "12月14日|09:30");
});

test("the paces are /api/config's, the live one first; each said by its time", () => {
  const config = JSON.parse(CONFIG_TEXT).rooms;
  assert.deepEqual(paces().map((p) => p.id), config.paces.map((p) => p.id));
  assert.deepEqual(paces().filter((p) => p.live).map((p) => p.id), [config.paces[0].id]);
  assert.deepEqual(paces().map(paceOption), [
    `live ${config.turn_seconds.min}-${config.turn_seconds.max}`, "hours:1", "hours:12", "days:1", "days:3", "days:7", "none",
  ]);
  assert.equal(paceSaid({ pace: config.paces[0].id, turn_seconds: 60 }), "seconds:60");
  assert.equal(paceSaid({ pace: "3d", turn_seconds: 3 * 86400 }), "days:3");
  assert.equal(paceSaid({ pace: "none", turn_seconds: null }), "none");
});
