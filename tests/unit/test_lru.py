"""The shared bounded cache (:class:`yahtzee.lru.LruCache`)."""

from __future__ import annotations

from yahtzee.lru import LruCache


def test_lru_forgets_the_least_recently_used_first() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now more recent than "b"
    cache.put("c", 3)
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c"), len(cache)) == (1, 3, 2)
    cache.clear()
    assert len(cache) == 0


def test_lru_computes_a_missing_value_once_and_keeps_falsy_values() -> None:
    cache: LruCache[int, float] = LruCache(4)
    calls: list[int] = []

    def compute() -> float:
        calls.append(1)
        return 0.0

    assert cache.get_or_compute(7, compute) == 0.0
    assert cache.get_or_compute(7, compute) == 0.0
    assert len(calls) == 1


def test_k4_peek_pop_and_evict_while() -> None:
    """What the server's caches need of the one bounded cache (K4): a read that does not
    refresh (peek), a removal (pop) and dropping the stale oldest entries (the limiter's
    full buckets)."""
    cache: LruCache[str, int] = LruCache(3)
    for key, value in (("a", 1), ("b", 2), ("c", 3)):
        cache.put(key, value)
    assert cache.peek("a") == 1  # not refreshed: still the oldest
    cache.put("d", 4)
    assert cache.get("a") is None
    assert cache.pop("b") == 2
    assert cache.pop("b") is None
    assert list(cache) == ["c", "d"]
    assert cache.evict_while(lambda _key, value: value < 4) == 1
    assert list(cache) == ["d"]
    assert cache.evict_while(lambda _key, value: value < 4) == 0
