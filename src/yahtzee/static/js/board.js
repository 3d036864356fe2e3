// The board's drawing shared by every mode (U11): a die's pips and a scorecard box's look
// (written score, green 「+N」 / grey-red 「+0」 preview, Joker strike). Each function takes
// the element it draws into and plain values from the server's game JSON; none does rules
// maths (the points and what is allowed are the server's preview).

// Where each pip sits on a 3×3 grid (1 = top left … 9 = bottom right).
const PIPS = {
  1: [5],
  2: [3, 7],
  3: [3, 5, 7],
  4: [1, 3, 7, 9],
  5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9],
};

/** Draw `value`'s pips (or a 「?」 for a die not rolled yet) into the die button `die`,
 * with the hold tag after them; only when the value changed, so animations survive. */
export function drawPips(die, value) {
  const key = String(value || 0);
  if (die.dataset.pips === key) return;
  die.dataset.pips = key;
  const face = document.createElement("span");
  face.className = "die-face";
  face.setAttribute("aria-hidden", "true");
  if (value) {
    for (const pos of PIPS[value]) {
      const pip = document.createElement("span");
      pip.className = `pip p${pos}`;
      face.append(pip);
    }
  } else {
    const q = document.createElement("span");
    q.className = "die-blank";
    q.textContent = "?";
    face.append(q);
  }
  const tag = document.createElement("span");
  tag.className = "hold-tag";
  tag.setAttribute("aria-hidden", "true");
  die.replaceChildren(face, tag);
}

/** A preview reads "+N" (what writing here would add), a written score a plain "N": a
 * preview 0 ("+0", italic, dashed outline) never looks like a written 0 (bold, solid). */
export function previewText(p) {
  let text = `+${p.points}`;
  if (p.yahtzee_bonus) text += ` +${p.yahtzee_bonus}`;
  return text;
}

/** How one box looks: `filled` its written score (null if open), `p` the server's preview
 * of it (null when there is none to show). `kind` is filled, preview, forbidden or open;
 * `cls` the cell's classes (app.css); `bonus` the upper-bonus points writing it would earn. */
export function boxLook(filled, p) {
  if (filled !== null && filled !== undefined) {
    return { text: String(filled), kind: "filled", cls: filled === 0 ? "filled zero" : "filled", bonus: 0 };
  }
  if (!p) return { text: "", kind: "open", cls: "open", bonus: 0 };
  if (!p.allowed) return { text: String(p.points), kind: "forbidden", cls: "forbidden", bonus: 0 };
  const cls = p.points === 0 ? "preview zero" : "preview";
  return { text: previewText(p), kind: "preview", cls, bonus: p.upper_bonus || 0 };
}
