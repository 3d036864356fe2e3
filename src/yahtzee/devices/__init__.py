"""我的设备 (I1-I4): one player on several browsers, still without an account.

The package owns the feature whole: ``store.py`` its tables (devices, link codes, recovery
codes) and the one transaction of a link, a recovery or a deletion; ``service.py`` which
player a device is (the identity the server's middleware asks, cached per process), the
codes and their limits; ``routes.py`` ``/api/devices`` and ``/api/me``; ``errors.py`` its
refusals and their HTTP answers. It reaches the other features' rows only through the
platform's :class:`~yahtzee.server.feature.Players` (each feature's
:class:`~yahtzee.storage.player_data.PlayerData`). See docs/devices.md.
"""

from __future__ import annotations

from yahtzee.devices.errors import api_error
from yahtzee.devices.routes import router
from yahtzee.devices.service import DeviceService
from yahtzee.devices.settings import DeviceSettings
from yahtzee.devices.store import MIGRATIONS, DeviceStore
from yahtzee.server.feature import Feature, Parts, Platform
from yahtzee.server.identity import DeviceSigner
from yahtzee.server.pruning import Pruning


def build(platform: Platform) -> Parts:
    """The devices service on the features' tables; it is the identity of every request,
    it announces the devices that end (the platform's revocations, F23) and carries out the
    requests whose wait is over (F20). The devices of browsers that never played go after
    ``--prune-devices-after-days`` (F27)."""
    settings = platform.settings.section(DeviceSettings)
    store = DeviceStore(platform.db, platform.secret)
    service = DeviceService(
        store,
        platform.guard,
        settings,
        DeviceSigner(platform.secret),
        platform.players,
        platform.clock,
        revocations=platform.revocations,
    )
    players = platform.players  # (every part's, filled once every feature is built)

    async def prune(before: float, batch: int) -> int:
        return await store.prune(before, batch, players.data)

    pruning = Pruning("devices that never played", settings.prune_devices_after_days, prune)
    return Parts(
        state={"devices": service},
        identity=service,
        tasks=(service.run_due,),
        prunings=(pruning,),
    )


#: 我的设备 as the app factory sees it.
FEATURE = Feature(
    name="devices",
    routers=(router,),
    errors=api_error,
    build=build,
    spa_paths=("/devices",),
    settings=DeviceSettings,
    migrations=MIGRATIONS,
)
