// A waiting room's time (W1), as a person reads it, in the page's language: its pace's name
// (from /api/config's `rooms.paces`: the page copies no pace or limit) and the time left on
// a turn (「还剩 5 小时」, 「明天 20:00 前」). The room's view (room.js) and 「轮到你了」
// (turns.js) say both; their words are the `room` chunk's, which both load.

import { CONFIG } from "../config.js";
import { language, t, tn } from "../i18n.js";

const HOUR = 3600;
const DAY = 24 * HOUR;
/** Under this long a time left is said as a count (「还剩 5 小时」); longer, as a day and a
 * clock time (「明天 20:00 前」), which reads better than 「还剩 31 小时」. */
const COUNT_BELOW = 6 * HOUR;

/** The paces a room is made with, in order: [{id, seconds, live}] (/api/config). */
export function paces() {
  const rooms = CONFIG.rooms;
  return rooms.paces.map((p) => ({ ...p, live: p.id === rooms.paces[0].id && p.seconds === null }));
}

/** A turn's time as said of a pace of `seconds` (null: no clock). */
function waits(seconds) {
  if (seconds === null) return t("room.pace.none");
  if (seconds % DAY === 0) return tn("room.pace.days", seconds / DAY, { n: seconds / DAY });
  if (seconds % HOUR === 0) return tn("room.pace.hours", seconds / HOUR, { n: seconds / HOUR });
  return tn("room.pace.minutes", Math.round(seconds / 60), { n: Math.round(seconds / 60) });
}

/** The option's words for pace `p` of the new-room form. */
export function paceOption(p) {
  if (p.live) {
    const s = CONFIG.rooms.turn_seconds;
    return t("room.pace.live_choice", { min: s.min, max: s.max });
  }
  return waits(p.seconds);
}

/** A room's pace as its status line says it: a live room's seconds, a waiting one's time. */
export function paceSaid(room) {
  const live = paces().find((p) => p.live);
  if (live && room.pace === live.id) return tn("room.pace.live_seconds", room.turn_seconds, { n: room.turn_seconds });
  return waits(room.turn_seconds);
}

const dayOf = (d) => Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / (DAY * 1000);

/** The time left until `deadline` (epoch seconds; null: no clock) at `now` (the server's
 * clock, epoch seconds), as a person reads it in the page's language. */
export function timeLeft(deadline, now) {
  if (deadline === null || deadline === undefined) return t("room.left.no_clock");
  const left = deadline - now;
  if (left < 60) return t("room.left.under_a_minute");
  if (left < HOUR) return tn("room.left.minutes", Math.floor(left / 60), { n: Math.floor(left / 60) });
  if (left < COUNT_BELOW) return tn("room.left.hours", Math.floor(left / HOUR), { n: Math.floor(left / HOUR) });
  const at = new Date(deadline * 1000);
  const days = dayOf(at) - dayOf(new Date(now * 1000));
  const lang = language();
  let day;
  if (days <= 1) day = new Intl.RelativeTimeFormat(lang, { numeric: "auto" }).format(days, "day");
  else if (days < 7) day = new Intl.DateTimeFormat(lang, { weekday: "long" }).format(at);
  else day = new Intl.DateTimeFormat(lang, { month: "short", day: "numeric" }).format(at);
  const time = new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(at);
  return t("room.left.before", { day, time });
}
