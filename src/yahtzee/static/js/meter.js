// The live meter (L4): 「预计终局 248.3」 in solo, the chance to win in vs, from the same
// models as the review (GET /api/games/{id}/meter, asked after each roll and score while
// the meter is shown). The player can hide it; the choice is remembered in this browser.

const KEY = "yahtzee.meter";
const $ = (id) => document.getElementById(id);

function shownPref() {
  try {
    return localStorage.getItem(KEY) !== "hidden";
  } catch {
    return true;
  }
}

export function installMeter() {
  const box = $("live-meter");
  const text = $("live-meter-text");
  const bar = $("live-meter-bar");
  const toggle = $("live-meter-toggle");
  let shown = shownPref();
  let lastKey = null;
  let serial = 0;
  let last = null;

  function paint() {
    box.classList.toggle("meter-off", !shown);
    text.hidden = !shown;
    toggle.textContent = shown ? "隐藏" : "显示预计";
    toggle.setAttribute("aria-expanded", String(shown));
    const chance = last ? last.win_probability : null;
    bar.hidden = !shown || chance === null || chance === undefined;
  }

  async function load(game) {
    const mine = ++serial;
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(game.id)}/meter`, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!r.ok || mine !== serial) return;
      last = await r.json();
    } catch {
      return;
    }
    if (mine !== serial) return;
    const ef = `预计终局 ${last.expected_final.toFixed(1)}`;
    if (last.win_probability === null) {
      text.textContent = ef;
    } else {
      text.textContent = `胜率 ${Math.round(last.win_probability * 100)}% · ${ef}`;
      bar.value = last.win_probability;
    }
    paint();
  }

  toggle.addEventListener("click", () => {
    shown = !shown;
    try {
      localStorage.setItem(KEY, shown ? "shown" : "hidden");
    } catch {
      /* private mode: not remembered */
    }
    lastKey = null; // asked again when shown: nothing is fetched while hidden
    paint();
    if (shown && current) refresh(current);
  });

  let current = null;
  function refresh(state) {
    current = state;
    const g = state.game;
    box.hidden = !g || state.view !== "game";
    // While the computer's turn is being shown, its outcome must not leak through the meter.
    if (!g || state.view !== "game" || state.replay || !shown) {
      paint();
      return;
    }
    const key = `${g.id}:${g.version}`;
    if (key === lastKey) return;
    lastKey = key;
    load(g);
  }
  paint();
  return { refresh };
}
