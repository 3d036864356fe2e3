// The page's first chunk of words (`core`, zh-Hans) for the Node tests: the server compiles
// it from the catalogs for the page, tests/js/core.zh-Hans.js is its copy, and
// glossary and hint.zh-Hans.js the lazy catalogs' chunks (kept equal by
// tests/api/test_page_config_fixture.py). Provided to js/i18n.js, so `t()` and the names
// /api/config gives as keys read as the page reads them. Import it after setting
// `globalThis.document` (the page's modules read the configuration from it).

import * as core from "./core.zh-Hans.js";
import * as glossary from "./glossary.zh-Hans.js";
import * as hint from "./hint.zh-Hans.js";

const { provide } = await import("../../src/yahtzee/static/js/i18n.js");
provide("zh-Hans", "core", core);
// (lazy/glossary.js and hint_messages.js await their chunks)
provide("zh-Hans", "glossary", glossary);
provide("zh-Hans", "hint", hint);

/** The zh-Hans texts by key. */
export const W = core.messages;
