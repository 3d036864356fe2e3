"""我的设备's per-process cache of device → player (issue 31): a device is believed for half
to all of ``device_cache_seconds``, at random, so that devices first seen together are not
all read again in the same instant, and never for longer than the bound."""

from __future__ import annotations

from typing import Any

from yahtzee.devices.service import DeviceService
from yahtzee.devices.settings import DeviceSettings
from yahtzee.storage import run_coroutine


class _Store:
    """The devices table of one device, counting its reads."""

    def __init__(self) -> None:
        self.reads = 0

    async def lookup(self, device_id: str) -> tuple[str, float] | None:
        self.reads += 1
        return ("player-of-" + device_id, 10**9)  # (seen recently: no touch)


class _Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _service(jitter: float) -> tuple[DeviceService, _Store, _Clock]:
    store, clock = _Store(), _Clock()
    limits = DeviceSettings(device_cache_seconds=2.0)
    none: Any = None
    service = DeviceService(store, none, limits, none, none, clock, jitter=lambda: jitter)  # type: ignore[arg-type]
    return service, store, clock


def _reads_at(jitter: float, seconds: float) -> int:
    """How many reads of the table: one, then again ``seconds`` later."""
    service, store, clock = _service(jitter)

    async def main() -> None:
        assert await service.player_of("d1") == "player-of-d1"
        clock.now += seconds
        assert await service.player_of("d1") == "player-of-d1"

    run_coroutine(main())
    return store.reads


def test_s5_a_device_is_believed_between_half_and_all_of_the_cache_time() -> None:
    assert _reads_at(0.0, 1.99) == 1  # the whole 2 s
    assert _reads_at(0.0, 2.0) == 2
    assert _reads_at(1.0, 0.99) == 1  # half of it
    assert _reads_at(1.0, 1.0) == 2
    assert _reads_at(0.5, 1.49) == 1
    assert _reads_at(0.5, 1.5) == 2
