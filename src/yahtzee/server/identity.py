"""Signed anonymous player ids (F4).

A player is an id the server made up (192 random bits) and handed to the browser in the
``yahtzee_player`` cookie, signed: the cookie's value is ``<id>.<mac>`` where ``mac`` is
the first 128 bits of HMAC-SHA256(secret, ``"yahtzee-player-v1:" + id``), URL-safe base64
without padding. An id is only believed with its valid mac, so a client can neither invent
an id nor alter one (say, to another player's id it learnt somehow); such a cookie is
ignored and a new id is issued.

The standard library's :mod:`hmac` is all this needs: a fixed-purpose MAC over one short
string, compared in constant time. A signing package (``itsdangerous``) would add a
dependency for features we do not want here (timestamps, serialisation).

The secret is 32 random bytes in a file next to the database (``<db>.secret``, mode 0600),
created on the first start; ``YAHTZEE_SECRET`` or ``yahtzee serve --secret-file`` override
it, so that several server processes (or machines) accept each other's cookies.

Ids are minted lazily: only a request that needs a player (a game or the records) gets
one, so monitors polling ``/api/health`` and crawlers fetching the page create nothing.

Only signed ids are believed. Cookies of versions before F4 carried the bare id, and such
an id used to be adopted (re-signed) when it owned a game; that let anyone who learnt an id
drop the mac, and it defeated rotating the secret (the old signed cookie was logged out,
the bare id got its games back). So a bare id is now treated as no cookie at all, like any
other unsigned value (issue 22).

**Devices (I3).** A player may have several devices (我的设备), each removable on its own,
so the cookie no longer holds the player id itself but a *device* id: ``v2.<device>.<mac>``,
the device id 128 random bits and the mac as above under another purpose
(``"yahtzee-device-v1:"``). The device is mapped to its player by the devices table
(:class:`DeviceBook`, the ``yahtzee.devices`` feature), so that a removed device, or every
device of a player whose data was deleted, is a stranger at its next request. The mac is
still checked first: a made-up device id costs no database read.

A cookie of the earlier form (a signed player id) keeps working: on its next request it
becomes a device of the same player, whose id is derived from the player id
(:meth:`DeviceSigner.legacy_device`), so that concurrent first requests of one browser
agree on it, and a device removed since stays removed however often the old cookie
comes back.

**Ended devices (F20, F23, U20).** A device that was removed, signed out, left unused too
long, or whose player's data was deleted names no player: its browser becomes a stranger
(a new player) and is told why once (:attr:`Resolved.notice`, which the middleware sends
as a cookie the page reads). Most requests believe what this process read of a device a
moment ago; what could lock its owner out or write under a deleted player asks the
database itself (``fresh``).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from yahtzee.storage.base import Claim

SECRET_BYTES = 32
MIN_SECRET_CHARS = 32
_PURPOSE = b"yahtzee-player-v1:"
_DEVICE_PURPOSE = b"yahtzee-device-v1:"
_LEGACY_DEVICE_PURPOSE = b"yahtzee-legacy-device-v1:"
_MAC_BYTES = 16
_ID = re.compile(r"[A-Za-z0-9_-]{22,64}")
_DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{22}")
#: The prefix of a device cookie (a player id is 22+ characters: never this).
DEVICE_COOKIE_PREFIX = "v2."


class SecretError(Exception):
    """The signing secret cannot be read, created or used (a startup error)."""


def new_player_id() -> str:
    """A fresh anonymous id: 192 random bits from the OS CSPRNG, URL-safe base64."""
    return secrets.token_urlsafe(24)


def new_device_id() -> str:
    """A fresh device id: 128 random bits from the OS CSPRNG, URL-safe base64."""
    return secrets.token_urlsafe(16)


def default_secret_path(db: Path | str) -> Path | None:
    """``<db>.secret`` next to the database; ``None`` for an in-memory database."""
    if str(db) == ":memory:":
        return None
    path = Path(db)
    return path.with_name(path.name + ".secret")


def load_secret(path: Path) -> bytes:
    """The secret stored at ``path``, created (mode 0600) if the file does not exist.

    Creation is atomic (a private temporary file hard-linked into place), so two processes
    starting together on one database end up with the same secret.
    """
    try:
        return _read_secret(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise SecretError(f"cannot read the secret file {path}: {exc.strerror}") from None
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(SECRET_BYTES) + "\n")
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):  # another process won: use its secret
            os.link(temp, path)
        return _read_secret(path)
    except OSError as exc:
        raise SecretError(f"cannot create the secret file {path}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


def _read_secret(path: Path) -> bytes:
    text = path.read_text(encoding="ascii", errors="replace").strip()
    if len(text) < MIN_SECRET_CHARS:
        raise SecretError(
            f"the secret file {path} holds {len(text)} characters; "
            f"at least {MIN_SECRET_CHARS} are needed"
        )
    return text.encode()


def check_secret(value: str) -> bytes:
    """A secret given as text (``YAHTZEE_SECRET``): long enough to be one."""
    value = value.strip()
    if len(value) < MIN_SECRET_CHARS:
        raise SecretError(
            f"YAHTZEE_SECRET has {len(value)} characters; at least {MIN_SECRET_CHARS} are needed"
        )
    return value.encode()


class PlayerSigner:
    """Signs player ids into cookie values and checks them (see the module docstring)."""

    def __init__(self, secret: bytes) -> None:
        self._key = hmac.new(secret, _PURPOSE, hashlib.sha256)

    def _mac(self, player_id: str) -> str:
        mac = self._key.copy()
        mac.update(player_id.encode("ascii"))
        return base64.urlsafe_b64encode(mac.digest()[:_MAC_BYTES]).rstrip(b"=").decode()

    def sign(self, player_id: str) -> str:
        """The cookie value of ``player_id``: ``<id>.<mac>``."""
        return f"{player_id}.{self._mac(player_id)}"

    def verify(self, value: str) -> str | None:
        """The id of a correctly signed cookie value, else ``None``."""
        player_id, dot, mac = value.partition(".")
        if not dot or not _ID.fullmatch(player_id):
            return None
        return player_id if hmac.compare_digest(mac, self._mac(player_id)) else None


class DeviceSigner:
    """Signs device ids into cookie values (``v2.<device>.<mac>``) and checks them."""

    def __init__(self, secret: bytes) -> None:
        self._key = hmac.new(secret, _DEVICE_PURPOSE, hashlib.sha256)
        self._legacy = hmac.new(secret, _LEGACY_DEVICE_PURPOSE, hashlib.sha256)

    def _mac(self, device_id: str) -> str:
        mac = self._key.copy()
        mac.update(device_id.encode("ascii"))
        return base64.urlsafe_b64encode(mac.digest()[:_MAC_BYTES]).rstrip(b"=").decode()

    def sign(self, device_id: str) -> str:
        """The cookie value of ``device_id``."""
        return f"{DEVICE_COOKIE_PREFIX}{device_id}.{self._mac(device_id)}"

    def verify(self, value: str) -> str | None:
        """The device id of a correctly signed device cookie value, else ``None``."""
        if not value.startswith(DEVICE_COOKIE_PREFIX):
            return None
        device_id, dot, mac = value[len(DEVICE_COOKIE_PREFIX) :].partition(".")
        if not dot or not _DEVICE_ID.fullmatch(device_id):
            return None
        return device_id if hmac.compare_digest(mac, self._mac(device_id)) else None

    def legacy_device(self, player_id: str) -> str:
        """The device id a cookie of the earlier form (the signed ``player_id``) becomes:
        the same for every request that carries it, unguessable without the secret."""
        mac = self._legacy.copy()
        mac.update(player_id.encode("ascii"))
        return base64.urlsafe_b64encode(mac.digest()[:16]).rstrip(b"=").decode()


@dataclass(frozen=True, slots=True)
class Ended:
    """A device that names no player any more, and why: ``removed``, ``erased`` (its
    player's data deleted), ``expired`` (unused too long), ``signed_out``."""

    reason: str


class DeviceBook(Protocol):
    """The devices table as identity needs it (implemented by ``yahtzee.devices``)."""

    def cached(self, device_id: str) -> str | None:
        """The player of ``device_id`` if this process knows it (no I/O), else ``None``;
        possibly older than the cache's time to live (good enough to name who pays)."""
        ...

    async def player_of(self, device_id: str, *, fresh: bool = False) -> str | Ended | None:
        """The player of a live device, :class:`Ended` for one that ended, ``None`` for an
        unknown one; ``fresh``: read from the database, not this process's memory."""
        ...

    async def live_player(self, device_id: str) -> str | None:
        """The player a live device names now, read from the database and written
        nowhere: not a visit (the device is not marked seen, so what is sent to a device
        never keeps it alive, F20); ``None`` for a device that ended, is past its expiry or
        is unknown. (What is kept for a device asks it before acting for its player: a
        reminder's subscription, W4.)"""
        ...

    async def adopt(self, device_id: str, player_id: str, user_agent: str) -> str | Ended:
        """A legacy cookie's device: created for ``player_id`` if it does not exist;
        its player, or :class:`Ended` if it ended."""
        ...

    async def add(self, device_id: str, player_id: str, user_agent: str) -> None:
        """Record a new device of a new player."""
        ...

    def owner_claim(self, player_id: str) -> Claim:
        """A statement for a new game's transaction that yields a row while ``player_id``
        has a live device: no game is written under a deleted player's id (F23)."""
        ...


@dataclass(frozen=True, slots=True)
class Resolved:
    """Who a request is: its player, its device, the cookie to send back (a new or
    migrated device), if any, and why the cookie's device ended, if it did (U20)."""

    player_id: str
    device_id: str
    cookie: str | None
    notice: str | None = None


class PlayerIds:
    """Resolves a request's cookie to a player and a device, minting them as needed.

    ``before_mint(address)`` runs before a new id is made for a client address (the rate
    limit of new players raises there, F5); it asks the database, so resolving is a
    coroutine.
    """

    def __init__(
        self,
        signer: PlayerSigner,
        devices: DeviceBook,
        device_signer: DeviceSigner,
        before_mint: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self.signer = signer
        self.devices = devices
        self.device_signer = device_signer
        self._before_mint = before_mint

    def known(self, cookie: str | None) -> str | None:
        """The player of a correctly signed ``cookie`` as far as this process knows without
        I/O: a legacy cookie's signed id, a device's cached player; else a stable key of
        the device (``~`` + its id, never a player id), else ``None``. (The cost budgets'
        key: it never mints and never waits.)"""
        if cookie is None:
            return None
        device_id = self.device_signer.verify(cookie)
        if device_id is not None:
            player = self.devices.cached(device_id)
            return player if player is not None else f"~{device_id}"
        return self.signer.verify(cookie)

    def device_cookie(self, device_id: str) -> str:
        """The cookie value of ``device_id`` (re-issued to slide its expiry)."""
        return self.device_signer.sign(device_id)

    async def resolve(
        self, cookie: str | None, address: str, user_agent: str = "", *, fresh: bool = False
    ) -> Resolved:
        """The request's player and device: its device's player, a legacy cookie's
        player on a device of its own (migrated), else a new player on a new device (told
        why, when the cookie's device ended). ``fresh``: the device as the database has
        it now, not as this process read it a moment ago."""
        notice: str | None = None
        if cookie is not None:
            device_id = self.device_signer.verify(cookie)
            if device_id is not None:
                player = await self.devices.player_of(device_id, fresh=fresh)
                if isinstance(player, str):
                    return Resolved(player, device_id, None)
                if player is not None:
                    notice = player.reason
            else:
                legacy = self.signer.verify(cookie)
                if legacy is not None:
                    device_id = self.device_signer.legacy_device(legacy)
                    adopted = await self.devices.adopt(device_id, legacy, user_agent)
                    if isinstance(adopted, str):
                        return Resolved(adopted, device_id, self.device_cookie(device_id))
                    notice = adopted.reason
        if self._before_mint is not None:
            await self._before_mint(address)
        player_id, device_id = new_player_id(), new_device_id()
        await self.devices.add(device_id, player_id, user_agent)
        return Resolved(player_id, device_id, self.device_cookie(device_id), notice)
