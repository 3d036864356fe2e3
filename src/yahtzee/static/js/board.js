// The board's drawing shared by every mode (U11): a die's pips and a scorecard box's look
// (written score, green 「+N」 / grey-red 「+0」 preview, Joker strike). Each function takes
// the element it draws into or plain values from the server's game JSON; none does rules
// maths (the points and what is allowed are the server's preview).

// Each face's pips on a 3×3 grid (1 = top left … 9 = bottom right).
const PIPS = { 1: [5], 2: [3, 7], 3: [3, 5, 7], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9], 6: [1, 3, 4, 6, 7, 9] };

/** Draw `value`'s pips (「?」 before a roll) and the hold tag into the die button `die`;
 * only when the value changed, so a running animation survives. */
export function drawPips(die, value) {
  const key = String(value || 0);
  if (die.dataset.pips === key) return;
  die.dataset.pips = key;
  const span = (cls, text = "") => {
    const s = document.createElement("span");
    s.className = cls;
    s.textContent = text;
    return s;
  };
  const face = span("die-face");
  face.setAttribute("aria-hidden", "true");
  if (value) face.append(...PIPS[value].map((pos) => span(`pip p${pos}`)));
  else face.append(span("die-blank", "?"));
  const tag = span("hold-tag");
  tag.setAttribute("aria-hidden", "true");
  die.replaceChildren(face, tag);
}

/** How a box looks (app.css `.cell` classes): `filled` its written score or null, `p` the
 * server's preview of it or null. A preview reads 「+N」, a written score 「N」, so a
 * preview 0 never looks like a written 0. `bonus`: the upper bonus writing it would earn. */
export function boxLook(filled, p) {
  if (filled !== null && filled !== undefined) {
    return { text: String(filled), kind: "filled", cls: filled ? "filled" : "filled zero", bonus: 0 };
  }
  if (!p) return { text: "", kind: "open", cls: "open", bonus: 0 };
  if (!p.allowed) return { text: String(p.points), kind: "forbidden", cls: "forbidden", bonus: 0 };
  const text = `+${p.points}` + (p.yahtzee_bonus ? ` +${p.yahtzee_bonus}` : "");
  return { text, kind: "preview", cls: p.points ? "preview" : "preview zero", bonus: p.upper_bonus || 0 };
}
