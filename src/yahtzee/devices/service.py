"""我的设备 (I1–I4): which player a device is, link codes, the recovery code, the devices
list, and the player's data (export, deletion).

The identity of every request goes through :class:`DeviceService` (it is the
:class:`~yahtzee.server.identity.DeviceBook` of :class:`~yahtzee.server.identity.PlayerIds`),
so its lookup is on the hot path of every game action. Each process keeps the device →
player answers it read for half to all of ``device_cache_seconds`` (2 s by default; at
random, so that devices seen together are not read again together), so a device that
plays reads the table at most once a second or so; a device removed, linked or deleted
through this process is forgotten here at once, and on another process within that time
(docs/devices.md measures the cost and states the bound). ``seen_at`` is written at most
every :data:`SEEN_EVERY` seconds per device.
"""

from __future__ import annotations

import base64
import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from yahtzee.devices.errors import InvalidCodeError, ThisDeviceError
from yahtzee.devices.store import (
    LINK_CODE_CHARS,
    RECOVERY_CODE_CHARS,
    DeviceStore,
    Linked,
    format_code,
    new_code,
    parse_code,
)
from yahtzee.lru import LruCache
from yahtzee.server.feature import Players
from yahtzee.server.identity import DeviceSigner
from yahtzee.server.limits import TokenWriter, charge
from yahtzee.server.settings import DeviceLimits
from yahtzee.storage import StorageUnavailableError
from yahtzee.storage.base import Charge

log = logging.getLogger("yahtzee.server")

#: A device's ``seen_at`` is rewritten when it is older than this (seconds).
SEEN_EVERY = 300.0
#: Devices whose player a process remembers at most (least recently used go first).
CACHE_SIZE = 50_000

# The shared rate-limit buckets (F5's table) of this feature.
LINK_CODES = "link_codes"  # per player
CODE_TRIES = "code_tries"  # per player
ADDRESS_CODE_TRIES = "address_code_tries"  # per client address


def device_name(user_agent: str) -> str:
    """A device's name from its User-Agent: 「手机 · Chrome」, 「电脑 · Firefox」..."""
    ua = user_agent
    if "iPad" in ua or "Tablet" in ua or ("Android" in ua and "Mobile" not in ua):
        kind = "平板"
    elif "Mobi" in ua or "iPhone" in ua or "Android" in ua:
        kind = "手机"
    else:
        kind = "电脑"
    for marker, browser in (
        ("MicroMessenger", "微信"),
        ("QQBrowser", "QQ 浏览器"),
        ("UCBrowser", "UC 浏览器"),
        ("Edg", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox", "Firefox"),
        ("FxiOS", "Firefox"),
        ("CriOS", "Chrome"),
        ("Chrome", "Chrome"),
        ("Chromium", "Chrome"),
        ("Safari", "Safari"),
    ):
        if marker in ua:
            return f"{kind} · {browser}"
    return f"{kind} · 浏览器"


def data_url(svg: bytes) -> str:
    """An SVG as a ``data:`` URL (the page's ``<img>`` shows it; CSP allows ``data:``)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


class DeviceService:
    """Devices, codes and the player's data (see the module docstring)."""

    def __init__(
        self,
        store: DeviceStore,
        tokens: TokenWriter,
        limits: DeviceLimits,
        signer: DeviceSigner,
        players: Players,
        clock: Callable[[], float] = time.time,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.store = store
        self.tokens = tokens
        self.limits = limits
        self.signer = signer
        # Every part's PlayerData (the app factory fills it once every feature is built).
        self.players = players
        self.clock = clock
        self._jitter = jitter
        # device -> (player, until when this process believes it); the one bounded cache
        # (K4).
        self._cache: LruCache[str, tuple[str, float]] = LruCache(CACHE_SIZE)
        self._changes = 0  # how many times devices were forgotten (see player_of)

    # -- the DeviceBook of identity -------------------------------------------------------

    def cached(self, device_id: str) -> str | None:
        """See :meth:`DeviceBook.cached`: the last player this process read for the
        device, however old (it only names whom a cost budget charges)."""
        entry = self._cache.peek(device_id)
        return None if entry is None else entry[0]

    def _fresh(self, device_id: str) -> str | None:
        """The device's player as read within ``device_cache_seconds``, else ``None``."""
        entry = self._cache.get(device_id)
        if entry is None or self.clock() >= entry[1]:
            return None
        return entry[0]

    def _remember(self, device_id: str, player_id: str) -> None:
        # Believed for half to all of device_cache_seconds, at random: devices first seen
        # together (a class starting, every page after a restart) would otherwise all be
        # read again in the same instant, every time (a herd that queued every request of
        # a process for ~100 ms, issue 31). The bound of the module docstring stands.
        ttl = self.limits.device_cache_seconds * (1.0 - 0.5 * self._jitter())
        self._cache.put(device_id, (player_id, self.clock() + ttl))

    def forget(self, device_ids: Sequence[str]) -> None:
        """Drop what this process knows of ``device_ids`` (removed, moved or deleted)."""
        self._changes += 1
        for device_id in device_ids:
            self._cache.pop(device_id)

    async def player_of(self, device_id: str) -> str | None:
        """See :meth:`DeviceBook.player_of`."""
        player = self._fresh(device_id)
        if player is not None:
            return player
        while True:
            # A link, a removal or a deletion through this process while the row was being
            # read may have changed it: read again rather than cache the older answer.
            changes = self._changes
            found = await self.store.lookup(device_id)
            if changes == self._changes:
                break
        if found is None:
            self._cache.pop(device_id)
            return None
        player, seen = found
        now = self.clock()
        if now - seen >= SEEN_EVERY:
            try:
                await self.store.touch(device_id, now)
            except StorageUnavailableError as exc:  # reads go on while writes fail (F6)
                log.debug("device %s not marked seen: %s", device_id[:6], exc)
        self._remember(device_id, player)
        return player

    async def adopt(self, device_id: str, player_id: str, user_agent: str) -> str | None:
        """See :meth:`DeviceBook.adopt`."""
        player = await self.store.adopt(device_id, player_id, device_name(user_agent), self.clock())
        if player is not None:
            self._remember(device_id, player)
        return player

    async def add(self, device_id: str, player_id: str, user_agent: str) -> None:
        """See :meth:`DeviceBook.add`. When the database cannot be written the device is
        issued anyway (F6: reads go on); it is then a stranger again on its next request."""
        try:
            await self.store.add(device_id, player_id, device_name(user_agent), self.clock())
        except StorageUnavailableError as exc:
            log.debug("new device not stored (storage unavailable): %s", exc)
        self._remember(device_id, player_id)

    # -- the page -------------------------------------------------------------------------

    async def overview(self, player_id: str, device_id: str) -> dict[str, Any]:
        """``GET /api/devices``: this player's devices (this one marked) and whether it
        has a recovery code."""
        devices = await self.store.devices(player_id)
        made = await self.store.recovery_made(player_id)
        return {
            "devices": [
                {
                    "id": d.id,
                    "name": d.name,
                    "created_at": d.created_at,
                    "seen_at": d.seen_at,
                    "this": d.id == device_id,
                }
                for d in devices
            ],
            "recovery_code": None if made is None else {"created_at": made},
        }

    async def _take(self, charges: list[Charge]) -> None:
        if charges:
            await self.tokens.take(charges)

    def _charge(self, bucket: str, key: str, rate: int, per: float) -> list[Charge]:
        return charge(bucket, key, rate, per, self.clock())  # (the one helper, K4)

    async def new_link_code(self, player_id: str) -> tuple[str, float]:
        """A new one-time link code of the player (its earlier one ends) and when it
        expires; at most ``link_codes_per_hour`` an hour (429)."""
        await self._take(self._charge(LINK_CODES, player_id, self.limits.link_codes_per_hour, 3600))
        code = new_code(LINK_CODE_CHARS)
        now = self.clock()
        expires = now + 60.0 * self.limits.link_code_minutes
        await self.store.new_link_code(player_id, code, now, expires)
        return format_code(code), expires

    async def new_recovery_code(self, player_id: str) -> tuple[str, float]:
        """A new recovery code (the old one stops working), shown this once."""
        code = new_code(RECOVERY_CODE_CHARS)
        now = self.clock()
        await self.store.set_recovery(player_id, code, now)
        return format_code(code), now

    async def redeem(
        self,
        player_id: str,
        device_id: str,
        raw_code: object,
        *,
        recovery: bool,
        merge: bool,
        address: str,
    ) -> Linked:
        """This device (and every device of its player) becomes the code's player's. Each
        try, right or wrong, takes a token of the player's and of the address's
        ``code_tries_per_hour`` (429 past them) before the code is even read."""
        limit = self.limits.code_tries_per_hour
        await self._take(
            self._charge(CODE_TRIES, player_id, limit, 3600)
            + self._charge(ADDRESS_CODE_TRIES, address, limit, 3600)
        )
        code = parse_code(raw_code, RECOVERY_CODE_CHARS if recovery else LINK_CODE_CHARS)
        if code is None:
            raise InvalidCodeError()
        linked = await self.store.redeem(
            code=code,
            recovery=recovery,
            device_id=device_id,
            merge=merge,
            now=self.clock(),
            parts=self.players.data,
        )
        self.forget(linked.devices)
        for device in linked.devices:
            self._remember(device, linked.player_id)
        self.players.notify()
        return linked

    async def remove(self, player_id: str, device_id: str, target: str) -> None:
        """Remove the player's device ``target`` (from another device: 409 for itself)."""
        if target == device_id:
            raise ThisDeviceError()
        await self.store.remove(player_id, target, self.clock())
        self.forget([target])

    async def export(self, player_id: str) -> dict[str, Any]:
        """Everything kept about the player (docs/api.md)."""
        data = await self.store.export(player_id, self.players.data)
        return {"player_id": player_id, "exported_at": self.clock(), **data}

    async def erase(self, player_id: str) -> int:
        """Delete everything of the player; every device of it becomes a stranger.
        Returns how many devices it had."""
        devices = await self.store.erase(
            player_id, self.signer.legacy_device(player_id), self.clock(), self.players.data
        )
        self.forget(devices)
        self.players.notify()
        return len(devices)
