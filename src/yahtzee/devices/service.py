"""我的设备 (I1–I4): which player a device is, link codes, the recovery code, the devices
list, and the player's data (export, deletion).

The identity of every request goes through :class:`DeviceService` (it is the
:class:`~yahtzee.server.identity.DeviceBook` of :class:`~yahtzee.server.identity.PlayerIds`),
so its lookup is on the hot path of every game action. Each process keeps the device →
player answers it read for half to all of ``device_cache_seconds`` (2 s by default; at
random, so that devices seen together are not read again together), so a device that
plays reads the table at most once a second or so; a device removed, signed out, expired
or deleted is forgotten by every process at once (the platform's
:class:`~yahtzee.server.revocation.Revocations`, NOTIFY on PostgreSQL), a device linked
through this process here at once and on another within that time (docs/devices.md
measures the cost and states the bound). What could lock an owner out reads the device
from the database, not this memory (F23). ``seen_at`` is written at most every
:data:`SEEN_EVERY` seconds per device.

What could lock the owner out — a new or removed recovery code, removing another device,
deleting everything — needs the current recovery code, or waits in view of every device
of the player (F20: :class:`~yahtzee.devices.store.DeviceStore`, docs/devices.md "The owner
stays in control").
"""

from __future__ import annotations

import asyncio
import base64
import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from yahtzee.devices.errors import InvalidCodeError, ThisDeviceError, WrongRecoveryCodeError
from yahtzee.devices.export import EXPORT_FORMAT, render_export
from yahtzee.devices.settings import DeviceSettings
from yahtzee.devices.store import (
    EXPIRED,
    LINK_CODE_CHARS,
    LINK_CODE_GROUP,
    NEW_SECONDS,
    RECOVERY_CODE_CHARS,
    REMOVED,
    WAIT_SECONDS,
    DeviceStore,
    Linked,
    Outcome,
    Request,
    format_code,
    new_code,
    parse_code,
)
from yahtzee.i18n import N_, Msg, msg
from yahtzee.lru import LruCache
from yahtzee.server.feature import Players
from yahtzee.server.identity import DeviceSigner, Ended
from yahtzee.server.limits import Guard, Rate
from yahtzee.server.revocation import Revocations, Revoked
from yahtzee.storage import StorageError, StorageUnavailableError
from yahtzee.storage.base import Claim

log = logging.getLogger("yahtzee.server")

#: A device's ``seen_at`` is rewritten when it is older than this (seconds).
SEEN_EVERY = 300.0
#: Devices whose player a process remembers at most (least recently used go first).
CACHE_SIZE = 50_000
#: Seconds between two looks for requests whose wait is over (F20).
DUE_EVERY = 60.0
DAY = 86_400.0

# The shared rate-limit buckets (F5's table) of this feature.
LINK_CODES = "link_codes"  # per player
CODE_TRIES = "code_tries"  # per player
ADDRESS_CODE_TRIES = "address_code_tries"  # per client address group (F18, F21)
SERVICE_LINK_TRIES = "service_link_tries"  # every link code typed anywhere (F21)
SERVICE_RECOVERY_TRIES = "service_recovery_tries"  # every recovery code typed anywhere


#: The kinds of device a User-Agent tells apart: the stored name's first word, its name's key.
_KINDS = {
    "tablet": N_("server.device.tablet"),
    "phone": N_("server.device.phone"),
    "computer": N_("server.device.computer"),
}
#: A User-Agent's browser, the first marker found: (marker, the stored name's second word).
_BROWSER_MARKERS = (
    ("MicroMessenger", "wechat"),
    ("QQBrowser", "qq"),
    ("UCBrowser", "uc"),
    ("Edg", "edge"),
    ("OPR/", "opera"),
    ("Firefox", "firefox"),
    ("FxiOS", "firefox"),
    ("CriOS", "chrome"),
    ("Chrome", "chrome"),
    ("Chromium", "chrome"),
    ("Safari", "safari"),
)
#: A browser whose name is a brand, the same in every language.
_BRANDS = {
    "edge": "Edge",
    "opera": "Opera",
    "firefox": "Firefox",
    "chrome": "Chrome",
    "safari": "Safari",
}
#: A browser whose name is a word of each language (微信 is WeChat in English).
_BROWSER_WORDS = {
    "wechat": N_("server.device.wechat"),
    "qq": N_("server.device.qq_browser"),
    "uc": N_("server.device.uc_browser"),
    "browser": N_("server.device.browser"),
}
#: The names stored before they were kept language-neutral (「手机 · Chrome」): the stored
#: words read back, never shown (the name is said from the codes in the reader's language).
_STORED_ZH = {
    "平板": "tablet",  # i18n-ok: stored data, read back
    "手机": "phone",  # i18n-ok: stored data, read back
    "电脑": "computer",  # i18n-ok: stored data, read back
    "微信": "wechat",  # i18n-ok: stored data, read back
    "QQ 浏览器": "qq",  # i18n-ok: stored data, read back
    "UC 浏览器": "uc",  # i18n-ok: stored data, read back
    "浏览器": "browser",  # i18n-ok: stored data, read back
}


def device_name(user_agent: str) -> str:
    """A device's stored name from its User-Agent, language-neutral: ``"phone chrome"``,
    ``"computer firefox"``, ``"phone wechat"`` (:func:`said_device_name` says it: 「手机 ·
    Chrome」, "Phone · Chrome")."""
    ua = user_agent
    if "iPad" in ua or "Tablet" in ua or ("Android" in ua and "Mobile" not in ua):
        kind = "tablet"
    elif "Mobi" in ua or "iPhone" in ua or "Android" in ua:
        kind = "phone"
    else:
        kind = "computer"
    browser = next((b for marker, b in _BROWSER_MARKERS if marker in ua), "browser")
    return f"{kind} {browser}"


def said_device_name(stored: str) -> Msg | str:
    """The stored name of a device (:func:`device_name`'s, or the 简体中文 one stored before,
    「手机 · Chrome」) as a message said in its reader's language (G2); a name it cannot
    read (a tombstone's empty one) as it is."""
    kind, _, browser = stored.partition(" · " if " · " in stored else " ")
    kind = _STORED_ZH.get(kind, kind)
    browser = _STORED_ZH.get(browser, browser.lower())
    if kind not in _KINDS or (browser not in _BRANDS and browser not in _BROWSER_WORDS):
        return stored
    name = _BRANDS.get(browser) or msg(_BROWSER_WORDS[browser])
    return msg("server.device.name", kind=msg(_KINDS[kind]), browser=name)


def data_url(svg: bytes) -> str:
    """An SVG as a ``data:`` URL (the page's ``<img>`` shows it; CSP allows ``data:``)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


class DeviceService:
    """Devices, codes and the player's data (see the module docstring)."""

    def __init__(
        self,
        store: DeviceStore,
        guard: Guard,
        limits: DeviceSettings,
        signer: DeviceSigner,
        players: Players,
        clock: Callable[[], float] = time.time,
        jitter: Callable[[], float] = random.random,
        *,
        revocations: Revocations | None = None,
    ) -> None:
        self.store = store
        self.guard = guard
        self.limits = limits
        # F5's shared table: link codes made per player, codes typed per player and per
        # client address (right or wrong).
        self.link_codes = Rate(LINK_CODES, limits.link_codes_per_hour, 3600.0)
        self.tries = Rate(CODE_TRIES, limits.code_tries_per_hour, 3600.0)
        self.address_tries = Rate(ADDRESS_CODE_TRIES, limits.code_tries_per_hour, 3600.0)
        self.service_link_tries = Rate(
            SERVICE_LINK_TRIES, limits.link_tries_per_hour_service, 3600.0
        )
        self.service_recovery_tries = Rate(
            SERVICE_RECOVERY_TRIES, limits.recovery_tries_per_hour_service, 3600.0
        )
        self.signer = signer
        # Every part's PlayerData (the app factory fills it once every feature is built).
        self.players = players
        self.clock = clock
        self._jitter = jitter
        # The platform's notice of ended devices (F23): delivered here, and by NOTIFY to
        # every other process; this service forgets them when it hears it.
        self.revocations = revocations or Revocations()
        self.revocations.subscribe(self.on_revoked)
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

    def on_revoked(self, revoked: Revoked) -> None:
        """The platform's notice (this process's or another's): forget those devices."""
        self.forget(revoked.devices)

    def _revoke(self, outcome: Outcome) -> None:
        """Devices ended here: every hook of this process hears it now (the others by the
        transaction's NOTIFY, on PostgreSQL)."""
        if outcome.ended or outcome.player is not None:
            self.revocations.deliver(Revoked(outcome.ended, outcome.player))
            if outcome.player is not None:
                self.players.notify()

    async def player_of(self, device_id: str, *, fresh: bool = False) -> str | Ended | None:
        """See :meth:`DeviceBook.player_of`. A device nobody used for
        ``device_expiry_days`` ends here (F20)."""
        if not fresh:
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
        if found is None or isinstance(found, str):
            self._cache.pop(device_id)
            return None if found is None else Ended(found)
        player, seen = found
        now = self.clock()
        unused_since = now - self.limits.device_expiry_days * DAY
        if seen < unused_since:
            try:
                if await self.store.expire(device_id, unused_since, now):
                    self._revoke(Outcome(ended=(device_id,)))
            except StorageUnavailableError as exc:  # (too old all the same)
                log.debug("device %s not marked expired: %s", device_id[:6], exc)
            self._cache.pop(device_id)
            return Ended(EXPIRED)
        if now - seen >= SEEN_EVERY:
            try:
                await self.store.touch(device_id, now)
            except StorageUnavailableError as exc:  # reads go on while writes fail (F6)
                log.debug("device %s not marked seen: %s", device_id[:6], exc)
        self._remember(device_id, player)
        return player

    async def live_player(self, device_id: str) -> str | None:
        """See :meth:`DeviceBook.live_player`: the table's answer, not this process's
        memory; a device past ``device_expiry_days`` is nobody's (it ends at its next
        request, :meth:`player_of`), and nothing is written."""
        found = await self.store.lookup(device_id)
        if found is None or isinstance(found, str):
            return None
        player, seen = found
        if seen < self.clock() - self.limits.device_expiry_days * DAY:
            return None
        return player

    async def adopt(self, device_id: str, player_id: str, user_agent: str) -> str | Ended:
        """See :meth:`DeviceBook.adopt`."""
        now = self.clock()
        player = await self.store.adopt(device_id, player_id, device_name(user_agent), now)
        if player is None:
            found = await self.store.lookup(device_id)
            return Ended(found if isinstance(found, str) else REMOVED)
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

    def owner_claim(self, player_id: str) -> Claim:
        """See :meth:`DeviceBook.owner_claim`: a live device of the player (a deletion
        ends them all, under the player's lock, :func:`~yahtzee.devices.store.lock_player`)."""
        return Claim.rows(
            (
                "SELECT 1 FROM devices WHERE player_id = :owner AND removed_at IS NULL LIMIT 1",
                {"owner": player_id},
            )
        )

    # -- the page -------------------------------------------------------------------------

    async def overview(self, player_id: str, device_id: str) -> dict[str, Any]:
        """``GET /api/devices``: this player's devices (this one marked, newcomers
        flagged: the page asks "is this you?"), its waiting requests and whether it has a
        recovery code. Its requests whose wait is over are carried out first. The devices'
        names are messages (:func:`said_device_name`): the route says them in the reader's
        language (:func:`yahtzee.i18n.render`)."""
        await self.carry_out_due(player_id)
        devices = await self.store.devices(player_id)
        made = await self.store.recovery_made(player_id)
        requests = await self.store.requests(player_id)
        now = self.clock()
        names = {d.id: said_device_name(d.name) for d in devices}
        mine = next((d for d in devices if d.id == device_id), None)
        return {
            "devices": [
                {
                    "id": d.id,
                    "name": names[d.id],
                    "created_at": d.created_at,
                    "seen_at": d.seen_at,
                    "this": d.id == device_id,
                    "via": d.via,
                    "joined_at": d.joined_at,
                    # "is this you?" on the other devices, until one of them says "it's me"
                    "new": d.id != device_id and d.is_new(now) and d.confirmed_at is None,
                    # removed at once from here (F20): a newcomer after this device
                    "at_once": d.id != device_id
                    and d.is_new(now)
                    and (mine is None or not mine.is_new(now) or d.joined_at > mine.joined_at),
                }
                for d in devices
            ],
            "recovery_code": None if made is None else {"created_at": made},
            "requests": [
                {
                    "id": r.id,
                    "kind": r.kind,
                    "target": r.target,
                    "target_name": names.get(r.target or ""),
                    "by_name": names.get(r.requested_by),
                    "mine": r.requested_by == device_id,
                    "created_at": r.created_at,
                    "due_at": r.due_at,
                }
                for r in requests
            ],
            "new_days": round(NEW_SECONDS / DAY),
            "wait_hours": round(WAIT_SECONDS / 3600),
        }

    async def _count_try(self, player_id: str, address: str, *, recovery: bool) -> None:
        """A typed code (F21): a token of the player's, of its address group's and of the
        whole service's bucket (link or recovery codes), all or none, before the code is
        read (429 past any)."""
        guard = self.guard
        await guard.take(
            guard.charge(self.tries, player_id)
            + guard.charge(self.address_tries, address)  # (its group, F18)
            + guard.charge(
                self.service_recovery_tries if recovery else self.service_link_tries, "*"
            )
        )

    async def _proof(self, raw: object, player_id: str, address: str) -> str | None:
        """The recovery code given as proof (``None``: none given), counted as a try of a
        recovery code; a malformed one is a wrong one."""
        if raw is None:
            return None
        await self._count_try(player_id, address, recovery=True)
        code = parse_code(raw, RECOVERY_CODE_CHARS)
        if code is None:
            raise WrongRecoveryCodeError()
        return code

    async def new_link_code(self, player_id: str) -> tuple[str, float]:
        """A new one-time link code of the player (its earlier one ends) and when it
        expires; at most ``link_codes_per_hour`` an hour (429)."""
        await self.guard.take(self.guard.charge(self.link_codes, player_id))
        code = new_code(LINK_CODE_CHARS)
        now = self.clock()
        expires = now + 60.0 * self.limits.link_code_minutes
        await self.store.new_link_code(player_id, code, now, expires)
        return format_code(code, LINK_CODE_GROUP), expires

    async def new_recovery_code(
        self, player_id: str, device_id: str, proof: object, address: str
    ) -> tuple[str, float, Request | None]:
        """A new recovery code, shown this once: it replaces the old one at once with the
        old one as ``proof`` (or when the player has neither a code nor another device),
        else when the wait is over (the third value, the request that waits)."""
        given = await self._proof(proof, player_id, address)
        code = new_code(RECOVERY_CODE_CHARS)
        now = self.clock()
        outcome = await self.store.set_recovery(player_id, device_id, code, given, now)
        return format_code(code), now, outcome.pending

    async def remove_recovery(
        self, player_id: str, device_id: str, proof: object, address: str
    ) -> Request | None:
        """The recovery code stops working (at once with it; else the request that waits)."""
        given = await self._proof(proof, player_id, address)
        outcome = await self.store.remove_recovery(player_id, device_id, given, self.clock())
        return outcome.pending

    async def redeem(
        self,
        player_id: str,
        device_id: str,
        raw_code: object,
        *,
        recovery: bool,
        merge: bool,
        address: str,
        proof: object = None,
    ) -> Linked:
        """This device (with its player, when that cannot take it from its owner) becomes
        the code's player's. Each try, right or wrong, takes a token of the player's, of
        its address group's and of the whole service's (F21; 429 past them) before the
        code is even read."""
        await self._count_try(player_id, address, recovery=recovery)
        code = parse_code(raw_code, RECOVERY_CODE_CHARS if recovery else LINK_CODE_CHARS)
        if code is None:
            raise InvalidCodeError()
        given = await self._proof(proof, player_id, address)
        linked = await self.store.redeem(
            code=code,
            recovery=recovery,
            device_id=device_id,
            merge=merge,
            proof=given,
            now=self.clock(),
            parts=self.players.data,
        )
        self.forget(linked.devices)
        for device in linked.devices:
            self._remember(device, linked.player_id)
        self.players.notify()
        return linked

    async def remove(
        self, player_id: str, device_id: str, target: str, proof: object, address: str
    ) -> Request | None:
        """Remove the player's device ``target`` (from another device: 409 for itself):
        at once, or the request that now waits (F20, :meth:`DeviceStore.remove`)."""
        if target == device_id:
            raise ThisDeviceError()
        given = await self._proof(proof, player_id, address)
        outcome = await self.store.remove(player_id, device_id, target, given, self.clock())
        self._revoke(outcome)
        return outcome.pending

    async def sign_out(self, player_id: str, device_id: str) -> None:
        """Sign this device out (F20): this device ends; its browser is a stranger after it."""
        self._revoke(await self.store.sign_out(player_id, device_id, self.clock()))

    async def confirm(self, player_id: str, device_id: str, target: str) -> None:
        """ "It's me" of a newcomer, from another device."""
        await self.store.confirm(player_id, device_id, target, self.clock())

    async def refuse(self, player_id: str, request_id: str) -> None:
        """Refuse (or cancel) a waiting request, from any device of the player."""
        await self.store.refuse(player_id, request_id)

    async def carry_out_due(self, player_id: str | None = None) -> int:
        """Carry out the requests whose wait is over (the player's, or all); how many."""
        now = self.clock()
        done = 0
        for request_id in await self.store.due(now, player_id):
            outcome = await self.store.carry_out(
                request_id, now, self.signer.legacy_device, self.players.data
            )
            if outcome is not None:
                done += 1
                self._revoke(outcome)
        return done

    async def run_due(self, every: float = DUE_EVERY) -> None:
        """Until cancelled, every ``every`` seconds, carry out the requests whose wait is
        over (every process does; each request is carried out once)."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.carry_out_due()
            except StorageError as exc:
                log.warning("carrying out the devices' requests failed: %s", exc)

    async def export(self, player_id: str) -> tuple[bytes, dict[str, Any]]:
        """Everything kept about the player (docs/api.md), as the file's bytes (indented
        JSON, every time in one format) and its summary; built in a worker thread, never
        on the event loop (F22)."""
        data = await self.store.export(player_id, self.players.data)
        exported = {"format": EXPORT_FORMAT, "player_id": player_id, "exported_at": self.clock()}
        return await asyncio.to_thread(render_export, {**exported, **data})

    async def erase(
        self, player_id: str, device_id: str, proof: object, address: str
    ) -> tuple[int, Request | None]:
        """Delete everything of the player (at once, or the request that now waits);
        every device of it becomes a stranger. Returns how many devices it had."""
        given = await self._proof(proof, player_id, address)
        outcome = await self.store.erase(
            player_id,
            device_id,
            given,
            self.signer.legacy_device(player_id),
            self.clock(),
            self.players.data,
        )
        self._revoke(outcome)
        return len(outcome.ended), outcome.pending
