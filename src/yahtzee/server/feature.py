"""The one interface between the app factory and a feature package (issue 26).

A feature (好友房间 :mod:`yahtzee.rooms`, 每日挑战 and 小组 :mod:`yahtzee.daily`, 练习
:mod:`yahtzee.practice`) owns its store, service, routes, output models and domain errors,
and hands them to the app factory (:func:`yahtzee.web.app.create_app`) as one
:class:`Feature`, its package's ``FEATURE``. The factory loops over its list of features:
it includes their routers, consults their error mappings, serves their page paths, embeds
their part of the page's configuration, and builds each one (:attr:`Feature.build`) from
the :class:`Platform`, the process-wide parts every feature may use; what a built feature
runs (its background tasks, middleware, shutdown) is its :class:`Parts`; its tables'
migrations are its :attr:`Feature.migrations`.

This module belongs to the platform: it knows no feature, and no feature knows another
(import-linter's contracts in ``pyproject.toml``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from yahtzee.server.reminders import Reminders
from yahtzee.server.revocation import Revocations
from yahtzee.storage.base import RecentGame
from yahtzee.storage.player_data import PlayerData

if TYPE_CHECKING:
    from fastapi import APIRouter
    from pydantic import BaseModel

    from yahtzee.game import GameKind
    from yahtzee.server.cpu import CpuPool
    from yahtzee.server.errors import ErrorMapping
    from yahtzee.server.identity import DeviceBook
    from yahtzee.server.kinds import KindHooks, KindRules
    from yahtzee.server.limits import Guard
    from yahtzee.server.pruning import Pruning
    from yahtzee.server.reminders import ReminderSender
    from yahtzee.server.revocation import Revoked
    from yahtzee.server.service import GameService
    from yahtzee.server.settings import Settings
    from yahtzee.storage.base import Storage
    from yahtzee.storage.feature_db import FeatureDb
    from yahtzee.storage.schema import Migrations


@dataclass
class Players:
    """What every part of the program keeps about a player, gathered by the app factory
    once every feature is built (我的设备, I1, I4): ``data``, each part's
    :class:`~yahtzee.storage.player_data.PlayerData` (the games' first); ``changed``,
    what to call when players were merged or deleted (caches keyed by player drop them);
    ``identity``, which player a device is now (the devices table, a
    :class:`~yahtzee.server.identity.DeviceBook`: what is kept for a device, a reminder's
    subscription, asks it before acting for the device's player)."""

    data: list[PlayerData] = field(default_factory=list)
    changed: list[Callable[[], None]] = field(default_factory=list)
    identity: DeviceBook | None = None

    def notify(self) -> None:
        """Players were merged or deleted: every ``changed`` hook, in turn."""
        for hook in self.changed:
            hook()


@dataclass(frozen=True, kw_only=True)
class Platform:
    """What the app factory gives every feature it builds.

    ``db`` is the features' tables' connection (invite tokens, the rooms', the daily
    challenge's and the groups' tables); ``secret`` the server's secret (invite tokens and
    the day's dice derive from it); ``clock`` the wall clock of the limits (tests replace
    it); ``dice_seed`` the tests' seed, ``None`` in production; ``revocations`` the notice
    of devices that ended, heard by every process (F23; the identity's feature announces
    them, the others hear them through their :attr:`Parts.revoked`); ``reminders`` the one
    way to remind a player on their devices (W4: any feature asks; the feature that
    delivers them gives its :attr:`Parts.reminders`).
    """

    settings: Settings
    service: GameService
    storage: Storage
    db: FeatureDb
    secret: bytes
    cpu: CpuPool
    guard: Guard
    clock: Callable[[], float]
    dice_seed: int | None = None
    players: Players = field(default_factory=Players)
    revocations: Revocations = field(default_factory=Revocations)
    reminders: Reminders = field(default_factory=Reminders)


@dataclass(frozen=True, slots=True)
class PlayedGames:
    """Finished games a browser played in that belong to something else (a room's game
    belongs to the room, O7): the last few, newest first, each with the name it played
    under, and how many there are in all. The lobby's recent games and 统计 count them."""

    recent: tuple[tuple[RecentGame, str], ...]
    total: int


class PlayedElsewhere(Protocol):
    """A feature whose games a browser plays without owning them (:class:`PlayedGames`)."""

    async def finished_games_of(self, player_id: str, limit: int) -> PlayedGames:
        """The finished games of the last ``limit`` of them this browser played in."""
        ...


@dataclass(frozen=True)
class AllPlayedElsewhere:
    """Every feature's :class:`PlayedElsewhere` as one (what the records and 统计 read)."""

    sources: tuple[PlayedElsewhere, ...]

    async def finished_games_of(self, player_id: str, limit: int) -> PlayedGames:
        """The sources' games, newest first (one source's as it gives them)."""
        if len(self.sources) == 1:
            return await self.sources[0].finished_games_of(player_id, limit)
        recent: list[tuple[RecentGame, str]] = []
        total = 0
        for source in self.sources:
            games = await source.finished_games_of(player_id, limit)
            recent.extend(games.recent)
            total += games.total
        recent.sort(key=lambda played: played[0].finished_at, reverse=True)
        return PlayedGames(tuple(recent[:limit]), total)


@dataclass(frozen=True, kw_only=True)
class Parts:
    """A built feature: what the app holds and runs for it.

    ``state`` goes on ``app.state`` (its routes' dependencies read it there). In the
    lifespan, ``open`` runs before serving (listeners, say), ``warm_up`` after the
    computer players are loaded, ``tasks`` are started once serving begins and cancelled
    at shutdown, then ``close`` runs before the shared connections close. ``middleware``
    is added inside the server's own middleware (cookie, body limit, headers), each as
    ``(class, keyword arguments)``. ``played`` gives the finished games of this feature a
    browser played in without owning them (the records and 统计 count them). ``kinds``
    are the hooks of the kinds of game the feature declared (:attr:`Feature.kinds`) that
    need its built services (K2: their dice, who holds their seats, what follows their
    actions), which the app registers with the game service.
    ``player_data`` is what the feature keeps about a player (exported, merged and
    deleted by 我的设备, I1, I4), ``players_changed`` its caches to drop when players were
    merged or deleted, and ``identity`` the devices table that says which player a cookie
    names (one feature gives it: :mod:`yahtzee.devices`).
    ``prunings`` are what it deletes by age (F14), run with the platform's at start-up and
    daily (:mod:`yahtzee.server.pruning`). ``revoked`` are called, on every process, with
    each notice of devices that ended (:mod:`yahtzee.server.revocation`, F23: what they
    hold open ends). ``reminders`` delivers the platform's reminders (W4,
    :mod:`yahtzee.server.reminders`; one feature gives it).
    """

    state: Mapping[str, object] = field(default_factory=dict)
    open: Sequence[Callable[[], Awaitable[None]]] = ()
    warm_up: Sequence[Callable[[], None]] = ()
    tasks: Sequence[Callable[[], Coroutine[Any, Any, None]]] = ()
    close: Sequence[Callable[[], Awaitable[None]]] = ()
    middleware: Sequence[tuple[Any, Mapping[str, Any]]] = ()
    played: PlayedElsewhere | None = None
    kinds: Mapping[GameKind, KindHooks] = field(default_factory=dict)
    player_data: Sequence[PlayerData] = ()
    players_changed: Sequence[Callable[[], None]] = ()
    identity: DeviceBook | None = None
    prunings: Sequence[Pruning] = ()
    revoked: Sequence[Callable[[Revoked], None]] = ()
    reminders: ReminderSender | None = None


@dataclass(frozen=True, kw_only=True)
class Feature:
    """A feature package as the app factory sees it (the package's ``FEATURE``).

    ``name`` names it (and its section of the page's configuration, ``config``, when it
    has one, whose shape in ``/api/config``'s schema is ``config_model``); ``routers`` are
    its API routes; ``errors`` maps its domain errors to HTTP
    (``None`` for an error that is not its own); ``spa_paths`` are the page addresses
    answered with ``index.html``; ``build`` makes its services from the platform;
    ``migrations`` are its tables' (:mod:`yahtzee.storage.schema`), which the app applies
    with the games' when it opens the database, before any feature is built;
    ``settings`` is its settings section (a dataclass of
    :func:`~yahtzee.server.settings.setting` fields: each one a flag, a variable and a row
    of docs/deployment.md, which the app's settings class gathers), read back with
    ``platform.settings.section(...)``; ``long_lived`` are regular expressions of its
    request paths that last as long as their client wants (an event stream), which
    admission control bounds apart from the other requests: a share of the connections
    (:mod:`yahtzee.server.admission`, F18); ``kinds`` are the kinds of game it makes,
    each with its rules (:class:`~yahtzee.server.kinds.KindRules`: its mode, name, what
    it refuses, where 统计 counts it), which the platform consults instead of knowing the
    feature.
    """

    name: str
    routers: Sequence[APIRouter]
    errors: ErrorMapping
    build: Callable[[Platform], Parts]
    spa_paths: Sequence[str] = ()
    config: Callable[[], dict[str, Any]] | None = None
    config_model: type[BaseModel] | None = None
    settings: type | None = None
    migrations: Migrations | None = None
    long_lived: Sequence[str] = ()
    kinds: Sequence[KindRules] = ()
