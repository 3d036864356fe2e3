"""W4 in the browser: 设置's 「提醒我」 turns reminders on and off, and the service worker
shows a reminder in the page's language.

Headless Chromium reaches no vendor's push service, so the page's ``PushManager`` is given a
subscription with real keys at an FCM address (what a browser's ``subscribe`` returns); the
rest is the page's own code and the server's. The push message itself is delivered to the
service worker through the DevTools protocol (``ServiceWorker.deliverPushMessage``), as the
push service would wake it.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from playwright.sync_api import Browser, BrowserContext, Page, expect

from e2e.helpers import Table, sized_context

pytestmark = pytest.mark.e2e

# The browser's subscription (its PushManager), recording the key the page subscribed with.
STUB = """(() => {
  const given = %s;
  let current = null;
  const make = (key) => ({
    endpoint: given.endpoint,
    options: { applicationServerKey: key },
    toJSON: () => ({ endpoint: given.endpoint, expirationTime: null, keys: given.keys }),
    unsubscribe: async () => { current = null; return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    window.__subscribedWith = Array.from(new Uint8Array(options.applicationServerKey));
    current = make(options.applicationServerKey.buffer || options.applicationServerKey);
    return current;
  };
  PushManager.prototype.getSubscription = async function () { return current; };
})();"""

NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.ready;
  for (let i = 0; i < 100; i++) {
    const shown = await registration.getNotifications();
    if (shown.length) return shown.map((n) => ({ title: n.title, body: n.body, data: n.data }));
    await new Promise((r) => setTimeout(r, 50));
  }
  return [];
}"""


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture
def phone(browser: Browser, server_url: str) -> Iterator[BrowserContext]:
    context = sized_context(browser, 375, 667)
    context.grant_permissions(["notifications"], origin=server_url)
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    )
    given = {
        "endpoint": f"https://fcm.googleapis.com/fcm/send/e2e-{secrets.token_urlsafe(12)}",
        "keys": {"p256dh": _b64url(point), "auth": _b64url(os.urandom(16))},
    }
    context.add_init_script(STUB % json.dumps(given))
    yield context
    context.close()


def _registration(page: Page, context: BrowserContext) -> tuple[Any, str]:
    """A DevTools session and the page's service worker registration id."""
    cdp = context.new_cdp_session(page)
    found: list[str] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: found.extend(r["registrationId"] for r in event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(100):  # (waits for the event: each evaluate lets it arrive)
        if found:
            break
        page.evaluate("() => new Promise((r) => setTimeout(r, 50))")
    assert found, "no service worker registration"
    return cdp, found[-1]


def test_w4_reminders_turned_on_in_settings_and_shown_by_the_worker(
    phone: BrowserContext, server_url: str
) -> None:
    page = phone.new_page()
    page.set_default_timeout(15_000)
    ui = Table(page, server_url)
    ui.open_lobby()
    toggle = page.get_by_test_id("push-toggle")
    expect(toggle).to_be_attached()  # (push.js comes with the service worker, after load)
    page.get_by_test_id("settings-open").click()
    status = page.get_by_test_id("push-status")
    expect(status).to_have_text("没开：这台设备不收提醒。")
    expect(page.get_by_text("轮到你时，这台设备收到通知")).to_be_visible()
    expect(toggle).to_have_text("开启")

    toggle.click()
    expect(status).to_have_text("已开启：轮到你时，这台设备会收到通知。")
    expect(toggle).to_have_text("关闭")
    state = page.request.get(server_url + "/api/push").json()
    assert state["subscribed"] is True
    assert state["endpoint"].startswith("https://fcm.googleapis.com/fcm/send/e2e-")
    assert state["time_zone"]  # the browser's own
    key = page.evaluate("() => window.__subscribedWith")
    assert _b64url(bytes(key)) == state["public_key"]  # subscribed with the server's key

    # A reminder as the push service delivers it: the worker says it in the page's words.
    cdp, registration = _registration(page, phone)
    message = {"topic": "turn", "seats": ["奶奶", ""], "round": 5, "link": "/rooms/abc"}
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": server_url,
            "registrationId": registration,
            "data": json.dumps(message, ensure_ascii=False),
        },
    )
    [shown] = page.evaluate(NOTIFICATIONS)
    assert shown["title"] == "轮到你了"
    assert shown["body"] == "奶奶、电脑 · 第 5 回合"
    assert shown["data"] == {"link": "/rooms/abc"}

    # Quiet hours are the player's, kept by the server.
    page.get_by_test_id("push-quiet-from").select_option("21:00")
    expect(page.get_by_test_id("push-quiet-to")).to_be_enabled()
    page.get_by_test_id("push-quiet-to").select_option("07:00")
    night = {"from": "21:00", "to": "07:00"}
    for _ in range(100):  # (the PUT is under way: waits for it)
        if page.request.get(server_url + "/api/push").json()["quiet"] == night:
            break
        page.evaluate("() => new Promise((r) => setTimeout(r, 50))")
    assert page.request.get(server_url + "/api/push").json()["quiet"] == night

    toggle.click()
    expect(status).to_have_text("没开：这台设备不收提醒。")
    assert page.request.get(server_url + "/api/push").json()["subscribed"] is False
