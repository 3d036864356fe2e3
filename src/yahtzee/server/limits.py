"""Rate limits (F5): token buckets per player and per client address, in process.

Each limit is a rate with a burst of the same size (``30`` a minute: up to 30 at once,
then one every 2 s). A bucket remembers only its level and when it was last topped up;
buckets that have refilled completely carry no information and are dropped, and the table
holds at most ``max_keys`` of them (the least recently used go first), so the memory is
bounded whatever the number of clients.

One process's limits count that process's requests only: with several server processes a
client gets up to that many times the rate (the limits stay a bound, just a looser one).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

from yahtzee.serve_config import Limits
from yahtzee.server.errors import ApiError


class RateLimitedError(ApiError):
    """Over a limit: 429 ``rate_limited`` with the seconds to wait (``Retry-After``)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            429,
            "rate_limited",
            f"操作太频繁了，请 {retry_after} 秒后再试。",
            headers={"retry-after": str(retry_after)},
        )
        self.retry_after = retry_after


class RateLimiter:
    """Token buckets of ``rate`` tokens per ``per`` seconds, one per key."""

    def __init__(
        self,
        rate: int,
        per: float,
        *,
        max_keys: int = 50_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = float(rate)
        self.refill = rate / per  # tokens per second
        self.max_keys = max_keys
        self._clock = clock
        # key -> (tokens, when); least recently used first.
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    @property
    def enabled(self) -> bool:
        """``False`` for a rate of 0 (no limit)."""
        return self.capacity > 0

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str) -> None:
        """Spend one token of ``key``'s bucket, or raise :class:`RateLimitedError`."""
        if not self.enabled:
            return
        now = self._clock()
        buckets = self._buckets
        entry = buckets.pop(key, None)
        if entry is None:
            tokens = self.capacity
        else:
            tokens = min(self.capacity, entry[0] + (now - entry[1]) * self.refill)
        if tokens < 1.0:
            buckets[key] = (tokens, now)
            raise RateLimitedError(max(1, math.ceil((1.0 - tokens) / self.refill)))
        buckets[key] = (tokens - 1.0, now)
        self._evict(now)

    def _evict(self, now: float) -> None:
        """Drop the least recently used buckets while they have refilled completely (they
        hold no information) or while there are more than ``max_keys``. Amortised O(1):
        each bucket is dropped at most once per insertion."""
        buckets = self._buckets
        full_after = self.capacity / self.refill  # seconds for an empty bucket to refill
        while buckets:
            key, (_, when) = next(iter(buckets.items()))
            if now - when < full_after and len(buckets) <= self.max_keys:
                break
            del buckets[key]


class Guard:
    """The server's rate limiters (one instance per application)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.new_players = RateLimiter(limits.new_players_per_minute, 60.0, clock=clock)
        self.new_games = RateLimiter(limits.new_games_per_minute, 60.0, clock=clock)
        self.actions = RateLimiter(limits.actions_per_second, 1.0, clock=clock)
        self.address_games = RateLimiter(limits.new_games_per_minute_per_address, 60.0, clock=clock)
