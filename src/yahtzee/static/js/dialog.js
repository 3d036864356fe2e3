// The in-page confirmation dialog (U2: never window.confirm). A native <dialog> opened with
// showModal(): it traps focus, and Esc fires "cancel", which counts as 「再想想」.

import { t } from "./i18n.js";

const dialog = () => document.getElementById("confirm-dialog");

let pending = null;

export function isConfirmOpen() {
  return dialog().open;
}

/** Ask a yes/no question; resolves true for yes, false for no, Esc or closing. `help`: the
 * glossary id of the question's term (「写 0」, L11): its words follow the text (the
 * glossary is lazy: loaded once the page is up, views.js OVERLAYS.words). */
export function confirmDialog({ title, text, yes, no, help = null }) {
  const d = dialog();
  if (pending) pending(false);
  // (the question's own words: index.html's placeholders no longer follow a change of language)
  for (const id of ["confirm-title", "confirm-yes", "confirm-no"]) delete document.getElementById(id).dataset.i18n;
  document.getElementById("confirm-title").textContent = title;
  const body = document.getElementById("confirm-text");
  body.textContent = text;
  if (help) {
    import("./lazy/glossary.js").then(({ GLOSSARY }) => {
      const g = GLOSSARY[help];
      if (body.textContent === text) body.append(document.createElement("br"), t("core.board.term_words", { term: g.term, text: g.text }));
    });
  }
  document.getElementById("confirm-yes").textContent = yes;
  document.getElementById("confirm-no").textContent = no;
  const opener = document.activeElement;
  return new Promise((resolve) => {
    pending = (answer) => {
      pending = null;
      if (d.open) d.close();
      // Give focus back to what opened the dialog so keyboard play continues there.
      if (opener && opener.isConnected && !opener.disabled) opener.focus();
      resolve(answer);
    };
    d.showModal();
    // The safe answer has focus: Enter right away cancels rather than writes a 0.
    document.getElementById("confirm-no").focus();
  });
}

export function closeConfirm(answer = false) {
  if (pending) pending(answer);
}

function wire() {
  const d = dialog();
  document.getElementById("confirm-yes").addEventListener("click", () => closeConfirm(true));
  document.getElementById("confirm-no").addEventListener("click", () => closeConfirm(false));
  d.addEventListener("cancel", (event) => {
    event.preventDefault();
    closeConfirm(false);
  });
  // A click on the backdrop (outside the box) cancels too.
  d.addEventListener("click", (event) => {
    if (event.target === d) closeConfirm(false);
  });
}

wire();
