// 我的设备's words (I1-I4), chunk `devices` of the catalogs (G1, docs/i18n.md), and U20's
// notice's (chunk `notice`): each a getter or a function, said when drawn (the language can
// change after this module loaded). devices.js loads its chunk with the view's data;
// notice.js its own.

import { t, tn } from "../i18n.js";

/** A confirmation's words (dialog.js confirmDialog). */
const ask = (title, text, yes, no) => ({ title, text, yes, no });

export const DEVICES = {
  get pairTitle() { return t("devices.pair.title"); },
  get pairText() { return t("devices.pair.text"); },
  get pairButton() { return t("devices.pair.button"); },
  get pairAgain() { return t("devices.pair.again"); },
  pairExpires: (minutes) => tn("devices.pair.expires", minutes, { minutes }),
  qrAlt: (code) => t("devices.pair.qr_alt", { code }),
  get enterTitle() { return t("devices.enter.title"); },
  get enterLabel() { return t("devices.enter.label"); },
  get enterButton() { return t("devices.enter.button"); },
  get chooseTitle() { return t("devices.choose.title"); },
  get chooseText() { return t("devices.choose.text"); },
  get merge() { return t("devices.choose.merge"); },
  get keep() { return t("devices.choose.keep"); },
  get kept() { return t("devices.choose.kept"); },
  get linked() { return t("devices.linked"); },
  // F27: a merge over a per-player cap says what it gave up (the server's sentences)
  get linkedLeftOut() {
    return { title: t("devices.linked_left_out.title"), yes: t("devices.linked_left_out.yes"), no: t("devices.linked_left_out.no") };
  },
  get recoveryTitle() { return t("devices.recovery.title"); },
  get recoveryText() { return t("devices.recovery.text"); },
  recoveryMade: (when) => t("devices.recovery.made", { when }),
  get recoveryNone() { return t("devices.recovery.none"); },
  get recoveryButton() { return t("devices.recovery.button"); },
  get recoveryReplace() { return t("devices.recovery.replace"); },
  get recoveryReplaceAsk() {
    return ask(t("devices.recovery.replace_ask.title"), t("devices.recovery.replace_ask.text"), t("devices.recovery.replace_ask.yes"), t("devices.cancel"));
  },
  get recoveryShown() { return t("devices.recovery.shown"); },
  get recoveryQrAlt() { return t("devices.recovery.qr_alt"); },
  get recoverLabel() { return t("devices.recover.label"); },
  get recoverButton() { return t("devices.recover.button"); },
  get listTitle() { return t("devices.list.title"); },
  get thisDevice() { return t("devices.list.this"); },
  seen: (when) => t("devices.list.seen", { when }),
  get remove() { return t("devices.list.remove"); },
  removeAsk: (name) => ({
    title: t("devices.remove_ask.title"),
    text: t("devices.remove_ask.text", { name }),
    yes: t("devices.list.remove"),
    no: t("devices.cancel"),
  }),
  get dataTitle() { return t("devices.data.title"); },
  get dataText() { return t("devices.data.text"); },
  get exportButton() { return t("devices.data.export"); },
  get deleteButton() { return t("devices.data.delete"); },
  get deleteAsk() { return ask(t("devices.delete_ask.title"), t("devices.delete_ask.text"), t("devices.delete_ask.yes"), t("devices.cancel")); },
  get deleteAskAgain() {
    return ask(t("devices.delete_ask_again.title"), t("devices.delete_ask_again.text"), t("devices.delete_ask_again.yes"), t("devices.delete_ask_again.no"));
  },
  // F20: the owner stays in control.
  get newTitle() { return t("devices.new.title"); },
  newText: (name, when, via) =>
    via === "recovery" ? t("devices.new.text_recovery", { name, when }) : t("devices.new.text_code", { name, when }),
  get newYes() { return t("devices.new.yes"); },
  get newRemove() { return t("devices.new.remove"); },
  get waitTitle() { return t("devices.wait.title"); },
  get waitText() { return t("devices.wait.text"); },
  waitKinds: {
    remove_device: (target) => (target ? t("devices.wait.remove_device", { target }) : t("devices.wait.remove_a_device")),
    erase: () => t("devices.wait.erase"),
    recovery_new: () => t("devices.recovery.replace"),
    recovery_remove: () => t("devices.recovery.remove"),
  },
  waitBy: (by, due) => (by ? t("devices.wait.by", { by, due }) : t("devices.wait.by_removed", { due })),
  get refuse() { return t("devices.wait.refuse"); },
  get cancel() { return t("devices.wait.cancel"); },
  queued: (hours) => tn("devices.queued", hours, { hours }),
  get proofLabel() { return t("devices.proof.label"); },
  recoveryLater: (hours) => tn("devices.recovery.later", hours, { hours }),
  get recoveryRemove() { return t("devices.recovery.remove"); },
  get recoveryRemoveAsk() {
    return ask(t("devices.recovery.remove_ask.title"), t("devices.recovery.remove_ask.text"), t("devices.recovery.remove_ask.yes"), t("devices.cancel"));
  },
  get recoveryRemoved() { return t("devices.recovery.removed"); },
  get signOut() { return t("devices.sign_out"); },
  get signOutAsk() { return ask(t("devices.sign_out_ask.title"), t("devices.sign_out_ask.text"), t("devices.sign_out_ask.yes"), t("devices.cancel")); },
  exportSummary: (s) =>
    t("devices.export.summary", {
      games: tn("devices.export.games", s.games, { n: s.games }),
      finished: tn("devices.export.finished", s.finished_games, { n: s.finished_games }),
      best: s.best_score === null ? "" : t("devices.export.best", { score: s.best_score }),
      rooms: tn("devices.export.room_games", s.room_games, { n: s.room_games }),
      groups: tn("devices.export.groups", s.groups, { n: s.groups }),
      devices: tn("devices.export.devices", s.devices, { n: s.devices }),
    }),
  get exportDownload() { return t("devices.export.download"); },
  get exportBusy() { return t("devices.export.busy"); },
};

// U20: what a browser whose device ended is told, once, on its next visit (chunk `notice`).
export const NOTICES = {
  get removed() { return t("notice.removed"); },
  get erased() { return t("notice.erased"); },
  get expired() { return t("notice.expired"); },
  get signed_out() { return t("notice.signed_out"); },
  get ok() { return t("notice.ok"); },
};
