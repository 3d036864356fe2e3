"""The reminders' settings (W4, W6): each a flag and a variable of the server
(:func:`yahtzee.server.settings.setting`); ``0`` switches a cap or a rate off;
docs/deployment.md and docs/push.md say why each is what it is."""

from __future__ import annotations

import re
from dataclasses import dataclass

from yahtzee.server.settings import at_least_one, count, days, setting

_HOST = r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"


def push_prefixes(value: str | None) -> str | None:
    """``--push-endpoints``: comma-separated http(s) URL prefixes, each naming a host."""
    if value is None or not value.strip():
        return None
    for prefix in value.split(","):
        prefix = prefix.strip()
        scheme, sep, rest = prefix.partition("://")
        host = rest.split("/", 1)[0]
        if scheme not in ("http", "https") or not sep or not host or "@" in host:
            raise ValueError(f"each prefix must be an http(s) URL naming a host, got {prefix!r}")
    return value


def contact(value: str | None) -> str | None:
    """``--push-contact``: a ``mailto:`` address or an ``https:`` URL (the VAPID subject)."""
    if value is None:
        return None
    if not re.fullmatch(rf"mailto:[^@\s]+@{_HOST}|https://{_HOST}", value):
        raise ValueError(f"must be a mailto: address or an https: URL, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class PushSettings:
    """The reminders' push services, senders, caps and pruning (W4, W6)."""

    endpoints: str | None = setting(
        None,
        name="push_endpoints",
        help="comma-separated URL prefixes of push services to send reminders to besides the "
        "browsers' own (https on FCM, Mozilla, Apple, Microsoft): a local test service, "
        "`http://127.0.0.1:9000/push/`; a subscription naming any other address is refused",
        metavar="PREFIXES",
        check=push_prefixes,
        shown="(none)",
    )
    contact: str | None = setting(
        None,
        name="push_contact",
        help="the reminders' contact the push services see (the VAPID subject): "
        "`mailto:you@example.org` or `https://example.org`",
        metavar="URI",
        check=contact,
        shown="the page's https origin",
    )
    workers: int = setting(
        4,
        name="push_workers",
        help="threads of each process sending reminders to the push services",
        check=at_least_one,
    )
    subscriptions: int = setting(
        10,
        name="max_push_subscriptions",
        help="devices of one player that take reminders (409 `too_many_subscriptions`), "
        "0 = no limit",
        check=count,
    )
    subscriptions_per_hour_per_address: int = setting(
        30,
        name="max_push_subscriptions_per_hour_per_address",
        help="new reminder subscriptions per client address group and hour, 0 = no limit",
        check=count,
    )
    prune_after_days: float = setting(
        60.0,
        name="prune_push_subscriptions_after_days",
        help="a device's reminder subscription nobody used (no reminder delivered, its page "
        "not opened) this long is deleted",
        metavar="DAYS",
        check=days,
    )

    @property
    def prefixes(self) -> tuple[str, ...]:
        """The prefixes of ``--push-endpoints``, each stripped."""
        return tuple(p.strip() for p in (self.endpoints or "").split(",") if p.strip())
