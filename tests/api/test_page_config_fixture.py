"""The Node tests of the page (tests/js) run on a copy of the configuration the server
embeds in index.html: this keeps that copy equal to the real one."""

from __future__ import annotations

import json
from pathlib import Path

from yahtzee.server.config import page_config
from yahtzee.web.app import CONFIG_KINDS, CONFIG_SECTIONS

FIXTURE = Path(__file__).resolve().parents[1] / "js" / "config.json"


def test_the_node_tests_config_fixture_is_the_servers_page_config() -> None:
    expected = page_config(CONFIG_SECTIONS, kinds=CONFIG_KINDS)
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == expected, (
        f"{FIXTURE} is stale: regenerate it from yahtzee.server.config.page_config("
        "CONFIG_SECTIONS, kinds=CONFIG_KINDS)"
    )
