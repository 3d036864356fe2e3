// 规则 (U10): a lazy view (views.js) whose data is its own markup, static/rules.html (the
// page's text, never a player's: parsed as HTML). Its table of contents scrolls within the
// page, without changing the address. Its glossary (L11) is drawn from messages.js
// GLOSSARY, the words every 「?」 shows.

import { GLOSSARY } from "./glossary.js";

function scrollTo(event) {
  const a = event.target.closest("[data-anchor]");
  if (!a) return;
  event.preventDefault();
  const target = document.getElementById(a.dataset.anchor);
  target.scrollIntoView();
  target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
}

export const view = {
  render(body, page) {
    if (body.firstChild) return;
    const doc = new DOMParser().parseFromString(page.data, "text/html");
    body.replaceChildren(...doc.body.childNodes);
    body.querySelector(".rules-toc").addEventListener("click", scrollTo);
    const list = body.querySelector("[data-glossary]");
    for (const [id, g] of Object.entries(GLOSSARY)) {
      const dt = document.createElement("dt");
      dt.id = `term-${id}`;
      dt.textContent = g.also ? [g.term, ...g.also.filter((w) => !g.term.includes(w))].join(" / ") : g.term;
      const dd = document.createElement("dd");
      dd.textContent = g.text;
      list.append(dt, dd);
    }
  },
};
