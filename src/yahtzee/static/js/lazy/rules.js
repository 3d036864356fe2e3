// 规则 (U10): a lazy view (views.js) whose data is its own markup, static/rules.html (the
// page's text, never a player's: parsed as HTML). Its table of contents scrolls within the
// page, without changing the address.

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
  },
};
