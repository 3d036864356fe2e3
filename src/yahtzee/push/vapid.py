"""The server's VAPID key (RFC 8292): who the push services see sending the reminders.

A browser subscribes with the key's public half (``applicationServerKey``) and its push
service then takes messages for that subscription only when they are signed by the private
half. The key is **derived from the server's secret** (HKDF-SHA256 under a purpose of its
own, the FIPS 186-4 B.4.1 way of turning random bits into a P-256 scalar, then
:func:`cryptography...ec.derive_private_key`): so it is made when the secret is, on the
first start, kept where the secret is kept (``<db>.secret``, ``--secret-file`` or
``YAHTZEE_SECRET``), the same in every process and on every machine without one more file
to share, and it changes only when the secret does (then every subscription is made again
by its page: the page compares the key it subscribed with and the server's). Nothing else
is derived by hand: the signature (ES256 JWT) is py-vapid's, the encryption pywebpush's.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02

_PURPOSE = b"yahtzee-vapid-v1"
#: The order of P-256's group (SEC 2): the private key is a scalar in [1, n - 1].
_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
#: How long a signature is good for: the push services refuse more than 24 hours.
TOKEN_SECONDS = 12 * 3600


def b64url(data: bytes) -> str:
    """Base64url without padding (as the Push API writes keys)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def derive_key(secret: bytes) -> ec.EllipticCurvePrivateKey:
    """The P-256 key of ``secret`` (see the module docstring): 384 bits of HKDF output
    reduced into [1, n - 1], whose bias is below 2^-128."""
    okm = HKDF(algorithm=hashes.SHA256(), length=48, salt=None, info=_PURPOSE).derive(secret)
    scalar = int.from_bytes(okm, "big") % (_P256_ORDER - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256R1())


class VapidKey:
    """The server's VAPID key: its public half for the pages, signatures for the sends."""

    def __init__(self, secret: bytes, clock: Callable[[], float] = time.time) -> None:
        self._vapid = Vapid02(derive_key(secret))
        point = self._vapid.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        #: The ``applicationServerKey`` a page subscribes with (65 bytes, base64url).
        self.public_key = b64url(point)
        # (the push services check the token's expiry against the real time: never the
        # tests' clock)
        self._clock = clock

    def headers(self, audience: str, contact: str) -> dict[str, str]:
        """The ``Authorization: vapid t=…, k=…`` header of a message to a push service at
        ``audience`` (its origin), signed now, good for :data:`TOKEN_SECONDS`."""
        claims = {"aud": audience, "exp": int(self._clock()) + TOKEN_SECONDS, "sub": contact}
        signed: dict[str, str] = self._vapid.sign(claims)
        return signed
