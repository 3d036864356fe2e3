// Installing the game on the home screen (polish 10): the service worker (/sw.js) is
// registered once the page has loaded, then told which of the page's files to keep — they
// are in the browser's cache already, so keeping them costs no download — and in which
// language the page is read. Its push subscription is 设置's 「提醒我」 (W4, push.js), started
// once the worker is ready.

export async function start() {
  const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  await navigator.serviceWorker.ready;
  // This module is served as /v/<release>/js/pwa.js: the release is the first two segments.
  const release = new URL(import.meta.url).pathname.split("/").slice(0, 3).join("/");
  const keep = () => {
    const urls = performance
      .getEntriesByType("resource")
      .map((entry) => new URL(entry.name))
      .filter((url) => url.origin === location.origin && url.pathname.startsWith(`${release}/`))
      .map((url) => url.pathname);
    (registration.active || navigator.serviceWorker.controller)?.postMessage({
      type: "shell",
      release,
      urls: [...new Set([...urls, new URL(import.meta.url).pathname])],
      lang: document.documentElement.lang,
    });
  };
  keep();
  // G2: a change of language (<html lang>, set once its words are loaded) is kept too: the
  // offline page in it, with its words, and the home-screen app's name (its manifest).
  new MutationObserver(() => {
    const lang = document.documentElement.lang;
    const link = document.querySelector('link[rel="manifest"]');
    const href = link?.getAttribute("href");
    if (href) link.setAttribute("href", href.replace(/\/i18n\/[^/]+\/manifest/, `/i18n/${lang}/manifest`));
    keep();
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  await import("./push.js").then((push) => push.start(registration));
}
