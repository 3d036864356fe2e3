"""A cookieless browser gets one player id, even from a page that asks for several things
at once (api.js: the page's first request goes alone).

统计 opened directly asks for the games' statistics and 练习's progress together, 小组 for
the groups and the day's status: both this player's. The server mints an id (and sets its
signed cookie) when a request without one needs a player: sent at once, the two requests
each got an id, and whatever one of them made belonged to the id whose cookie lost.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Response, expect

from e2e.helpers import ConsoleWatch

pytestmark = pytest.mark.e2e

# I3: the cookie names a device, v2.<device>.<mac>: one device minted means one player.
_PLAYER = re.compile(r"yahtzee_player=(v2\.[^;.\s]+)")


@pytest.mark.parametrize("path", ["/stats", "/groups"])
def test_a_page_opened_without_a_cookie_mints_one_player_id(
    browser: Browser, server_url: str, path: str
) -> None:
    context = browser.new_context(locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(15_000)
    watch = ConsoleWatch()
    watch.watch(page)
    api: list[Response] = []
    page.on("response", lambda r: api.append(r) if "/api/" in r.url else None)
    page.goto(server_url + path)
    body = page.get_by_test_id(f"{path[1:]}-body")
    expect(body).to_be_visible()
    expect(body).not_to_have_attribute("aria-busy", "true")
    expect(body.locator(".rv-error")).to_have_count(0)
    assert len(api) >= 2, [r.url for r in api]  # the page asked for several things
    minted = [m for r in api for m in _PLAYER.findall(r.header_value("set-cookie") or "")]
    assert len(minted) == 1, f"player ids minted: {minted}"
    (cookie,) = [c for c in context.cookies() if c["name"] == "yahtzee_player"]
    assert cookie["value"].startswith(minted[0])
    context.close()
    assert watch.errors == [], "console errors:\n" + "\n".join(watch.errors)
