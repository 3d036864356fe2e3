// Views and their addresses. The server answers /, /lobby, /game and /rules with the same
// page, so each view has a real address and a reload lands on the right view.

export const PATHS = { lobby: "/", game: "/game", rules: "/rules" };

/** The view an address asks for ("lobby" for anything unknown). */
export function viewOf(pathname) {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (path === "/rules") return "rules";
  if (path === "/game") return "game";
  return "lobby";
}

/** Show `view`: the state changes through the store, the address follows, and screen
 * readers are told where they are (the view's heading takes the focus; the table puts it
 * on the roll button itself). */
export function go(store, view) {
  store.dispatch({ type: "navigate", view });
  if (location.pathname !== PATHS[view]) history.pushState(null, "", PATHS[view]);
  store.afterRender(() => {
    if (view === "rules") window.scrollTo(0, 0);
    const heading = { lobby: "lobby-title", rules: "rules-title" }[view];
    if (heading) document.getElementById(heading).focus({ preventScroll: true });
  });
}
