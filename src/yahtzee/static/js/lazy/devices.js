// 我的设备 (/devices, I1-I4, F20-F23): a lazy view (views.js). The server does every rule
// (codes, limits, merging, what needs the recovery code or waits, deletion); this module
// draws `state.page.data` and turns clicks into requests whose answers go back through the
// store. A link code's QR link is /devices#code=ABCDE-FGHJK: the code rides in the fragment
// (never sent to the server) and is filled in here, waiting for a tap (a QR code alone
// never links a device).
//
// The view's own state is `page.ui`: {busy, error, errorCode, pairing, recovery, choose,
// note, drafts, exported}. The one thing shown once is a new recovery code (ui.recovery).
// At the top, what the owner must see (F20): a device that came in by a code lately
// (「这是你吗？」, removed with one tap) and the requests that wait, each refused with one tap.

import { request } from "../api.js";
import { confirmDialog } from "../dialog.js";
import { API, href } from "../paths.js";
import { formatDate, language, load as loadWords } from "../i18n.js";
import { DEVICES as T } from "./devices_messages.js";
import { el, pageSlice, requestReducers } from "./dom.js";

/** 我的设备's own state: requests, a note said (its name in devices_messages.js DEVICES),
 * a link code or recovery code made, the merge choice, the export read (its summary and
 * its file's object URL). */
export const devicesReducers = pageSlice(["devices"], {
  ...requestReducers("devices"),
  devicesNote: (ui, { note }) => ({ ...ui, note, choose: null }),
  devicesPairing: (ui, { pairing }) => ({ ...ui, pairing }),
  devicesRecovery: (ui, { recovery }) => ({ ...ui, recovery }),
  devicesChoose: (ui, { choose }) => ({ ...ui, choose, error: null }),
  devicesExported: (ui, { exported }) => ({ ...ui, exported, note: null }),
});

const get = (path) => request("GET", path);
const post = (path, body = {}) => request("POST", path, body);
// The recovery code typed as proof (F20), sent only when there is one.
const proved = (body, proof) => (proof ? { ...body, recovery_code: proof } : body);
const call = {
  devices: () => get(API.devices()),
  code: () => post(API.devices("code")),
  link: (code, merge, proof) => post(API.devices("link"), proved({ code, merge }, proof)),
  recovery: (proof) => post(API.devices("recovery"), proved({}, proof)),
  recoveryRemove: (proof) => post(API.devices("remove", "recovery"), proved({}, proof)),
  recover: (code, merge, proof) => post(API.devices("recover"), proved({ code, merge }, proof)),
  remove: (id, proof) => post(API.devices("remove", id), proved({}, proof)),
  confirm: (id) => post(API.devices("confirm", id)),
  refuse: (id) => post(API.deviceRefuse(id)),
  signOut: () => post(API.devices("signout")),
  erase: (proof) => post(API.meDelete(), proved({ confirm: true }, proof)),
  // the file as sent (its bytes are what is downloaded), read for its summary first
  exportFile: () => request("GET", API.meExport(), undefined, "text"),
};

/** The view's data when its address is opened: the devices, and a code from a QR link;
 * with the view's words (chunk `devices`, in the page's language). */
export const load = {
  devices: () =>
    Promise.all([call.devices(), loadWords("devices")]).then(([data]) => {
      const m = location.hash.match(/^#code=([0-9A-Za-z-]{1,24})$/);
      return { ...data, code: m ? m[1] : "" };
    }),
};

const when = (seconds) =>
  formatDate(new Date(seconds * 1000), { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });

function button(text, testid, onClick, className = "btn") {
  const b = el("button", className, text, { type: "button", "data-testid": testid });
  b.addEventListener("click", onClick);
  return b;
}

const panel = (title, id, testid, extra = "") => {
  const s = el("section", `panel dv-panel${extra}`, null, { "aria-labelledby": id, "data-testid": testid });
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

let exportUrl = null; // the object URL of the last export's file (revoked on the next)

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
  // A protected action asked without the recovery code waits (F20): say so, show it.
  const queuedOr = (note) => (answer) => {
    ctx.dispatch({ type: "devicesNote", note: answer && answer.pending ? "queued" : note });
    return again();
  };
  // Linked or recovered: this browser is another player now; the whole page starts anew.
  const linked = (answer) => {
    const left = (answer && answer.left_out) || [];
    if (left.length) {
      // F27: what the merge gave up to keep a cap, read before the page starts anew
      const text = left.map((n) => n.message).join("");
      return confirmDialog({ ...T.linkedLeftOut, text }).then(() => location.assign(href("lobby")));
    }
    ctx.dispatch({ type: "devicesNote", note: "linked" });
    setTimeout(() => location.assign(href("lobby")), 600);
  };
  // This browser's device ended (deleted, signed out): the lobby says so (U20, api.js).
  const leave = () => location.assign(href("lobby"));
  const proofField = data.recovery_code ? field(T.proofLabel, "dv-proof", drafts.proof, "proof-input") : null;
  const proof = () => (proofField ? proofField.input.value.trim() : "");
  const keep = () => ({ drafts: { ...drafts, proof: proof() } });
  const nodes = [];
  if (ui.error) nodes.push(el("p", "dl-error", ui.error, { role: "alert", "data-testid": "devices-error" }));
  // (a note is kept by its name and said when drawn: a change of language says it again)
  const said = ui.note === "queued" ? T.queued(data.wait_hours) : ui.note ? T[ui.note] : null;
  if (said) nodes.push(el("p", "dv-note", said, { role: "status", "data-testid": "devices-note" }));

  // F20: a device that came in by a code lately: 「这是你吗？」, removed with one tap.
  const newcomers = data.devices.filter((d) => d.new);
  if (newcomers.length) {
    const alert = panel(T.newTitle, "dv-new", "devices-new", " dv-alert");
    for (const d of newcomers) {
      const row = el("div", "dv-alert-row", null, { "data-testid": "new-device" });
      row.append(el("p", "", T.newText(d.name, when(d.joined_at), d.via)));
      const actions = el("p", "dl-actions");
      actions.append(
        button(T.newYes, "confirm-device", () => send(call.confirm(d.id), again)),
        d.at_once
          ? button(T.newRemove, "remove-new-device", () => send(call.remove(d.id), again), "btn btn-danger")
          : button(T.newRemove, "remove-new-device", () => removeAsked(d), "btn btn-danger"),
      );
      row.append(actions);
      alert.append(row);
    }
    nodes.push(alert);
  }

  // F20: what waits, on every device of the player, each refused with one tap.
  if (data.requests.length) {
    const waiting = panel(T.waitTitle, "dv-wait", "devices-requests", " dv-alert");
    waiting.append(el("p", "fine", T.waitText));
    for (const r of data.requests) {
      const row = el("div", "dv-alert-row", null, { "data-testid": "pending-request" });
      row.append(el("p", "dv-name", T.waitKinds[r.kind](r.target_name)), el("p", "fine", T.waitBy(r.by_name, when(r.due_at))));
      row.append(button(r.mine ? T.cancel : T.refuse, "refuse-request", () => send(call.refuse(r.id), again), "btn btn-primary"));
      waiting.append(row);
    }
    nodes.push(waiting);
  }

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
    send(call.link(code, merge, proof()), linked, { drafts: { ...drafts, link: code, proof: proof() } }).then(() => {
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
      button(T.keep, "keep-separate", () => ctx.dispatch({ type: "devicesNote", note: "kept" })),
    );
    choose.append(actions);
    nodes.push(choose);
    ctx.afterRender(() => document.querySelector('[data-testid="merge-devices"]')?.focus());
  }

  // I2: the recovery code, shown once when made; and typing one to come back. With a
  // code, the field for it as proof (F20: what could lock the owner out is done at once).
  const recovery = panel(T.recoveryTitle, "dv-recovery", "devices-recovery");
  recovery.append(el("p", "fine", T.recoveryText));
  if (ui.recovery) {
    const shown = el("div", "dv-shown");
    shown.append(
      el("p", "", T.recoveryShown),
      el("p", "dv-big dv-recovery-code", ui.recovery.code, { "data-testid": "recovery-code" }),
      el("img", "dv-qr", null, { src: ui.recovery.qr, alt: T.recoveryQrAlt, width: "180", height: "180" }),
    );
    if (ui.recovery.pending) shown.append(el("p", "dv-note", T.recoveryLater(data.wait_hours), { "data-testid": "recovery-later" }));
    recovery.append(shown);
  } else {
    recovery.append(el("p", "", data.recovery_code ? T.recoveryMade(when(data.recovery_code.created_at)) : T.recoveryNone));
  }
  const makeRecovery = () =>
    send(
      call.recovery(proof()),
      (made) => {
        ctx.dispatch({ type: "devicesRecovery", recovery: made });
        return again();
      },
      keep(),
    );
  const recoveryActions = el("p", "dl-actions");
  recoveryActions.append(
    button(data.recovery_code ? T.recoveryReplace : T.recoveryButton, "make-recovery", () =>
      data.recovery_code ? confirmDialog(T.recoveryReplaceAsk).then((yes) => yes && makeRecovery()) : makeRecovery(),
    ),
  );
  if (data.recovery_code) {
    recoveryActions.append(
      button(T.recoveryRemove, "remove-recovery", () =>
        confirmDialog(T.recoveryRemoveAsk).then(
          (yes) => yes && send(call.recoveryRemove(proof()), queuedOr("recoveryRemoved"), keep()),
        ),
      ),
    );
  }
  recovery.append(recoveryActions);
  if (proofField) recovery.append(proofField.wrap);
  const back = field(T.recoverLabel, "dv-recover-code", drafts.recover, "recover-code-input");
  const tryRecover = (merge) => {
    const code = back.input.value;
    send(call.recover(code, merge, proof()), linked, { drafts: { ...drafts, recover: code, proof: proof() } }).then(() => {
      if (ctx.state().page?.ui.errorCode === "choose_merge") {
        ctx.dispatch({ type: "devicesChoose", choose: "recover" });
      }
    });
  };
  recovery.append(back.wrap, button(T.recoverButton, "recover", () => tryRecover(false)));
  nodes.push(recovery);

  // I3: the devices, this one marked (「退出这台设备」 there); 「移除」 for the others.
  const removeAsked = (d) =>
    confirmDialog(T.removeAsk(d.name)).then((yes) => yes && send(call.remove(d.id, proof()), queuedOr(null), keep()));
  const list = panel(T.listTitle, "dv-list", "devices-list");
  const ul = el("ul", "dv-devices");
  for (const d of data.devices) {
    const li = el("li", "dv-device", null, { "data-testid": "device" });
    li.append(el("span", "dv-name", d.name));
    if (d.this) li.append(el("span", "dv-this", T.thisDevice));
    li.append(el("span", "fine", T.seen(when(d.seen_at))));
    li.append(
      d.this
        ? button(T.signOut, "sign-out", () => confirmDialog(T.signOutAsk).then((yes) => yes && send(call.signOut(), leave)))
        : button(T.remove, "remove-device", () => removeAsked(d)),
    );
    ul.append(li);
  }
  list.append(ul);
  nodes.push(list);

  // I4, U20: the export's summary first, then its file; delete (asked twice).
  const mine = panel(T.dataTitle, "dv-data", "devices-data");
  mine.append(el("p", "fine", T.dataText));
  if (ui.exported) {
    const done = el("div", "dv-shown dv-summary");
    done.append(
      el("p", "", T.exportSummary(ui.exported.summary), { "data-testid": "export-summary" }),
      el("a", "btn btn-primary", T.exportDownload, {
        href: ui.exported.url,
        download: "yahtzee-data.json",
        "data-testid": "export-download",
      }),
    );
    mine.append(done);
  }
  const actions = el("p", "dl-actions");
  actions.append(
    button(T.exportButton, "export-data", () =>
      send(
        call.exportFile(),
        (text) => {
          if (exportUrl) URL.revokeObjectURL(exportUrl);
          exportUrl = URL.createObjectURL(new Blob([text], { type: "application/json" }));
          ctx.dispatch({ type: "devicesExported", exported: { summary: JSON.parse(text).summary, url: exportUrl } });
        },
        { note: "exportBusy" },
      ),
    ),
    button(T.deleteButton, "delete-data", async () => {
      if (!(await confirmDialog(T.deleteAsk))) return;
      if (!(await confirmDialog(T.deleteAskAgain))) return;
      send(call.erase(proof()), (answer) => (answer.erased ? leave() : queuedOr(null)(answer)), keep());
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
    // (drawn again in a new language: its words are said when drawn)
    const key = JSON.stringify([page.serial, page.data, page.ui, language()]);
    if (body.dataset.drawn === key) return;
    body.dataset.drawn = key;
    draw(body, page, ctx);
  },
};
