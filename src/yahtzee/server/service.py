"""The game service: load a game, apply one player action by the rules, store the events.

Handlers call these methods; each one is a pure computation through
:class:`~yahtzee.game.Game` and one compare-and-set write of the new events. The
``version`` the client sends is checked against the position in memory (fast refusal)
and by the storage's conditional update, which is the real guarantee: two racing
requests, in one process or several, can never both succeed.

The methods are coroutines and await the storage. On SQLite every write (a game action's
append, a new game) goes through :class:`~yahtzee.server.group_commit.GroupCommit`: with
``synchronous=FULL`` (F6) a commit waits for the disk, so the writes of concurrent
requests share one transaction in a worker thread. (With ``NORMAL`` a commit cost tens of
microseconds and ran inline; a writer thread then only added GIL handoffs.) On
PostgreSQL each write is awaited on a pooled connection: the server itself flushes the
commits of concurrent connections together.

Positions are kept in a bounded in-memory cache keyed by game id and version. A miss (a
restart, an eviction, or a game another process advanced) is filled by replaying the
stored event log, so the log stays the only source of truth. The rules bound a log at
:data:`~yahtzee.storage.events.MAX_EVENTS` (109) events, whose replay takes well under a
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

So a roll acknowledged by one process is what every other process shows on its next read.
``tests/api/test_multiprocess.py`` alternates a game between two servers to prove it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from yahtzee.dice import DiceSource
from yahtzee.errors import (
    AbandonedGameError,
    GameInProgressError,
    GameNotFoundError,
    StaleVersionError,
    ZeroNeedsConfirmationError,
)
from yahtzee.game import Game, Mode, Seat, Status
from yahtzee.players import HINT_DIFFICULTY, Difficulty
from yahtzee.rules import (
    Category,
    Dice,
    Scorecard,
    ScoreOption,
    needs_zero_confirmation,
    score_options,
)
from yahtzee.server.explain import Explanation, explain
from yahtzee.server.group_commit import GroupCommit
from yahtzee.storage import (
    Event,
    GameRecord,
    Records,
    Storage,
    apply_event,
    replay,
    start,
)
from yahtzee.storage.base import BatchWriter, Charge
from yahtzee.storage.events import MAX_EVENTS, replay_event
from yahtzee.turn import Keep, Player, Position, RollStep, Score, best_points_now, play_turn

log = logging.getLogger("yahtzee.server")


@dataclass(frozen=True, slots=True)
class Hint:
    """The expert's advice (U4): dice to hold while rolling on is best, else a box.

    ``explanation`` values it and the best alternative in expected points (what the hint
    teaches); ``None`` only if the advice is not among the solver's ranked options.
    """

    hold: tuple[bool, ...] | None
    category: Category | None
    explanation: Explanation | None = None


ComputerTurn = dict[str, Any]
"""``{"round": n, "steps": [...]}``: the computer's most recent turn as the page replays it
(U8); each step is ``{"action": "roll", "hold", "dice"}`` or ``{"action": "score",
"category", "points", "dice"}``."""


TurnRecord = dict[str, Any]
"""One finished turn of either player (P4's turn log): ``{"round", "player", "dice",
"category", "points", "yahtzee_bonus"}``."""


@dataclass(frozen=True, slots=True)
class GameView:
    """A game as the server holds and shows it: its stored ``record`` and, folded from its
    event log, the position (``game``), the computer's last turn (``None`` before its first)
    and every finished turn of both players, in order (each dict shared between folds)."""

    record: GameRecord
    game: Game
    computer_turn: ComputerTurn | None = None
    turns: tuple[TurnRecord, ...] = ()


def advance_computer_turn(
    turn: ComputerTurn | None, event: Event, before: Game, after: Game
) -> ComputerTurn | None:
    """The computer's last turn once ``event`` took ``before`` to ``after``."""
    data = event.data
    if event.kind not in ("roll", "score") or data["seat"] != Seat.COMPUTER.value:
        return turn
    if event.kind == "roll":
        assert after.dice is not None
        step: dict[str, Any] = {
            "action": "roll",
            "hold": list(data["hold"]),
            "dice": list(after.dice.values),
        }
        if before.dice is None:  # first roll: a new computer turn begins
            return {"round": after.current_card.filled_count + 1, "steps": [step]}
    else:
        assert before.dice is not None
        category = Category(data["category"])
        step = {
            "action": "score",
            "category": category.value,
            "points": after.card(Seat.COMPUTER)[category],
            "dice": list(before.dice.values),
        }
    assert turn is not None
    return {"round": turn["round"], "steps": [*turn["steps"], step]}


def finished_turn(event: Event, before: Game, after: Game) -> TurnRecord | None:
    """The turn-log line of ``event`` when it is a score (which ends a turn), else ``None``."""
    if event.kind != "score":
        return None
    assert before.dice is not None
    seat = Seat(event.data["seat"])
    category = Category(event.data["category"])
    card_before, card_after = before.card(seat), after.card(seat)
    return {
        "round": card_before.filled_count + 1,
        "player": seat.value,
        "dice": list(before.dice.values),
        "category": category.value,
        "points": card_after[category],
        "yahtzee_bonus": card_after.yahtzee_bonus - card_before.yahtzee_bonus,
    }


def _fold_log(stored: GameRecord, base: GameView | None, events: Sequence[Event]) -> GameView:
    """``stored``: ``base`` (an older position of it) followed by ``events``, or, with no
    base, the whole log ``events`` replayed."""
    if base is None:
        return from_log(stored, events)
    fold = _Fold(base, stored=True)
    for event in events:
        fold.add(event)
    return GameView(stored, fold.game, fold.computer_turn, fold.turns)


def from_log(stored: GameRecord, events: Sequence[Event]) -> GameView:
    """A game rebuilt from its whole log (which begins with its ``start`` event)."""
    fold = _Fold(GameView(stored, replay(events[:1])), stored=True)
    for event in events[1:]:
        fold.add(event)
    return GameView(stored, fold.game, fold.computer_turn, fold.turns)


class GameService:
    """Every game action of the API, enforcing the rules and the version check."""

    def __init__(
        self,
        storage: Storage,
        dice: DiceSource,
        players: Callable[[str], Player],
        cache_size: int = 4096,
    ) -> None:
        self.storage = storage
        # F6: one fsync for concurrent writes (SQLite; PostgreSQL groups its own commits).
        self.writer: Storage | GroupCommit = (
            GroupCommit(storage) if isinstance(storage, BatchWriter) else storage
        )
        self.dice = dice
        self._player_factory = players
        self._players: dict[str, Player] = {}
        self._cache: OrderedDict[str, GameView] = OrderedDict()
        self._cache_size = cache_size

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
        if stored is None or stored.player_id != player_id:
            raise GameNotFoundError(f"no game {game_id} for this player")
        return await self._position(stored)

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
        return from_log(stored, await self.storage.events(game_id, until=stored.version))

    async def _position(self, stored: GameRecord) -> GameView:
        """``stored`` with its position: from the cache, caught up from the log if behind.

        The log is read after the header, so another process may have appended more
        events in between: only those up to the header's version are applied, so the
        position always matches the version the response shows.
        """
        cached = self._cache.get(stored.id)
        if cached is not None and cached.record.version == stored.version:
            return self._remember(GameView(stored, cached.game, cached.computer_turn, cached.turns))
        base = cached if cached is not None and cached.record.version < stored.version else None
        after = base.record.version if base is not None else 0
        log = await self.storage.events(stored.id, after=after, until=stored.version)
        if stored.version - after > MAX_EVENTS:
            # Longer than any legal game: a legacy log. Fold it off the event loop.
            loaded = await asyncio.to_thread(_fold_log, stored, base, log)
            newer = self._cache.get(stored.id)
            if newer is not None and newer.record.version > stored.version:
                return loaded  # the game moved on meanwhile: keep the newer entry
            return self._remember(loaded)
        return self._remember(_fold_log(stored, base, log))

    def _remember(self, loaded: GameView) -> GameView:
        cache = self._cache
        if loaded.record.status is not Status.IN_PROGRESS:
            # Over: rarely read again (a replay serves it). Keeping the live heap small
            # also keeps the garbage collector's full passes cheap.
            cache.pop(loaded.record.id, None)
            return loaded
        cache[loaded.record.id] = loaded
        cache.move_to_end(loaded.record.id)
        while len(cache) > self._cache_size:
            cache.popitem(last=False)
        return loaded

    async def records(self, player_id: str) -> Records:
        """The player's records (U9)."""
        return await self.storage.records(player_id)

    # -- actions ------------------------------------------------------------------------

    async def new_game(
        self,
        player_id: str,
        mode: Mode,
        difficulty: Difficulty | None,
        *,
        replace: bool = False,
        charges: Sequence[Charge] = (),
    ) -> GameView:
        """Start a game. The player's unfinished game is abandoned only with ``replace``
        (重新开始); otherwise :class:`~yahtzee.errors.GameInProgressError` names it (F2).

        The rate-limit tokens (``charges``, F5), the check and the insert are one storage
        transaction, so racing requests, in one process or several, cannot pass either.
        """
        if mode is Mode.SOLO:
            difficulty = None
        event, game = start(mode, difficulty)
        try:
            stored = await self.writer.create_game(
                game_id=secrets.token_hex(16),
                player_id=player_id,
                mode=mode,
                difficulty=difficulty,
                events=[event],
                replace=replace,
                charges=charges,
            )
        except GameInProgressError as exc:
            saved = await self.load(player_id, exc.game_id)
            raise GameInProgressError(
                exc.game_id,
                mode=saved.record.mode.value,
                difficulty=saved.record.difficulty.value if saved.record.difficulty else None,
                round_=saved.game.round,
            ) from None
        return self._remember(GameView(stored, game))

    async def roll(
        self, player_id: str, game_id: str, version: int, hold: Sequence[bool]
    ) -> GameView:
        """Roll the unheld dice (all five on the turn's first roll), R1."""
        loaded = await self._for_action(player_id, game_id, version)
        fold = _Fold(loaded)
        self._roll(fold, Seat.HUMAN, hold)
        return await self._commit(loaded, fold)

    async def score(
        self, player_id: str, game_id: str, version: int, category: Category, confirm_zero: bool
    ) -> GameView:
        """Write the dice in ``category``; in a vs game the computer then plays its turn."""
        loaded = await self._for_action(player_id, game_id, version)
        fold = _Fold(loaded)
        # _score applies the rules first (turn, rolled, open box, Joker): a confirmation is
        # only asked for a move that is otherwise legal.
        options = _score(fold, Seat.HUMAN, category)
        if not confirm_zero and needs_zero_confirmation(options, category):
            raise ZeroNeedsConfirmationError(f"{category.value} would score 0")
        if fold.game.mode is Mode.VS_COMPUTER and not fold.game.is_over:
            self._computer_turn(fold, loaded.record.difficulty)
        return await self._commit(loaded, fold)

    async def hint(self, player_id: str, game_id: str, version: int) -> tuple[Hint, GameView]:
        """Spend a hint and return the expert's advice for the current dice (U4)."""
        loaded = await self._for_action(player_id, game_id, version)
        state = loaded.game
        state.use_hint()  # refuses at 0 hints or before the first roll, spending nothing
        assert state.dice is not None
        position = Position(state.current_card, state.dice, state.rolls_left)
        decision = self.player(HINT_DIFFICULTY.value).decide(position)
        hold = decision.hold(state.dice) if isinstance(decision, Keep) else None
        category = decision.category if isinstance(decision, Score) else None
        why = explain(state.current_card, state.dice, state.rolls_left, hold, category)
        hint = Hint(hold=hold, category=category, explanation=why)
        data = {
            "hold": list(hint.hold) if hint.hold is not None else None,
            "category": hint.category.value if hint.category is not None else None,
        }
        fold = _Fold(loaded)
        fold.add(Event("hint", data))
        return hint, await self._commit(loaded, fold)

    # -- internals ----------------------------------------------------------------------

    async def _for_action(self, player_id: str, game_id: str, version: int) -> GameView:
        cached = self._cache.get(game_id)
        if cached is not None and cached.record.version == version:
            # Fast path, no read: if the game moved on elsewhere, the write's
            # compare-and-set refuses it and the entry is dropped.
            loaded = cached
            if loaded.record.player_id != player_id:
                raise GameNotFoundError(f"no game {game_id} for this player")
        else:
            loaded = await self.load(player_id, game_id)
        if loaded.record.version != version:
            raise StaleVersionError(game_id)
        if loaded.record.status is Status.ABANDONED:
            raise AbandonedGameError(game_id)
        return loaded

    def _roll(self, fold: _Fold, seat: Seat, hold: Sequence[bool]) -> None:
        state = fold.game
        mask = state.check_roll(hold, by=seat)
        faces = self.dice.roll(sum(1 for held in mask if not held))
        event = Event("roll", {"seat": seat.value, "hold": list(mask), "faces": faces})
        fold.add(event)
        dice = fold.game.dice
        assert dice is not None
        event.data["dice"] = list(dice.values)  # for readers of the log; replay ignores it

    def _computer_turn(self, fold: _Fold, difficulty: Difficulty | None) -> None:
        """Play the computer's whole turn (R8); every step is an event for the log."""
        assert difficulty is not None
        played = play_turn(
            fold.game,
            self.player(difficulty.value),
            self.dice,
            seat=Seat.COMPUTER,
            fallback=best_points_now,  # a player bug must not break the human's request
        )
        for problem in played.corrections:
            log.warning("%s player: %s", difficulty.value, problem)
        seat = Seat.COMPUTER.value
        for step in played.steps:
            if isinstance(step, RollStep):
                fold.add(
                    Event(
                        "roll",
                        {
                            "seat": seat,
                            "hold": list(step.hold),
                            "faces": list(step.fresh),
                            "dice": list(step.dice.values),
                        },
                    ),
                    step.game,
                )
            else:
                option = step.option
                data = {
                    "seat": seat,
                    "category": step.category.value,
                    "points": option.points,
                    "yahtzee_bonus": option.yahtzee_bonus,
                    "dice": list(step.dice.values),
                }
                fold.add(Event("score", data), step.game)

    async def _commit(self, loaded: GameView, fold: _Fold) -> GameView:
        game = fold.game
        try:
            final = game if game.is_over else None
            stored = await self.writer.append(
                loaded.record, fold.events, status=game.status, final=final
            )
        except StaleVersionError:
            self._cache.pop(loaded.record.id, None)
            fresh = await self.storage.get_game(loaded.record.id)
            if fresh is not None and fresh.status is Status.ABANDONED:
                raise AbandonedGameError(loaded.record.id) from None
            raise
        return self._remember(GameView(stored, game, fold.computer_turn, fold.turns))


class _Fold:
    """Events of a game and the position they lead to, each applied once: new events (the
    rules refuse legacy kinds), or with ``stored`` the events of a stored log (which replay
    legacy ``restart_turn`` events too, see :mod:`yahtzee.storage.events`)."""

    def __init__(self, loaded: GameView, *, stored: bool = False) -> None:
        self.game = loaded.game
        self.computer_turn = loaded.computer_turn
        self.turns = loaded.turns
        self.events: list[Event] = []  # the new events, to be written (none when stored)
        self._stored = stored
        self._apply = replay_event if stored else apply_event

    def add(self, event: Event, after: Game | None = None) -> None:
        """Fold ``event``; ``after`` is the game it leads to when the rules engine already
        played it (the computer's steps from :func:`~yahtzee.turn.play_turn`)."""
        before = self.game
        # _apply raises if the rules forbid the event.
        self.game = self._apply(before, event) if after is None else after
        self.computer_turn = advance_computer_turn(self.computer_turn, event, before, self.game)
        done = finished_turn(event, before, self.game)
        if done is not None:
            self.turns = (*self.turns, done)
        if not self._stored:  # (a long stored log is not kept in memory twice)
            self.events.append(event)


@lru_cache(maxsize=4096)
def options_for(card: Scorecard, dice: Dice) -> dict[Category, ScoreOption]:
    """:func:`~yahtzee.rules.score_options`, memoised: a roll's response previews the
    options and the score that follows needs them again (callers must not mutate)."""
    return score_options(card, dice)


def _options(state: Game) -> dict[Category, ScoreOption]:
    if state.dice is None:
        return {}
    return options_for(state.current_card, state.dice)


def _score(fold: _Fold, seat: Seat, category: Category) -> dict[Category, ScoreOption]:
    """Append a score event; returns the options the dice had (for U2 and the log)."""
    options = _options(fold.game)
    event = Event("score", {"seat": seat.value, "category": category.value})
    dice = fold.game.dice
    fold.add(event)  # raises for every rule violation (turn, not rolled, used box, Joker)
    assert dice is not None
    option = options[category]
    event.data.update(
        points=option.points, yahtzee_bonus=option.yahtzee_bonus, dice=list(dice.values)
    )
    return options
