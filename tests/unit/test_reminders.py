"""The platform's reminders (W4) and the push feature's pure parts: what a payload may be
and its size, quiet hours across midnight and time zones, which endpoints the server may
call, the VAPID key made from the secret, what a push service's answer means."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from yahtzee.push.delivery import _retry_after, topic_of
from yahtzee.push.service import contact_for, hhmm, parse_hhmm
from yahtzee.push.store import in_quiet_hours
from yahtzee.push.subscription import Endpoints
from yahtzee.push.vapid import VapidKey, derive_key
from yahtzee.server.reminders import (
    MAX_PAYLOAD_BYTES,
    Outcome,
    Reminder,
    ReminderError,
    ReminderPayload,
    Reminders,
    Sent,
)
from yahtzee.storage import run_coroutine

PAYLOAD = ReminderPayload(seats=("奶奶", ""), round=3, link="/rooms/abc")


def test_w4_a_payload_holds_only_its_values_and_stays_small() -> None:
    data = PAYLOAD.encode("turn")
    assert data == '{"topic":"turn","seats":["奶奶",""],"round":3,"link":"/rooms/abc"}'.encode()
    full = ReminderPayload(seats=("名" * 32,) * 8, round=13, link="/" + "a" * 255, due=1.7e9)
    assert len(full.encode("deadline")) <= MAX_PAYLOAD_BYTES  # the largest one allowed


@pytest.mark.parametrize(
    ("seats", "round_", "link", "due"),
    [
        ((), 1, "/r", None),  # no seat
        (("a",) * 9, 1, "/r", None),  # too many
        (("a" * 33,), 1, "/r", None),  # a name too long
        (["a"], 1, "/r", None),  # not a tuple
        (("a",), 0, "/r", None),
        (("a",), 14, "/r", None),
        (("a",), True, "/r", None),
        (("a",), 1, "https://evil.example/", None),  # another site
        (("a",), 1, "//evil.example/", None),  # another site, without a scheme
        (("a",), 1, "javascript:alert(1)", None),
        (("a",), 1, "/" + "a" * 256, None),
        (("a",), 1, "/r", float("nan")),
    ],
)
def test_w4_a_malformed_payload_is_the_callers_mistake(
    seats: object, round_: object, link: object, due: object
) -> None:
    with pytest.raises(ReminderError):
        ReminderPayload(seats=seats, round=round_, link=link, due=due)  # type: ignore[arg-type]


def test_w4_the_platform_checks_the_topic_and_about_without_a_deliverer() -> None:
    reminders = Reminders()
    send = reminders.send
    assert run_coroutine(send("p", "turn", PAYLOAD, about="room")) == Sent(Outcome.OFF)
    for topic, about in (("chat", "room"), ("turn", ""), ("turn", "x" * 101)):
        with pytest.raises(ReminderError):
            run_coroutine(send("p", topic, PAYLOAD, about=about))


def test_w4_one_deliverer_and_what_it_receives() -> None:
    got: list[Reminder] = []

    class Deliverer:
        async def deliver(self, reminder: Reminder) -> Sent:
            got.append(reminder)
            return Sent(Outcome.QUEUED, 2)

    reminders = Reminders()
    reminders.provide(Deliverer())
    with pytest.raises(RuntimeError):
        reminders.provide(Deliverer())
    sent = run_coroutine(reminders.send("p1", "deadline", PAYLOAD, about="room-9"))
    assert sent == Sent(Outcome.QUEUED, 2)
    assert got == [Reminder("p1", "deadline", PAYLOAD.encode("deadline"), "room-9")]


def _at(text: str, zone: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone)).timestamp()


def test_w4_quiet_hours_across_midnight_and_time_zones() -> None:
    night = (22 * 60, 8 * 60)
    for local, quiet in (
        ("2026-03-02T21:59", False),
        ("2026-03-02T22:00", True),
        ("2026-03-03T03:00", True),
        ("2026-03-03T07:59", True),
        ("2026-03-03T08:00", False),
    ):
        assert in_quiet_hours(_at(local, "Asia/Shanghai"), "Asia/Shanghai", night) is quiet
    # the same moment: night in Shanghai, afternoon in London
    moment = _at("2026-03-02T23:30", "Asia/Shanghai")
    assert in_quiet_hours(moment, "Asia/Shanghai", night)
    assert not in_quiet_hours(moment, "Europe/London", night)
    # daytime hours, none, and equal ends (none)
    assert in_quiet_hours(_at("2026-03-02T12:00", "UTC"), "UTC", (9 * 60, 17 * 60))
    assert not in_quiet_hours(_at("2026-03-02T18:00", "UTC"), "UTC", (9 * 60, 17 * 60))
    assert not in_quiet_hours(moment, "Asia/Shanghai", None)
    assert not in_quiet_hours(moment, "Asia/Shanghai", (600, 600))
    # across a change of clocks (London goes to summer time on 29 March 2026)
    assert in_quiet_hours(_at("2026-03-29T07:30", "Europe/London"), "Europe/London", night)
    # a zone this server no longer knows reads as UTC
    assert in_quiet_hours(_at("2026-03-02T23:00", "UTC"), "Nowhere/Gone", night)


def test_w4_hh_mm_both_ways() -> None:
    assert parse_hhmm("22:00") == 1320
    assert parse_hhmm("00:05") == 5
    assert hhmm(1320) == "22:00"
    for bad in ("24:00", "7:00", "07:60", "0700", " 07:00"):
        with pytest.raises(Exception, match="HH:MM"):
            parse_hhmm(bad)


def test_w6_which_endpoints_the_server_calls() -> None:
    endpoints = Endpoints(["http://127.0.0.1:9000/push/"])
    assert endpoints.allowed("http://127.0.0.1:9000/push/abc") is not None
    assert endpoints.allowed("https://fcm.googleapis.com/fcm/send/x") is not None
    assert endpoints.allowed("https://FCM.googleapis.com./fcm/send/x") is not None
    assert endpoints.allowed("https://x.notify.windows.com/w/?token=1") is not None
    for refused in (
        "http://127.0.0.1:9000/pushy",
        "http://127.0.0.1:9001/push/abc",
        "http://127.0.0.1/push/abc",
        "https://fcm.googleapis.com:444/x",
        "https://notify.windows.com/w",  # the suffix's own host is no service
        "https://a.b@fcm.googleapis.com/",
        "https://fcm.googleapis.com\t/x",
        "https://fcm.googleapis.com/é",
    ):
        assert endpoints.allowed(refused) is None, refused
    assert Endpoints().allowed("http://127.0.0.1:9000/push/abc") is None
    address = endpoints.allowed("https://web.push.apple.com/QG")
    assert address is not None
    assert address.origin == "https://web.push.apple.com"


def test_w4_the_vapid_key_comes_from_the_secret() -> None:
    one = derive_key(b"s" * 32).private_numbers().private_value
    assert one == derive_key(b"s" * 32).private_numbers().private_value
    assert one != derive_key(b"t" * 32).private_numbers().private_value
    key = VapidKey(b"s" * 32, clock=lambda: 1_000_000.0)
    headers = key.headers("https://fcm.googleapis.com", "mailto:a@example.org")
    assert headers["Authorization"].startswith("vapid t=")
    assert headers["Authorization"].endswith("k=" + key.public_key)


def test_w4_a_topic_header_and_the_contact() -> None:
    assert len(topic_of("room-1")) <= 32
    assert topic_of("room-1") == topic_of("room-1") != topic_of("room-2")
    assert contact_for("https://dice.example.org", None) == "https://dice.example.org"
    assert contact_for("http://127.0.0.1:8000", None) == "mailto:webmaster@localhost"
    assert contact_for("https://dice.example.org", "mailto:a@b.org") == "mailto:a@b.org"


def test_w4_retry_after_in_seconds_or_as_a_date() -> None:
    assert _retry_after("7") == 7.0
    assert _retry_after(None) is None
    assert _retry_after("soon") is None
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
