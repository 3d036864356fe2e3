"""A small bounded cache shared by the solver, the players, the review and the server."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
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

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)
