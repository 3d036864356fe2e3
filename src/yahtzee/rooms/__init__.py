"""好友房间 (O1-O9): a table game played from several browsers, live.

The package owns the feature whole: ``store.py`` its tables (rooms, seats, the room's event
log), ``service.py`` its rules (seats, start, turn deadlines and 托管, reactions), ``stream.py``
the live event streams (in memory, and across processes through PostgreSQL's
LISTEN/NOTIFY), ``routes.py`` ``/api/rooms`` with its bodies and output models,
``fastpath.py`` the streams' direct route, ``errors.py`` its refusals and their HTTP answers.
The app gets it all through :data:`FEATURE` (:mod:`yahtzee.server.feature`).
"""

from __future__ import annotations

from typing import Any

from yahtzee.rooms import pace, race
from yahtzee.rooms import service as rooms
from yahtzee.rooms.errors import api_error
from yahtzee.rooms.fastpath import RoomStreamPath
from yahtzee.rooms.notices import ReminderNotices
from yahtzee.rooms.routes import RoomsConfigOut, router
from yahtzee.rooms.service import RoomService
from yahtzee.rooms.settings import RoomSettings
from yahtzee.rooms.store import MIGRATIONS, NOTIFY_CHANNEL, RoomsData, RoomStore
from yahtzee.server.feature import Feature, Parts, Platform
from yahtzee.server.pruning import Pruning


def config() -> dict[str, Any]:
    """好友房间's fixed reactions, paces and turn times (O5, O6, W1): ``rooms`` of
    ``/api/config``."""
    return {
        "reactions": [{"id": k, "name_key": v} for k, v in rooms.REACTIONS.items()],
        "paces": [{"id": pace.LIVE, "seconds": None}]
        + [{"id": k, "seconds": v} for k, v in pace.WAITING.items()],
        "idle_days": pace.IDLE_DAYS,
        "turn_seconds": {
            "min": pace.MIN_TURN_SECONDS,
            "max": pace.MAX_TURN_SECONDS,
            "default": pace.DEFAULT_TURN_SECONDS,
        },
        "countdown_seconds": rooms.COUNTDOWN_SECONDS,
        "away_grace_seconds": rooms.AWAY_GRACE,
        "race_days": list(race.RACE_DAYS),
    }


def build(platform: Platform) -> Parts:
    """The rooms' service on the features' tables; its streams fan out in memory, and
    across processes through NOTIFY, heard on the storage's LISTEN connection
    (PostgreSQL)."""
    limits = platform.settings.section(RoomSettings)
    guard = platform.guard
    service = RoomService(
        RoomStore(platform.db, platform.secret),
        platform.service,
        platform.storage,
        limits,
        guard,
        platform.clock,
        processes=lambda: guard.actions.processes,
        notices=ReminderNotices(platform.reminders),
        secret=platform.secret,
        cpu=platform.cpu,
    )
    platform.storage.listen(NOTIFY_CHANNEL, service.hub.notified, service.hub.resync_soon)
    return Parts(
        state={"rooms": service},
        tasks=(service.run_sweeper, lambda: service.hub.run_keepalive()),
        middleware=((RoomStreamPath, {"rooms": service}),),
        played=service,
        kinds={rooms.ROOM: service.kind_hooks(), race.RACE: service.race.kind_hooks()},
        # (a merge keeps O2's one seat a browser, --max-open-rooms and
        # --max-waiting-rooms, F27)
        player_data=(
            RoomsData(
                platform.clock,
                service.rooms_changed,
                limits.open_rooms,
                limits.waiting_rooms,
            ),
        ),
        players_changed=(service.forget_holders,),
        # F23: a device removed, signed out or deleted loses its open streams at once.
        revoked=(service.hub.revoke,),
        # F14: the events of rooms over go after --prune-room-events-after-days.
        prunings=(
            Pruning(
                "room events",
                limits.prune_events_after_days,
                service.store.prune_events,
            ),
        ),
    )


#: 好友房间 as the app factory sees it.
FEATURE = Feature(
    name="rooms",
    routers=(router,),
    errors=api_error,
    build=build,
    spa_paths=(
        "/rooms/{game_id}",
        "/races/{game_id}",
    ),  # a room's id (or new), the one segment of every page path
    config=config,
    config_model=RoomsConfigOut,
    settings=RoomSettings,
    migrations=MIGRATIONS,
    long_lived=(r"/api/rooms/[0-9a-f]{16}/events",),  # a room's event stream lasts a game
    kinds=(rooms.RULES, race.RULES),
)
