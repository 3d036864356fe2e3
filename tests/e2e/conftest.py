"""Fixtures for the browser tests: a real, seeded game server and Debian's chromium.

One server per test session (seeded dice, temporary database). Every test gets a fresh
browser context, so a fresh ``yahtzee_player`` cookie: its own games and records, which
keeps the tests independent of each other although they share the server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from e2e.helpers import ConsoleWatch, Table, free_port

CHROMIUM = "/usr/bin/chromium"
SEED = 20261129
SERVER_SCRIPT = Path(__file__).with_name("serve_seeded.py")
# Five 3s, twice: a Yahtzee scored as 50, then a second one that the forced Joker rule (R6)
# sends to 三点 — the only way to see Joker-forbidden boxes without luck.
JOKER_SCRIPT = ",".join(["3"] * 10)


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


class RunningServer:
    """A ``serve_seeded.py`` subprocess on a free loopback port."""

    def __init__(self, tmp: Path, name: str, dice_args: list[str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"{name}.log"
        cmd = [sys.executable, str(SERVER_SCRIPT), "--port", str(self.port)]
        cmd += ["--db", str(tmp / f"{name}.db"), *dice_args]
        with self.log.open("wb") as out:
            # The environment is inherited so the solver table cache (YAHTZEE_CACHE_DIR, set
            # by tests/conftest.py) is shared with the rest of the test run.
            self.proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ}
            )

    def wait_ready(self, timeout: float = 300.0) -> None:
        """Wait for ``/api/health`` (the first start may build the solver table)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/health", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server not ready after {timeout}s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        """Terminate the subprocess (it is ours alone)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of the seeded server shared by the session."""
    server = RunningServer(tmp_path_factory.mktemp("e2e"), "seeded", ["--seed", str(SEED)])
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def joker_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose dice are scripted: two Yahtzees of 3s in a row (for U1/R6)."""
    server = RunningServer(tmp_path_factory.mktemp("joker"), "joker", ["--script", JOKER_SCRIPT])
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


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
