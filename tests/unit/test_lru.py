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
