// Sound and touch (polish 9), a lazy overlay (views.js OVERLAYS): a dice rattle on a roll, a
// tick when a box is written, a fanfare for a 快艇 (the box at 50, or a 快艇 bonus), all
// made here with the Web Audio API (no sound file to download), and a short vibration on a
// roll where the device has one (navigator.vibrate). 设置: 声音 开/关 (on by default),
// remembered with the other settings.
//
// Browsers let a page make sound only after a gesture: nothing is made, and no AudioContext
// exists, before the player's first tap, click or key. The sounds follow the state (this
// module's effect watches the rolls and the turn log of the board shown, every mode's); the
// page works the same without them (no Web Audio, or 声音 关).

import { boardShown } from "../state.js";
import { settingRow } from "./dom.js";

/** Marks a key passed on (the extractor finds it; settingRow says it). */
const N_ = (key) => key;

let select = null;
let gestured = false;
let audio = null;
// A fixed pseudo-random sequence for the rattle's noise (its texture, not the game's dice).
let seed = 12345;
const noise = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2147483648 - 1;

function context() {
  if (!gestured) return null;
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!Audio) return null;
  if (!audio) audio = new Audio();
  if (audio.state === "suspended") audio.resume();
  return audio;
}

/** One note: `type` wave at `freq` Hz (gliding to `to`), from `at` s for `dur` s. */
function tone(a, { type = "sine", freq, to = null, at = 0, dur = 0.1, gain = 0.15 }) {
  const t = a.currentTime + at;
  const osc = a.createOscillator();
  const amp = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, t + dur);
  amp.gain.setValueAtTime(gain, t);
  amp.gain.exponentialRampToValueAtTime(0.001, t + dur);
  osc.connect(amp).connect(a.destination);
  osc.start(t);
  osc.stop(t + dur + 0.02);
}

/** Dice on wood: a few short bursts of filtered noise, close together. */
function rattle(a) {
  const hits = [0, 0.05, 0.09, 0.16, 0.22, 0.3];
  for (const at of hits) {
    const length = Math.ceil(a.sampleRate * 0.03);
    const buffer = a.createBuffer(1, length, a.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = noise() * (1 - i / length) ** 2;
    const source = a.createBufferSource();
    source.buffer = buffer;
    const band = a.createBiquadFilter();
    band.type = "bandpass";
    band.frequency.value = 1800 + 900 * Math.abs(noise());
    const amp = a.createGain();
    amp.gain.value = 0.5;
    source.connect(band).connect(amp).connect(a.destination);
    source.start(a.currentTime + at);
  }
}

const tick = (a) => tone(a, { type: "square", freq: 1320, to: 880, dur: 0.05, gain: 0.06 });

/** 快艇: a rising arpeggio, the last note held. */
function fanfare(a) {
  [523.25, 659.25, 783.99, 1046.5].forEach((freq, i) =>
    tone(a, { type: "triangle", freq, at: i * 0.12, dur: i === 3 ? 0.6 : 0.14, gain: 0.18 }),
  );
}

/** What the sounds follow on the view shown: its board's game, the seats this device plays
 * and a counter of its rolls. */
function watched(state) {
  const b = boardShown(state);
  return b ? { game: b.game, rolls: b.rollSerial, mine: b.mine } : null;
}

function effect(state, previous) {
  const now = watched(state);
  const before = previous && watched(previous);
  if (!now || !before || now.game.id !== before.game.id || state.settings.sound !== "on") return;
  if (now.rolls > before.rolls) {
    const a = context();
    if (a) rattle(a);
    if (gestured && navigator.vibrate) navigator.vibrate(35);
  }
  const turns = now.game.turns;
  if (turns.length > before.game.turns.length) {
    const last = turns[turns.length - 1];
    if (!now.mine.includes(last.seat)) return; // other seats' boxes are replayed in words
    const a = context();
    if (!a) return;
    if ((last.category === "yahtzee" && last.points === 50) || last.yahtzee_bonus > 0) fanfare(a);
    else tick(a);
  }
}

function install(ctx) {
  select = settingRow(ctx, "sound", N_("core.setting.sound"), N_("core.setting.sound_note"), [
    ["on", N_("core.setting.on")],
    ["off", N_("core.setting.off")],
  ]);
  const first = () => {
    gestured = true;
    for (const type of ["pointerdown", "keydown"]) window.removeEventListener(type, first, true);
  };
  for (const type of ["pointerdown", "keydown"]) window.addEventListener(type, first, true);
}

function render(state) {
  if (select.value !== state.settings.sound) select.value = state.settings.sound;
}

export const overlay = { render, effect, install };
