"""The game service: load a game, apply one player action by the rules, store the events.

Handlers call these methods; each one builds the action's :mod:`yahtzee.log` events (a
roll's faces come from the injected dice), puts each through :func:`yahtzee.log.apply`
once, and makes one compare-and-set write of the new events. What the page is shown of a
game (the computer's last turn, the turn log) is folded alongside by
:mod:`yahtzee.server.game_view`. The
``version`` the client sends is checked against the position in memory (fast refusal)
and by the storage's conditional update, which is the real guarantee: two racing
requests, in one process or several, can never both succeed.

The methods are coroutines and await the storage, which owns durability (batching
concurrent writes into one fsync on SQLite) and never blocks the event loop.

Positions are kept in a bounded in-memory cache keyed by game id and version. A miss (a
restart, an eviction, or a game another process advanced) is filled by replaying the
stored event log, so the log stays the only source of truth. The rules bound a log at
:func:`~yahtzee.log.max_events` (109 events in a vs game), whose replay takes well under a
millisecond (``benchmarks/replay_bench.py``), so it runs inline. Only a legacy log
(``restart_turn`` events from the removed ``/resume``) can be longer: such a log is folded
in a worker thread, so the event loop keeps serving meanwhile.

Why the cache is safe with any number of processes on one database (S1): the cache only
ever answers "what is the position at version v of game g", and that answer never changes
(the log is append-only, so version v of a game is the same position forever, in every
process). What can be out of date is *which* version is current, and that is never taken
from the cache:

* every read (``GET`` a game, the lobby) reads the game's header, with its version, from
  the database first, and uses the cache only for exactly that version, catching up from
  the log (never past the version read) when the entry is older;
* every action is a compare-and-set in the database: the events are appended, in the same
  statement/transaction, only if the game is still at the version the client acted on. A
  process whose cache is behind (another process moved the game) has its write refused
  (409 ``stale_version``), drops the entry, and the client reloads the game, which is then
  read from the database.

The one change of a game outside its log, its seats' (a name erased by 删除我的数据, a
seat holder merged into another player: I1, I4), bumps the header's ``seat_serial``; a
cached position counts only at the serial it was made at, and every append is
conditional on the serial too, so no process serves or builds on the seats as they were
(F24).

So a roll acknowledged by one process is what every other process shows on its next read.
``tests/api/test_multiprocess.py`` alternates a game between two servers to prove it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from collections.abc import Callable, Sequence
from datetime import date

from yahtzee import log
from yahtzee.dice import DiceSource
from yahtzee.errors import (
    AbandonedGameError,
    GameInProgressError,
    GameNotFoundError,
    GameOverError,
    IllegalMoveError,
    StaleVersionError,
    WrongPlayerError,
    ZeroNeedsConfirmationError,
)
from yahtzee.game import GameKind, Mode, SeatKind, Status, as_hold, most_seats
from yahtzee.lru import LruCache
from yahtzee.players import HINT_DIFFICULTY, Difficulty
from yahtzee.rules import Category, needs_zero_confirmation
from yahtzee.server.explain import Advice, explain
from yahtzee.server.game_view import Fold, GameView, fold_log, from_log, options_for
from yahtzee.server.kinds import KindRefusalError, KindRegistry
from yahtzee.storage import GameRecord, Records, Storage
from yahtzee.storage.base import Charge, Claim
from yahtzee.turn import Keep, Player, Position, Score, best_points_now, play_turn

logger = logging.getLogger("yahtzee.server")


def _person(loaded: GameView) -> int:
    """The seat a person's request acts for: the seat whose turn it is, if a person sits
    there (T3). Between requests it always is, unless the game is over (the computers'
    turns are played within the request that hands them the turn)."""
    game = loaded.game
    if not game.is_over and game.kind is not SeatKind.HUMAN:
        raise WrongPlayerError(f"seat {game.turn} is a computer: it plays its own turns")
    return game.turn


class GameService:
    """Every game action of the API, enforcing the rules and the version check."""

    def __init__(
        self,
        storage: Storage,
        dice: DiceSource,
        players: Callable[[str], Player],
        cache_size: int = 4096,
        *,
        kinds: KindRegistry | None = None,
    ) -> None:
        self.storage = storage
        self.dice = dice
        # K2: what each kind of game is beyond its mode's rules (what it refuses, its
        # dice, who holds its seats, what follows its actions): the platform's and the
        # features' declarations, registered by the app's wiring.
        self.kinds = kinds or KindRegistry()
        self._player_factory = players
        self._players: dict[str, Player] = {}
        # 我的设备 (F23): the check, in a new game's transaction, that its player still
        # owns anything (not deleted meanwhile); the app's wiring sets it from the
        # identity. Only for the kinds whose owner holds the seats (a browser).
        self.owner_check: Callable[[str], Claim] | None = None
        # The positions of games in progress (one bounded cache, K4).
        self._cache: LruCache[str, GameView] = LruCache(cache_size)

    def player(self, name: str) -> Player:
        """The computer player ``name``, created once per process."""
        player = self._players.get(name)
        if player is None:
            player = self._players[name] = self._player_factory(name)
        return player

    def warm_up(self) -> None:
        """Create every player now (this loads the solver table once, at startup)."""
        for level in Difficulty:
            self.player(level.value)

    # -- reads --------------------------------------------------------------------------

    async def load(self, player_id: str, game_id: str) -> GameView:
        """The player's game ``game_id`` as stored now; another player's game is "not found"."""
        stored = await self.storage.get_game(game_id)
        if stored is None or not await self.may_see(stored, player_id):
            raise GameNotFoundError(f"no game {game_id} for this player")
        return await self._position(stored)

    async def view_of(self, game_id: str) -> GameView:
        """Game ``game_id`` as stored now, whoever owns it (a feature reads the games it
        owns with it; never a request's player)."""
        stored = await self.storage.get_game(game_id)
        if stored is None:
            raise GameNotFoundError(f"no game {game_id}")
        return await self._position(stored)

    async def may_see(self, stored: GameRecord, player_id: str) -> bool:
        """The owner's game, or a game of a kind whose seats its maker holds (O3) of which
        the browser holds a seat."""
        if stored.player_id == player_id:
            return True
        seats = self.kinds[stored.kind].hooks.seats
        return seats is not None and player_id in await seats.holders(stored)

    async def _may_act(self, loaded: GameView, player_id: str) -> bool:
        """The owner, or in a game whose seats its maker holds the browser of the seat
        whose turn it is (O3)."""
        record = loaded.record
        seats = self.kinds[record.kind].hooks.seats
        if seats is None:
            return record.player_id == player_id
        holders = await seats.holders(record)
        turn = loaded.game.turn
        return 0 <= turn < len(holders) and holders[turn] == player_id

    async def current(self, player_id: str) -> GameView:
        """The player's unfinished game, exactly as it stands (「继续游戏」, U6)."""
        stored = await self.storage.current_game(player_id)
        if stored is None:
            raise GameNotFoundError("this player has no unfinished game")
        return await self._position(stored)

    async def replayed(self, game_id: str) -> GameView:
        """The game rebuilt from its whole stored log, bypassing the cache (tests, review)."""
        stored = await self.storage.get_game(game_id)
        if stored is None:
            raise GameNotFoundError(f"no game {game_id}")
        events = await self.storage.events(game_id, until=stored.version)
        return from_log(stored, events, strict=self.kinds[stored.kind].strict)

    async def _position(self, stored: GameRecord) -> GameView:
        """``stored`` with its position: from the cache, caught up from the log if behind.

        The log is read after the header, so another process may have appended more
        events in between: only those up to the header's version are applied, so the
        position always matches the version the response shows.
        """
        cached = self._cache.get(stored.id)
        if cached is not None and cached.record.seat_serial != stored.seat_serial:
            # F24: its seats changed outside the log since (an erased name, a merged
            # holder): the position is read again from the log, never built on this one.
            self._cache.pop(stored.id)
            cached = None
        if cached is not None and cached.record.version == stored.version:
            return self._remember(dataclasses.replace(cached, record=stored))
        base = cached if cached is not None and cached.record.version < stored.version else None
        after = base.record.version if base is not None else 0
        events = await self.storage.events(stored.id, after=after, until=stored.version)
        if stored.version - after > log.max_events(most_seats(stored.mode), stored.mode):
            # Longer than any legal game: a legacy log. Fold it off the event loop.
            strict = self.kinds[stored.kind].strict
            loaded = await asyncio.to_thread(fold_log, stored, base, events, strict=strict)
            newer = self._cache.peek(stored.id)
            if newer is not None and newer.record.version > stored.version:
                return loaded  # the game moved on meanwhile: keep the newer entry
            return self._remember(loaded)
        strict = self.kinds[stored.kind].strict
        return self._remember(fold_log(stored, base, events, strict=strict))

    def _remember(self, loaded: GameView) -> GameView:
        cache = self._cache
        if loaded.record.status is not Status.IN_PROGRESS:
            # Over: rarely read again (a replay serves it). Keeping the live heap small
            # also keeps the garbage collector's full passes cheap.
            cache.pop(loaded.record.id)
            return loaded
        cache.put(loaded.record.id, loaded)
        return loaded

    async def records(self, player_id: str) -> Records:
        """The player's records (U9)."""
        return await self.storage.records(player_id)

    # -- actions ------------------------------------------------------------------------

    async def new_game(
        self,
        player_id: str,
        kind: GameKind,
        difficulty: Difficulty | None = None,
        *,
        seats: Sequence[log.Seat] | None = None,
        replace: bool = False,
        charges: Sequence[Charge] = (),
        date: date | None = None,
        game_id: str | None = None,
        claim: Claim | None = None,
    ) -> GameView:
        """Start a game of ``kind`` (K2), in its mode: solo, vs ``difficulty``, or a table
        of ``seats`` (T1, checked by :func:`yahtzee.table.parse_seats`), owned by
        ``player_id`` (a browser, or whatever owns a feature's game). The player's
        unfinished game is abandoned only with ``replace`` (重新开始); otherwise
        :class:`~yahtzee.errors.GameInProgressError` names it (F2). A table whose first
        seats are computers starts with their turns played (T3), so the game is stored at
        a person's turn.

        The rate-limit tokens (``charges``, F5), the check and the insert are one storage
        transaction, so racing requests, in one process or several, cannot pass either.
        A kind whose rules say its ``start`` is dated is given its ``date`` (and only it:
        its dice source reads it); ``claim``, a feature's row the game needs (one attempt a
        day, D2), is written in the same transaction (:class:`~yahtzee.storage.base.Claim`).
        """
        rules = self.kinds.declared(kind)
        mode = rules.mode
        if (date is not None) != rules.dated:
            wants = "is played on a day" if rules.dated else "has no day"
            raise IllegalMoveError(f"a {kind.value} game {wants}, got date {date}")
        if mode is Mode.TABLE:
            if seats is None:
                raise IllegalMoveError("a table game needs its seats")
            start = log.Start(Mode.TABLE, tuple(seats), date)
            difficulty = None
        else:
            if mode is not Mode.VS_COMPUTER:
                difficulty = None
            start = log.Start.of(mode, difficulty.value if difficulty is not None else None)
            if date is not None:
                start = dataclasses.replace(start, date=date)
        fold = Fold(start, kind=kind, strict=rules.strict)
        self._computers(fold)
        check = self.owner_check
        owner = check(player_id) if check is not None and rules.hooks.seats is None else None
        try:
            stored = await self.storage.create_game(
                game_id=game_id or secrets.token_hex(16),
                player_id=player_id,
                mode=mode,
                difficulty=difficulty,
                events=[start, *fold.events],
                replace=replace,
                charges=charges,
                claim=claim,
                kind=kind,
                owner=owner,
            )
        except GameInProgressError as exc:
            saved = await self.load(player_id, exc.game_id)
            raise GameInProgressError(
                exc.game_id,
                what=self.kinds[saved.kind].name,
                difficulty=saved.record.difficulty.value if saved.record.difficulty else None,
                round_=saved.game.round,
            ) from None
        return self._remember(fold.view(stored))

    async def roll(
        self, player_id: str, game_id: str, version: int, hold: Sequence[bool]
    ) -> GameView:
        """Roll the unheld dice (all five on the turn's first roll), R1."""
        loaded = await self._for_action(player_id, game_id, version)
        mask = as_hold(hold)
        fold = Fold(loaded)
        # The rules check the roll once, in apply (a refused roll's faces are never used).
        dice = self._dice_of(fold)
        fold.add(log.Roll(_person(loaded), mask, tuple(dice.roll(mask.count(False)))))
        return await self._commit(loaded, fold)

    def _dice_of(self, fold: Fold) -> DiceSource:
        """Where this roll's faces come from: the dice source of the game's kind (the
        tutorial's fixed stream, L10; a feature's), else the injected dice."""
        policy = self.kinds[fold.kind].hooks.dice
        return self.dice if policy is None else policy(fold)

    async def score(
        self, player_id: str, game_id: str, version: int, category: Category, confirm_zero: bool
    ) -> GameView:
        """Write the dice in ``category``; in a vs game the computer then plays its turn."""
        loaded = await self._for_action(player_id, game_id, version)
        fold = Fold(loaded)
        # The rules first (turn, rolled, open box, Joker): a confirmation is only asked for
        # a move that is otherwise legal.
        fold.add(log.Score(_person(loaded), category))
        before = loaded.game
        assert before.dice is not None
        options = options_for(before.current_card, before.dice)
        if not confirm_zero and needs_zero_confirmation(options, category):
            raise ZeroNeedsConfirmationError(f"{category.value} would score 0")
        self._computers(fold)
        return await self._commit(loaded, fold)

    async def hint(self, player_id: str, game_id: str, version: int) -> tuple[Advice, GameView]:
        """Spend a hint and return the expert's advice for the current dice (U4)."""
        loaded = await self._for_action(player_id, game_id, version)
        refusal = self.kinds[loaded.kind].hints
        if refusal is not None:  # (nothing spent)
            raise KindRefusalError(f"game {game_id} ({loaded.kind.value}) has no hints", refusal)
        state = loaded.game
        person = _person(loaded)
        # Spent first (refused at 0 hints or before the first roll): the advice is only
        # worked out for a hint the rules allow. It is logged with the hint; the position
        # after it is the one apply returned here.
        after = log.apply(state, log.Hint(person))
        assert state.dice is not None
        position = Position(state.current_card, state.dice, state.rolls_left)
        decision = self.player(HINT_DIFFICULTY.value).decide(position)
        hold = decision.hold(state.dice) if isinstance(decision, Keep) else None
        category = decision.category if isinstance(decision, Score) else None
        event = log.Hint(person, hold, category)
        why = explain(state.current_card, state.dice, state.rolls_left, hold, category)
        fold = Fold(loaded)
        fold.add(event, after)
        return Advice(event, why), await self._commit(loaded, fold)

    async def undo(self, player_id: str, game_id: str, version: int) -> GameView:
        """撤销 (issue 21): take back the box just written, until the next roll of anyone;
        the seat that wrote it plays on from just before it (one undo a turn). Solo and
        多人同屏 only (the rules refuse it in vs), and only in a kind that allows it (its
        rules' refusal, :class:`~yahtzee.server.kinds.KindRefusalError`: the tutorial's)."""
        loaded = await self._for_action(player_id, game_id, version)
        refusal = self.kinds[loaded.kind].undo
        if refusal is not None:
            raise KindRefusalError(f"game {game_id} ({loaded.kind.value}) has no undo", refusal)
        game = loaded.game
        # The rules say whether (and for whom) the undo is legal, once, in apply.
        seat = game.undoable.turn if game.undoable is not None else game.turn
        fold = Fold(loaded)
        fold.add(log.Undo(seat))
        return await self._commit(loaded, fold)

    async def abandon(self, player_id: str, game_id: str, version: int) -> GameView:
        """Give the game up (「跳过教程」, L10): an ``abandon`` event, status abandoned. A
        finished game stays finished (:class:`~yahtzee.errors.GameOverError`); a kind may
        refuse it (a game that is everyone's, O3)."""
        loaded = await self._for_action(player_id, game_id, version)
        refusal = self.kinds[loaded.kind].abandon
        if refusal is not None:
            raise KindRefusalError(f"game {game_id} ({loaded.kind.value}) is kept", refusal)
        if loaded.game.is_over:
            raise GameOverError(f"game {game_id} is over: it cannot be abandoned")
        fold = Fold(loaded)
        fold.add(log.Abandon())
        return await self._commit(loaded, fold, Status.ABANDONED)

    # -- internals ----------------------------------------------------------------------

    async def _for_action(self, player_id: str, game_id: str, version: int) -> GameView:
        cached = self._cache.get(game_id)
        loaded: GameView | None = None
        if cached is not None and cached.record.version == version:
            # Fast path, no read: if the game moved on elsewhere, the write's
            # compare-and-set refuses it and the entry is dropped.
            loaded = cached
        if loaded is None or not await self._may_act(loaded, player_id):
            # (read again: the game may have changed hands since it was cached, a player
            # linked into another on some process, I1)
            loaded = await self.load(player_id, game_id)
        if not await self._may_act(loaded, player_id):
            raise GameNotFoundError(f"no game {game_id} for this player")
        if loaded.record.version != version:
            raise StaleVersionError(game_id)
        if loaded.record.status is Status.ABANDONED:
            raise AbandonedGameError(game_id)
        return loaded

    def _computers(self, fold: Fold) -> None:
        """Play the computers' whole turns (R8, T3) until a person's turn or the end; every
        step is an event for the log. Each computer plays at its seat's level."""
        while not fold.game.is_over and fold.game.kind is SeatKind.COMPUTER:
            level = fold.seats[fold.game.turn].difficulty
            assert level is not None  # a computer seat has a level (log.Seat)
            played = play_turn(
                fold.game,
                self.player(level),
                self.dice,
                fallback=best_points_now,  # a player bug must not break the human's request
            )
            for problem in played.corrections:
                logger.warning("%s player: %s", level, problem)
            for step in played.steps:
                fold.add(step.event, step.game)  # applied once, by play_turn

    async def play_for(self, game_id: str, version: int, level: str) -> GameView:
        """托管 (O5): the computer ``level`` plays the rest of the current person's turn of
        a game whose seats its maker holds, at ``version`` (from wherever the person left
        it), through the one turn driver; then the computers' turns that follow. Raises
        :class:`~yahtzee.errors.StaleVersionError` when the game moved on meanwhile (the
        person acted, or another process played the turn first)."""
        stored = await self.storage.get_game(game_id)
        if stored is None or self.kinds[stored.kind].hooks.seats is None:
            raise GameNotFoundError(f"no game {game_id} played from several browsers")
        loaded = await self._position(stored)
        if loaded.record.version != version:
            raise StaleVersionError(game_id)
        if loaded.game.is_over or loaded.record.status is not Status.IN_PROGRESS:
            raise StaleVersionError(game_id)
        if loaded.game.kind is not SeatKind.HUMAN:  # (a computer's turn is never left open)
            raise StaleVersionError(game_id)
        fold = Fold(loaded)
        played = play_turn(fold.game, self.player(level), self.dice, fallback=best_points_now)
        for problem in played.corrections:
            logger.warning("%s player (autoplay): %s", level, problem)
        for step in played.steps:
            # K2: the person's seat moved, the computer decided (the review says so).
            fold.add(dataclasses.replace(step.event, proxy=level), step.game)
        self._computers(fold)
        return await self._commit(loaded, fold, proxy=True)

    async def _commit(
        self,
        loaded: GameView,
        fold: Fold,
        status: Status | None = None,
        *,
        proxy: bool = False,
    ) -> GameView:
        game = fold.game
        try:
            final = game if game.is_over else None
            stored = await self.storage.append(
                loaded.record, fold.events, status=status or game.status, final=final
            )
        except StaleVersionError:
            self._cache.pop(loaded.record.id)
            fresh = await self.storage.get_game(loaded.record.id)
            if fresh is not None and fresh.status is Status.ABANDONED:
                raise AbandonedGameError(loaded.record.id) from None
            raise
        view = fold.view(stored)
        hooks = self.kinds[stored.kind].hooks
        if game.is_over and hooks.finished is not None:
            hooks.finished(view)
        if hooks.after_commit is not None:
            await hooks.after_commit(view, fold.events, proxy)
        return self._remember(view)
