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
* ``device_requests``: what could lock the owner out (a new or removed recovery code, the
  removal of another device, the deletion of everything) asked without the recovery code:
  it waits :data:`WAIT_SECONDS` in view of every device of the player, any of which can
  refuse it (F20, docs/devices.md "The owner stays in control").

A device also says how it came to its player (``via``: ``new``, ``link``, ``recovery``)
and when (``joined_at``), whether another device said 「是我」 of it (``confirmed_at``),
and, once it is a tombstone, why it ended (``ended``: ``removed``, ``erased``,
``expired``, ``signed_out``), which its browser is told once (U20).

Every cookie-less request makes a player and its device, so the devices of browsers that
never played (no part keeps anything of their player, nor a recovery code) are deleted
once none of them was seen for ``--prune-devices-after-days`` (F27, :meth:`DeviceStore.
prune`), with what little else their player had (a board name, rate-limit buckets).

A link or a recovery is **one transaction** with every feature's move of the device's
player into the code's player (:class:`~yahtzee.storage.player_data.PlayerData`), and so
is the deletion of a player's data: whole or not at all, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import functools
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
    LastWayBackError,
    MergeOverLimitError,
    NoRecoveryCodeError,
    OtherDevicesError,
    RecoveryCodeNeededError,
    RequestNotFoundError,
    ThisDeviceError,
    TooNewError,
    WrongRecoveryCodeError,
)
from yahtzee.server.revocation import Revoked, notify_in
from yahtzee.storage.feature_db import FeatureDb, Tx
from yahtzee.storage.player_data import (
    MergeConflictError,
    MergeNote,
    MergeOverCapError,
    PlayerData,
)
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
        (
            # F20: how and when a device came to its player; U20: why a tombstone ended.
            "ALTER TABLE devices ADD COLUMN via TEXT NOT NULL DEFAULT 'new'",
            "ALTER TABLE devices ADD COLUMN joined_at DOUBLE PRECISION",
            "ALTER TABLE devices ADD COLUMN confirmed_at DOUBLE PRECISION",
            "ALTER TABLE devices ADD COLUMN ended TEXT",
            """CREATE TABLE device_requests (
            id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            target TEXT,
            digest TEXT,
            requested_by TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            due_at DOUBLE PRECISION NOT NULL
        )""",
            "CREATE INDEX device_requests_player ON device_requests (player_id)",
            "CREATE INDEX device_requests_due ON device_requests (due_at)",
        ),
        # v3 (F27): the live devices by when they were last seen, for the pruning of those
        # of browsers that never played (DeviceStore.prune).
        ("CREATE INDEX devices_seen ON devices (seen_at) WHERE removed_at IS NULL",),
    ),
)

#: The codes' letters: no 0/O, 1/I/L (unambiguous when read aloud or copied by a child).
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
# 31^10 ≈ 8.2e14 ≈ 2^49.5: at the service-wide limit of tries, under one chance in a
# million a year of hitting any of 1,000 codes alive at every moment (docs/devices.md).
LINK_CODE_CHARS = 10
LINK_CODE_GROUP = 5  # shown as ABCDE-FGHJK
RECOVERY_CODE_CHARS = 20  # 31^20 ≈ 2^99, shown as ABCD-EFGH-JKMN-PQRS-TUVW
#: How long a request that could lock the owner out waits, asked without the recovery
#: code, in view of every device of the player (F20).
WAIT_SECONDS = 72 * 3600.0
#: A device that came in by a link code is new this long: it cannot remove older devices
#: (without the recovery code), and any older device removes it with one tap (F20).
NEW_SECONDS = 7 * 24 * 3600.0
#: What a tombstone's ``ended`` says (its browser is told once, U20).
REMOVED, ERASED, EXPIRED, SIGNED_OUT = "removed", "erased", "expired", "signed_out"
#: What a :class:`Request` asks.
REMOVE_DEVICE, ERASE, RECOVERY_NEW, RECOVERY_REMOVE = (
    "remove_device",
    "erase",
    "recovery_new",
    "recovery_remove",
)
_LINK = b"yahtzee-link-code-v1:"
_RECOVERY = b"yahtzee-recovery-code-v1:"


#: Players whose devices one transaction of the pruning deletes (F27): each is a few dozen
#: statements (every part's erasure), so the writer is held a few milliseconds at a time.
PRUNE_EACH = 50


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


def format_code(code: str, group: int = 4) -> str:
    """``ABCD-EFGH-…``: groups of ``group`` letters, as shown and written down."""
    return "-".join(code[i : i + group] for i in range(0, len(code), group))


@dataclass(frozen=True, slots=True)
class Device:
    """A live device of a player: how it came (``via``: ``new``, ``link``, ``recovery``)
    and when (``joined_at``), and when another device said 「是我」 of it."""

    id: str
    name: str
    created_at: float
    seen_at: float
    via: str = "new"
    joined_at: float = 0.0
    confirmed_at: float | None = None

    def is_new(self, now: float) -> bool:
        """Came in by a code within :data:`NEW_SECONDS` (「这是你吗？」 until confirmed)."""
        return self.via != "new" and now - self.joined_at < NEW_SECONDS


@dataclass(frozen=True, slots=True)
class Request:
    """A waiting request of the player (F20): ``kind`` (:data:`REMOVE_DEVICE` of
    ``target``, :data:`ERASE`, :data:`RECOVERY_NEW`, :data:`RECOVERY_REMOVE`), the device
    that asked, and when it is carried out unless a device refuses it first."""

    id: str
    kind: str
    target: str | None
    requested_by: str
    created_at: float
    due_at: float


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a protected action did: the devices it ended (strangers from their next
    request; ``player`` when it deleted the player whole), or the request that now waits."""

    ended: tuple[str, ...] = ()
    player: str | None = None
    pending: Request | None = None


@dataclass(frozen=True, slots=True)
class Linked:
    """A redeemed code: the player the device now belongs to, the player it was, every
    device that moved with it (this one, and the old player's others when it moved whole),
    and what the merge gave up to keep the per-player caps (F27)."""

    player_id: str
    previous: str
    devices: tuple[str, ...]
    left_out: tuple[MergeNote, ...] = ()


_DEVICE_COLUMNS = (
    "id, name, created_at, seen_at, via, COALESCE(joined_at, created_at), confirmed_at"
)


def _device(row: Sequence[Any]) -> Device:
    confirmed = row[6]
    return Device(
        str(row[0]),
        str(row[1]),
        float(row[2]),
        float(row[3]),
        str(row[4]),
        float(row[5]),
        None if confirmed is None else float(confirmed),
    )


def _request(row: Sequence[Any]) -> Request:
    return Request(
        str(row[0]),
        str(row[1]),
        None if row[2] is None else str(row[2]),
        str(row[3]),
        float(row[4]),
        float(row[5]),
    )


_REQUEST_COLUMNS = "id, kind, target, requested_by, created_at, due_at"


async def lock_player(tx: Tx, player_id: str) -> None:
    """On PostgreSQL, the player's lock that a new game of it takes too (the games'
    ``lock_player``): a deletion and a new game of one player happen one after the other,
    so no game is written under a deleted player's id (F23). SQLite's writers take turns
    anyway."""
    if tx.dialect == "postgresql":
        await tx.one(
            "SELECT pg_advisory_xact_lock(hashtextextended(:player, 1))", {"player": player_id}
        )


async def _any_data(tx: Tx, parts: Sequence[PlayerData], player_id: str) -> bool:
    """Whether any part keeps something of ``player_id`` that a person would miss."""
    for part in parts:
        if await part.has_data(tx, player_id):
            return True
    return False


class DeviceStore:
    """The devices feature's tables (see the module docstring)."""

    def __init__(self, db: FeatureDb, secret: bytes) -> None:
        self.db = db
        self._secret = secret

    def _digest(self, purpose: bytes, code: str) -> str:
        return hmac.new(self._secret, purpose + code.encode("ascii"), hashlib.sha256).hexdigest()

    def recovery_digest(self, code: str) -> str:
        """The keyed digest a recovery code is kept as."""
        return self._digest(_RECOVERY, code)

    # -- devices ----------------------------------------------------------------------

    async def lookup(self, device_id: str) -> tuple[str, float] | str | None:
        """``(player, seen_at)`` of a live device; why it ended (``removed``, ``erased``,
        ``expired``, ``signed_out``) for a tombstone; ``None`` for an unknown one."""
        row = await self.db.one(
            "SELECT player_id, seen_at, removed_at, ended FROM devices WHERE id = :device_id",
            {"device_id": device_id},
            write=False,
        )
        if row is None:
            return None
        if row[2] is not None:
            return REMOVED if row[3] is None else str(row[3])
        return (str(row[0]), float(row[1]))

    async def touch(self, device_id: str, now: float) -> None:
        """Record that the device was seen ``now``."""
        await self.db.run(
            lambda tx: tx.all(
                "UPDATE devices SET seen_at = :now WHERE id = :device_id",
                {"now": now, "device_id": device_id},
            )
        )

    async def expire(self, device_id: str, unused_since: float, now: float) -> bool:
        """End the device if nobody used it since ``unused_since`` (F20: a credential
        unused for ``device_expiry_days`` stops working); whether it did."""

        async def work(tx: Tx) -> bool:
            rows = await tx.all(
                "UPDATE devices SET removed_at = :now, name = '', ended = :ended "
                "WHERE id = :device_id AND removed_at IS NULL AND seen_at < :since RETURNING id",
                {"now": now, "ended": EXPIRED, "device_id": device_id, "since": unused_since},
            )
            if rows:
                await notify_in(tx, Revoked((device_id,)))
            return bool(rows)

        return await self.db.run(work)

    async def add(self, device_id: str, player_id: str, name: str, now: float) -> None:
        """A new device of ``player_id``."""
        await self.db.run(
            lambda tx: tx.all(
                "INSERT INTO devices (id, player_id, name, created_at, seen_at, joined_at) "
                "VALUES (:device_id, :player_id, :name, :now, :now, :now)",
                {"device_id": device_id, "player_id": player_id, "name": name, "now": now},
            )
        )

    async def adopt(self, device_id: str, player_id: str, name: str, now: float) -> str | None:
        """The device of a legacy cookie: added if it does not exist (concurrent requests
        agree: the id is derived); its player, ``None`` if it was removed."""

        async def work(tx: Tx) -> str | None:
            await tx.all(
                "INSERT INTO devices (id, player_id, name, created_at, seen_at, joined_at) "
                "VALUES (:device_id, :player_id, :name, :now, :now, :now) "
                "ON CONFLICT (id) DO NOTHING",
                {"device_id": device_id, "player_id": player_id, "name": name, "now": now},
            )
            row = await tx.one(
                "SELECT player_id, removed_at FROM devices WHERE id = :device_id",
                {"device_id": device_id},
            )
            return None if row is None or row[1] is not None else str(row[0])

        return await self.db.run(work)

    async def devices(self, player_id: str) -> list[Device]:
        """The player's live devices, most recently seen first."""
        rows = await self.db.run(
            lambda tx: tx.all(
                f"SELECT {_DEVICE_COLUMNS} FROM devices "
                "WHERE player_id = :player_id AND removed_at IS NULL ORDER BY seen_at DESC, id",
                {"player_id": player_id},
            ),
            write=False,
        )
        return [_device(r) for r in rows]

    async def requests(self, player_id: str) -> list[Request]:
        """The player's waiting requests, oldest first."""
        rows = await self.db.run(
            lambda tx: tx.all(
                f"SELECT {_REQUEST_COLUMNS} FROM device_requests WHERE player_id = :player_id "
                "ORDER BY created_at, id",
                {"player_id": player_id},
            ),
            write=False,
        )
        return [_request(r) for r in rows]

    # -- proof (F20) ------------------------------------------------------------------------

    async def _at_once(self, tx: Tx, player_id: str, device_id: str, proof: str | None) -> bool:
        """Whether a protected action of ``device_id`` is carried out at once: with the
        player's current recovery code (``proof``; a wrong one refuses), or when there is
        neither a recovery code nor another device (nobody to ask, nothing to prove).
        Otherwise it waits (:data:`WAIT_SECONDS`)."""
        row = await tx.one(
            "SELECT digest FROM recovery_codes WHERE player_id = :player_id",
            {"player_id": player_id},
        )
        if proof is not None:
            if row is None or not hmac.compare_digest(str(row[0]), self.recovery_digest(proof)):
                raise WrongRecoveryCodeError()
            return True
        if row is not None:
            return False
        others = await tx.one(
            "SELECT COUNT(*) FROM devices WHERE player_id = :player_id AND removed_at IS NULL "
            "AND id <> :device_id",
            {"player_id": player_id, "device_id": device_id},
        )
        return others is None or int(others[0]) == 0

    async def _wait(
        self,
        tx: Tx,
        player_id: str,
        device_id: str,
        kind: str,
        now: float,
        *,
        target: str | None = None,
        digest: str | None = None,
    ) -> Request:
        """The request that waits (the same one if it is already waiting; a new recovery
        code replaces the one that waited)."""
        if kind == RECOVERY_NEW:
            await tx.all(
                "DELETE FROM device_requests WHERE player_id = :player_id AND kind = :kind",
                {"player_id": player_id, "kind": kind},
            )
        else:
            row = await tx.one(
                f"SELECT {_REQUEST_COLUMNS} FROM device_requests WHERE player_id = :player_id "
                "AND kind = :kind AND COALESCE(target, '') = :target",
                {"player_id": player_id, "kind": kind, "target": target or ""},
            )
            if row is not None:
                return _request(row)
        request = Request(secrets.token_hex(8), kind, target, device_id, now, now + WAIT_SECONDS)
        await tx.all(
            "INSERT INTO device_requests (id, player_id, kind, target, digest, requested_by, "
            "created_at, due_at) VALUES (:id, :player_id, :kind, :target, :digest, :by, :now, "
            ":due)",
            {
                "id": request.id,
                "player_id": player_id,
                "kind": kind,
                "target": target,
                "digest": digest,
                "by": device_id,
                "now": now,
                "due": request.due_at,
            },
        )
        return request

    async def _live(self, tx: Tx, player_id: str, device_id: str) -> Device | None:
        row = await tx.one(
            f"SELECT {_DEVICE_COLUMNS} FROM devices WHERE id = :device_id "
            "AND player_id = :player_id AND removed_at IS NULL",
            {"device_id": device_id, "player_id": player_id},
        )
        return None if row is None else _device(row)

    @staticmethod
    async def _end(tx: Tx, player_id: str, device_id: str, now: float, why: str) -> bool:
        rows = await tx.all(
            "UPDATE devices SET removed_at = :now, name = '', ended = :why "
            "WHERE id = :device_id AND player_id = :player_id AND removed_at IS NULL "
            "RETURNING id",
            {"now": now, "why": why, "device_id": device_id, "player_id": player_id},
        )
        if rows:
            await tx.all(
                "DELETE FROM device_requests "
                "WHERE requested_by = :device_id OR target = :device_id",
                {"device_id": device_id},
            )
            await notify_in(tx, Revoked((device_id,)))
        return bool(rows)

    # -- the protected actions (F20) ----------------------------------------------------------

    async def remove(
        self, player_id: str, device_id: str, target: str, proof: str | None, now: float
    ) -> Outcome:
        """Remove the player's device ``target`` (a tombstone stays: no name), asked by
        ``device_id``: at once when ``target`` is a newcomer (came in by a code within
        :data:`NEW_SECONDS`, after ``device_id``) or with the recovery code; a newcomer
        by a link code cannot remove an older device without it; otherwise it waits."""

        async def work(tx: Tx) -> Outcome:
            mine = await self._live(tx, player_id, device_id)
            other = await self._live(tx, player_id, target)
            if mine is None or other is None:
                raise DeviceNotFoundError(target)
            # (an established device removes any newcomer; a newcomer, later ones only)
            newcomer = other.is_new(now) and (
                not mine.is_new(now) or other.joined_at > mine.joined_at
            )
            if not newcomer:
                if proof is None and mine.via == "link" and mine.is_new(now):
                    raise TooNewError()
                if not await self._at_once(tx, player_id, device_id, proof):
                    return Outcome(
                        pending=await self._wait(
                            tx, player_id, device_id, REMOVE_DEVICE, now, target=target
                        )
                    )
            await self._end(tx, player_id, target, now, REMOVED)
            return Outcome(ended=(target,))

        return await self.db.run(work)

    async def sign_out(self, player_id: str, device_id: str, now: float) -> Outcome:
        """「退出这台设备」: end this device (its browser is a stranger after it). Refused
        for the player's last way back: its only device without a recovery code."""

        async def work(tx: Tx) -> Outcome:
            ways = await tx.one(
                "SELECT (SELECT COUNT(*) FROM devices WHERE player_id = :player_id "
                "AND removed_at IS NULL AND id <> :device_id) + "
                "(SELECT COUNT(*) FROM recovery_codes WHERE player_id = :player_id)",
                {"player_id": player_id, "device_id": device_id},
            )
            if ways is None or int(ways[0]) == 0:
                raise LastWayBackError()
            if not await self._end(tx, player_id, device_id, now, SIGNED_OUT):
                raise DeviceNotFoundError(device_id)
            return Outcome(ended=(device_id,))

        return await self.db.run(work)

    async def confirm(self, player_id: str, device_id: str, target: str, now: float) -> None:
        """「是我」: another device of the player says the newcomer ``target`` is theirs
        (it is no longer shown as 「这是你吗？」)."""
        if target == device_id:
            raise ThisDeviceError()

        async def work(tx: Tx) -> None:
            rows = await tx.all(
                "UPDATE devices SET confirmed_at = :now WHERE id = :target "
                "AND player_id = :player_id AND removed_at IS NULL RETURNING id",
                {"now": now, "target": target, "player_id": player_id},
            )
            if not rows:
                raise DeviceNotFoundError(target)

        await self.db.run(work)

    async def refuse(self, player_id: str, request_id: str) -> None:
        """Any device of the player refuses (or its asker cancels) a waiting request."""

        async def work(tx: Tx) -> None:
            rows = await tx.all(
                "DELETE FROM device_requests WHERE id = :id AND player_id = :player_id "
                "RETURNING id",
                {"id": request_id, "player_id": player_id},
            )
            if not rows:
                raise RequestNotFoundError(request_id)

        await self.db.run(work)

    # -- codes ------------------------------------------------------------------------

    async def new_link_code(self, player_id: str, code: str, now: float, expires: float) -> None:
        """Store ``code`` for ``player_id`` until ``expires``; the player's earlier codes
        end, and every expired code goes."""

        async def work(tx: Tx) -> None:
            await tx.all(
                "DELETE FROM link_codes WHERE player_id = :player_id OR expires_at <= :now",
                {"player_id": player_id, "now": now},
            )
            await tx.all(
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

    @staticmethod
    async def _set_recovery(tx: Tx, player_id: str, digest: str, now: float) -> None:
        await tx.all(
            "DELETE FROM recovery_codes WHERE player_id = :player_id", {"player_id": player_id}
        )
        await tx.all(
            "INSERT INTO recovery_codes (player_id, digest, created_at) VALUES (:player_id, "
            ":digest, :now)",
            {"player_id": player_id, "digest": digest, "now": now},
        )

    async def set_recovery(
        self, player_id: str, device_id: str, code: str, proof: str | None, now: float
    ) -> Outcome:
        """``code`` becomes the player's recovery code (the old one stops working): at
        once with the current code (``proof``) or when the player has neither a code nor
        another device; otherwise it waits, and takes effect when it is carried out."""
        digest = self.recovery_digest(code)

        async def work(tx: Tx) -> Outcome:
            if await self._at_once(tx, player_id, device_id, proof):
                await self._set_recovery(tx, player_id, digest, now)
                await tx.all(
                    "DELETE FROM device_requests WHERE player_id = :player_id "
                    "AND kind IN ('recovery_new', 'recovery_remove')",
                    {"player_id": player_id},
                )
                return Outcome()
            return Outcome(
                pending=await self._wait(tx, player_id, device_id, RECOVERY_NEW, now, digest=digest)
            )

        return await self.db.run(work)

    async def remove_recovery(
        self, player_id: str, device_id: str, proof: str | None, now: float
    ) -> Outcome:
        """The player's recovery code stops working: at once with it (``proof``),
        otherwise after the wait."""

        async def work(tx: Tx) -> Outcome:
            if (
                await tx.one(
                    "SELECT 1 FROM recovery_codes WHERE player_id = :player_id",
                    {"player_id": player_id},
                )
                is None
            ):
                raise NoRecoveryCodeError()
            if await self._at_once(tx, player_id, device_id, proof):
                await tx.all(
                    "DELETE FROM recovery_codes WHERE player_id = :player_id",
                    {"player_id": player_id},
                )
                return Outcome()
            return Outcome(pending=await self._wait(tx, player_id, device_id, RECOVERY_REMOVE, now))

        return await self.db.run(work)

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
        proof: str | None,
        now: float,
        parts: Sequence[PlayerData],
    ) -> Linked:
        """Make ``device_id`` the code's player's.

        The device's own player moves with it whole (its data with ``merge``, its other
        devices) only when that cannot take it from its owner: with its recovery code
        (``proof``), or when it has neither a recovery code nor another device. A player
        with a recovery code needs it (:class:`RecoveryCodeNeededError`); one with other
        devices and no code stays theirs, and only this device moves (a ``merge`` is
        refused: :class:`OtherDevicesError`). A device whose player keeps anything
        (:meth:`PlayerData.has_data`) and would move whole is refused
        (:class:`HasOwnDataError`, nothing changes, the code stays good) unless ``merge``:
        then everything of its player moves into the code's player, in this transaction,
        each part keeping its per-player caps (what it gave up is :attr:`Linked.left_out`;
        a cap nothing can be given up for is :class:`MergeOverLimitError`, F27).
        A link code is used up; a recovery code stays good until replaced."""
        digest = self._digest(_RECOVERY if recovery else _LINK, code)

        async def work(tx: Tx) -> Linked:
            if recovery:
                row = await tx.one(
                    "SELECT player_id FROM recovery_codes WHERE digest = :digest",
                    {"digest": digest},
                )
            else:
                row = await tx.one(
                    "SELECT player_id FROM link_codes WHERE digest = :digest AND used_at IS NULL "
                    "AND expires_at > :now",
                    {"digest": digest, "now": now},
                )
            if row is None:
                raise InvalidCodeError()
            target = str(row[0])
            mine = await tx.one(
                "SELECT player_id FROM devices WHERE id = :device_id AND removed_at IS NULL",
                {"device_id": device_id},
            )
            if mine is None:
                raise DeviceNotFoundError(device_id)
            source = str(mine[0])
            if source == target:
                raise AlreadyLinkedError()
            has_code = (
                await tx.one(
                    "SELECT 1 FROM recovery_codes WHERE player_id = :source", {"source": source}
                )
                is not None
            )
            if has_code and proof is None:
                raise RecoveryCodeNeededError()
            whole = True
            if proof is not None:
                await self._at_once(tx, source, device_id, proof)  # (a wrong one refuses)
            elif not await self._at_once(tx, source, device_id, None):
                whole = False  # other devices, no code: they keep the player
                if merge:
                    raise OtherDevicesError()
            if whole and not merge and await _any_data(tx, parts, source):
                raise HasOwnDataError()
            left_out: list[MergeNote] = []
            if whole:
                try:
                    for part in parts:
                        left_out.extend(await part.merge(tx, source, target))
                except MergeOverCapError as exc:
                    raise MergeOverLimitError(exc.message) from None
                except MergeConflictError:
                    raise BothUnfinishedError() from None
            if not recovery:
                used = await tx.all(
                    "UPDATE link_codes SET used_at = :now WHERE digest = :digest AND used_at IS "
                    "NULL RETURNING digest",
                    {"now": now, "digest": digest},
                )
                if not used:  # (another redemption committed first: all of this rolls back)
                    raise InvalidCodeError()
            via = "recovery" if recovery else "link"
            moved = await tx.all(
                "UPDATE devices SET player_id = :target, via = :via, joined_at = :now, "
                "confirmed_at = NULL WHERE removed_at IS NULL AND "
                + ("player_id = :source " if whole else "id = :device_id ")
                + "RETURNING id",
                {
                    "target": target,
                    "via": via,
                    "now": now,
                    "source": source,
                    "device_id": device_id,
                },
            )
            if whole:
                for table in ("recovery_codes", "link_codes", "device_requests"):
                    await tx.all(
                        f"DELETE FROM {table} WHERE player_id = :source", {"source": source}
                    )
            else:
                await tx.all(
                    "DELETE FROM device_requests WHERE requested_by = :device_id",
                    {"device_id": device_id},
                )
            return Linked(target, source, tuple(str(r[0]) for r in moved), tuple(left_out))

        return await self.db.run(work)

    # -- the player's data ------------------------------------------------------------

    async def export(self, player_id: str, parts: Sequence[PlayerData]) -> dict[str, Any]:
        """Everything kept about ``player_id``: each part's, and this feature's own."""

        async def work(tx: Tx) -> dict[str, Any]:
            out: dict[str, Any] = {part.name: await part.export(tx, player_id) for part in parts}
            out["devices"] = [
                dict(
                    zip(
                        ("id", "name", "created_at", "seen_at", "via", "joined_at"),
                        row[:6],
                        strict=True,
                    )
                )
                for row in await tx.all(
                    f"SELECT {_DEVICE_COLUMNS} FROM devices "
                    "WHERE player_id = :player_id AND removed_at IS NULL ORDER BY created_at",
                    {"player_id": player_id},
                )
            ]
            made = await tx.one(
                "SELECT created_at FROM recovery_codes WHERE player_id = :player_id",
                {"player_id": player_id},
            )
            out["recovery_code"] = None if made is None else {"created_at": made[0]}
            out["link_codes"] = [
                dict(zip(("created_at", "expires_at", "used_at"), row, strict=True))
                for row in await tx.all(
                    "SELECT created_at, expires_at, used_at FROM link_codes WHERE player_id = "
                    ":player_id ORDER BY created_at",
                    {"player_id": player_id},
                )
            ]
            out["requests"] = [
                dict(zip(("kind", "created_at", "due_at"), row, strict=True))
                for row in await tx.all(
                    "SELECT kind, created_at, due_at FROM device_requests "
                    "WHERE player_id = :player_id ORDER BY created_at",
                    {"player_id": player_id},
                )
            ]
            return out

        return await self.db.run(work, write=False)

    async def prune(self, before: float, batch: int, parts: Sequence[PlayerData]) -> int:
        """Delete the devices of at most ``batch`` players that never played: none of
        their live devices seen since ``before``, nothing kept by any part
        (:meth:`PlayerData.kept_sql`), no recovery code; with every part's rows of them
        (a board name, buckets). Returns how many players (F27). A removed device's
        tombstone stays (it keeps an old cookie from coming back). In transactions of
        :data:`PRUNE_EACH` players, so that other writes pass between them."""
        kept = " OR ".join(f"({part.kept_sql('d.player_id')})" for part in parts) or "FALSE"
        find = (
            "SELECT DISTINCT d.player_id FROM devices d WHERE d.removed_at IS NULL "
            "AND d.seen_at < :before AND d.player_id <> '' "
            "AND NOT EXISTS (SELECT 1 FROM devices e WHERE e.player_id = d.player_id "
            "AND e.removed_at IS NULL AND e.seen_at >= :before) "
            "AND NOT EXISTS (SELECT 1 FROM recovery_codes r WHERE r.player_id = d.player_id) "
            f"AND NOT ({kept})"
        )

        async def work(tx: Tx, limit: int) -> tuple[int, int]:
            found = await tx.all(f"{find} LIMIT :limit", {"before": before, "limit": limit})
            players = [str(r[0]) for r in found]
            if players and tx.dialect == "postgresql":
                # Checked again with their devices locked: another transaction may have
                # committed since (a browser back marks its device seen before it does
                # anything; one that played is kept by a part). SQLite's one writer at a
                # time makes the first read the last word.
                await tx.all(
                    "SELECT 1 FROM devices WHERE player_id = ANY(:players) "
                    "AND removed_at IS NULL FOR UPDATE",
                    {"players": players},
                )
                again = await tx.all(
                    f"{find} AND d.player_id = ANY(:players)",
                    {"before": before, "players": players},
                )
                still = {str(r[0]) for r in again}
                players = [p for p in players if p in still]
            for player_id in players:
                for part in parts:
                    await part.erase(tx, player_id)
                for table in ("link_codes", "device_requests"):
                    await tx.all(
                        f"DELETE FROM {table} WHERE player_id = :player", {"player": player_id}
                    )
                await tx.all(
                    "DELETE FROM devices WHERE player_id = :player AND removed_at IS NULL",
                    {"player": player_id},
                )
            return len(found), len(players)

        total = 0
        while total < batch:
            limit = min(PRUNE_EACH, batch - total)
            found, pruned = await self.db.run(functools.partial(work, limit=limit))
            total += pruned
            if found < limit:
                break
        return total

    async def _erase_in(
        self, tx: Tx, player_id: str, legacy_device: str, now: float, parts: Sequence[PlayerData]
    ) -> list[str]:
        await lock_player(tx, player_id)  # (no new game of the player meanwhile: F23)
        for part in parts:
            await part.erase(tx, player_id)
        for table in ("recovery_codes", "link_codes", "device_requests"):
            await tx.all(
                f"DELETE FROM {table} WHERE player_id = :player_id", {"player_id": player_id}
            )
        rows = await tx.all(
            "UPDATE devices SET player_id = '', name = '', ended = COALESCE(ended, :why), "
            "removed_at = COALESCE(removed_at, :now) WHERE player_id = :player_id RETURNING id",
            {"now": now, "why": ERASED, "player_id": player_id},
        )
        await tx.all(
            "INSERT INTO devices (id, player_id, name, created_at, seen_at, removed_at, ended) "
            "VALUES (:legacy_device, '', '', :now, :now, :now, :why) ON CONFLICT (id) DO NOTHING",
            {"legacy_device": legacy_device, "now": now, "why": ERASED},
        )
        devices = [str(r[0]) for r in rows]
        await notify_in(tx, Revoked(tuple(devices), player_id))
        return devices

    async def erase(
        self,
        player_id: str,
        device_id: str,
        proof: str | None,
        legacy_device: str,
        now: float,
        parts: Sequence[PlayerData],
    ) -> Outcome:
        """Delete everything of ``player_id`` in one transaction, asked by ``device_id``
        (at once with the recovery code, or when there is neither a code nor another
        device; otherwise it waits); every device of the player becomes a tombstone (a
        stranger from its next request), the one an old cookie of the player would
        become included."""

        async def work(tx: Tx) -> Outcome:
            if not await self._at_once(tx, player_id, device_id, proof):
                return Outcome(pending=await self._wait(tx, player_id, device_id, ERASE, now))
            devices = await self._erase_in(tx, player_id, legacy_device, now, parts)
            return Outcome(ended=tuple(devices), player=player_id)

        return await self.db.run(work)

    # -- the requests that waited -------------------------------------------------------------

    async def due(self, now: float, player_id: str | None = None) -> list[str]:
        """The ids of the requests whose wait is over (of ``player_id``, or all)."""
        rows = await self.db.run(
            lambda tx: tx.all(
                "SELECT id FROM device_requests WHERE due_at <= :now "
                + ("AND player_id = :player_id " if player_id is not None else "")
                + "ORDER BY due_at LIMIT 100",
                {"now": now, "player_id": player_id},
            ),
            write=False,
        )
        return [str(r[0]) for r in rows]

    async def carry_out(
        self,
        request_id: str,
        now: float,
        legacy: Callable[[str], str],
        parts: Sequence[PlayerData],
    ) -> Outcome | None:
        """Carry out the request ``request_id`` whose wait is over, once, whichever process
        gets to it first (``None`` if another did, or a device refused it meanwhile)."""

        async def work(tx: Tx) -> Outcome | None:
            row = await tx.one(
                "DELETE FROM device_requests WHERE id = :id AND due_at <= :now "
                "RETURNING player_id, kind, target, digest",
                {"id": request_id, "now": now},
            )
            if row is None:
                return None
            player, kind, target, digest = str(row[0]), str(row[1]), row[2], row[3]
            if kind == REMOVE_DEVICE and target is not None:
                ended = await self._end(tx, player, str(target), now, REMOVED)
                return Outcome(ended=(str(target),) if ended else ())
            if kind == RECOVERY_NEW and digest is not None:
                await self._set_recovery(tx, player, str(digest), now)
                return Outcome()
            if kind == RECOVERY_REMOVE:
                await tx.all(
                    "DELETE FROM recovery_codes WHERE player_id = :player", {"player": player}
                )
                return Outcome()
            if kind == ERASE:
                devices = await self._erase_in(tx, player, legacy(player), now, parts)
                return Outcome(ended=tuple(devices), player=player)
            return None

        return await self.db.run(work)
