"""The Node tests of the page (tests/js) run on a copy of the configuration the server
embeds in index.html and of the first chunk of words it compiles for the page: this keeps
those copies equal to the real ones."""

from __future__ import annotations

import json
from pathlib import Path

from yahtzee.i18n import Lang, catalogs
from yahtzee.i18n.page import chunk_module
from yahtzee.server.config import page_config
from yahtzee.web.app import CONFIG_KINDS, CONFIG_SECTIONS

FIXTURE = Path(__file__).resolve().parents[1] / "js" / "config.json"
WORDS = FIXTURE.with_name("core.zh-Hans.js")
#: The lazy catalogs' chunks (lazy/glossary.js and hint_messages.js await them).
LAZY_CHUNKS = ("glossary", "hint")


def test_the_node_tests_config_fixture_is_the_servers_page_config() -> None:
    expected = page_config(CONFIG_SECTIONS, kinds=CONFIG_KINDS)
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == expected, (
        f"{FIXTURE} is stale: regenerate it from yahtzee.server.config.page_config("
        "CONFIG_SECTIONS, kinds=CONFIG_KINDS)"
    )


def test_the_node_tests_words_are_the_servers_core_chunk() -> None:
    """G1: the names /api/config gives as keys read in Node as on the page (and the
    lazy catalogs' words, which their modules await)."""
    for chunk in ("core", *LAZY_CHUNKS):
        path = FIXTURE.with_name(f"{chunk}.zh-Hans.js")
        expected = chunk_module(catalogs(), Lang.ZH_HANS, chunk)
        assert path.read_bytes() == expected, (
            f"{path} is stale: regenerate it from yahtzee.i18n.page.chunk_module("
            f"catalogs(), Lang.ZH_HANS, {chunk!r})"
        )
