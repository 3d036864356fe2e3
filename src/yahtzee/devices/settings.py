"""我的设备's settings (I1-I3): each a flag and a variable of the server
(:func:`yahtzee.server.settings.setting`); ``0`` switches a rate off; docs/devices.md says
why each is what it is."""

from __future__ import annotations

from dataclasses import dataclass

from yahtzee.server.settings import count, days, positive, setting


@dataclass(frozen=True, slots=True)
class DeviceSettings:
    """我的设备's limits and times (I1, I2, I3)."""

    link_code_minutes: float = setting(
        10.0,
        help="minutes a link code of My devices stays good (it is also used up by its "
        "redemption, I1)",
        metavar="MINUTES",
        check=positive,
    )
    link_codes_per_hour: int = setting(
        10,
        name="max_link_codes_per_hour",
        help="new link codes per player and hour, 0 = no limit",
        check=count,
    )
    code_tries_per_hour: int = setting(
        10,
        name="max_code_tries_per_hour",
        help="link or recovery codes typed per player and per client address group (an IPv6 "
        "/64, an IPv4 address) and hour, right or wrong (docs/devices.md gives the odds), 0 = "
        "no limit",
        check=count,
    )
    # every process together, every address: the bound on guessing (docs/devices.md)
    link_tries_per_hour_service: int = setting(
        60,
        name="max_link_tries_per_hour_service",
        help="link codes typed per hour on the whole service, every process and address "
        "together, right or wrong: the bound on guessing (F21; docs/devices.md), 0 = no limit",
        check=count,
    )
    recovery_tries_per_hour_service: int = setting(
        600,
        name="max_recovery_tries_per_hour_service",
        help="recovery codes typed per hour on the whole service (as a way back or as proof, "
        "F21), 0 = no limit",
        check=count,
    )
    device_cache_seconds: float = setting(
        2.0,
        help="how long a process believes a device's player: a device linked through another "
        "process is seen here at most this long after (I3; one removed, signed out or deleted "
        "is forgotten by every process at once, F23)",
        metavar="SECONDS",
        check=positive,
    )
    device_expiry_days: float = setting(
        180.0,
        help="a device nobody used this long stops working (its browser is a stranger, told "
        "why; F20)",
        metavar="DAYS",
        check=positive,
    )
    # F27: each cookie-less read made a player and its devices row
    prune_devices_after_days: float = setting(
        7.0,
        help="the devices of browsers that never played (no game, daily entry, group, practice "
        "serving or room seat, no recovery code) none of which was seen this long are deleted, "
        "with their player's board name (F27: every cookie-less request makes one)",
        metavar="DAYS",
        check=days,
    )
