"""好友房间's settings (O9, F14): its limits and times, each a flag and a variable of the
server (:func:`yahtzee.server.settings.setting`); ``0`` switches a limit off."""

from __future__ import annotations

from dataclasses import dataclass

from yahtzee.server.settings import count, days, positive, setting


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """The rooms' limits (O9; :mod:`yahtzee.rooms.service`) and times."""

    open_rooms: int = setting(
        5,
        name="max_open_rooms",
        help="friends' rooms a player may have open (waiting or playing) at once, 0 = no limit",
        check=count,
    )
    rooms_per_hour_per_address: int = setting(
        30,
        name="max_rooms_per_hour_per_address",
        help="new rooms per client address and hour, 0 = no limit",
        check=count,
    )
    joins_per_minute: int = setting(
        20,
        name="max_room_joins_per_minute",
        help="room joins per player and minute, 0 = no limit",
        check=count,
    )
    # a room's watchers, every process together (its seat holders always get theirs, F9)
    streams_per_room: int = setting(
        50,
        name="max_room_streams",
        help="live event streams of one room's watchers (everyone but its seat holders: "
        "watch-link holders, and invite-link holders until they take a seat, F18), every "
        "process together (each keeps 1/n); its seat holders always get theirs; 0 = no limit",
        check=count,
    )
    # live room streams of one browser, in each process (behind the shipped nginx, a
    # browser's requests all go to one process: docs/deployment.md)
    streams_per_player: int = setting(
        6,
        name="max_streams_per_player",
        help="live room streams of one browser, in each process, 0 = no limit",
        check=count,
    )
    streams_per_address: int = setting(
        100,
        name="max_streams_per_address",
        help="live room streams of one client address group, every process together (each "
        "keeps 1/n), 0 = no limit",
        check=count,
    )
    stream_minutes: float = setting(
        30.0,
        name="room_stream_minutes",
        help="a room stream is ended after this many minutes (less up to a tenth, so that they "
        "do not all end together); the page asks again from its last event",
        metavar="MINUTES",
        check=positive,
    )
    start_timeout: float = setting(
        30.0,
        name="room_start_timeout",
        help="seconds after which a room's start that has not stored its game is undone (or "
        "finished, if it has) by the sweep (its process died, or the database did not answer)",
        metavar="SECONDS",
        check=positive,
    )
    link_renewals_per_hour: int = setting(
        10,
        name="max_room_link_renewals_per_hour",
        help="new invite and watch links of rooms per browser and hour (F7), 0 = no limit",
        check=count,
    )
    # each hold an event every stream of the room is sent (kept in memory, shared between
    # the processes as the actions are: yahtzee.server.limits)
    holds_per_second: int = setting(
        5,
        name="max_room_holds_per_second",
        help="dice holds a player shows a room a second (each an event to every stream; kept "
        "in memory, 1/n per process), 0 = no limit",
        check=count,
    )
    waiting_rooms: int = setting(
        20,
        name="max_waiting_rooms",
        help="waiting rooms (a pace of hours or days, or no clock, W2) a player may be in at "
        "once, not yet over; --max-open-rooms counts live rooms only; 0 = no limit",
        check=count,
    )
    nudges_per_hour: int = setting(
        30,
        name="max_room_nudges_per_hour",
        help="nudges (a message for a friend whose turn it is, W4) per player and hour; a seat "
        "is nudged at most once an hour anyway; 0 = no limit",
        check=count,
    )
    nudges_per_hour_per_address: int = setting(
        60,
        name="max_room_nudges_per_hour_per_address",
        help="nudges per client address group and hour, 0 = no limit",
        check=count,
    )
    prune_events_after_days: float = setting(
        30.0,
        name="prune_room_events_after_days",
        help="the events (holds, reactions, moves) of rooms over (finished or expired) this "
        "many days ago are deleted; the rooms, seats and games stay",
        metavar="DAYS",
        check=days,
    )
