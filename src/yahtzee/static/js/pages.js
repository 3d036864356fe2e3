// The way into 复盘 (/review/{id}) and 统计 (/stats). Those pages (review.js, stats.js,
// chart.js, review.css) are fetched on their first visit only, so the first load of the
// game stays small (P6); this module just recognises their addresses and links.

const PAGE = /^\/review\/[0-9A-Za-z_-]{1,64}$|^\/stats$/;
let loading = null;

function stylesheet() {
  return new Promise((resolve) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = new URL("../css/review.css", import.meta.url).href;
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve); // the pages still work unstyled
    document.head.append(link);
  });
}

/** ``ctx`` = {state, show(view), afterRender(fn)}. Returns {route(path)}: true when
 * ``path`` is one of the pages. */
export function installPageLinks(ctx) {
  const pages = () => {
    if (!loading) {
      loading = Promise.all([import("./lazy/review.js"), stylesheet()]).then(([m]) =>
        m.installReviewPages(ctx),
      );
    }
    return loading;
  };

  let serial = 0;
  function route(path) {
    if (!PAGE.test(path)) {
      serial += 1; // a page still loading must not take over the view we moved to
      return false;
    }
    const mine = ++serial;
    pages().then((p) => {
      if (mine === serial) p.route(path);
    });
    return true;
  }

  function navigate(path) {
    if (location.pathname !== path) history.pushState(null, "", path);
    window.dispatchEvent(new PopStateEvent("popstate"));
  }

  // Links to the pages anywhere (the lobby's recent games, 「我的统计」) stay in the page.
  document.addEventListener("click", (event) => {
    const a = event.target.closest && event.target.closest("a[data-page]");
    if (!a || event.defaultPrevented || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    navigate(a.getAttribute("href"));
  });
  const review = document.querySelector('[data-testid="game-over-review"]');
  if (review) {
    review.addEventListener("click", () => {
      if (ctx.state.game) navigate(`/review/${ctx.state.game.id}`);
    });
  }
  return { route };
}
