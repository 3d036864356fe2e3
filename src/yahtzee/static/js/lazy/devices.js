// 我的设备 (/devices, I1-I4): a lazy view (views.js). The server does every rule (codes,
// limits, merging, deletion); this module draws `state.page.data` and turns clicks into
// requests whose answers go back through the store. A link code's QR link is
// /devices#code=ABCD-EFGH: the code rides in the fragment (never sent to the server) and
// is filled in here, waiting for a tap (a QR code alone never links a device).
//
// The view's own state is `page.ui`: {busy, error, errorCode, pairing, recovery, choose,
// note, drafts}. The one thing shown once is a new recovery code (ui.recovery).

import { request } from "../api.js";
import { devicesReducers } from "./view_state.js";
import { confirmDialog } from "../dialog.js";
import { API, href } from "../paths.js";
import { DEVICES as T } from "./devices_messages.js";
import { el } from "./dom.js";

const get = (path) => request("GET", path);
const post = (path, body = {}) => request("POST", path, body);
const call = {
  devices: () => get(API.devices()),
  code: () => post(API.devices("code")),
  link: (code, merge) => post(API.devices("link"), { code, merge }),
  recovery: () => post(API.devices("recovery")),
  recover: (code, merge) => post(API.devices("recover"), { code, merge }),
  remove: (id) => post(API.devices("remove", id)),
  erase: () => post(API.meDelete(), { confirm: true }),
};

/** The view's data when its address is opened: the devices, and a code from a QR link. */
export const load = {
  devices: () =>
    call.devices().then((data) => {
      const m = location.hash.match(/^#code=([0-9A-Za-z-]{1,24})$/);
      return { ...data, code: m ? m[1] : "" };
    }),
};

const when = (seconds) =>
  new Date(seconds * 1000).toLocaleString("zh-CN", { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });

function button(text, testid, onClick, className = "btn") {
  const b = el("button", className, text, { type: "button", "data-testid": testid });
  b.addEventListener("click", onClick);
  return b;
}

const panel = (title, id, testid) => {
  const s = el("section", "panel dv-panel", null, { "aria-labelledby": id, "data-testid": testid });
  s.append(el("h2", "", title, { id }));
  return s;
};

function field(label, id, value, testid) {
  const wrap = el("p", "dl-field");
  const input = el("input", "dl-input dv-code", null, {
    id,
    type: "text",
    autocomplete: "off",
    autocapitalize: "characters",
    spellcheck: "false",
    maxlength: "32",
    "data-testid": testid,
  });
  input.value = value || "";
  wrap.append(el("label", "", label, { for: id }), input);
  return { wrap, input };
}

function draw(body, page, ctx) {
  const data = page.data;
  const ui = page.ui;
  const busy = Boolean(ui.busy);
  const drafts = ui.drafts || {};
  const send = (promise, done, extra = {}) => {
    ctx.dispatch({ type: "devicesBusy", note: null, ...extra });
    return promise.then(
      (answer) => {
        ctx.dispatch({ type: "devicesIdle" });
        return done(answer);
      },
      (err) => ctx.dispatch({ type: "devicesFailed", error: err.message, code: err.code }),
    );
  };
  const again = () => load.devices().then((fresh) => ctx.dispatch({ type: "devicesData", serial: page.serial, data: fresh }));
  // Linked or recovered: this browser is another player now; the whole page starts anew.
  const linked = () => {
    ctx.dispatch({ type: "devicesNote", note: T.linked });
    setTimeout(() => location.assign(href("lobby")), 600);
  };
  const nodes = [];
  if (ui.error) nodes.push(el("p", "dl-error", ui.error, { role: "alert", "data-testid": "devices-error" }));
  if (ui.note) nodes.push(el("p", "dv-note", ui.note, { role: "status", "data-testid": "devices-note" }));

  // I1: this device shows a code and its QR code ...
  const pair = panel(T.pairTitle, "dv-pair", "devices-pair");
  pair.append(el("p", "fine", T.pairText));
  if (ui.pairing) {
    const shown = el("div", "dv-shown");
    shown.append(
      el("p", "dv-big", ui.pairing.code, { "data-testid": "link-code" }),
      el("img", "dv-qr", null, { src: ui.pairing.qr, alt: T.qrAlt(ui.pairing.code), width: "180", height: "180" }),
      el("p", "fine", T.pairExpires(Math.round(ui.pairing.seconds / 60))),
    );
    pair.append(shown);
  }
  pair.append(
    button(ui.pairing ? T.pairAgain : T.pairButton, "show-link-code", () =>
      send(call.code(), (made) => ctx.dispatch({ type: "devicesPairing", pairing: made })),
    ),
  );
  nodes.push(pair);

  // ... and another types it (or opened its link): merge or keep when it has games.
  const enter = panel(T.enterTitle, "dv-enter", "devices-enter");
  const typed = field(T.enterLabel, "dv-link-code", drafts.link ?? data.code, "link-code-input");
  enter.append(typed.wrap);
  const tryLink = (merge) => {
    const code = typed.input.value;
    send(call.link(code, merge), linked, { drafts: { ...drafts, link: code } }).then(() => {
      if (ctx.state().page?.ui.errorCode === "choose_merge") {
        ctx.dispatch({ type: "devicesChoose", choose: "link" });
      }
    });
  };
  enter.append(button(T.enterButton, "link-device", () => tryLink(false), "btn btn-primary"));
  nodes.push(enter);
  if (ui.choose) {
    const choose = panel(T.chooseTitle, "dv-choose", "devices-choose");
    choose.append(el("p", "", T.chooseText));
    const redo = ui.choose === "link" ? tryLink : (merge) => tryRecover(merge);
    const actions = el("p", "dl-actions");
    actions.append(
      button(T.merge, "merge-devices", () => redo(true), "btn btn-primary"),
      button(T.keep, "keep-separate", () => ctx.dispatch({ type: "devicesNote", note: T.kept })),
    );
    choose.append(actions);
    nodes.push(choose);
    ctx.afterRender(() => document.querySelector('[data-testid="merge-devices"]')?.focus());
  }

  // I2: the recovery code, shown once when made; and typing one to come back.
  const recovery = panel(T.recoveryTitle, "dv-recovery", "devices-recovery");
  recovery.append(el("p", "fine", T.recoveryText));
  if (ui.recovery) {
    const shown = el("div", "dv-shown");
    shown.append(
      el("p", "", T.recoveryShown),
      el("p", "dv-big dv-recovery-code", ui.recovery.code, { "data-testid": "recovery-code" }),
      el("img", "dv-qr", null, { src: ui.recovery.qr, alt: T.recoveryQrAlt, width: "180", height: "180" }),
    );
    recovery.append(shown);
  } else {
    recovery.append(el("p", "", data.recovery_code ? T.recoveryMade(when(data.recovery_code.created_at)) : T.recoveryNone));
  }
  const makeRecovery = () =>
    send(call.recovery(), (made) => {
      ctx.dispatch({ type: "devicesRecovery", recovery: made });
      return again();
    });
  recovery.append(
    button(data.recovery_code ? T.recoveryReplace : T.recoveryButton, "make-recovery", () =>
      data.recovery_code ? confirmDialog(T.recoveryReplaceAsk).then((yes) => yes && makeRecovery()) : makeRecovery(),
    ),
  );
  const back = field(T.recoverLabel, "dv-recover-code", drafts.recover, "recover-code-input");
  const tryRecover = (merge) => {
    const code = back.input.value;
    send(call.recover(code, merge), linked, { drafts: { ...drafts, recover: code } }).then(() => {
      if (ctx.state().page?.ui.errorCode === "choose_merge") {
        ctx.dispatch({ type: "devicesChoose", choose: "recover" });
      }
    });
  };
  recovery.append(back.wrap, button(T.recoverButton, "recover", () => tryRecover(false)));
  nodes.push(recovery);

  // I3: the devices, this one marked; 「移除」 for the others.
  const list = panel(T.listTitle, "dv-list", "devices-list");
  const ul = el("ul", "dv-devices");
  for (const d of data.devices) {
    const li = el("li", "dv-device", null, { "data-testid": "device" });
    const name = el("span", "dv-name", d.name);
    li.append(name);
    if (d.this) li.append(el("span", "dv-this", T.thisDevice));
    li.append(el("span", "fine", T.seen(when(d.seen_at))));
    if (!d.this) {
      li.append(
        button(T.remove, "remove-device", () =>
          confirmDialog(T.removeAsk(d.name)).then((yes) => yes && send(call.remove(d.id), again)),
        ),
      );
    }
    ul.append(li);
  }
  list.append(ul);
  nodes.push(list);

  // I4: export (a plain download of the JSON file) and delete (asked twice).
  const mine = panel(T.dataTitle, "dv-data", "devices-data");
  mine.append(el("p", "fine", T.dataText));
  const actions = el("p", "dl-actions");
  actions.append(
    el("a", "btn", T.exportButton, { href: API.meExport(), download: "yahtzee-data.json", "data-testid": "export-data" }),
    button(T.deleteButton, "delete-data", async () => {
      if (!(await confirmDialog(T.deleteAsk))) return;
      if (!(await confirmDialog(T.deleteAskAgain))) return;
      send(call.erase(), () => {
        ctx.dispatch({ type: "devicesNote", note: T.deleted });
        setTimeout(() => location.assign(href("lobby")), 600);
      });
    }, "btn btn-danger"),
  );
  mine.append(actions);
  nodes.push(mine);

  body.replaceChildren(...nodes);
  if (busy) for (const b of body.querySelectorAll("button")) b.disabled = true;
}

export const view = {
  reducers: {
    ...devicesReducers,
    /** Fresh data for the page opened as `serial` (after a removal, a new recovery code). */
    devicesData(state, { serial, data }) {
      const page = state.page;
      if (!page || page.serial !== serial) return state;
      return { ...state, page: { ...page, data: { ...data, code: page.data.code } } };
    },
  },
  render(body, page, ctx) {
    const key = JSON.stringify([page.serial, page.data, page.ui]);
    if (body.dataset.drawn === key) return;
    body.dataset.drawn = key;
    draw(body, page, ctx);
  },
};
