"""The server's configuration: one class, read from flags, the environment and defaults.

:class:`Settings` is the one definition of every option of ``yahtzee serve``: its fields
are the command-line flags (``--max-actions-per-second``, help from the descriptions, see
:func:`add_flags`), the environment variables (``YAHTZEE_MAX_ACTIONS_PER_SECOND``; a flag
wins over its variable, a variable over the default) and the hand-off to the worker
processes of ``--workers N`` (:meth:`Settings.to_env`: new interpreters read the same
variables back).

This module needs pydantic only: the command line imports it without the web stack.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import platformdirs
from pydantic import AfterValidator, BeforeValidator, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, CliSettingsSource, SettingsConfigDict

from yahtzee.storage.url import is_postgres_url

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
ENV_PREFIX = "YAHTZEE_"


def default_db_path() -> Path | str:
    """``$YAHTZEE_DB`` if set (a path, or a ``postgresql://`` URL kept as text), else
    ``yahtzee.db`` in the user's data directory."""
    env = os.environ.get(f"{ENV_PREFIX}DB")
    if env:
        return _database(env)
    return Path(platformdirs.user_data_dir("yahtzee", appauthor=False)) / "yahtzee.db"


def _database(value: object) -> Path | str:
    """A PostgreSQL URL stays text, anything else is a file path (so a URL is never taken
    for a file name, S1); nothing given means the default."""
    if value is None or value == "":
        return default_db_path()
    if isinstance(value, Path):
        return value
    if isinstance(value, str) and is_postgres_url(value):
        return value
    return Path(str(value))


def _count(value: int) -> int:
    if value < 0:
        raise ValueError(f"must be 0 (no limit) or more, got {value}")
    return value


def _days(value: float) -> float:
    if not value > 0:
        raise ValueError(f"must be more than 0 days, got {value:g}")
    return value


def _positive(value: float) -> float:
    if not value > 0:
        raise ValueError(f"must be more than 0, got {value:g}")
    return value


def _share_of_one(value: float) -> float:
    if not 0 < value <= 1:
        raise ValueError(f"must be more than 0 and at most 1, got {value:g}")
    return value


def _at_least_one(value: int) -> int:
    if value < 1:
        raise ValueError(f"must be at least 1, got {value}")
    return value


Count = Annotated[int, AfterValidator(_count)]


@dataclass(frozen=True, slots=True)
class Limits:
    """Every configurable limit (F5, F13, F14; K4: one vocabulary, each one a flag of
    :class:`Settings`, see :mod:`yahtzee.server.limits`); ``0`` switches a rate limit or a
    cap off."""

    new_games_per_minute: int = 30  # per player
    new_players_per_minute: int = 60  # per client address: new player ids issued
    actions_per_second: int = 20  # per player: every game action (roll, score, hint, ...)
    prune_after_days: float = 7.0  # games never rolled (abandoned or not) are deleted
    # per client address, whatever the number of its player ids: what bounds the growth of
    # the database per address (docs/deployment.md)
    new_games_per_minute_per_address: int = 60
    # per player (or client address without one): the units of CPU work a second the costly
    # reads may spend, each route declaring its cost (server/routers/_common.py, issue 22)
    work_per_second: int = 20
    # 小组 (D6, F14): new groups per player and per client address (what bounds the groups
    # an address can make however many player ids it has), joins per player, and what one
    # group and one browser may hold
    groups_per_hour: int = 10
    groups_per_hour_per_address: int = 20
    group_joins_per_hour: int = 30
    open_groups: int = 20  # per player: groups it created that are not closed
    group_members: int = 200  # per group
    # 练习 (F14): puzzles served per player and hour (each one a row of practice_servings)
    practice_servings_per_hour: int = 600
    practice_servings_per_hour_per_address: int = 6000
    # 好友房间 (F14): holds shown per player and second, each one an event every stream of
    # the room is sent (kept in memory, shared between the processes as the actions are)
    room_holds_per_second: int = 5
    # pruning ages (F14): groups closed (or never joined by anyone) this long ago are
    # deleted, and the events of rooms over this long ago
    prune_groups_after_days: float = 90.0
    prune_room_events_after_days: float = 30.0
    # F27: the devices of browsers that never played (each cookie-less read made one)
    prune_devices_after_days: float = 7.0
    # the public daily board (F13): a browser's entry is listed once it finished the
    # challenge on this many earlier days of the last ``board_history_days`` (0: everyone)
    board_min_days: int = 2
    board_history_days: int = 28


@dataclass(frozen=True, slots=True)
class Connections:
    """The bare app's socket limits (issue 22; behind nginx, ``deploy/``, nginx's own
    limits come first). See :mod:`yahtzee.server.protocol`."""

    # Open at once (fewer when the open-file limit is lower); past it a new one is 503.
    max_connections: int = 1000
    request_timeout: float = 10.0  # seconds for a request's head and body to arrive
    keep_alive_timeout: float = 5.0  # seconds an idle keep-alive connection stays open
    # Addresses whose X-Forwarded-For/-Proto are believed (a reverse proxy's, e.g.
    # "127.0.0.1"); None: nobody's, the connection's own address is the client's.
    forwarded_allow_ips: str | None = None


@dataclass(frozen=True, slots=True)
class RoomLimits:
    """O9's limits of 好友房间 (``0`` switches one off; :mod:`yahtzee.rooms.service`)."""

    open_rooms: int = 5  # per player: the rooms it opened that are not over
    rooms_per_hour_per_address: int = 30
    joins_per_minute: int = 20  # per player
    # a room's watchers, every process together (its seat holders always get theirs, F9)
    streams_per_room: int = 50
    # live room streams of one browser, in each process (behind the shipped nginx, a
    # browser's requests all go to one process: docs/deployment.md)
    streams_per_player: int = 6
    streams_per_address: int = 100  # of one client address, every process together
    stream_minutes: float = 30.0  # a stream is ended after this; the page reconnects
    start_timeout: float = 30.0  # seconds: a start claimed but not stored is undone (F10)
    link_renewals_per_hour: int = 10  # per player: new invite and watch links (F7)


@dataclass(frozen=True, slots=True)
class DeviceLimits:
    """我的设备's limits (I1, I2; ``0`` switches a rate off; docs/devices.md says why)."""

    link_code_minutes: float = 10.0  # a link code's life
    link_codes_per_hour: int = 10  # per player: new link codes
    code_tries_per_hour: int = 10  # per player and per address group: link/recovery codes
    # every process together, every address: the bound on guessing (docs/devices.md)
    link_tries_per_hour_service: int = 60
    recovery_tries_per_hour_service: int = 600
    device_cache_seconds: float = 2.0  # how long a process believes a device's player
    device_expiry_days: float = 180.0  # a device unused this long stops working


_DEFAULT_LIMITS = Limits()
_DEFAULT_CONNECTIONS = Connections()
_DEFAULT_ROOM_LIMITS = RoomLimits()
_DEFAULT_DEVICE_LIMITS = DeviceLimits()
# Settings field -> Limits field: the flags say "max", the limiter says what is counted.
_LIMIT_FIELDS = {
    "max_new_games_per_minute": "new_games_per_minute",
    "max_new_players_per_minute": "new_players_per_minute",
    "max_actions_per_second": "actions_per_second",
    "max_new_games_per_minute_per_address": "new_games_per_minute_per_address",
    "max_work_per_second": "work_per_second",
    "prune_after_days": "prune_after_days",
    "max_groups_per_hour": "groups_per_hour",
    "max_groups_per_hour_per_address": "groups_per_hour_per_address",
    "max_group_joins_per_hour": "group_joins_per_hour",
    "max_open_groups": "open_groups",
    "max_group_members": "group_members",
    "max_practice_servings_per_hour": "practice_servings_per_hour",
    "max_practice_servings_per_hour_per_address": "practice_servings_per_hour_per_address",
    "max_room_holds_per_second": "room_holds_per_second",
    "prune_groups_after_days": "prune_groups_after_days",
    "prune_room_events_after_days": "prune_room_events_after_days",
    "prune_devices_after_days": "prune_devices_after_days",
    "board_min_days": "board_min_days",
    "board_history_days": "board_history_days",
}
# Read from the environment only: a flag's value is visible to every user of the machine
# (ps), a secret's must not be.
_ENV_ONLY = frozenset({"secret"})
_METAVARS = {
    "host": "ADDRESS",
    "db": "PATH|URL",
    "workers": "N",
    "secret_file": "PATH",
    **{name: "N" for name in _LIMIT_FIELDS if name.startswith("max_")},
    "max_open_rooms": "N",
    "max_rooms_per_hour_per_address": "N",
    "max_room_joins_per_minute": "N",
    "max_room_streams": "N",
    "max_streams_per_player": "N",
    "max_streams_per_address": "N",
    "room_stream_minutes": "MINUTES",
    "room_start_timeout": "SECONDS",
    "max_room_link_renewals_per_hour": "N",
    "link_code_minutes": "MINUTES",
    "max_link_codes_per_hour": "N",
    "max_code_tries_per_hour": "N",
    "max_link_tries_per_hour_service": "N",
    "max_recovery_tries_per_hour_service": "N",
    "device_cache_seconds": "SECONDS",
    "pseudo_language": "true|false",
    "device_expiry_days": "DAYS",
    "prune_after_days": "DAYS",
    "prune_groups_after_days": "DAYS",
    "prune_room_events_after_days": "DAYS",
    "prune_devices_after_days": "DAYS",
    "board_min_days": "DAYS",
    "board_history_days": "DAYS",
    "heartbeat_seconds": "SECONDS",
    "cpu_workers": "N",
    "cpu_queue": "N",
    "max_in_flight": "N",
    "admission_wait": "SECONDS",
    "max_costly_in_flight": "N",
    "stream_share": "SHARE",
    "max_connections": "N",
    "request_timeout": "SECONDS",
    "keep_alive_timeout": "SECONDS",
    "forwarded_allow_ips": "ADDRESSES",
}
_CONNECTION_FIELDS = (
    "max_connections",
    "request_timeout",
    "keep_alive_timeout",
    "forwarded_allow_ips",
)


class SettingsError(ValueError):
    """A setting has a value that cannot be used; the message is one line naming the flag
    and its environment variable."""


class Settings(BaseSettings):
    """Everything ``yahtzee serve`` and :func:`yahtzee.web.create_app` are configured by.

    Each field is a flag (``--secret-file``), an environment variable (``YAHTZEE_SECRET_FILE``)
    and a value handed to the worker processes; the cookie secret is a variable only.
    ``limits=Limits(...)`` may be given instead of the limit fields (tests).
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,  # YAHTZEE_DB= means the default, as it always did
        frozen=True,
        extra="forbid",
        validate_default=True,
    )

    host: str = Field("127.0.0.1", description="address to listen on (0.0.0.0: every IPv4 one)")
    port: int = Field(8000, ge=0, le=65535, description="TCP port to listen on")
    db: Annotated[Path | str, BeforeValidator(_database)] = Field(
        default_factory=default_db_path,
        description="SQLite database file, or a PostgreSQL URL postgresql://user@host:port/dbname "
        "(default: yahtzee.db in the user's data directory)",
    )
    workers: Annotated[int, AfterValidator(_at_least_one)] = Field(
        1, description="server processes sharing the port and the database"
    )
    secret: SecretStr | None = Field(
        None,
        description="the cookie-signing secret (F4), 32+ characters; needed with PostgreSQL "
        "unless --secret-file is given",
    )
    secret_file: Path | None = Field(
        None,
        description="file holding the cookie-signing secret, created if missing "
        "(default: <db>.secret; YAHTZEE_SECRET overrides both)",
    )
    max_new_games_per_minute: Count = Field(
        _DEFAULT_LIMITS.new_games_per_minute, description="new games per player, 0 = no limit"
    )
    max_new_players_per_minute: Count = Field(
        _DEFAULT_LIMITS.new_players_per_minute,
        description="new player ids per client address, 0 = no limit",
    )
    max_actions_per_second: Count = Field(
        _DEFAULT_LIMITS.actions_per_second, description="game actions per player, 0 = no limit"
    )
    max_new_games_per_minute_per_address: Count = Field(
        _DEFAULT_LIMITS.new_games_per_minute_per_address,
        description="new games per client address, 0 = no limit",
    )
    prune_after_days: Annotated[float, AfterValidator(_days)] = Field(
        _DEFAULT_LIMITS.prune_after_days,
        description="delete games never rolled (abandoned or left in progress) after this "
        "many days",
    )
    max_groups_per_hour: Count = Field(
        _DEFAULT_LIMITS.groups_per_hour,
        description="new groups (小组) per player and hour, 0 = no limit",
    )
    max_groups_per_hour_per_address: Count = Field(
        _DEFAULT_LIMITS.groups_per_hour_per_address,
        description="new groups per client address and hour, whatever the player ids, 0 = no limit",
    )
    max_group_joins_per_hour: Count = Field(
        _DEFAULT_LIMITS.group_joins_per_hour,
        description="group joins per player and hour, 0 = no limit",
    )
    max_open_groups: Count = Field(
        _DEFAULT_LIMITS.open_groups,
        description="groups a player may have created and not closed, 0 = no limit",
    )
    max_group_members: Count = Field(
        _DEFAULT_LIMITS.group_members,
        description="members of one group, its creator included, 0 = no limit",
    )
    max_practice_servings_per_hour: Count = Field(
        _DEFAULT_LIMITS.practice_servings_per_hour,
        description="puzzles (练习) served per player and hour, 0 = no limit",
    )
    max_practice_servings_per_hour_per_address: Count = Field(
        _DEFAULT_LIMITS.practice_servings_per_hour_per_address,
        description="puzzles served per client address and hour, whatever the player ids, "
        "0 = no limit",
    )
    max_room_holds_per_second: Count = Field(
        _DEFAULT_LIMITS.room_holds_per_second,
        description="dice holds shown to a room (each one an event to every stream) per "
        "player and second, 0 = no limit",
    )
    prune_groups_after_days: Annotated[float, AfterValidator(_days)] = Field(
        _DEFAULT_LIMITS.prune_groups_after_days,
        description="delete groups closed, or never joined by anyone, this many days ago",
    )
    prune_room_events_after_days: Annotated[float, AfterValidator(_days)] = Field(
        _DEFAULT_LIMITS.prune_room_events_after_days,
        description="delete the events (holds, reactions, moves) of rooms over this many "
        "days ago (the rooms and their games stay)",
    )
    prune_devices_after_days: Annotated[float, AfterValidator(_days)] = Field(
        _DEFAULT_LIMITS.prune_devices_after_days,
        description="delete the devices of browsers that never played (nothing kept, no "
        "recovery code) and were not seen for this many days",
    )
    board_min_days: Count = Field(
        _DEFAULT_LIMITS.board_min_days,
        description="earlier days with a finished daily challenge a browser needs before the "
        "public board lists it (group boards list everyone), 0 = everyone",
    )
    board_history_days: Annotated[int, AfterValidator(_at_least_one)] = Field(
        _DEFAULT_LIMITS.board_history_days,
        description="how far back (days) the public board's history requirement looks",
    )
    heartbeat_seconds: Annotated[float, AfterValidator(_positive)] = Field(
        10.0,
        description="how often a process registers itself in the database (its share of "
        "the action limit, F5)",
    )
    max_work_per_second: Count = Field(
        _DEFAULT_LIMITS.work_per_second,
        description="units of costly reads a second per player (meter, review, stats, advice, "
        "practice, boards: each route's cost is in docs/api.md), 0 = no limit",
    )
    cpu_workers: Annotated[int, AfterValidator(_at_least_one)] = Field(
        1,
        description="worker processes of each server process's CPU pool (meters, reviews, "
        "stats, advice, practice grading; one leaves a core to the event loop and the writes)",
    )
    cpu_queue: Annotated[int, AfterValidator(_at_least_one)] = Field(
        64,
        description="CPU jobs that may wait for a worker; past it a costly read is 503 busy",
    )
    max_in_flight: Count = Field(
        64,
        description="cheap requests one process serves at once (costly reads, room streams "
        "and /api/health not counted) before it may refuse: past it, once the oldest has "
        "been served for --admission-wait, a request is answered 503 busy with Retry-After "
        "at once; 0 = no bound",
    )
    admission_wait: float = Field(
        0.5,
        gt=0,
        description="seconds the oldest request in flight has been served when the process "
        "counts as behind (with --max-in-flight reached: 503 busy)",
    )
    max_costly_in_flight: Count = Field(
        32,
        description="costly requests (the routes with a cost in the work budget: meters, "
        "reviews, stats, advice, export...) one process serves at once, shared fairly "
        "between client address groups and, in a group, between cookies; past a share, 503 "
        "busy (cheap requests are never refused for them); 0 = no bound",
    )
    stream_share: Annotated[float, AfterValidator(_share_of_one)] = Field(
        0.5,
        description="part of --max-connections that long-lived requests (room streams) may "
        "hold in one process; past it a new stream is 503 busy with Retry-After, and the "
        "other connections stay for the other requests",
    )
    max_connections: Annotated[int, AfterValidator(_at_least_one)] = Field(
        _DEFAULT_CONNECTIONS.max_connections,
        description="open connections at once (fewer if the open-file limit is lower); past "
        "it a new one is answered 503 busy and closed",
    )
    request_timeout: Annotated[float, AfterValidator(_positive)] = Field(
        _DEFAULT_CONNECTIONS.request_timeout,
        description="seconds for a request's head and body to arrive, else the connection "
        "is closed",
    )
    keep_alive_timeout: Annotated[float, AfterValidator(_positive)] = Field(
        _DEFAULT_CONNECTIONS.keep_alive_timeout,
        description="seconds an idle keep-alive connection stays open",
    )
    forwarded_allow_ips: str | None = Field(
        None,
        description="comma-separated addresses of reverse proxies whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed (deploy/ sets 127.0.0.1; default: nobody's)",
    )

    max_open_rooms: Count = Field(
        _DEFAULT_ROOM_LIMITS.open_rooms,
        description="rooms (好友房间) a player may have open at once, 0 = no limit",
    )
    max_rooms_per_hour_per_address: Count = Field(
        _DEFAULT_ROOM_LIMITS.rooms_per_hour_per_address,
        description="new rooms per client address and hour, 0 = no limit",
    )
    max_room_joins_per_minute: Count = Field(
        _DEFAULT_ROOM_LIMITS.joins_per_minute,
        description="room joins per player and minute, 0 = no limit",
    )
    max_room_streams: Count = Field(
        _DEFAULT_ROOM_LIMITS.streams_per_room,
        description="live event streams of one room's watchers, every process together (its "
        "seat holders always get theirs), 0 = no limit",
    )
    max_streams_per_player: Count = Field(
        _DEFAULT_ROOM_LIMITS.streams_per_player,
        description="live room streams of one browser in each process, 0 = no limit",
    )
    max_streams_per_address: Count = Field(
        _DEFAULT_ROOM_LIMITS.streams_per_address,
        description="live room streams of one client address, every process together, 0 = no limit",
    )
    room_stream_minutes: Annotated[float, AfterValidator(_positive)] = Field(
        _DEFAULT_ROOM_LIMITS.stream_minutes,
        description="a room's stream is ended after this many minutes (less up to a tenth, "
        "so that they do not all end together); the page reconnects and misses nothing",
    )
    room_start_timeout: Annotated[float, AfterValidator(_positive)] = Field(
        _DEFAULT_ROOM_LIMITS.start_timeout,
        description="seconds after which a room's start that has not stored its game is "
        "undone (its process died, or the database did not answer)",
    )
    max_room_link_renewals_per_hour: Count = Field(
        _DEFAULT_ROOM_LIMITS.link_renewals_per_hour,
        description="new invite and watch links of rooms per player and hour, 0 = no limit",
    )

    link_code_minutes: Annotated[float, AfterValidator(_positive)] = Field(
        _DEFAULT_DEVICE_LIMITS.link_code_minutes,
        description="minutes a link code of 我的设备 stays good (it is also used up once redeemed)",
    )
    max_link_codes_per_hour: Count = Field(
        _DEFAULT_DEVICE_LIMITS.link_codes_per_hour,
        description="new link codes per player and hour, 0 = no limit",
    )
    max_code_tries_per_hour: Count = Field(
        _DEFAULT_DEVICE_LIMITS.code_tries_per_hour,
        description="link or recovery codes typed per player and per client address group "
        "(an IPv6 /64, an IPv4 address) and hour (right or wrong), 0 = no limit",
    )
    max_link_tries_per_hour_service: Count = Field(
        _DEFAULT_DEVICE_LIMITS.link_tries_per_hour_service,
        description="link codes typed per hour on the whole service (every process, every "
        "address; right or wrong): the bound on guessing one, 0 = no limit",
    )
    max_recovery_tries_per_hour_service: Count = Field(
        _DEFAULT_DEVICE_LIMITS.recovery_tries_per_hour_service,
        description="recovery codes typed per hour on the whole service (every process, every "
        "address; right or wrong, as a way back or as proof), 0 = no limit",
    )
    device_cache_seconds: Annotated[float, AfterValidator(_positive)] = Field(
        _DEFAULT_DEVICE_LIMITS.device_cache_seconds,
        description="seconds a process keeps a device's player in memory: a device removed "
        "on another process is a stranger here at most this long after",
    )
    pseudo_language: bool = Field(
        False,
        description="also serve the pseudo-language en-XA (accented English 40 % longer, "
        "made from the English catalog): for the layout tests, never in production",
    )
    device_expiry_days: Annotated[float, AfterValidator(_positive)] = Field(
        _DEFAULT_DEVICE_LIMITS.device_expiry_days,
        description="days after which a device nobody used stops working (its browser is a "
        "stranger, told so; the player's other devices and recovery code still work)",
    )

    def __init__(self, *, limits: Limits | None = None, **values: Any) -> None:
        if limits is not None:
            values = {**{f: getattr(limits, name) for f, name in _LIMIT_FIELDS.items()}, **values}
        super().__init__(**values)

    @property
    def limits(self) -> Limits:
        """Every limit and pruning age, as the limiter, the services and the pruning take
        them (K4: one vocabulary)."""
        return Limits(**{name: getattr(self, f) for f, name in _LIMIT_FIELDS.items()})

    @property
    def connections(self) -> Connections:
        """The socket limits, as :mod:`yahtzee.server.protocol` takes them."""
        return Connections(**{name: getattr(self, name) for name in _CONNECTION_FIELDS})

    @property
    def room_limits(self) -> RoomLimits:
        """The rooms' limits (O9)."""
        return RoomLimits(
            open_rooms=self.max_open_rooms,
            rooms_per_hour_per_address=self.max_rooms_per_hour_per_address,
            joins_per_minute=self.max_room_joins_per_minute,
            streams_per_room=self.max_room_streams,
            streams_per_player=self.max_streams_per_player,
            streams_per_address=self.max_streams_per_address,
            stream_minutes=self.room_stream_minutes,
            start_timeout=self.room_start_timeout,
            link_renewals_per_hour=self.max_room_link_renewals_per_hour,
        )

    @property
    def device_limits(self) -> DeviceLimits:
        """我的设备's limits (I1, I2)."""
        return DeviceLimits(
            link_code_minutes=self.link_code_minutes,
            link_codes_per_hour=self.max_link_codes_per_hour,
            code_tries_per_hour=self.max_code_tries_per_hour,
            link_tries_per_hour_service=self.max_link_tries_per_hour_service,
            recovery_tries_per_hour_service=self.max_recovery_tries_per_hour_service,
            device_cache_seconds=self.device_cache_seconds,
            device_expiry_days=self.device_expiry_days,
        )

    def to_env(self) -> dict[str, str]:
        """The environment variables that give a new process these settings (the hand-off
        to ``--workers`` processes: each builds ``Settings()`` from them)."""
        env: dict[str, str] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, SecretStr):
                value = value.get_secret_value()
            env[f"{ENV_PREFIX}{name.upper()}"] = str(value)
        return env


def flag_name(field: str) -> str:
    """The command-line flag of a :class:`Settings` field."""
    return "--" + field.replace("_", "-")


def _one_line(exc: ValidationError) -> str:
    """A validation error as one line that names the flag and its environment variable."""
    parts = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else ""
        message = str(error["msg"]).removeprefix("Value error, ")
        if "got" not in message:
            message += f", got {error.get('input')!r}"
        if field in Settings.model_fields:
            where = f"{ENV_PREFIX}{field.upper()}"
            if field not in _ENV_ONLY:
                where = f"{flag_name(field)} ({where})"
            parts.append(f"{where}: {message}")
        else:
            parts.append(message)
    return "; ".join(parts)


def _add_flag(parser: Any, *names: str, **kwargs: Any) -> Any:
    """How a field becomes a flag: pydantic-settings' argument, with a readable metavar
    and without the "(default: null)" or "(default factory: …)" that a field whose default
    is none or computed would show (its description says what the default is)."""
    dest = kwargs.get("dest", "")
    if dest in _ENV_ONLY:
        return None
    if "metavar" in kwargs:
        kwargs["metavar"] = _METAVARS.get(dest, dest.upper())
    if isinstance(kwargs.get("help"), str):
        kwargs["help"] = re.sub(r" \((?:default: null|default factory: \w+)\)", "", kwargs["help"])
    return parser.add_argument(*names, **kwargs)


def add_flags(parser: argparse.ArgumentParser) -> CliSettingsSource[Settings]:
    """Add one flag per setting to ``parser``; pass what it parsed to :func:`from_flags`."""
    return CliSettingsSource(
        Settings,
        root_parser=parser,
        cli_kebab_case=True,
        cli_show_env_vars=True,
        add_argument_method=_add_flag,
    )


def from_flags(source: CliSettingsSource[Settings], args: argparse.Namespace) -> Settings:
    """The settings of the parsed flags over the environment over the defaults; a value that
    cannot be used raises :class:`SettingsError` (one line)."""
    values = {k: v for k, v in vars(args).items() if k in Settings.model_fields}
    try:
        return Settings(_cli_settings_source=source(parsed_args=argparse.Namespace(**values)))
    except ValidationError as exc:
        raise SettingsError(_one_line(exc)) from None


def from_env() -> Settings:
    """The settings given by the environment (a ``--workers`` process); :class:`SettingsError`
    if one cannot be used."""
    try:
        return Settings()
    except ValidationError as exc:
        raise SettingsError(_one_line(exc)) from None
