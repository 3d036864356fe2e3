"""Fixtures for the browser tests: a real, seeded game server and Debian's chromium.

One server per test session (seeded dice, temporary database). Every test gets a fresh
browser context, so a fresh ``yahtzee_player`` cookie: its own games and records, which
keeps the tests independent of each other although they share the server.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from e2e.helpers import ConsoleWatch, Table
from server_process import ServerProcess

CHROMIUM = "/usr/bin/chromium"
SEED = 20261129
SERVER_SCRIPT = Path(__file__).with_name("serve_seeded.py")
# Five 3s, over and over: a Yahtzee scored as 50, then a second one that the forced Joker
# rule (R6) sends to 三点 — the only way to see Joker-forbidden boxes without luck. The
# script repeats: the tests that share the server (U1, the fanfare) may run in any order.
JOKER_SCRIPT = "3,3,3,3,3"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's chromium: ``playwright install`` cannot download a browser here."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run `make browser`")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """A desktop window (1280x800) with a Chinese locale by default."""
    return {**browser_context_args, "viewport": {"width": 1280, "height": 800}, "locale": "zh-CN"}


def _server(tmp: Path, name: str, dice_args: list[str]) -> ServerProcess:
    """The seeded launcher on a free loopback port with its own database."""
    return ServerProcess(
        tmp / f"{name}.db", program=[sys.executable, str(SERVER_SCRIPT)], args=dice_args
    )


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of the seeded server shared by the session."""
    with _server(tmp_path_factory.mktemp("e2e"), "seeded", ["--seed", str(SEED)]) as server:
        yield server.url


@pytest.fixture(scope="session")
def joker_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose dice are scripted: two Yahtzees of 3s in a row (for U1/R6)."""
    with _server(
        tmp_path_factory.mktemp("joker"), "joker", ["--script", JOKER_SCRIPT, "--repeat"]
    ) as server:
        yield server.url


@pytest.fixture
def console() -> ConsoleWatch:
    """The console watch of the test's pages (asserted clean by :func:`ui`)."""
    return ConsoleWatch()


@pytest.fixture
def ui(page: Page, server_url: str, console: ConsoleWatch) -> Iterator[Table]:
    """The lobby of the seeded server, opened in a fresh browser context.

    After the test, no console error may have been logged on any page it visited.
    """
    page.set_default_timeout(10_000)
    console.watch(page)
    t = Table(page, server_url)
    t.open_lobby()
    yield t
    assert console.errors == [], "console errors:\n" + "\n".join(console.errors)
