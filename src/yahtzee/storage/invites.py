"""Invite tokens: unguessable links to a group (and later a room), stored hashed.

A token is 128 bits from the operating system's CSPRNG (:func:`secrets.token_urlsafe`,
22 URL-safe characters), so guessing one is hopeless whatever the rate. The database
keeps only ``SHA-256("yahtzee-invite-v1:" + token)``: someone who reads a backup learns
which groups exist, never a link into one. (An unsalted fast hash is right for a random
128-bit secret: there is no dictionary to try; slow hashes are for passwords.)

Checking is constant-time where it can leak anything:

* :meth:`InviteTokens.check` (the target is known, e.g. a room id in the URL) reads the
  target's stored digests and compares each with the presented token's digest by
  :func:`hmac.compare_digest`;
* :meth:`InviteTokens.resolve` (a bare token, e.g. a group's join link) looks the digest
  up in the primary-key index. The lookup's timing depends only on the *digest*, which
  reveals nothing about the token or any other token (finding a token whose digest
  shares a prefix with a stored one is a preimage search), and the row found is then
  compared with :func:`hmac.compare_digest` too.

A token belongs to a ``purpose`` (``"group"``, ``"room"``, ``"room_watch"``...) and a
``target`` id; a token of one purpose never opens another. :meth:`InviteTokens.revoke`
ends every live token of a target (a leaked link, a closed group); :meth:`rotate` revokes
and issues a new one. Revoked rows are kept (a revoked link says "closed", not "unknown").

The ``*_in`` functions work inside a caller's transaction (a new group and its token are
one transaction); :class:`InviteTokens` runs each in its own.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime

from yahtzee.storage.feature_db import FeatureDb, Tx
from yahtzee.storage.schema import Migrations

TOKEN_BYTES = 16  # 128 bits
_TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")
_PURPOSE = b"yahtzee-invite-v1:"

FEATURE = "invites"
MIGRATIONS = Migrations.shared(
    FEATURE,
    (
        (
            """CREATE TABLE invite_tokens (
            digest TEXT PRIMARY KEY,
            purpose TEXT NOT NULL,
            target TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        )""",
            "CREATE INDEX invite_tokens_target ON invite_tokens (purpose, target)",
        ),
    ),
)


def new_token() -> str:
    """A fresh token: 128 random bits, URL-safe base64 without padding (22 characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def is_token(value: object) -> bool:
    """Whether ``value`` has a token's form (checked before any database work)."""
    return isinstance(value, str) and _TOKEN.fullmatch(value) is not None


def digest_of(token: str) -> str:
    """What the database stores of ``token`` (hex SHA-256 with a purpose prefix)."""
    return hashlib.sha256(_PURPOSE + token.encode("ascii")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def derived_token(secret: bytes, purpose: str, target: str, serial: int) -> str:
    """A token the server can show again without storing it: the first 128 bits of
    ``HMAC-SHA256(secret, "yahtzee-invite-v1:<purpose>:<target>:<serial>")``. Unguessable
    without the server's secret; a new ``serial`` gives a new, unrelated token."""
    message = _PURPOSE + f"{purpose}:{target}:{serial}".encode()
    mac = hmac.new(secret, message, hashlib.sha256).digest()[:TOKEN_BYTES]
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


async def issue_in(tx: Tx, purpose: str, target: str, token: str | None = None) -> str:
    """Store a new token of ``purpose`` for ``target`` (``token``, e.g. a
    :func:`derived_token`, or a fresh random one) and return it."""
    token = token if token is not None else new_token()
    await tx.all(
        "INSERT INTO invite_tokens (digest, purpose, target, created_at) "
        "VALUES (:digest, :purpose, :target, :now)",
        {"digest": digest_of(token), "purpose": purpose, "target": target, "now": _now()},
    )
    return token


async def resolve_in(tx: Tx, purpose: str, token: object, *, revoked: bool = False) -> str | None:
    """The target of a live ``token`` of ``purpose`` (with ``revoked``, of a revoked one
    too), else ``None``."""
    if not isinstance(token, str) or not is_token(token):
        return None
    digest = digest_of(token)
    row = await tx.one(
        "SELECT digest, purpose, target, revoked_at FROM invite_tokens WHERE digest = :digest",
        {"digest": digest},
    )
    if row is None or not hmac.compare_digest(str(row[0]), digest):
        return None
    if row[1] != purpose or (row[3] is not None and not revoked):
        return None
    return str(row[2])


async def check_in(tx: Tx, purpose: str, target: str, token: object) -> bool:
    """Whether ``token`` is a live token of ``purpose`` for ``target`` (constant-time
    comparison against each of the target's live digests)."""
    valid = isinstance(token, str) and is_token(token)
    presented = digest_of(token) if isinstance(token, str) and valid else ""
    rows = await tx.all(
        "SELECT digest FROM invite_tokens "
        "WHERE purpose = :purpose AND target = :target AND revoked_at IS NULL",
        {"purpose": purpose, "target": target},
    )
    ok = False
    for (digest,) in rows:
        ok |= hmac.compare_digest(str(digest), presented)
    return ok and valid


async def revoke_in(tx: Tx, purpose: str, target: str) -> int:
    """End every live token of ``target``; returns how many."""
    rows = await tx.all(
        "UPDATE invite_tokens SET revoked_at = :now WHERE purpose = :purpose AND target = :target "
        "AND revoked_at IS NULL RETURNING digest",
        {"now": _now(), "purpose": purpose, "target": target},
    )
    return len(rows)


async def delete_in(tx: Tx, purpose: str, target: str) -> int:
    """Delete every token of ``purpose`` for ``target`` (where a revoked link need not say
    "closed": a room's renewed links, which answer as an unknown token would); returns how
    many."""
    rows = await tx.all(
        "DELETE FROM invite_tokens WHERE purpose = :purpose AND target = :target RETURNING digest",
        {"purpose": purpose, "target": target},
    )
    return len(rows)


class InviteTokens:
    """The invite tokens of every feature (groups now, rooms later), one transaction each."""

    def __init__(self, db: FeatureDb) -> None:
        self.db = db

    async def issue(self, purpose: str, target: str) -> str:
        """A new token of ``purpose`` for ``target``."""
        return await self.db.run(lambda tx: issue_in(tx, purpose, target))

    async def resolve(self, purpose: str, token: object) -> str | None:
        """The target a live ``token`` of ``purpose`` opens, else ``None``."""
        return await self.db.run(lambda tx: resolve_in(tx, purpose, token), write=False)

    async def check(self, purpose: str, target: str, token: object) -> bool:
        """Whether ``token`` opens ``target`` for ``purpose``."""
        return await self.db.run(lambda tx: check_in(tx, purpose, target, token), write=False)

    async def revoke(self, purpose: str, target: str) -> int:
        """End the live tokens of ``target``."""
        return await self.db.run(lambda tx: revoke_in(tx, purpose, target))

    async def rotate(self, purpose: str, target: str) -> str:
        """Revoke the target's tokens and issue a new one, in one transaction."""

        async def work(tx: Tx) -> str:
            await revoke_in(tx, purpose, target)
            return await issue_in(tx, purpose, target)

        return await self.db.run(work)
