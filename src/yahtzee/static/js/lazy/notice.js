// U20: a browser whose device ended — removed from 我的设备, its player's data deleted,
// unused too long, signed out — is told so, in words, on whatever page it opens next, not
// left to find an empty lobby: a lazy overlay (views.js OVERLAYS), loaded only then. The
// server says why in a cookie that api.js reads (state.notice); 「知道了」 closes it and
// clears the cookie, so it is said once (a page left at once, as after 「退出这台设备」,
// says it on the next). Its words are chunk `notice` (devices_messages.js NOTICES), loaded
// with this module (a top-level await: the overlay draws once they are in; a chunk that
// cannot be loaded is asked again on a change of language, and meanwhile says its keys).

import { language, load } from "../i18n.js";
import { NOTICES } from "./devices_messages.js";
import { el } from "./dom.js";

await load("notice").catch((err) => console.warn(err));

let banner = null;

export const overlay = {
  reducers: {
    noticeSeen: (state) => (state.notice === null ? state : { ...state, notice: null }),
  },
  render(state, shown, ctx) {
    const text = shown ? NOTICES[state.notice] : null;
    if (!text) {
      if (banner) banner.remove();
      banner = null;
      return;
    }
    const drawn = `${state.notice} ${language()}`; // (drawn again in a new language)
    if (banner && banner.dataset.drawn === drawn) return;
    if (banner) banner.remove();
    banner = el("div", "dv-notice", null, { role: "status", "data-testid": "device-notice", "data-reason": state.notice, "data-drawn": drawn });
    const ok = el("button", "btn btn-small", NOTICES.ok, { type: "button", "data-testid": "device-notice-ok" });
    ok.addEventListener("click", () => {
      const secure = location.protocol === "https:" ? "; Secure" : "";
      document.cookie = `yahtzee_notice=; Max-Age=0; Path=/; SameSite=Lax${secure}`;
      ctx.dispatch({ type: "noticeSeen" });
    });
    banner.append(el("p", "", text), ok);
    document.getElementById("main").prepend(banner);
  },
};
