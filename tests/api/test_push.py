"""Reminders that reach a phone (W4) and their limits (W6), on both backends: a device
subscribes, the platform's reminders go through the local push service (which checks the
VAPID signature and decrypts each message as a browser vendor's service and the browser
would, tests/push_service.py), at most one an hour about one thing, never in quiet hours,
never to a device that is no longer the player's; what the subscription may be."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from bench_smoke import run_quick
from push_service import Browser, LocalPushService, b64url
from yahtzee.push.service import PushService
from yahtzee.server.pruning import prune_features
from yahtzee.server.reminders import Outcome, ReminderPayload, Sent

from .helpers import error_code, on_app_loop
from .test_devices import browser, code_of, link, player_of

#: Monday 2 March 2026, 12:00 in Shanghai (04:00 UTC).
NOON_SHANGHAI = datetime(2026, 3, 2, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai")).timestamp()
ROOM = ReminderPayload(seats=("奶奶", "小明", ""), round=5, link="/rooms/0123456789abcdef")


class Clock:
    """The wall clock of the app (quiet hours, the hour's marks), moved by hand."""

    def __init__(self, now: float = NOON_SHANGHAI) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def service() -> Iterator[LocalPushService]:
    with LocalPushService() as running:
        yield running
    assert running.refused == [], running.refused  # every message passed the checks


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(
    make_client: Callable[..., TestClient], service: LocalPushService, clock: Clock
) -> TestClient:
    """An app that sends to the local push service (``--push-endpoints``)."""
    return make_client(push_endpoints=service.prefix, clock=clock)


def subscribe(
    client: TestClient, service: LocalPushService, time_zone: str = "Asia/Shanghai"
) -> Browser:
    """What the page does when 「开启」 is tapped: the key, a subscription, the POST."""
    state = client.get("/api/push").json()
    sub = service.subscribe(state["public_key"])
    r = client.post(
        "/api/push/subscriptions", json={"subscription": sub.to_json(), "time_zone": time_zone}
    )
    assert r.status_code == 200, r.text
    assert r.json()["subscribed"] is True
    return sub


def remind(
    client: TestClient,
    player: str,
    *,
    about: str = "room-1",
    topic: str = "turn",
    payload: ReminderPayload = ROOM,
) -> Sent:
    """What a feature does: ``await platform.reminders.send(...)`` (on the app's loop)."""
    reminders = client.app.state.reminders  # type: ignore[attr-defined]
    send = functools.partial(reminders.send, player, topic, payload, about=about)
    sent: Sent = on_app_loop(client, send)
    return sent


def push_of(client: TestClient) -> PushService:
    svc: PushService = client.app.state.push  # type: ignore[attr-defined]
    return svc


def settled(client: TestClient, count: str, n: int = 1, timeout: float = 20.0) -> None:
    """Wait until the senders counted ``n`` sends ending as ``count`` (a condition)."""
    deadline = time.monotonic() + timeout
    while push_of(client).counts[count] < n:
        assert time.monotonic() < deadline, dict(push_of(client).counts)
        time.sleep(0.02)


def waiting(client: TestClient) -> int:
    return on_app_loop(client, push_of(client).store.waiting)


# -- W4: a reminder reaches the device ---------------------------------------------------


def test_w4_a_reminder_reaches_the_device_signed_and_encrypted(
    app: TestClient, service: LocalPushService
) -> None:
    phone = browser(app)
    sub = subscribe(phone, service)
    player = player_of(phone)
    assert remind(app, player) == Sent(Outcome.QUEUED, 1)
    [got] = service.wait_for(1)
    assert got.endpoint == sub.endpoint
    # only what the caller gave, decrypted with the browser's own keys
    assert got.payload == {
        "topic": "turn",
        "seats": ["奶奶", "小明", ""],
        "round": 5,
        "link": "/rooms/0123456789abcdef",
    }
    assert got.headers["content-encoding"] == "aes128gcm"
    assert got.headers["ttl"] == "3600"
    assert len(got.headers["topic"]) <= 32
    assert got.claims["aud"] == service.origin
    assert time.time() < got.claims["exp"] <= time.time() + 24 * 3600
    # the key the page subscribed with is the one the service checked the signature with
    assert got.headers["authorization"].endswith("k=" + phone.get("/api/push").json()["public_key"])
    settled(phone, "delivered")
    assert waiting(app) == 0


def test_w4_the_vapid_key_is_the_servers_own_and_kept_with_its_secret(
    make_client: Callable[..., TestClient], service: LocalPushService
) -> None:
    """Made from the server's secret: the same across restarts and processes of one server
    (a subscription stays good), another for another secret."""
    one = make_client(push_endpoints=service.prefix).get("/api/push").json()["public_key"]
    again = make_client(push_endpoints=service.prefix).get("/api/push").json()["public_key"]
    other = make_client(push_endpoints=service.prefix, secret="another-secret-" + "x" * 32)
    assert one == again != other.get("/api/push").json()["public_key"]
    assert len(one) == 87  # 65 bytes of an uncompressed P-256 point, base64url


def test_w4_one_reminder_an_hour_about_one_thing(
    app: TestClient, service: LocalPushService, clock: Clock
) -> None:
    phone = browser(app)
    subscribe(phone, service)
    player = player_of(phone)
    assert remind(app, player, about="room-1").outcome is Outcome.QUEUED
    assert remind(app, player, about="room-1") == Sent(Outcome.TOO_SOON)
    clock.now += 59 * 60
    assert remind(app, player, about="room-1", topic="deadline") == Sent(Outcome.TOO_SOON)
    assert remind(app, player, about="room-2").outcome is Outcome.QUEUED  # another room
    clock.now += 60
    assert remind(app, player, about="room-1").outcome is Outcome.QUEUED  # an hour later
    got = service.wait_for(3)
    assert len(got) == 3
    assert waiting(app) == 0


def test_w4_never_in_quiet_hours_each_device_in_its_time_zone(
    app: TestClient, service: LocalPushService, clock: Clock
) -> None:
    phone = browser(app)
    state = phone.get("/api/push").json()
    assert state["quiet"] == {"from": "22:00", "to": "08:00"}  # the default
    subscribe(phone, service, "Asia/Shanghai")
    player = player_of(phone)
    clock.now = NOON_SHANGHAI + 11 * 3600  # 23:00 in Shanghai
    assert remind(app, player) == Sent(Outcome.QUIET)
    clock.now = NOON_SHANGHAI + 20 * 3600 - 60  # 07:59
    assert remind(app, player) == Sent(Outcome.QUIET)
    clock.now = NOON_SHANGHAI + 20 * 3600  # 08:00: out of them
    assert remind(app, player).outcome is Outcome.QUEUED
    # A laptop of the same player in London, where it is 00:00 now: only the phone.
    laptop = browser(app)
    assert link(laptop, code_of(phone)["code"]).status_code == 200
    evening = subscribe(laptop, service, "Europe/London")
    morning = service.wait_for(1)
    clock.now += 3600
    assert remind(app, player, about="room-2") == Sent(Outcome.QUEUED, 1)
    assert [m.endpoint for m in service.wait_for(2)[1:]] != [evening.endpoint]
    assert morning
    # Quiet hours changed on one device are the player's, every device's.
    r = laptop.put("/api/push/quiet", json={"quiet": None})
    assert r.status_code == 200, r.text
    assert phone.get("/api/push").json()["quiet"] is None
    assert remind(app, player, about="room-3") == Sent(Outcome.QUEUED, 2)
    service.wait_for(4)  # (sent before the hours change: a send checks them again)
    r = phone.put("/api/push/quiet", json={"quiet": {"from": "09:30", "to": "17:00"}})
    assert r.json()["quiet"] == {"from": "09:30", "to": "17:00"}
    clock.now = NOON_SHANGHAI + 24 * 3600  # 12:00 in Shanghai, 04:00 in London
    assert remind(app, player, about="room-4") == Sent(Outcome.QUEUED, 1)
    service.wait_for(5)
    assert len(service.to(evening)) == 2


def test_w6_quiet_hours_are_hh_mm(app: TestClient) -> None:
    for body in (
        {"quiet": {"from": "25:00", "to": "08:00"}},
        {"quiet": {"from": "22:00", "to": "8:00"}},
        {"quiet": {"from": "22", "to": "08:00"}},
        {"quiet": {"from": "22:00"}},
        {"quiet": "22:00-08:00"},
        {},
    ):
        r = app.put("/api/push/quiet", json=body)
        assert r.status_code == 422, (body, r.text)
        assert error_code(r) == "invalid_request"
    assert app.get("/api/push").json()["quiet"] == {"from": "22:00", "to": "08:00"}


def test_w4_a_subscription_that_answers_404_or_410_is_removed(
    app: TestClient, service: LocalPushService
) -> None:
    for n, status in enumerate((404, 410)):
        phone = browser(app)
        sub = subscribe(phone, service)
        service.answer(sub, status)
        assert remind(app, player_of(phone)).outcome is Outcome.QUEUED
        settled(phone, "gone", n + 1)
        assert phone.get("/api/push").json()["subscribed"] is False
        assert remind(app, player_of(phone), about="room-2") == Sent(Outcome.UNSUBSCRIBED)
    assert service.messages == []


def test_w4_429_and_5xx_are_sent_again_later_once(
    app: TestClient, service: LocalPushService, clock: Clock
) -> None:
    phone = browser(app)
    sub = subscribe(phone, service)
    service.answer(sub, 429, 500)
    assert remind(app, player_of(phone)).outcome is Outcome.QUEUED
    settled(phone, "retry")
    assert service.messages == []
    clock.now += 1  # the service's Retry-After: 1
    settled(phone, "retry", 2)
    clock.now += 120  # (500: no Retry-After, the second wait)
    [got] = service.wait_for(1)
    assert got.endpoint == sub.endpoint
    settled(phone, "delivered")
    assert waiting(app) == 0
    assert len(service.to(sub)) == 1


def test_w4_delete_stops_the_reminders_and_what_waits(
    app: TestClient, service: LocalPushService
) -> None:
    phone = browser(app)
    subscribe(phone, service)
    r = phone.delete("/api/push/subscriptions")
    assert r.status_code == 200, r.text
    assert r.json()["subscribed"] is False
    assert phone.delete("/api/push/subscriptions").status_code == 200  # (nothing to do)
    assert remind(app, player_of(phone)) == Sent(Outcome.UNSUBSCRIBED)


def test_w4_a_page_saying_again_what_it_has_changes_nothing(
    app: TestClient, service: LocalPushService
) -> None:
    phone = browser(app)
    sub = subscribe(phone, service)
    state = phone.get("/api/push").json()
    assert (state["subscribed"], state["endpoint"], state["time_zone"]) == (
        True,
        sub.endpoint,
        "Asia/Shanghai",
    )
    again = phone.post(
        "/api/push/subscriptions", json={"subscription": sub.to_json(), "time_zone": "Asia/Tokyo"}
    )
    assert again.json()["time_zone"] == "Asia/Tokyo"
    # a new endpoint replaces the device's earlier one
    newer = service.subscribe(state["public_key"])
    r = phone.post(
        "/api/push/subscriptions",
        json={"subscription": newer.to_json(), "time_zone": "Asia/Shanghai"},
    )
    assert r.json()["endpoint"] == newer.endpoint
    assert remind(app, player_of(phone)) == Sent(Outcome.QUEUED, 1)
    [got] = service.wait_for(1)
    assert got.endpoint == newer.endpoint


# -- W4: never to a device that is no longer the player's ------------------------------------


def test_w4_a_removed_device_gets_none_of_its_old_players_reminders(
    app: TestClient, service: LocalPushService
) -> None:
    phone, laptop = browser(app), browser(app)
    recovery = phone.post("/api/devices/recovery", json={}).json()["code"]
    assert link(laptop, code_of(phone)["code"]).status_code == 200
    on_phone, on_laptop = subscribe(phone, service), subscribe(laptop, service)
    player = player_of(phone)
    laptop_id = next(d["id"] for d in phone.get("/api/devices").json()["devices"] if not d["this"])
    r = phone.post(f"/api/devices/{laptop_id}/remove", json={"recovery_code": recovery})
    assert r.status_code == 200, r.text
    assert remind(app, player) == Sent(Outcome.QUEUED, 1)
    service.wait_for(1)
    assert service.to(on_laptop) == []
    # The laptop, a stranger now, registers its browser's endpoint for its new player: the
    # endpoint is its own, and the old player's reminders cannot reach it.
    stranger = laptop.post(
        "/api/push/subscriptions", json={"subscription": on_laptop.to_json(), "time_zone": "UTC"}
    )
    assert stranger.status_code == 200, stranger.text
    assert remind(app, player, about="room-2") == Sent(Outcome.QUEUED, 1)
    service.wait_for(2)
    assert service.to(on_laptop) == []
    assert len(service.to(on_phone)) == 2


def test_w4_signing_out_deletes_the_devices_subscription_at_once(
    app: TestClient, service: LocalPushService
) -> None:
    """「退出这台设备」 ends the device (F23's notice): its subscription and what waits for it
    go without waiting for a reminder to find out."""
    phone, laptop = browser(app), browser(app)
    assert link(laptop, code_of(phone)["code"]).status_code == 200
    subscribe(phone, service)
    subscribe(laptop, service)
    laptop_tag = laptop.get("/api/push").json()["device"]
    assert laptop.post("/api/devices/signout", json={}).status_code == 200
    db = push_of(app).store.db

    async def devices() -> int:
        row = await db.one("SELECT COUNT(*) FROM push_subscriptions", write=False)
        assert row is not None
        return int(row[0])

    deadline = time.monotonic() + 20
    while on_app_loop(app, devices) != 1:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert remind(app, player_of(phone)) == Sent(Outcome.QUEUED, 1)
    # the signed-out browser is a stranger now: another device, not subscribed
    state = laptop.get("/api/push").json()
    assert (state["device"] != laptop_tag, state["subscribed"]) == (True, False)


def test_w4_a_device_linked_alone_takes_its_subscription_to_its_new_player(
    app: TestClient, service: LocalPushService
) -> None:
    """A player with two devices and no recovery code: one of them redeems another
    player's code and moves alone (I1). The old player's reminders no longer reach it;
    its subscription follows it to the new player."""
    home, tablet, friend = browser(app), browser(app), browser(app)
    assert link(tablet, code_of(home)["code"]).status_code == 200
    old = player_of(home)
    on_home, on_tablet = subscribe(home, service), subscribe(tablet, service)
    assert link(tablet, code_of(friend)["code"]).status_code == 200
    new = player_of(friend)
    assert player_of(tablet) == new
    sent = remind(app, old)
    assert sent.outcome is Outcome.QUEUED
    service.wait_for(1)
    settled(home, "delivered")
    if sent.sends == 2:
        settled(home, "dropped_not_the_players")
    assert service.to(on_tablet) == []
    assert remind(app, new) == Sent(Outcome.QUEUED, 1)
    service.wait_for(2)
    assert len(service.to(on_tablet)) == 1
    assert len(service.to(on_home)) == 1


def test_w4_deleting_the_players_data_deletes_the_subscriptions(
    app: TestClient, service: LocalPushService
) -> None:
    phone = browser(app)
    subscribe(phone, service)
    player = player_of(phone)
    assert phone.put("/api/push/quiet", json={"quiet": None}).status_code == 200
    assert remind(app, player).outcome is Outcome.QUEUED
    service.wait_for(1)
    exported = phone.get("/api/me/export").json()["push"]
    assert [s["time_zone"] for s in exported["subscriptions"]] == ["Asia/Shanghai"]
    assert exported["quiet"]["from"] is None
    assert [r["about"] for r in exported["reminded"]] == ["room-1"]
    r = phone.post("/api/me/delete", json={"confirm": True})
    assert r.status_code == 200, r.text
    assert remind(app, player, about="room-2") == Sent(Outcome.UNSUBSCRIBED)
    db = push_of(app).store.db

    async def rows() -> list[int]:
        counts = []
        for table in ("push_subscriptions", "push_quiet", "push_marks", "push_outbox"):
            row = await db.one(f"SELECT COUNT(*) FROM {table} WHERE player_id = :p", {"p": player})
            assert row is not None
            counts.append(int(row[0]))
        return counts

    assert on_app_loop(app, rows) == [0, 0, 0, 0]


def test_w4_a_merge_brings_the_subscriptions_along(
    app: TestClient, service: LocalPushService
) -> None:
    home, school = browser(app), browser(app)
    on_school = subscribe(school, service)
    assert school.post("/api/games", json={"mode": "solo"}).status_code == 201
    r = link(school, code_of(home)["code"], merge=True)
    assert r.status_code == 200, r.text
    player = player_of(home)
    assert remind(app, player) == Sent(Outcome.QUEUED, 1)
    [got] = service.wait_for(1)
    assert got.endpoint == on_school.endpoint


# -- W6: what a subscription may be ------------------------------------------------------------


#: What the server must never call: each refused with 422.
REFUSED_ENDPOINTS = (
    "http://fcm.googleapis.com/fcm/send/abc",  # not https
    "https://evil.example/fcm/send/abc",  # not a push service
    "https://fcm.googleapis.com:8443/fcm/send/abc",  # another port
    "https://user@fcm.googleapis.com/fcm/send/abc",  # a user part
    "https://fcm.googleapis.com.evil.example/x",  # a look-alike
    "https://fcm.googleapis.com\\@evil.example/x",  # a parser's quarrel
    "https://127.0.0.1/push",  # an address of the server's own network
    "https://169.254.169.254/latest/meta-data",  # a cloud's metadata service
    "https://notify.windows.com.evil.example/w",  # not under notify.windows.com
    "https://fcm.googleapis.com/x y",  # not a URL
    "https://fcm.googleapis.com/#x",  # a fragment
    "https://fcm.googleapis.com/" + "a" * 1100,  # too long
    "ftp://fcm.googleapis.com/x",
    "",
)


def test_w6_only_the_push_services_endpoints_are_taken(
    app: TestClient, service: LocalPushService
) -> None:
    key = app.get("/api/push").json()["public_key"]
    for endpoint in REFUSED_ENDPOINTS:
        sub = {**service.subscribe(key).to_json(), "endpoint": endpoint}
        r = app.post("/api/push/subscriptions", json={"subscription": sub, "time_zone": "UTC"})
        assert r.status_code == 422, (endpoint, r.text)
        assert error_code(r) == "invalid_request"
        if 0 < len(endpoint) < 200:
            assert "推送" in r.json()["error"]["message"]
    assert app.get("/api/push").json()["subscribed"] is False


def test_w6_a_test_services_prefix_is_taken_only_as_given(
    app: TestClient, service: LocalPushService
) -> None:
    key = app.get("/api/push").json()["public_key"]
    for endpoint in (
        service.origin + "/pushx/abc",  # the prefix's path is /push/
        f"http://127.0.0.1:{service.port + 1}/push/abc",  # another port
        service.prefix.replace("http:", "https:") + "abc",  # another scheme
        f"http://localhost:{service.port}/push/abc",  # another host name
    ):
        sub = {**service.subscribe(key).to_json(), "endpoint": endpoint}
        r = app.post("/api/push/subscriptions", json={"subscription": sub, "time_zone": "UTC"})
        assert r.status_code == 422, (endpoint, r.text)


def test_w6_the_browsers_push_services_are_taken(
    app: TestClient, service: LocalPushService
) -> None:
    key = app.get("/api/push").json()["public_key"]
    for endpoint in (
        "https://fcm.googleapis.com/fcm/send/fv3jabydF5c:APA91bEc8gXeukGXEvq",
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl",
        "https://web.push.apple.com/QGuQyavXutnMH6bdUB8Wk",
        "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD",
    ):
        sub = {**service.subscribe(key).to_json(), "endpoint": endpoint}
        body = {"subscription": sub, "time_zone": "Asia/Taipei"}
        r = app.post("/api/push/subscriptions", json=body)
        assert r.status_code == 200, r.text
        assert r.json()["endpoint"] == endpoint


def _keys(p256dh: str, auth: str) -> dict[str, str]:
    return {"p256dh": p256dh, "auth": auth}


def test_w6_the_keys_must_be_a_p256_point_and_a_16_byte_secret(
    app: TestClient, service: LocalPushService
) -> None:
    sub = service.subscribe(app.get("/api/push").json()["public_key"]).to_json()
    mine = sub["keys"]
    for keys in (
        _keys(b64url(b"\x04" + b"\x00" * 64), mine["auth"]),  # not on the curve
        _keys(b64url(b"\x04" + b"\x01" * 32), mine["auth"]),  # too short
        _keys("bm90IGJhc2U2NCE" + "!", mine["auth"]),  # not base64url
        _keys("", mine["auth"]),
        _keys(mine["p256dh"], b64url(b"a" * 15)),
        _keys(mine["p256dh"], b64url(b"a" * 17)),
    ):
        body = {"subscription": {**sub, "keys": keys}, "time_zone": "UTC"}
        r = app.post("/api/push/subscriptions", json=body)
        assert r.status_code == 422, (keys, r.text)
        assert error_code(r) == "invalid_request"


def test_w6_the_time_zone_must_be_an_iana_name(app: TestClient, service: LocalPushService) -> None:
    sub = service.subscribe(app.get("/api/push").json()["public_key"]).to_json()
    for zone in ("Mars/Olympus_Mons", "../../etc/passwd", "", "+08:00", "x" * 80):
        r = app.post("/api/push/subscriptions", json={"subscription": sub, "time_zone": zone})
        assert r.status_code == 422, (zone, r.text)
        assert error_code(r) == "invalid_request"
    ok = app.post("/api/push/subscriptions", json={"subscription": sub, "time_zone": "Asia/Taipei"})
    assert ok.status_code == 200, ok.text


def test_w6_a_malformed_body_is_refused(app: TestClient, service: LocalPushService) -> None:
    sub = service.subscribe(app.get("/api/push").json()["public_key"]).to_json()
    for body in (
        {"subscription": sub},
        {"subscription": {**sub, "extra": 1}, "time_zone": "UTC"},
        {"subscription": {"endpoint": sub["endpoint"]}, "time_zone": "UTC"},
        {"subscription": sub, "time_zone": 8},
    ):
        r = app.post("/api/push/subscriptions", json=body)
        assert r.status_code == 422, (body, r.text)


def test_w6_subscriptions_are_capped_per_player_and_per_address_group(
    make_client: Callable[..., TestClient], service: LocalPushService
) -> None:
    app = make_client(
        push_endpoints=service.prefix,
        max_push_subscriptions=2,
        max_push_subscriptions_per_hour_per_address=4,
    )
    one, two, three = browser(app), browser(app), browser(app)
    for other in (two, three):
        assert link(other, code_of(one)["code"]).status_code == 200
    subscribe(one, service)
    kept = subscribe(two, service)
    key = one.get("/api/push").json()["public_key"]
    body = {"subscription": service.subscribe(key).to_json(), "time_zone": "UTC"}
    r = three.post("/api/push/subscriptions", json=body)
    assert r.status_code == 409, r.text
    assert error_code(r) == "too_many_subscriptions"
    assert "2" in r.json()["error"]["message"]
    # a device saying again what it has is not one more
    again = {"subscription": kept.to_json(), "time_zone": "UTC"}
    assert two.post("/api/push/subscriptions", json=again).status_code == 200
    # per address group: 4 new subscriptions an hour, whatever the player ids
    for _ in range(4):
        subscribe(browser(app, address="203.0.113.7"), service)
    late = browser(app, address="203.0.113.7")
    r = late.post(
        "/api/push/subscriptions",
        json={"subscription": service.subscribe(key).to_json(), "time_zone": "UTC"},
    )
    assert r.status_code == 429, r.text
    assert error_code(r) == "rate_limited"


def test_w6_subscriptions_not_used_for_long_are_pruned(
    make_client: Callable[..., TestClient], service: LocalPushService, clock: Clock
) -> None:
    # (the devices of players who never played go after 7 days, F27, and their
    # subscriptions with them: kept longer here, this test is about the subscriptions' age)
    app = make_client(
        push_endpoints=service.prefix,
        clock=clock,
        prune_push_subscriptions_after_days=60,
        prune_devices_after_days=365,
    )
    idle, busy, looked = browser(app), browser(app), browser(app)
    for client in (idle, busy, looked):
        subscribe(client, service)
    clock.now += 40 * 86400
    assert remind(app, player_of(busy)).outcome is Outcome.QUEUED  # used: delivered
    service.wait_for(1)
    settled(busy, "delivered")
    assert looked.get("/api/push").json()["subscribed"] is True  # used: its page opened
    clock.now += 30 * 86400
    prunings = app.app.state.prunings  # type: ignore[attr-defined]
    counts = on_app_loop(app, prune_features, prunings, clock.now)
    assert counts["push subscriptions"] == 1
    assert counts["reminder marks"] == 1
    assert idle.get("/api/push").json()["subscribed"] is False
    assert busy.get("/api/push").json()["subscribed"] is True
    assert looked.get("/api/push").json()["subscribed"] is True


def test_w4_the_push_benchmark_quick_mode_passes() -> None:
    """benchmarks/push_bench.py --quick: every reminder queued, signed, encrypted and
    accepted by the local push service in its own process, none refused."""
    out = run_quick("push_bench.py")
    assert "accepted            : 40" in out
    assert "refused             : 0" in out
    assert "push bench: PASS" in out
