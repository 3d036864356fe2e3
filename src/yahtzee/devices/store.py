"""The devices feature's tables: devices, link codes and recovery codes (I1–I4).

* ``devices``: one row per browser (its cookie carries the id, signed): whose it is, a
  name made from its User-Agent, when it was added and last seen, and when it was
  removed. A removed device's row stays as a tombstone (id and times, no player, no
  name), so that an old cookie of the earlier form, whose device id is derived from the
  player id, cannot bring it back.
* ``link_codes``: a short one-time code (I1), kept only as a keyed digest
  (HMAC-SHA256 with the server's secret): someone who reads a backup learns nothing
  they can type, not even by trying every code. Expired ones are deleted as new ones
  are made.
* ``recovery_codes``: at most one per player (I2), a keyed digest too; replacing it
  deletes the old one.

A link or a recovery is **one transaction** with every feature's move of the device's
player into the code's player (:class:`~yahtzee.storage.player_data.PlayerData`), and so
is the deletion of a player's data: whole or not at all, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from yahtzee.devices.errors import (
    AlreadyLinkedError,
    BothUnfinishedError,
    DeviceNotFoundError,
    HasOwnDataError,
    InvalidCodeError,
)
from yahtzee.storage.feature_db import FeatureDb, Tx
from yahtzee.storage.player_data import MergeConflictError, PlayerData
from yahtzee.storage.schema import Migrations

FEATURE = "devices"
MIGRATIONS = Migrations.shared(
    FEATURE,
    (
        (
            """CREATE TABLE devices (
            id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            name TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            seen_at DOUBLE PRECISION NOT NULL,
            removed_at DOUBLE PRECISION
        )""",
            "CREATE INDEX devices_player ON devices (player_id)",
            """CREATE TABLE link_codes (
            digest TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            used_at DOUBLE PRECISION
        )""",
            "CREATE INDEX link_codes_player ON link_codes (player_id)",
            "CREATE INDEX link_codes_expiry ON link_codes (expires_at)",
            """CREATE TABLE recovery_codes (
            player_id TEXT PRIMARY KEY,
            digest TEXT NOT NULL UNIQUE,
            created_at DOUBLE PRECISION NOT NULL
        )""",
        ),
    ),
)

#: The codes' letters: no 0/O, 1/I/L (unambiguous when read aloud or copied by a child).
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
LINK_CODE_CHARS = 8  # 31^8 ≈ 8.5e11 ≈ 2^39.6
RECOVERY_CODE_CHARS = 20  # 31^20 ≈ 2^99
_LINK = b"yahtzee-link-code-v1:"
_RECOVERY = b"yahtzee-recovery-code-v1:"


def new_code(chars: int, below: Callable[[int], int] = secrets.randbelow) -> str:
    """A fresh code of ``chars`` letters of :data:`ALPHABET` (the OS CSPRNG by default)."""
    return "".join(ALPHABET[below(len(ALPHABET))] for _ in range(chars))


def parse_code(raw: object, chars: int) -> str | None:
    """A code as typed (any case, spaces and hyphens between groups), or ``None`` if it
    cannot be one (checked before any database work)."""
    if not isinstance(raw, str) or len(raw) > 4 * chars:
        return None
    code = "".join(c for c in raw.upper() if c not in " -\t")
    if len(code) != chars or any(c not in ALPHABET for c in code):
        return None
    return code


def format_code(code: str) -> str:
    """``ABCD-EFGH``: groups of four, as shown and written down."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


@dataclass(frozen=True, slots=True)
class Device:
    """A live device of a player."""

    id: str
    name: str
    created_at: float
    seen_at: float


@dataclass(frozen=True, slots=True)
class Linked:
    """A redeemed code: the player the device now belongs to, the player it was, and every
    device that moved with it (all the old player's)."""

    player_id: str
    previous: str
    devices: tuple[str, ...]


class DeviceStore:
    """The devices feature's tables (see the module docstring)."""

    def __init__(self, db: FeatureDb, secret: bytes) -> None:
        self.db = db
        self._secret = secret

    def _digest(self, purpose: bytes, code: str) -> str:
        return hmac.new(self._secret, purpose + code.encode("ascii"), hashlib.sha256).hexdigest()

    # -- devices ----------------------------------------------------------------------

    async def lookup(self, device_id: str) -> tuple[str, float] | None:
        """``(player, seen_at)`` of a live device, else ``None``."""
        row = await self.db.one(
            "SELECT player_id, seen_at FROM devices WHERE id = :device_id AND removed_at IS NULL",
            {"device_id": device_id},
            write=False,
        )
        return None if row is None else (str(row[0]), float(row[1]))

    async def touch(self, device_id: str, now: float) -> None:
        """Record that the device was seen ``now``."""
        await self.db.run(
            lambda tx: tx.all(
                "UPDATE devices SET seen_at = :now WHERE id = :device_id",
                {"now": now, "device_id": device_id},
            )
        )

    async def add(self, device_id: str, player_id: str, name: str, now: float) -> None:
        """A new device of ``player_id``."""
        await self.db.run(
            lambda tx: tx.all(
                "INSERT INTO devices (id, player_id, name, created_at, seen_at) "
                "VALUES (:device_id, :player_id, :name, :now, :now)",
                {"device_id": device_id, "player_id": player_id, "name": name, "now": now},
            )
        )

    async def adopt(self, device_id: str, player_id: str, name: str, now: float) -> str | None:
        """The device of a legacy cookie: added if it does not exist (concurrent requests
        agree: the id is derived); its player, ``None`` if it was removed."""

        def work(tx: Tx) -> str | None:
            tx.all(
                "INSERT INTO devices (id, player_id, name, created_at, seen_at) "
                "VALUES (:device_id, :player_id, :name, :now, :now) ON CONFLICT (id) DO NOTHING",
                {"device_id": device_id, "player_id": player_id, "name": name, "now": now},
            )
            row = tx.one(
                "SELECT player_id, removed_at FROM devices WHERE id = :device_id",
                {"device_id": device_id},
            )
            return None if row is None or row[1] is not None else str(row[0])

        return await self.db.run(work)

    async def devices(self, player_id: str) -> list[Device]:
        """The player's live devices, most recently seen first."""
        rows = await self.db.run(
            lambda tx: tx.all(
                "SELECT id, name, created_at, seen_at FROM devices "
                "WHERE player_id = :player_id AND removed_at IS NULL ORDER BY seen_at DESC, id",
                {"player_id": player_id},
            ),
            write=False,
        )
        return [Device(str(r[0]), str(r[1]), float(r[2]), float(r[3])) for r in rows]

    async def remove(self, player_id: str, device_id: str, now: float) -> None:
        """Remove the player's device ``device_id`` (a tombstone stays: no name)."""

        def work(tx: Tx) -> None:
            rows = tx.all(
                "UPDATE devices SET removed_at = :now, name = '' "
                "WHERE id = :device_id AND player_id = :player_id AND removed_at IS NULL "
                "RETURNING id",
                {"now": now, "device_id": device_id, "player_id": player_id},
            )
            if not rows:
                raise DeviceNotFoundError(device_id)

        await self.db.run(work)

    # -- codes ------------------------------------------------------------------------

    async def new_link_code(self, player_id: str, code: str, now: float, expires: float) -> None:
        """Store ``code`` for ``player_id`` until ``expires``; the player's earlier codes
        end, and every expired code goes."""

        def work(tx: Tx) -> None:
            tx.all(
                "DELETE FROM link_codes WHERE player_id = :player_id OR expires_at <= :now",
                {"player_id": player_id, "now": now},
            )
            tx.all(
                "INSERT INTO link_codes (digest, player_id, created_at, expires_at) "
                "VALUES (:digest, :player_id, :now, :expires)",
                {
                    "digest": self._digest(_LINK, code),
                    "player_id": player_id,
                    "now": now,
                    "expires": expires,
                },
            )

        await self.db.run(work)

    async def set_recovery(self, player_id: str, code: str, now: float) -> None:
        """``code`` becomes the player's recovery code; the old one stops working."""

        def work(tx: Tx) -> None:
            tx.all(
                "DELETE FROM recovery_codes WHERE player_id = :player_id", {"player_id": player_id}
            )
            tx.all(
                "INSERT INTO recovery_codes (player_id, digest, created_at) VALUES (:player_id, "
                ":digest, :now)",
                {"player_id": player_id, "digest": self._digest(_RECOVERY, code), "now": now},
            )

        await self.db.run(work)

    async def recovery_made(self, player_id: str) -> float | None:
        """When the player's recovery code was made, if it has one."""
        row = await self.db.run(
            lambda tx: tx.one(
                "SELECT created_at FROM recovery_codes WHERE player_id = :player_id",
                {"player_id": player_id},
            ),
            write=False,
        )
        return None if row is None else float(row[0])

    async def redeem(
        self,
        *,
        code: str,
        recovery: bool,
        device_id: str,
        merge: bool,
        now: float,
        parts: Sequence[PlayerData],
    ) -> Linked:
        """Make ``device_id`` (and every device of its player) the code's player's.

        A device whose player keeps anything (:meth:`PlayerData.has_data`) is refused
        (:class:`HasOwnDataError`, nothing changes, the code stays good) unless ``merge``:
        then everything of its player moves into the code's player, in this transaction.
        A link code is used up; a recovery code stays good until replaced."""
        digest = self._digest(_RECOVERY if recovery else _LINK, code)

        def work(tx: Tx) -> Linked:
            if recovery:
                row = tx.one(
                    "SELECT player_id FROM recovery_codes WHERE digest = :digest",
                    {"digest": digest},
                )
            else:
                row = tx.one(
                    "SELECT player_id FROM link_codes WHERE digest = :digest AND used_at IS NULL "
                    "AND expires_at > :now",
                    {"digest": digest, "now": now},
                )
            if row is None:
                raise InvalidCodeError()
            target = str(row[0])
            mine = tx.one(
                "SELECT player_id FROM devices WHERE id = :device_id AND removed_at IS NULL",
                {"device_id": device_id},
            )
            if mine is None:
                raise DeviceNotFoundError(device_id)
            source = str(mine[0])
            if source == target:
                raise AlreadyLinkedError()
            if not merge and any(part.has_data(tx, source) for part in parts):
                raise HasOwnDataError()
            try:
                for part in parts:
                    part.merge(tx, source, target)
            except MergeConflictError:
                raise BothUnfinishedError() from None
            if not recovery:
                used = tx.all(
                    "UPDATE link_codes SET used_at = :now WHERE digest = :digest AND used_at IS "
                    "NULL "
                    "RETURNING digest",
                    {"now": now, "digest": digest},
                )
                if not used:  # (another redemption committed first: all of this rolls back)
                    raise InvalidCodeError()
            moved = tx.all(
                "UPDATE devices SET player_id = :target WHERE player_id = :source AND removed_at "
                "IS NULL "
                "RETURNING id",
                {"target": target, "source": source},
            )
            tx.all("DELETE FROM recovery_codes WHERE player_id = :source", {"source": source})
            tx.all("DELETE FROM link_codes WHERE player_id = :source", {"source": source})
            return Linked(target, source, tuple(str(r[0]) for r in moved))

        return await self.db.run(work)

    # -- the player's data ------------------------------------------------------------

    async def export(self, player_id: str, parts: Sequence[PlayerData]) -> dict[str, Any]:
        """Everything kept about ``player_id``: each part's, and this feature's own."""

        def work(tx: Tx) -> dict[str, Any]:
            out: dict[str, Any] = {part.name: part.export(tx, player_id) for part in parts}
            out["devices"] = [
                dict(zip(("id", "name", "created_at", "seen_at"), row, strict=True))
                for row in tx.all(
                    "SELECT id, name, created_at, seen_at FROM devices "
                    "WHERE player_id = :player_id AND removed_at IS NULL ORDER BY created_at",
                    {"player_id": player_id},
                )
            ]
            made = tx.one(
                "SELECT created_at FROM recovery_codes WHERE player_id = :player_id",
                {"player_id": player_id},
            )
            out["recovery_code"] = None if made is None else {"created_at": made[0]}
            out["link_codes"] = [
                dict(zip(("created_at", "expires_at", "used_at"), row, strict=True))
                for row in tx.all(
                    "SELECT created_at, expires_at, used_at FROM link_codes WHERE player_id = "
                    ":player_id "
                    "ORDER BY created_at",
                    {"player_id": player_id},
                )
            ]
            return out

        return await self.db.run(work, write=False)

    async def erase(
        self, player_id: str, legacy_device: str, now: float, parts: Sequence[PlayerData]
    ) -> list[str]:
        """Delete everything of ``player_id`` in one transaction; every device of the
        player becomes a tombstone (so a stranger from its next request on), the one an
        old cookie of the player would become included. Returns the devices' ids."""

        def work(tx: Tx) -> list[str]:
            for part in parts:
                part.erase(tx, player_id)
            tx.all(
                "DELETE FROM recovery_codes WHERE player_id = :player_id", {"player_id": player_id}
            )
            tx.all("DELETE FROM link_codes WHERE player_id = :player_id", {"player_id": player_id})
            rows = tx.all(
                "UPDATE devices SET player_id = '', name = '', "
                "removed_at = COALESCE(removed_at, :now) WHERE player_id = :player_id RETURNING id",
                {"now": now, "player_id": player_id},
            )
            tx.all(
                "INSERT INTO devices (id, player_id, name, created_at, seen_at, removed_at) "
                "VALUES (:legacy_device, '', '', :now, :now, :now) ON CONFLICT (id) DO NOTHING",
                {"legacy_device": legacy_device, "now": now},
            )
            return [str(r[0]) for r in rows]

        return await self.db.run(work)
