"""The game service: load a game, apply one player action by the rules, store the events.

Handlers call these methods; each one is a pure computation through
:class:`~yahtzee.game.GameState` and one compare-and-set write of the new events. The
``version`` the client sends is checked against the position in memory (fast refusal)
and by the storage's conditional update, which is the real guarantee: two racing
requests, in one process or several, can never both succeed.

The methods are coroutines, but the SQLite writes run inline on the event loop: a commit
in WAL mode with ``synchronous=NORMAL`` costs tens of microseconds, less than handing it
to a thread. (A writer thread with group commit was tried and measured: throughput did not
improve and the paced p99 latency tripled, from the GIL handoffs.)

Positions are kept in a bounded in-memory cache keyed by game id and version. A miss (a
restart, an eviction, or a game another process advanced) is filled by replaying the
stored event log, so the log stays the only source of truth.
"""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from yahtzee.dice import DiceSource
from yahtzee.game import GameState, Mode, Seat
from yahtzee.players import HINT_DIFFICULTY, Difficulty
from yahtzee.rules import Category, Dice, Scorecard, ScoreOption, score_options
from yahtzee.server.errors import (
    AbandonedGameError,
    GameInProgressApiError,
    NotFoundError,
    ZeroNeedsConfirmationError,
)
from yahtzee.server.explain import Explanation, explain
from yahtzee.storage import (
    Event,
    GameInProgressError,
    Outcome,
    Records,
    Replay,
    StaleVersionError,
    Storage,
    StoredGame,
    apply_event,
    replay,
    start,
)
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


@dataclass(frozen=True, slots=True)
class Loaded:
    """A stored game with its position decoded."""

    stored: StoredGame
    game: Replay


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
        self.dice = dice
        self._player_factory = players
        self._players: dict[str, Player] = {}
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
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

    def load(self, player_id: str, game_id: str) -> Loaded:
        """The player's game ``game_id`` as stored now; another player's game is "not found"."""
        stored = self.storage.get_game(game_id)
        if stored is None or stored.player_id != player_id:
            raise NotFoundError()
        return self._position(stored)

    def current(self, player_id: str) -> Loaded:
        """The player's unfinished game."""
        stored = self.storage.current_game(player_id)
        if stored is None:
            raise NotFoundError()
        return self._position(stored)

    def replayed(self, game_id: str) -> Replay:
        """The game rebuilt from its whole stored log, bypassing the cache (tests, review)."""
        return replay(self.storage.events(game_id))

    def _position(self, stored: StoredGame) -> Loaded:
        """``stored`` with its position: from the cache, caught up from the log if behind."""
        cached = self._cache.get(stored.id)
        if cached is not None and cached.stored.version == stored.version:
            game = cached.game
        elif cached is not None and cached.stored.version < stored.version:
            game = cached.game
            for event in self.storage.events(stored.id, after=cached.stored.version):
                game = apply_event(game, event)
        else:
            game = replay(self.storage.events(stored.id))
        return self._remember(Loaded(stored, game))

    def _remember(self, loaded: Loaded) -> Loaded:
        cache = self._cache
        if loaded.stored.status != "in_progress":
            # Over: rarely read again (a replay serves it). Keeping the live heap small
            # also keeps the garbage collector's full passes cheap.
            cache.pop(loaded.stored.id, None)
            return loaded
        cache[loaded.stored.id] = loaded
        cache.move_to_end(loaded.stored.id)
        while len(cache) > self._cache_size:
            cache.popitem(last=False)
        return loaded

    def records(self, player_id: str) -> Records:
        """The player's records (U9)."""
        return self.storage.records(player_id)

    # -- actions ------------------------------------------------------------------------

    async def new_game(
        self, player_id: str, mode: Mode, difficulty: str | None, *, replace: bool = False
    ) -> Loaded:
        """Start a game. The player's unfinished game is abandoned only with ``replace``
        (重新开始); otherwise it raises :class:`GameInProgressApiError` naming it (F2).

        The check and the insert are one storage transaction, so two racing requests cannot
        both pass it.
        """
        if mode is Mode.SOLO:
            difficulty = None
        event, game = start(mode, difficulty)
        try:
            stored = self.storage.create_game(
                game_id=secrets.token_hex(16),
                player_id=player_id,
                mode=mode.value,
                difficulty=difficulty,
                events=[event],
                replace=replace,
            )
        except GameInProgressError as exc:
            saved = self.load(player_id, exc.game_id)
            raise GameInProgressApiError(
                saved.stored.mode, saved.stored.difficulty, saved.game.state.round
            ) from None
        return self._remember(Loaded(stored, game))

    async def roll(
        self, player_id: str, game_id: str, version: int, hold: Sequence[bool]
    ) -> Loaded:
        """Roll the unheld dice (all five on the turn's first roll), R1."""
        loaded = self._for_action(player_id, game_id, version)
        fold = _Fold(loaded.game)
        self._roll(fold, Seat.HUMAN, hold)
        return await self._commit(loaded, fold)

    async def score(
        self, player_id: str, game_id: str, version: int, category: Category, confirm_zero: bool
    ) -> Loaded:
        """Write the dice in ``category``; in a vs game the computer then plays its turn."""
        loaded = self._for_action(player_id, game_id, version)
        fold = _Fold(loaded.game)
        # _score applies the rules first (turn, rolled, open box, Joker): a confirmation is
        # only asked for a move that is otherwise legal.
        options = _score(fold, Seat.HUMAN, category)
        if not confirm_zero and _needs_zero_confirmation(options, category):
            raise ZeroNeedsConfirmationError(f"{category.value} would score 0")
        if fold.game.state.mode is Mode.VS_COMPUTER and not fold.game.state.is_over:
            self._computer_turn(fold)
        return await self._commit(loaded, fold)

    async def hint(self, player_id: str, game_id: str, version: int) -> tuple[Hint, Loaded]:
        """Spend a hint and return the expert's advice for the current dice (U4)."""
        loaded = self._for_action(player_id, game_id, version)
        state = loaded.game.state
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
        fold = _Fold(loaded.game)
        fold.add(Event("hint", data))
        return hint, await self._commit(loaded, fold)

    async def resume(self, player_id: str, game_id: str, version: int) -> Loaded:
        """Continue from the lobby: the current turn starts over (U6)."""
        loaded = self._for_action(player_id, game_id, version)
        fold = _Fold(loaded.game)
        fold.add(Event("restart_turn"))
        return await self._commit(loaded, fold)

    # -- internals ----------------------------------------------------------------------

    def _for_action(self, player_id: str, game_id: str, version: int) -> Loaded:
        cached = self._cache.get(game_id)
        if cached is not None and cached.stored.version == version:
            # Fast path, no read: if the game moved on elsewhere, the write's
            # compare-and-set refuses it and the entry is dropped.
            loaded = cached
            if loaded.stored.player_id != player_id:
                raise NotFoundError()
        else:
            loaded = self.load(player_id, game_id)
        if loaded.stored.version != version:
            raise StaleVersionError(game_id)
        if loaded.stored.status == "abandoned":
            raise AbandonedGameError(game_id)
        return loaded

    def _roll(self, fold: _Fold, seat: Seat, hold: Sequence[bool]) -> None:
        state = fold.game.state
        mask = state.check_roll(hold, by=seat)
        faces = self.dice.roll(sum(1 for held in mask if not held))
        event = Event("roll", {"seat": seat.value, "hold": list(mask), "faces": faces})
        fold.add(event)
        dice = fold.game.state.dice
        assert dice is not None
        event.data["dice"] = list(dice.values)  # for readers of the log; replay ignores it

    def _computer_turn(self, fold: _Fold) -> None:
        """Play the computer's whole turn (R8); every step is an event for the log."""
        difficulty = fold.game.difficulty
        assert difficulty is not None
        played = play_turn(
            fold.game.state,
            self.player(difficulty),
            self.dice,
            seat=Seat.COMPUTER,
            fallback=best_points_now,  # a player bug must not break the human's request
        )
        for problem in played.corrections:
            log.warning("%s player: %s", difficulty, problem)
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
                    )
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
                fold.add(Event("score", data))

    async def _commit(self, loaded: Loaded, fold: _Fold) -> Loaded:
        game = fold.game
        outcome = None
        if game.state.is_over:
            result = game.state.result
            assert result is not None
            cards = game.state.cards
            outcome = Outcome(
                result=result.value,
                human_total=cards[0].total,
                computer_total=cards[1].total if len(cards) > 1 else None,
            )
        try:
            stored = self.storage.append(
                loaded.stored, fold.events, status=game.status, outcome=outcome
            )
        except StaleVersionError:
            self._cache.pop(loaded.stored.id, None)
            fresh = self.storage.get_game(loaded.stored.id)
            if fresh is not None and fresh.status == "abandoned":
                raise AbandonedGameError(loaded.stored.id) from None
            raise
        return self._remember(Loaded(stored, game))


class _Fold:
    """The events of one request and the position they lead to, each applied once."""

    def __init__(self, game: Replay) -> None:
        self.game = game
        self.events: list[Event] = []

    def add(self, event: Event) -> None:
        self.game = apply_event(self.game, event)  # raises if the rules forbid it
        self.events.append(event)


@lru_cache(maxsize=4096)
def options_for(card: Scorecard, dice: Dice) -> dict[Category, ScoreOption]:
    """:func:`~yahtzee.rules.score_options`, memoised: a roll's response previews the
    options and the score that follows needs them again (callers must not mutate)."""
    return score_options(card, dice)


def _options(state: GameState) -> dict[Category, ScoreOption]:
    if state.dice is None:
        return {}
    return options_for(state.current_card, state.dice)


def _score(fold: _Fold, seat: Seat, category: Category) -> dict[Category, ScoreOption]:
    """Append a score event; returns the options the dice had (for U2 and the log)."""
    options = _options(fold.game.state)
    event = Event("score", {"seat": seat.value, "category": category.value})
    dice = fold.game.state.dice
    fold.add(event)  # raises for every rule violation (turn, not rolled, used box, Joker)
    assert dice is not None
    option = options[category]
    event.data.update(
        points=option.points, yahtzee_bonus=option.yahtzee_bonus, dice=list(dice.values)
    )
    return options


def _needs_zero_confirmation(options: dict[Category, ScoreOption], category: Category) -> bool:
    """U2: the box scores 0 while another open, allowed box would score more than 0."""
    chosen = options[category]
    if chosen.points > 0:
        return False
    return any(o.legal and o.points > 0 for c, o in options.items() if c is not category)
