"""The narrow storage interface the server depends on (SQLite or PostgreSQL).

A backend stores, per game, a header row (owner, status, ``version``, and the result once
finished) and the game's append-only event log, from which the position is rebuilt by
replay (:func:`yahtzee.log.replay`). Writes are compare-and-set on ``version``:
the one mechanism that makes a double click or a second tab unable to act twice, whatever
the number of server processes.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from yahtzee.errors import GameNotFoundError as GameNotFoundError  # raised here too
from yahtzee.errors import StaleVersionError as StaleVersionError
from yahtzee.game import Game, GameKind, Mode, Result, SeatKind, Status
from yahtzee.log import Event
from yahtzee.players import Difficulty

if TYPE_CHECKING:
    from yahtzee.storage.feature_db import FeatureDb, Tx


class StorageError(Exception):
    """Base class of the storage layer's own errors."""


class ClaimRefusedError(Exception):
    """A new game's :class:`Claim` wrote no row: the game was not created (nothing of it
    written; the rate-limit tokens stay taken, F2). The feature that asked says why."""


class OwnerGoneError(Exception):
    """A new game's ``owner`` check (:class:`Claim`) found no row: its player was deleted
    meanwhile (我的设备, F23), so nothing of the game was written under its id."""


class StorageUnavailableError(StorageError):
    """The database cannot be used right now: disk full, read-only, I/O error (F6), or a
    PostgreSQL server that cannot be reached (a restart, S1).

    Nothing was written. Writes work again once the disk (or the server) does, without a
    restart of the app.
    """


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game's header as stored: everything the API shows except the log itself.

    ``version`` is the number of events in the log (the ``start`` event is version 1).
    ``kind`` is what the game is (K2). ``player_id`` is the owner: a browser, or for a
    feature's game played from several browsers an owner that no browser is, which the
    feature names (a room's game: its room, the one place that is stored; one unfinished
    game per owner holds for rooms too); nothing reads what a game is from it.
    ``seat_serial`` counts the changes of its seats made outside its log (a seat's name
    erased, I4; a seat holder merged into another player, I1): the position at a version
    is the same forever *at one serial*, so a cached position is used, and an append
    made, only at the serial it was read at (F24).
    """

    id: str
    player_id: str
    mode: Mode
    difficulty: Difficulty | None
    status: Status
    version: int
    created_at: str
    updated_at: str
    finished_at: str | None
    result: Result | None
    human_total: int | None
    computer_total: int | None
    new_record: bool | None
    kind: GameKind
    seat_serial: int = 0

    def appended(self, status: Status, version: int, now: str) -> GameRecord:
        """This header after an append at ``now`` that left the game unfinished (built
        field by field: :func:`dataclasses.replace` is several times slower, and this is
        every action's path)."""
        return GameRecord(
            self.id,
            self.player_id,
            self.mode,
            self.difficulty,
            status,
            version,
            self.created_at,
            now,
            self.finished_at,
            self.result,
            self.human_total,
            self.computer_total,
            self.new_record,
            self.kind,
            self.seat_serial,
        )

    def finished(
        self, status: Status, version: int, now: str, ending: Ending, new_record: bool
    ) -> GameRecord:
        """This header after the append at ``now`` that finished the game."""
        return GameRecord(
            self.id,
            self.player_id,
            self.mode,
            self.difficulty,
            status,
            version,
            self.created_at,
            now,
            now,
            ending.result,
            ending.human_total,
            ending.computer_total,
            new_record,
            self.kind,
            self.seat_serial,
        )


@dataclass(frozen=True, slots=True)
class Ending:
    """What a finished game's header records of its final position."""

    result: Result
    human_total: int
    computer_total: int | None

    @classmethod
    def of(cls, final: Game) -> Ending:
        """The result and totals of the finished position ``final``. A table game (T6)
        records the best total of its people as ``human_total`` and no computer total:
        its ranking is in the log, and it never counts for the solo best or vs results."""
        result = final.result
        assert result is not None, "a final position is a finished game"
        if result is Result.TABLE:
            people = [c.total for c, k in zip(final.cards, final.seats, strict=True)
                      if k is SeatKind.HUMAN]  # fmt: skip
            return cls(result, max(people), None)
        computer = final.cards[1].total if len(final.cards) > 1 else None
        return cls(result, final.cards[0].total, computer)

    def solo_record(self, best: int | None) -> bool:
        """U7: a solo total above the best earlier solo total (``best``) is a new record;
        vs games count wins/losses/draws, never records."""
        return self.result is Result.SOLO and (best is None or self.human_total > best)


@dataclass(frozen=True, slots=True)
class RecentGame:
    """One line of a player's recent finished games."""

    id: str
    finished_at: str
    mode: Mode
    difficulty: Difficulty | None
    human_total: int
    computer_total: int | None
    result: Result
    kind: GameKind


@dataclass(frozen=True, slots=True)
class Records:
    """A player's records (U9), over finished games only (abandoned ones do not count).

    ``best_score`` is the best 单人挑战 total (``None`` before the first finished one): the
    figure a 单人挑战 must beat to be a new record (U7); a 每日挑战 is not one (K2). Vs games
    count in ``wins``/``losses``/``draws`` and ``games_played`` only.
    """

    best_score: int | None
    wins: int
    losses: int
    draws: int
    games_played: int
    recent: tuple[RecentGame, ...]


#: Seconds of clock skew between machines that a shared rate-limit bucket tolerates before
#: it takes a bucket "in the future" for a clock stepped back (see :class:`Charge`).
CLOCK_MARGIN = 5.0


@dataclass(frozen=True, slots=True)
class Charge:
    """One token to take, at wall-clock time ``now`` (seconds since the epoch), from the
    shared rate-limit bucket ``(bucket, key)``, which holds ``rate`` tokens and regains
    them at ``rate`` per ``per`` seconds (F5; see :mod:`yahtzee.server.limits`).

    The database keeps one number per bucket (the generic cell rate algorithm): ``full_at``,
    the time at which the bucket will be full again. Taking a token is allowed while
    ``full_at - now <= slack`` and moves ``full_at`` to ``max(full_at, now) + interval``;
    this is exactly a token bucket of ``rate`` tokens, in one conditional upsert.

    A clock stepped back (issue 22): ``full_at`` is never more than ``per`` seconds ahead
    of the clock that wrote it (an empty bucket), so one more than ``per`` +
    :data:`CLOCK_MARGIN` ahead of ``now`` means this clock went back: such a bucket is
    read as holding one token (``full_at = now + slack``), taken at once, and then refills
    from now as an empty bucket would. Without it, an hour back left every player active
    in the last minute refused for an hour. The margin keeps a few seconds of skew between
    machines from ever counting as a step back (which would give a token away); a step
    smaller than it delays a refusal's ``Retry-After`` by at most the step.
    """

    bucket: str
    key: str
    rate: int
    per: float
    now: float

    @property
    def interval(self) -> float:
        """Seconds per token."""
        return self.per / self.rate

    @property
    def slack(self) -> float:
        """How far ``full_at`` may lie ahead of ``now`` for one more token: the burst
        (``rate - 1`` tokens' worth), plus a nanosecond against float rounding."""
        return (self.rate - 1) * self.interval + 1e-9

    @property
    def stepped_back(self) -> float:
        """How far ahead of ``now`` a ``full_at`` says that the clock went back."""
        return self.per + CLOCK_MARGIN

    def params(self) -> dict[str, str | float]:
        """The named parameters of both backends' upsert (``:bucket``, ``%(bucket)s``...)."""
        return {
            "bucket": self.bucket,
            "key": self.key,
            "now": self.now,
            "interval": self.interval,
            "slack": self.slack,
            "stepped_back": self.stepped_back,
        }

    def retry_after(self, full_at: float) -> int:
        """Whole seconds until the refused bucket ``full_at`` has a token (at least 1; a
        refused bucket is never read as stepped back, so at most ``interval`` +
        :data:`CLOCK_MARGIN`)."""
        return max(1, math.ceil(full_at - self.now - self.slack))


#: One :meth:`Storage.append` as data: (game, events, status, final position or None).
Append = tuple["GameRecord", Sequence[Event], Status, "Game | None"]


@dataclass(frozen=True, slots=True)
class Claim:
    """A feature's work that a new game needs, run in the game's own transaction, so the
    two stand or fall together with one commit (the daily challenge's one attempt a day,
    D2; the owner's live device, F23). ``work(tx)`` is the feature's one way to the
    database (:mod:`yahtzee.storage.feature_db`) on the game's connection: statements on
    the feature's own tables in the same database, run after the player's unfinished game
    is checked (a kept game refuses first) and before anything is abandoned or inserted;
    it returns whether the game may be made (``False``: refused with
    :class:`ClaimRefusedError`, nothing of the game written)."""

    work: Callable[[Tx], Coroutine[Any, Any, bool]]

    @classmethod
    def rows(cls, *statements: tuple[str, Mapping[str, Any]]) -> Claim:
        """The claim of ``statements`` (``(sql, params)`` with ``:name`` parameters), run
        in order: the game may be made when the last yields a row."""

        async def work(tx: Tx) -> bool:
            row = None
            for sql, params in statements:
                row = await tx.one(sql, params)
            return row is not None

        return cls(work)


@dataclass(frozen=True, slots=True)
class NewGame:
    """One :meth:`Storage.create_game` as data (a write of the SQLite backend's group commit)."""

    game_id: str
    player_id: str
    mode: Mode
    difficulty: Difficulty | None
    events: Sequence[Event]
    replace: bool = False
    charges: Sequence[Charge] = ()
    claim: Claim | None = None
    kind: GameKind = GameKind.SOLO
    owner: Claim | None = None


@dataclass(frozen=True, slots=True)
class TakeTokens:
    """One :meth:`Storage.take` as data (a write of the SQLite backend's group commit)."""

    charges: Sequence[Charge]


@dataclass(frozen=True, slots=True)
class FeatureWrite:
    """A feature's write transaction as one write of the SQLite backend's group commit
    (:mod:`yahtzee.storage.feature_db`): ``work(tx)`` in a savepoint of the batch;
    ``durable=False`` (练习's) lets a batch of nothing else commit without waiting for the
    disk."""

    work: Callable[[Tx], Coroutine[Any, Any, Any]]
    durable: bool = True


#: A write of a batch: an append, a new game, tokens taken from rate-limit buckets, or a
#: feature's transaction.
Write = Append | NewGame | TakeTokens | FeatureWrite

#: After a write failed, how long ``/api/health`` reports that failure before it tries a
#: write of its own: the Retry-After of the 503 the failed request got.
RECHECK_SECONDS = 30.0


class WriteHealth:
    """What the last writes met (F6, issue 22.5): the failure of the latest write, if it
    failed, until a write succeeds again.

    ``/api/health`` reports this (:meth:`check`), not the fate of a write of its own: its
    probe is a one-row rewrite that may still fit where an action's write does not (a
    nearly full disk), so it would say "ok" while every action fails. Only when no write
    has failed for :data:`RECHECK_SECONDS` (say, nobody played since the disk was freed)
    does it probe, so that it still notices a recovery by itself.
    """

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, recheck: float = RECHECK_SECONDS
    ) -> None:
        self.clock = clock
        self.recheck = recheck
        self.failure: str | None = None
        self._failed_at = 0.0

    def failed(self, reason: str) -> None:
        """A write failed because of ``reason`` (the database's own words)."""
        self.failure = reason
        self._failed_at = self.clock()

    def succeeded(self) -> None:
        """A write committed."""
        self.failure = None

    async def check(self, probe: Callable[[], Awaitable[None]]) -> str | None:
        """``None`` if the last write succeeded, else its failure; a failure older than
        :attr:`recheck` seconds is first checked with ``probe`` (a write, which records
        its own outcome)."""
        if self.failure is not None and self.clock() - self._failed_at >= self.recheck:
            with contextlib.suppress(StorageUnavailableError):
                await probe()
        return self.failure


class Storage(Protocol):
    """What the server needs from a database. Every method is atomic and durable on return.

    The methods are coroutines, and none of them blocks the event loop (issue 22.4):
    SQLite runs its statements in threads of its own (one writer, which batches
    concurrent writes into one durable transaction, and a few readers); PostgreSQL awaits
    its pooled connections. The server holds one ``Storage`` and never asks which.
    """

    async def open(self) -> None:
        """Connect and apply pending schema migrations (the server calls it at startup).

        Raises :class:`StorageError` with one readable line if the database is unusable.
        """
        ...

    async def create_game(
        self,
        *,
        game_id: str,
        player_id: str,
        mode: Mode,
        difficulty: Difficulty | None,
        events: Sequence[Event],
        replace: bool = False,
        charges: Sequence[Charge] = (),
        claim: Claim | None = None,
        kind: GameKind | None = None,
        owner: Claim | None = None,
    ) -> GameRecord:
        """Store a new game, in one transaction with the check of the player's unfinished
        one, with its rate limits (F5) and with a feature's ``claim`` (see :class:`Claim`:
        :class:`ClaimRefusedError` when it writes no row). ``kind`` is what the game is
        (K2; by default its mode's plain kind). ``owner`` is a statement that yields a row
        while the player may still own games (its data not deleted), run under the
        player's lock before anything is written: :class:`OwnerGoneError` without a row.

        First a token is taken from each of ``charges``' buckets: if one is empty,
        :class:`~yahtzee.errors.RateLimitExceededError` is raised and nothing is written.
        With ``replace`` the unfinished game, if any, becomes ``abandoned``: it gets an
        ``abandon`` event (and its version goes up by one). Without it, an unfinished game
        raises :class:`GameInProgressError` and nothing but the tokens is written (F2: a
        refused start still counts against the limits).
        """
        ...

    async def take(self, charges: Sequence[Charge]) -> None:
        """Take one token from each bucket of ``charges``, in one transaction, or none at
        all and raise :class:`~yahtzee.errors.RateLimitExceededError` (F5). The buckets are
        shared by every process on the database."""
        ...

    async def get_game(self, game_id: str) -> GameRecord | None:
        """The game with this id, or ``None``."""
        ...

    async def current_game(self, player_id: str) -> GameRecord | None:
        """The player's unfinished game, or ``None``."""
        ...

    async def append(
        self,
        game: GameRecord,
        events: Sequence[Event],
        *,
        status: Status,
        final: Game | None = None,
    ) -> GameRecord:
        """Append ``events`` if the game is still in progress at ``game.version``.

        Returns the updated header. Raises :class:`StaleVersionError` otherwise (nothing
        is written). With the ``final`` position the game is finished: its result and
        totals are written and ``new_record`` is computed in the same transaction: true only
        for a 单人挑战 (kind ``solo``) whose total beats every earlier finished 单人挑战 of
        the player (U7); always false for every other kind (a vs game, a 每日挑战: K2).
        """
        ...

    async def events(self, game_id: str, after: int = 0, until: int | None = None) -> list[Event]:
        """The log of a game from version ``after + 1`` to ``until`` (default: the end)."""
        ...

    async def records(self, player_id: str, recent: int = 10) -> Records:
        """The player's records and most recent finished games (newest first)."""
        ...

    async def finished_games(self, player_id: str, limit: int | None = None) -> list[RecentGame]:
        """The player's finished games, oldest first (the stats page, L5): every one, or
        the most recent ``limit``."""
        ...

    async def prune_unplayed(self, before: str, limit: int = 500) -> int:
        """Delete up to ``limit`` games that never had a roll, abandoned or still in
        progress, whose last change is older than ``before`` (an ISO 8601 UTC time, as
        stored), with their events; returns how many (F5, issue 22.6). Nothing else is
        ever deleted."""
        ...

    async def prune_buckets(self, now: float, limit: int = 5000) -> int:
        """Delete up to ``limit`` rate-limit buckets that are full again at ``now`` (they
        carry no information) and the process registrations that expired; returns how
        many rows went."""
        ...

    async def register_process(
        self, process_id: str, now: float, ttl: float, forget: Sequence[str] = ()
    ) -> int:
        """Record that server process ``process_id`` is alive at ``now`` and return how
        many processes are (those seen in the last ``ttl`` seconds, this one included,
        less those of ``forget``, which are known to be dead and deleted)."""
        ...

    async def process_ids(self) -> list[str]:
        """The ids of the server processes registered (alive, or not yet expired)."""
        ...

    async def unregister_process(self, process_id: str) -> None:
        """Forget ``process_id`` (it is shutting down)."""
        ...

    async def health(self) -> str | None:
        """What the last writes met (F6): ``None`` when the last one succeeded, else why it
        failed (the database's own words), see :class:`WriteHealth`. Never waits on the
        event loop: a probe write, if one is due, runs where the writes run."""
        ...

    async def probe_write(self) -> None:
        """Make one tiny write; raise :class:`StorageUnavailableError` if it fails (F6)."""
        ...

    def listen(
        self,
        channel: str,
        on_notice: Callable[[str], None],
        on_reconnect: Callable[[], None] | None = None,
    ) -> None:
        """Hand ``channel``'s notices (``pg_notify`` of any process, at its commit) to
        ``on_notice`` on the event loop, and call ``on_reconnect`` when some may have been
        missed; asked before :meth:`open`. On PostgreSQL the process's one LISTEN
        connection (:mod:`yahtzee.storage.notices`); on SQLite nothing (one process)."""
        ...

    def features(self) -> FeatureDb:
        """The features' way to this database, on these connections (A3: no feature opens
        its own; :mod:`yahtzee.storage.feature_db`)."""
        ...

    async def close(self) -> None:
        """Release the database."""
        ...
