"""Client address groups: whom a per-address limit counts (F18, issue 35 item 1).

Every limit "per client address" (new player ids, new games, rooms, groups, 练习
servings, code tries, room streams, the costly requests' share of a process) is counted
per **address group**, the key :func:`address_group` gives, never per exact address:

* **IPv6: the /64.** One host picks addresses from its /64 at will (privacy extensions
  make a new one every day, and nothing stops a program from binding thousands): with an
  exact-address key, one machine was as many clients as it liked. The /64 is the smallest
  block an end site gets (RFC 4291's subnet size; ISPs give a home or a phone a /64 to a
  /48), so a key coarser than that would not be one client's, and no one site can have
  two /64 keys without being given a larger block.
* **IPv4: the exact address.** An IPv4 address is scarce and is what an ISP gives one
  subscriber (a home's NAT, a mobile carrier's CGNAT shares one among many already); a
  /24 is usually 254 different subscribers, so grouping by it would let one of them lock
  out its neighbours while an attacker renting addresses is not slowed by it much. An
  IPv4-mapped IPv6 address (``::ffff:192.0.2.1``, a dual-stack socket's) is its IPv4
  address.
* Anything else (no address, a test client's name) is itself.

The shipped nginx keys its ``limit_conn`` and ``limit_req`` the same way, with the very
same text (``deploy/nginx/yahtzee.conf``, ``$yahtzee_address_group``;
``tests/api/test_address_groups.py`` compares the two on many addresses).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

#: IPv6 groups remembered (parsing an address costs a few microseconds; a busy process
#: sees the same few again and again).
CACHED = 4096


def address_group(address: str) -> str:
    """The group of a client ``address`` (see the module docstring): an IPv4 address
    itself; an IPv6 address's /64 as ``"2001:db8:0:1::/64"`` (its first four groups in
    lower-case hexadecimal without leading zeros, then ``::/64``)."""
    if ":" not in address:  # IPv4, or not an address: nothing to parse (the common case)
        return address
    return _ipv6_group(address)


@lru_cache(maxsize=CACHED)
def _ipv6_group(address: str) -> str:
    try:
        ip = ipaddress.IPv6Address(address.partition("%")[0])  # (without a zone index)
    except ValueError:
        return address
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    prefix = int(ip) >> 64
    groups = ((prefix >> shift) & 0xFFFF for shift in (48, 32, 16, 0))
    return ":".join(format(g, "x") for g in groups) + "::/64"
