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
from pathlib import Path

SECRET_BYTES = 32
MIN_SECRET_CHARS = 32
_PURPOSE = b"yahtzee-player-v1:"
_MAC_BYTES = 16
_ID = re.compile(r"[A-Za-z0-9_-]{22,64}")


class SecretError(Exception):
    """The signing secret cannot be read, created or used (a startup error)."""


def new_player_id() -> str:
    """A fresh anonymous id: 192 random bits from the OS CSPRNG, URL-safe base64."""
    return secrets.token_urlsafe(24)


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


class PlayerIds:
    """Resolves a request's cookie to a player id, minting one as needed.

    ``before_mint(address)`` runs before a new id is made for a client address (the rate
    limit of new players raises there, F5); it asks the database, so resolving is a
    coroutine.
    """

    def __init__(
        self,
        signer: PlayerSigner,
        before_mint: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self.signer = signer
        self._before_mint = before_mint

    def known(self, cookie: str | None) -> str | None:
        """The id of a correctly signed ``cookie``, else ``None`` (never mints)."""
        return None if cookie is None else self.signer.verify(cookie)

    async def resolve(self, cookie: str | None, address: str) -> tuple[str, bool]:
        """``(player_id, issue_cookie)`` for a request carrying ``cookie`` (or none): its
        signed id, else a new one."""
        player_id = self.known(cookie)
        if player_id is not None:
            return player_id, False
        if self._before_mint is not None:
            await self._before_mint(address)
        return new_player_id(), True
