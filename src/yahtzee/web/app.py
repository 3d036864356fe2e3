"""The application factory: the platform (:mod:`yahtzee.server`) and the features.

The features are :data:`FEATURES`, each a package's :class:`~yahtzee.server.feature.Feature`;
the factory loops over them and names none of them elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import mimetypes
import random
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response

from yahtzee import __version__, daily, devices, practice, push, rooms
from yahtzee.dice import DiceSource, SeededDice, SystemDice
from yahtzee.i18n import Lang, languages
from yahtzee.review import jobs
from yahtzee.server.admission import Admission
from yahtzee.server.assets import StaticAssets
from yahtzee.server.config import KindNames, Sections, with_config
from yahtzee.server.cpu import CpuPool
from yahtzee.server.docs import DOCS_CSS, render_docs
from yahtzee.server.errors import install_error_handlers
from yahtzee.server.fastpath import ActionFastPath
from yahtzee.server.feature import AllPlayedElsewhere, Feature, Platform
from yahtzee.server.identity import (
    SECRET_BYTES,
    DeviceSigner,
    PlayerIds,
    PlayerSigner,
    SecretError,
    check_secret,
    default_secret_path,
    load_secret,
)
from yahtzee.server.kinds import PLATFORM_KINDS, KindRegistry, KindRules, apart_sections, kind_names
from yahtzee.server.language import (
    PageLanguage,
    page_manifests,
    page_modules,
    page_rules,
    page_variants,
)
from yahtzee.server.limits import PROCESS_TTL_BEATS, Guard, ProcessRegistration
from yahtzee.server.middleware import ServerMiddleware
from yahtzee.server.protocol import open_file_limit, socket_budget
from yahtzee.server.pruning import prune_features, prune_now_and_daily, unplayed_games
from yahtzee.server.review_views import stats_out
from yahtzee.server.reviews import ReviewService
from yahtzee.server.routers import (
    advice,
    config,
    games,
    health,
    language,
    records,
    review,
    stats,
    tutorial,
)
from yahtzee.server.routers._common import costly_routes
from yahtzee.server.service import GameService
from yahtzee.server.settings import STATIC_DIR, from_env, settings_class
from yahtzee.server.views import config_out
from yahtzee.storage import invites, is_postgres_url, open_storage, player_settings, run_coroutine
from yahtzee.storage.player_data import GamesData
from yahtzee.storage.player_settings import PlayerSettings, PlayerSettingsData
from yahtzee.storage.schema import Migrations
from yahtzee.turn import Player

log = logging.getLogger("yahtzee.server")

#: The features, in the order their routers are included and their parts opened. A new
#: feature is one more entry (docs/architecture.md, "Adding a feature").
FEATURES: tuple[Feature, ...] = (
    practice.FEATURE,
    daily.FEATURE,
    rooms.FEATURE,
    devices.FEATURE,
    push.FEATURE,
)

if TYPE_CHECKING:
    from yahtzee.server.settings import Settings as Settings
else:
    #: The app's settings: the platform's fields and sections, then each feature's section
    #: (its flags, variables, worker hand-off and rows of docs/deployment.md).
    Settings = settings_class(tuple(f.settings for f in FEATURES if f.settings is not None))

# The page is a single-page app: these paths all load index.html (lobby/game/rules views),
# and so do the features' (each feature's ``spa_paths``).
SPA_PATHS = (
    "/",
    "/lobby",
    "/game",
    "/rules",
    "/stats",
    "/review/{game_id}",
    "/table",
    "/table/new",
    *(path for feature in FEATURES for path in feature.spa_paths),
)

#: The tables' owners beside the games' (whose the storage knows): the invite tokens, the
#: players' settings, then each feature's, migrated in this order when the storage opens
#: (storage/schema.py).
SCHEMA: tuple[Migrations, ...] = (
    invites.MIGRATIONS,
    player_settings.MIGRATIONS,
    *(feature.migrations for feature in FEATURES if feature.migrations is not None),
)

#: The features' sections of the page's configuration (``/api/config``), and their models.
CONFIG_SECTIONS: Sections = tuple(
    (feature.name, feature.config) for feature in FEATURES if feature.config is not None
)
CONFIG_OUT = config_out({f.name: f.config_model for f in FEATURES if f.config_model is not None})

#: Every kind of game the app knows, with its rules (K2): the platform's, then each
#: feature's; their names for the page, and 统计's sections of a kind's own.
KINDS: tuple[KindRules, ...] = (*PLATFORM_KINDS, *(k for f in FEATURES for k in f.kinds))
CONFIG_KINDS: KindNames = kind_names(KINDS)
STATS_OUT = stats_out(apart_sections(KINDS))


def static_assets(
    static_dir: Path, langs: tuple[Lang, ...], choose: PageLanguage | None = None
) -> StaticAssets:
    """The page and its files as the app serves them (scripts/precompress.py writes the
    same): the page in each of ``langs`` with the configuration embedded, the features'
    sections and the kinds' names included (server/config.py, server/language.py), the
    catalogs' modules, the web app manifest and the rules view's body in each language."""
    return StaticAssets(
        static_dir,
        SPA_PATHS,
        page_variants(lambda page: with_config(page, CONFIG_SECTIONS, langs, CONFIG_KINDS), langs),
        extra_files={
            **page_modules(langs),
            **page_manifests(static_dir / "manifest.webmanifest", langs),
            **page_rules(static_dir / "rules.html", langs),
        },
        choose_page=choose,
    )


# ES modules must be served as JavaScript or the browser refuses them (nosniff is on).
for _type, _ext in (
    ("text/javascript", ".js"),
    ("text/javascript", ".mjs"),
    ("text/css", ".css"),
    ("image/svg+xml", ".svg"),
    ("font/woff2", ".woff2"),
    ("application/manifest+json", ".webmanifest"),
):
    mimetypes.add_type(_type, _ext)


@dataclass(frozen=True, kw_only=True)
class Wiring:
    """The parts of the app that tests put in place of the production ones.

    Not configuration: no flag or environment variable reaches them (production leaves
    them all at their defaults). ``dice_seed`` and ``dice`` replace the operating system's
    CSPRNG (:class:`~yahtzee.dice.SystemDice`) with seeded or scripted dice; ``players``
    replaces :func:`yahtzee.players.get_player`; ``clock`` is the rate limits' wall clock.
    """

    dice_seed: int | None = None
    dice: DiceSource | None = None
    players: Callable[[str], Player] | None = None
    clock: Callable[[], float] = time.time
    static_dir: Path = STATIC_DIR
    synchronous: str = "FULL"  # F6: an acknowledged action survives a machine crash
    max_body_bytes: int = 64 * 1024
    # The CPU pool's workers: processes in production, threads in tests that want its
    # jobs in this process (server/cpu.py).
    cpu_processes: bool = True


def _dice(wiring: Wiring) -> DiceSource:
    if wiring.dice is not None:
        return wiring.dice
    if wiring.dice_seed is not None:
        return SeededDice(wiring.dice_seed)
    return SystemDice()


def _players(wiring: Wiring) -> Callable[[str], Player]:
    if wiring.players is not None:
        return wiring.players
    seed = wiring.dice_seed

    def make(name: str) -> Player:
        from yahtzee.players import get_player

        # Seeded only in tests; production players take their own randomness.
        rng = random.Random(f"{seed}:{name}") if seed is not None else None
        return get_player(name, rng=rng)

    return make


def _secret(settings: Settings) -> bytes:
    """The cookie-signing secret (F4): given, or from its file (created if missing)."""
    if settings.secret is not None:
        return check_secret(settings.secret.get_secret_value())
    if settings.secret_file is None and is_postgres_url(settings.db):
        # Every process, on every machine, must sign with the same secret: there is no
        # shared directory to keep one in, so it comes from the configuration.
        raise SecretError(
            "with a PostgreSQL database every server process needs the same cookie secret: "
            "set YAHTZEE_SECRET or --secret-file (the same for all of them)"
        )
    path = settings.secret_file or default_secret_path(settings.db)
    if path is None:  # an in-memory database: ids cannot outlive the process anyway
        return secrets.token_urlsafe(SECRET_BYTES).encode()
    return load_secret(path)


#: The garbage collector's thresholds while serving (process-wide). A server holding
#: thousands of event streams keeps ~100 container objects alive per stream (coroutines,
#: frames, futures) beside its caches: at Python's default (700 objects), whatever a
#: request has alive at that moment is promoted on every few requests, and about every
#: ten seconds the oldest generation is scanned whole, which stopped the event loop for
#: 50-120 ms at 375 room actions a second (every click then waiting behind it). Collecting
#: the youngest generation after 10,000 objects instead leaves nearly every request's
#: objects freed by their counts first, so little is promoted and the full scan comes
#: minutes apart (``benchmarks/rooms_bench.py``; docs/benchmarks.md, issue 31).
GC_THRESHOLDS = (10_000, 10, 10)


def create_app_from_env() -> FastAPI:
    """The app of ``yahtzee serve --workers N``: each worker process builds its own, from
    the settings the parent put in the environment (:meth:`Settings.to_env`)."""
    from yahtzee.server.protocol import install_log_limits

    install_log_limits()
    return create_app(from_env(Settings))


def create_app(settings: Settings | None = None, wiring: Wiring | None = None) -> FastAPI:
    """Build the ASGI app: API routers, static front end, docs, middleware, error mapping.

    ``settings`` default to the environment's (:class:`Settings`); ``wiring`` is for tests.
    An SQLite database is opened (and migrated) here; a PostgreSQL one connects and
    migrates in the lifespan handler, which also loads the computer players, and so the
    solver table, once at startup, never per request.
    """
    settings = settings or Settings()
    wiring = wiring or Wiring()
    static_dir = Path(wiring.static_dir)
    index = static_dir / "index.html"
    if not index.is_file():  # a broken installation: say so now, not on the first visit
        raise FileNotFoundError(f"the browser game is missing: {index} does not exist")
    storage = open_storage(settings.db, synchronous=wiring.synchronous, schema=SCHEMA)
    try:
        secret = _secret(settings)
        signer = PlayerSigner(secret)
    except BaseException:
        run_coroutine(storage.close())  # (not yet serving: no event loop of ours runs)
        raise
    # K2: what each kind of game is beyond its mode's rules; the features' hooks below.
    kinds = KindRegistry(KINDS)
    service = GameService(storage, _dice(wiring), _players(wiring), kinds=kinds)
    # Meters, reviews, stats, advice and practice grading run here, never on the event
    # loop nor in the threads of the writes (issue 22).
    cpu = CpuPool(settings.cpu_workers, settings.cpu_queue, processes=wiring.cpu_processes)
    # The tables of invites and of the features, on the games' connections (A3).
    features = storage.features()
    guard = Guard(settings.limits, storage, wiring.clock)
    platform = Platform(
        settings=settings,
        service=service,
        storage=storage,
        db=features,
        secret=secret,
        cpu=cpu,
        guard=guard,
        clock=wiring.clock,
        dice_seed=wiring.dice_seed,
    )
    parts = [feature.build(platform) for feature in FEATURES]
    # K2: the hooks of each kind of game a feature makes (its dice, seats, what follows).
    for part in parts:
        for kind, hooks in part.kinds.items():
            kinds.hook(kind, hooks)
    # 我的设备 (I1-I4): what each part keeps about a player, the games' first, for the
    # devices feature's links, exports and deletions; and the devices table, which says
    # which player a request's cookie names.
    platform.players.data.extend(
        [GamesData(), PlayerSettingsData(), *(d for p in parts for d in p.player_data)]
    )
    platform.players.changed.extend(hook for p in parts for hook in p.players_changed)
    books = [p.identity for p in parts if p.identity is not None]
    if len(books) != 1:
        raise RuntimeError(f"exactly one feature must give the identity, {len(books)} do")
    players = PlayerIds(signer, books[0], DeviceSigner(secret), guard.new_player)
    platform.players.identity = books[0]
    # W4: the platform's reminders, delivered by the feature that gives them (if any).
    for part in parts:
        if part.reminders is not None:
            platform.reminders.provide(part.reminders)
    # F23: no game is written under a deleted player's id; what a feature holds open for
    # a device that ended (a room's stream) ends on every process.
    service.owner_check = books[0].owner_claim
    for part in parts:
        for hook in part.revoked:
            platform.revocations.subscribe(hook)
    platform.revocations.listen_on(storage)  # (the other processes', PostgreSQL)
    registration = ProcessRegistration(
        storage,
        guard,
        clock=wiring.clock,
        every=settings.heartbeat_seconds,
        ttl=PROCESS_TTL_BEATS * settings.heartbeat_seconds,
    )

    # F5, F14: what a cookie or an address creates and nobody uses, each by its age.
    prunings = (
        unplayed_games(storage, settings.limits.prune_after_days),
        *(pruning for part in parts for pruning in part.prunings),
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # The CPU worker starts (and loads the solver table) while this process loads its
        # own; serving waits for both.
        warming = asyncio.ensure_future(cpu.warm_up(jobs.warm_up))
        await storage.open()  # (every table migrated: the games', SCHEMA's)
        for part in parts:
            for open_ in part.open:
                await open_()
        try:
            service.warm_up()
        except ImportError as exc:  # the solver package is missing: only solo play works
            log.warning("computer players unavailable: %s", exc)
        for part in parts:
            for warm_up in part.warm_up:
                warm_up()
        # Everything loaded so far (modules, the solver table's objects) lives for the
        # whole process: keep it out of the garbage collector's scans.
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        # F5, F14: what nobody uses goes on start-up (before serving), then daily (a
        # failure, e.g. a read-only disk, is logged: it must not keep the games from being
        # read).
        await prune_features(prunings, wiring.clock())
        pruner = asyncio.create_task(prune_now_and_daily(prunings, first=False, clock=wiring.clock))
        try:
            await warming
        except Exception as exc:  # (the jobs start a worker again when first asked)
            log.warning("starting the CPU worker failed: %s", exc)
        # F5: the share of the action limit needs the count of live processes first.
        await registration.beat()
        heartbeat = asyncio.create_task(registration.run())
        tasks = [pruner, heartbeat]
        tasks += [asyncio.create_task(run()) for part in parts for run in part.tasks]
        yield
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await registration.leave()
        for part in parts:
            for close in part.close:
                await close()
        cpu.shutdown()
        await storage.close()

    app = FastAPI(
        title="Yacht Dice API",
        version=__version__,
        description="The JSON API of Yacht Dice (a Yahtzee-style game). Errors are "
        '{"error": {"code", "message"}}; see docs/api.md for the contract.',
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.prunings = prunings
    app.state.settings = settings
    app.state.guard = guard
    app.state.cpu = cpu
    app.state.reviews = ReviewService(storage, may_see=service.may_see, kinds=kinds)
    platform.players.changed.append(app.state.reviews.forget_reviews)
    app.state.config_sections = CONFIG_SECTIONS
    app.state.player_settings = PlayerSettings(features, wiring.clock)
    app.state.config_kinds = CONFIG_KINDS
    app.state.reminders = platform.reminders
    app.state.played = AllPlayedElsewhere(tuple(p.played for p in parts if p.played is not None))
    for part in parts:
        for name, value in part.state.items():
            setattr(app.state, name, value)
    install_error_handlers(app, [feature.errors for feature in FEATURES])
    for module in (
        games,
        review,
        records,
        advice,
        health,
        tutorial,
        language,
    ):
        app.include_router(module.router)
    app.include_router(stats.router_for(STATS_OUT))
    app.include_router(config.router_for(CONFIG_OUT))
    for feature in FEATURES:
        for router in feature.routers:
            app.include_router(router)
    # Added first, so they run inside ServerMiddleware (cookie, body limit, headers).
    app.add_middleware(ActionFastPath, service=service, guard=guard)
    for part in parts:
        for middleware, options in part.middleware:
            app.add_middleware(middleware, **options)
    # S4, F18, F19: inside ServerMiddleware (its refusal has every header), before any
    # other work; the costly requests are the routes (above) that declare a cost.
    budget = socket_budget(settings.connections.max_connections, open_file_limit())
    connections = budget.max_connections
    app.add_middleware(
        Admission,
        max_in_flight=settings.max_in_flight,
        wait=settings.admission_wait,
        long_lived=[path for feature in FEATURES for path in feature.long_lived],
        max_long_lived=max(1, int(connections * settings.stream_share)),
        costly=costly_routes(app.routes),
        max_costly=settings.max_costly_in_flight,
    )
    app.add_middleware(ServerMiddleware, players=players, max_body_bytes=wiring.max_body_bytes)

    docs_html: list[str] = []

    @app.get("/docs", include_in_schema=False)
    async def docs_page() -> HTMLResponse:
        if not docs_html:
            docs_html.append(render_docs(app.openapi()))
        return HTMLResponse(docs_html[0])

    @app.get("/docs/style.css", include_in_schema=False)
    async def docs_css() -> Response:
        return Response(DOCS_CSS, media_type="text/css")

    # The page (at each of SPA_PATHS) and its files, read and gzip-compressed once, under
    # content-hashed URLs cached for a year (P6); 404 JSON for anything missing. The page
    # carries the game's names, limits and defaults (server/config.py), and is made once per
    # language (G3, server/language.py), the catalogs' modules served with its files.
    langs = languages(pseudo=settings.pseudo_language)
    chooser = PageLanguage(app.state.player_settings, langs)
    app.mount("/", static_assets(static_dir, langs, chooser), name="static")
    return app
