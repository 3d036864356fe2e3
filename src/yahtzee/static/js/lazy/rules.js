// 规则 (U10): a lazy view (views.js) whose data is its own markup, rules.html in the page's
// language (the server fills its words per language: i18n/<lang>/rules.html; the page's
// text, never a player's: parsed as HTML). Its table of contents scrolls within the page,
// without changing the address. Its glossary (L11) is drawn from lazy/glossary.js
// GLOSSARY, the words every 「?」 shows. A change of language (设置) loads the rules in the
// new language and draws them again.

import { asset } from "../paths.js";
import { language } from "../i18n.js";
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

function draw(body, markup, lang) {
  body.dataset.lang = lang;
  const doc = new DOMParser().parseFromString(markup, "text/html");
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
}

export const view = {
  render(body, page, ctx) {
    const lang = language();
    // (the view's data: the rules in the language the page spoke when it opened)
    if (!body.firstChild) return draw(body, page.data, lang);
    if (body.dataset.lang === lang) return;
    body.dataset.lang = lang; // (asked once per change)
    ctx.api.text(asset(`i18n/${lang}/rules.html`)).then(
      (markup) => language() === lang && body.isConnected && draw(body, markup, lang),
      (err) => console.warn(err), // (the rules stay in the language they were in)
    );
  },
};
