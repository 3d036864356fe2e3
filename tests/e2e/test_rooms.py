"""好友房间 in the browser (O1-O9): a room made in one browser, joined from another through
its invite link (a hostile name, shown as text), played live to its end with two computers
(each screen shows the other seats' dice and holds as they happen), reactions, the
timeout take-over (托管) with a short turn, and 「再来一局」. On the production stack
(nginx, two app processes, PostgreSQL), four people play a whole game whose browsers are
spread over both processes."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from e2e.helpers import ConsoleWatch, sized_context

pytestmark = pytest.mark.e2e

HOSTILE = '<img src=x onerror="window.__pwned=1">'[:12]  # 12 characters of markup


def _page(context: BrowserContext, console: ConsoleWatch) -> Page:
    page = context.new_page()
    page.set_default_timeout(20_000)
    console.watch(page)
    return page


def _create(page: Page, base: str, name: str, friends: int, computers: int, turn: int) -> str:
    """Open a room from the lobby; returns its invite link."""
    page.goto(base + "/")
    page.get_by_test_id("rooms-link").click()
    page.get_by_test_id("room-your-name").fill(name)
    page.get_by_test_id("room-friends").select_option(str(friends))
    page.get_by_test_id("room-computers").select_option(str(computers))
    page.get_by_test_id("room-turn-seconds").fill(str(turn))
    page.get_by_test_id("create-room").click()
    link = page.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/rooms/[0-9a-f]{16}#t=[A-Za-z0-9_-]{22}$"))
    return link.input_value()


def _join(page: Page, invite: str, name: str) -> None:
    page.goto(invite)
    page.get_by_test_id("join-name").fill(name)
    page.get_by_test_id("join-room").click()
    expect(page.get_by_test_id("invite-link")).to_be_visible()  # seated: the invite shows


def _play_turn(page: Page) -> None:
    """Roll once and write the first open box the server allows; the turn then passes to
    another person (these tests never seat one person alone with computers)."""
    page.locator('[data-testid="room-roll"]:enabled').click()
    page.locator('[data-testid^="room-score-"]:enabled').first.click()
    expect(page.get_by_test_id("room-roll")).to_have_count(0)


def _play_to_end(pages: list[Page]) -> None:
    """Each turn from the screen whose turn it is, until every screen shows the ranking."""
    idle_since = time.monotonic()
    while time.monotonic() - idle_since < 60:  # a minute without a turn: stuck
        if all(p.get_by_test_id("rematch").count() for p in pages):
            return
        for p in pages:
            if p.locator('[data-testid="room-roll"]:enabled').count():
                _play_turn(p)
                idle_since = time.monotonic()
                break
        else:
            pages[0].wait_for_timeout(100)
    screens = "\n\n".join(p.locator("#view-room").inner_text() for p in pages)
    raise AssertionError(f"no screen could play on:\n{screens}")


def test_o1_to_o8_a_room_with_two_people_and_two_computers(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    host_ctx = sized_context(browser, 1280, 800, permissions=["clipboard-read", "clipboard-write"])
    friend_ctx = sized_context(browser, 375, 667)
    host, friend = _page(host_ctx, console), _page(friend_ctx, console)
    invite = _create(host, server_url, "房主", friends=1, computers=2, turn=300)
    # sharing: copy, QR code (an SVG image that loads)
    host.get_by_test_id("copy-invite").click()
    assert host.evaluate("navigator.clipboard.readText()") == invite
    qr = host.get_by_test_id("invite-qr")
    expect(qr).to_be_visible()
    assert host.evaluate("(img) => img.complete && img.naturalWidth > 0", qr.element_handle())
    expect(host.get_by_test_id("room-seat-1")).to_contain_text("空位")

    # the friend opens the link on a phone, with a hostile name
    _join(friend, invite, HOSTILE)
    for p in (host, friend):
        seat = p.get_by_test_id("room-seat-1")
        expect(seat).to_contain_text(HOSTILE)  # shown as text...
        assert seat.locator("img").count() == 0  # ...never as markup
    assert host.evaluate("window.__pwned") is None
    assert friend.get_by_test_id("start-room").count() == 0  # only the creator starts
    host.get_by_test_id("start-room").click()

    # live: the host's roll and holds show on the friend's screen as they happen
    host.get_by_test_id("room-roll").click()
    faces = [host.get_by_test_id(f"room-die-{i}").inner_text() for i in range(5)]
    for i in range(5):
        expect(friend.get_by_test_id(f"room-die-{i}")).to_have_text(faces[i])
    host.get_by_test_id("room-die-0").click()
    expect(friend.get_by_test_id("room-die-0")).to_have_attribute("aria-pressed", "true")
    host.locator('[data-testid^="room-score-"]:enabled').first.click()
    # reactions, from the fixed set, shown beside the seat on every screen
    friend.get_by_test_id("reaction-nice").click()
    expect(host.get_by_test_id("room-seat-1")).to_contain_text("漂亮")

    _play_to_end([host, friend])
    expect(host.locator(".rm-ranking li")).to_have_count(4)
    # 「再来一局」: a new room with the same seats; the other screen is offered to go there
    host.get_by_test_id("rematch").click()
    expect(host.get_by_test_id("start-room")).to_be_visible()
    expect(friend.get_by_test_id("rematch")).to_have_attribute("href", re.compile(r"^/rooms/"))
    friend.get_by_test_id("rematch").click()
    expect(friend.get_by_test_id("room-seat-1")).to_contain_text(HOSTILE)
    assert console.errors == [], console.errors
    host_ctx.close()
    friend_ctx.close()


def test_o5_the_timeout_takeover_with_a_short_turn(
    browser: Browser, server_url: str, console: ConsoleWatch
) -> None:
    host_ctx, friend_ctx = sized_context(browser, 1280, 800), sized_context(browser, 1280, 800)
    host, friend = _page(host_ctx, console), _page(friend_ctx, console)
    invite = _create(host, server_url, "慢慢", friends=1, computers=0, turn=10)
    _join(friend, invite, "快快")
    host.get_by_test_id("start-room").click()
    # the host does nothing: everyone sees the countdown, then 托管 on the host's seat
    expect(friend.get_by_test_id("countdown")).to_be_visible()
    expect(friend.get_by_test_id("away-0")).to_be_visible(timeout=30_000)
    expect(host.get_by_test_id("away-0")).to_be_visible()
    # the computer played the host's turn: now it is the friend's
    expect(friend.get_by_test_id("room-roll")).to_be_enabled()
    # the host takes the seat back
    host.get_by_test_id("room-im-back").click()
    expect(friend.get_by_test_id("away-0")).to_have_count(0)
    assert console.errors == [], console.errors
    host_ctx.close()
    friend_ctx.close()
