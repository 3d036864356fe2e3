"""What a browser's subscription may be (W4, W6): an endpoint of a push service the
browsers use, the keys of the standard ``aes128gcm`` encryption, an IANA time zone.

The server calls the endpoint a subscription names, so the endpoint is the one input that
could make it call an address of someone's choosing: only ``https`` endpoints on the push
services' own hosts are taken (:data:`KNOWN_HOSTS`, :data:`KNOWN_SUFFIXES`), on the default
port, with no user part; ``--push-endpoints`` adds URL prefixes (a local test service).
The endpoint is read by one strict pattern (printable ASCII, no backslash, no ``@``
before the path) so that no two URL parsers can disagree on its host.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric import ec

from yahtzee.push.errors import EndpointRefusedError, KeysRefusedError, TimeZoneRefusedError

#: The push services of the browsers (checked against their current endpoints): Chrome,
#: Edge's Chromium and most others' Firebase Cloud Messaging; Firefox's autopush; Safari's
#: (macOS 13+, iOS 16.4+ from the home screen).
KNOWN_HOSTS = frozenset(
    {"fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com"}
)
#: Hosts under these are a push service's too: the Windows Push Notification Services of
#: Edge (``wns2-….notify.windows.com``).
KNOWN_SUFFIXES = (".notify.windows.com",)
#: The longest endpoint taken (the services' are a few hundred characters).
MAX_ENDPOINT_CHARS = 1024
_URL = re.compile(
    r"(?P<scheme>https?)://(?P<host>[A-Za-z0-9.-]{1,253})(?::(?P<port>[0-9]{1,5}))?"
    r"(?P<path>/[^#]*)?"
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")


@dataclass(frozen=True, slots=True)
class Address:
    """An endpoint or a prefix, read strictly: scheme, lower-case host, port, path."""

    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, text: str) -> Address | None:
        """``text`` read by the one pattern, or ``None``."""
        if not text.isascii() or any(not "!" <= c <= "~" for c in text) or "\\" in text:
            return None
        m = _URL.fullmatch(text)
        if m is None:
            return None
        scheme = m["scheme"]
        port = int(m["port"]) if m["port"] else _DEFAULT_PORTS[scheme]
        if not 0 < port < 65536:
            return None
        return cls(scheme, m["host"].lower().rstrip("."), port, m["path"] or "/")

    @property
    def origin(self) -> str:
        """``scheme://host[:port]``: the VAPID audience of an endpoint (RFC 8292)."""
        default = _DEFAULT_PORTS[self.scheme] == self.port
        return f"{self.scheme}://{self.host}" + ("" if default else f":{self.port}")


class Endpoints:
    """The addresses the server sends reminders to: the browsers' push services, and the
    prefixes of ``--push-endpoints``."""

    def __init__(self, prefixes: Sequence[str] = ()) -> None:
        self.prefixes: tuple[Address, ...] = tuple(
            a for a in (Address.parse(p.strip()) for p in prefixes) if a is not None
        )

    def allowed(self, endpoint: str) -> Address | None:
        """``endpoint`` read, if the server may call it, else ``None``."""
        if len(endpoint) > MAX_ENDPOINT_CHARS:
            return None
        address = Address.parse(endpoint)
        if address is None:
            return None
        for prefix in self.prefixes:
            if (
                (address.scheme, address.host, address.port)
                == (prefix.scheme, prefix.host, prefix.port)
            ) and address.path.startswith(prefix.path):
                return address
        known = address.host in KNOWN_HOSTS or address.host.endswith(KNOWN_SUFFIXES)
        if address.scheme == "https" and address.port == 443 and known:
            return address
        return None

    def check(self, endpoint: str) -> Address:
        """``endpoint`` read, or :class:`EndpointRefusedError` (422)."""
        address = self.allowed(endpoint)
        if address is None:
            raise EndpointRefusedError(_shown_host(endpoint))
        return address


def _shown_host(endpoint: str) -> str:
    """What a refusal names of an endpoint: its host as far as it can be read, shortened."""
    rest = endpoint.partition("://")[2] or endpoint
    host = re.split(r"[/?#]", rest, maxsplit=1)[0]
    return "".join(c if "!" <= c <= "~" else "?" for c in host)[:60] or "?"


def _decode(value: str) -> bytes | None:
    """Base64url (RFC 4648 §5, as browsers give the keys), padding optional."""
    if not _BASE64URL.fullmatch(value):
        return None
    try:
        return base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        return None


def check_keys(p256dh: str, auth: str) -> tuple[str, str]:
    """The subscription's keys as given, once ``p256dh`` is a point of P-256 (uncompressed,
    65 bytes, on the curve) and ``auth`` a 16-byte secret; else
    :class:`KeysRefusedError` (422)."""
    raw = _decode(p256dh)
    secret = _decode(auth)
    if raw is None or len(raw) != 65 or raw[0] != 4 or secret is None or len(secret) != 16:
        raise KeysRefusedError("p256dh must be a P-256 point and auth 16 bytes")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:  # not on the curve
        raise KeysRefusedError("p256dh is not a point of P-256") from None
    return p256dh, auth


@functools.cache
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def check_time_zone(name: str) -> str:
    """``name`` if it is an IANA time zone this server knows (``Asia/Shanghai``), else
    :class:`TimeZoneRefusedError` (422)."""
    if len(name) > 64 or name not in _zones():
        raise TimeZoneRefusedError(name[:64])
    return name


def zone(name: str) -> zoneinfo.ZoneInfo:
    """The time zone ``name`` (a stored one; UTC if this server no longer knows it)."""
    try:
        return zoneinfo.ZoneInfo(name) if name in _zones() else zoneinfo.ZoneInfo("UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")
