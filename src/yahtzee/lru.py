"""The one bounded cache (K4): the solver's, the players', the review's and the server's
(the games' positions, the days' dice streams, the rooms' seat holders, the rate limits'
buckets) are all :class:`LruCache`.

Why this module rather than a library such as ``cachetools``: every user here shares its
cache between threads (the CPU pool's threads, the storage's writer) and ``cachetools``'
caches are not thread-safe (each caller would wrap them in a lock of its own); the rate
limiter needs to drop its *stale* oldest entries (:meth:`LruCache.evict_while`), which no
library cache offers; and these sixty lines need no dependency.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from threading import Lock
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """A thread-safe map of at most ``size`` entries that forgets the least recently used
    first.

    Values are computed outside the lock (they are deterministic, so two threads that
    compute the same one at once only waste work), which keeps a slow computation from
    blocking every other reader.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = Lock()

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            hit = self._data.get(key)
            if hit is not None:
                self._data.move_to_end(key)
            return hit

    def put(self, key: K, value: V) -> None:
        """Store ``value``, forgetting the least recently used entries beyond ``size``."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        """The value of ``key``, computed by ``compute()`` and stored when missing."""
        hit = self.get(key)
        if hit is not None:
            return hit
        value = compute()
        self.put(key, value)
        return value

    def peek(self, key: K) -> V | None:
        """The value of ``key`` without making it the most recently used, or ``None``."""
        with self._lock:
            return self._data.get(key)

    def pop(self, key: K) -> V | None:
        """Forget ``key``; its value, or ``None``."""
        with self._lock:
            return self._data.pop(key, None)

    def evict_while(self, stale: Callable[[K, V], bool]) -> int:
        """Forget the least recently used entries while ``stale(key, value)`` holds for the
        oldest one; returns how many were forgotten (amortised O(1) per :meth:`put`)."""
        dropped = 0
        with self._lock:
            data = self._data
            while data:
                key, value = next(iter(data.items()))
                if not stale(key, value):
                    break
                del data[key]
                dropped += 1
        return dropped

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first (a snapshot)."""
        with self._lock:
            return iter(list(self._data))

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)
