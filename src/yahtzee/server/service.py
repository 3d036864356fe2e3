"""The game service: load a game, apply one player action by the rules, store the events.

Handlers call these methods; each one is a read, a pure computation through
:class:`~yahtzee.game.GameState`, and one compare-and-set write of the new events. The
``version`` the client sends is checked twice: against the row read (fast refusal) and by
the storage's conditional update (so two racing requests can never both succeed).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from yahtzee.dice import DiceSource
from yahtzee.game import NO_HOLD, GameState, Mode, Seat
from yahtzee.players.base import Player, RollDecision, ScoreDecision
from yahtzee.rules import Category, ScoreOption
from yahtzee.server.errors import AbandonedGameError, NotFoundError, ZeroNeedsConfirmationError
from yahtzee.storage import (
    Event,
    Outcome,
    Records,
    Replay,
    StaleVersionError,
    Storage,
    StoredGame,
    apply_event,
    start,
)

log = logging.getLogger("yahtzee.server")

DIFFICULTIES = ("novice", "intermediate", "expert")
HINT_PLAYER = "expert"


@dataclass(frozen=True, slots=True)
class Hint:
    """The expert's advice (U4): dice to hold while rolling on is best, else a box."""

    hold: tuple[bool, ...] | None
    category: Category | None


@dataclass(frozen=True, slots=True)
class Loaded:
    """A stored game with its position decoded."""

    stored: StoredGame
    game: Replay


class GameService:
    """Every game action of the API, enforcing the rules and the version check."""

    def __init__(
        self, storage: Storage, dice: DiceSource, players: Callable[[str], Player]
    ) -> None:
        self.storage = storage
        self.dice = dice
        self._player_factory = players
        self._players: dict[str, Player] = {}

    def player(self, name: str) -> Player:
        """The computer player ``name``, created once per process."""
        player = self._players.get(name)
        if player is None:
            player = self._players[name] = self._player_factory(name)
        return player

    def warm_up(self) -> None:
        """Create every player now (this loads the solver table once, at startup)."""
        for name in DIFFICULTIES:
            self.player(name)

    # -- reads --------------------------------------------------------------------------

    def load(self, player_id: str, game_id: str) -> Loaded:
        """The player's game ``game_id``; another player's game is "not found"."""
        stored = self.storage.get_game(game_id)
        if stored is None or stored.player_id != player_id:
            raise NotFoundError()
        return Loaded(stored, Replay.from_json(stored.snapshot, stored.status))

    def current(self, player_id: str) -> Loaded:
        """The player's unfinished game."""
        stored = self.storage.current_game(player_id)
        if stored is None:
            raise NotFoundError()
        return Loaded(stored, Replay.from_json(stored.snapshot, stored.status))

    def records(self, player_id: str) -> Records:
        """The player's records (U9)."""
        return self.storage.records(player_id)

    # -- actions ------------------------------------------------------------------------

    def new_game(self, player_id: str, mode: Mode, difficulty: str | None) -> Loaded:
        """Start a game; the player's unfinished game is abandoned (重新开始)."""
        if mode is Mode.SOLO:
            difficulty = None
        event, game = start(mode, difficulty)
        stored = self.storage.create_game(
            game_id=secrets.token_hex(16),
            player_id=player_id,
            mode=mode.value,
            difficulty=difficulty,
            events=[event],
            snapshot=game.to_json(),
        )
        return Loaded(stored, game)

    def roll(self, player_id: str, game_id: str, version: int, hold: Sequence[bool]) -> Loaded:
        """Roll the unheld dice (all five on the turn's first roll), R1."""
        loaded = self._for_action(player_id, game_id, version)
        state = loaded.game.state
        mask = state.check_roll(hold, by=Seat.HUMAN)
        return self._commit(loaded, [self._roll_event(state, Seat.HUMAN, mask)])

    def score(
        self, player_id: str, game_id: str, version: int, category: Category, confirm_zero: bool
    ) -> Loaded:
        """Write the dice in ``category``; in a vs game the computer then plays its turn."""
        loaded = self._for_action(player_id, game_id, version)
        state = loaded.game.state
        state.score(category, by=Seat.HUMAN)  # raises for every rule violation first
        options = state.preview()
        if not confirm_zero and _needs_zero_confirmation(options, category):
            raise ZeroNeedsConfirmationError(f"{category.value} would score 0")
        events = [_score_event(state, Seat.HUMAN, category)]
        after = apply_event(loaded.game, events[0])
        if after.state.mode is Mode.VS_COMPUTER and not after.state.is_over:
            events += self._computer_turn(after)
        return self._commit(loaded, events)

    def hint(self, player_id: str, game_id: str, version: int) -> tuple[Hint, Loaded]:
        """Spend a hint and return the expert's advice for the current dice (U4)."""
        loaded = self._for_action(player_id, game_id, version)
        state = loaded.game.state
        state.use_hint()  # refuses at 0 hints or before the first roll, spending nothing
        assert state.dice is not None
        decision = self.player(HINT_PLAYER).decide(state.current_card, state.dice, state.rolls_left)
        if isinstance(decision, RollDecision) and state.rolls_left > 0 and not all(decision.hold):
            hint = Hint(hold=tuple(decision.hold), category=None)
        elif isinstance(decision, ScoreDecision):
            hint = Hint(hold=None, category=decision.category)
        else:  # a roll with every die held (or none left) means: stop and score
            hint = Hint(hold=None, category=_best_option(state))
        data = {
            "hold": list(hint.hold) if hint.hold is not None else None,
            "category": hint.category.value if hint.category is not None else None,
        }
        return hint, self._commit(loaded, [Event("hint", data)])

    def resume(self, player_id: str, game_id: str, version: int) -> Loaded:
        """Continue from the lobby: the current turn starts over (U6)."""
        loaded = self._for_action(player_id, game_id, version)
        loaded.game.state.restart_turn()
        return self._commit(loaded, [Event("restart_turn")])

    # -- internals ----------------------------------------------------------------------

    def _for_action(self, player_id: str, game_id: str, version: int) -> Loaded:
        loaded = self.load(player_id, game_id)
        if loaded.stored.version != version:
            raise StaleVersionError(game_id)
        if loaded.stored.status == "abandoned":
            raise AbandonedGameError(game_id)
        return loaded

    def _roll_event(self, state: GameState, seat: Seat, mask: Sequence[bool]) -> Event:
        faces = self.dice.roll(sum(1 for held in mask if not held))
        dice = state.apply_roll(mask, faces, by=seat).dice
        assert dice is not None
        return Event(
            "roll",
            {"seat": seat.value, "hold": list(mask), "faces": faces, "dice": list(dice.values)},
        )

    def _computer_turn(self, game: Replay) -> list[Event]:
        """Play the computer's whole turn (R8); every step is an event for the log."""
        assert game.difficulty is not None
        player = self.player(game.difficulty)
        events: list[Event] = []
        while game.state.seat is Seat.COMPUTER and not game.state.is_over:
            state = game.state
            if state.dice is None:
                event = self._roll_event(state, Seat.COMPUTER, NO_HOLD)
            else:
                decision = player.decide(state.current_card, state.dice, state.rolls_left)
                category: Category | None = None
                if isinstance(decision, ScoreDecision):
                    category = decision.category
                elif state.rolls_left == 0 or all(decision.hold):
                    category = _best_option(state)  # holding everything means stopping
                if category is None:
                    assert isinstance(decision, RollDecision)
                    event = self._roll_event(state, Seat.COMPUTER, decision.hold)
                else:
                    if not _legal(state, category):
                        log.warning("%s chose illegal box %s", game.difficulty, category.value)
                        category = _best_option(state)
                    event = _score_event(state, Seat.COMPUTER, category)
            events.append(event)
            game = apply_event(game, event)
        return events

    def _commit(self, loaded: Loaded, events: list[Event]) -> Loaded:
        game = loaded.game
        for event in events:
            game = apply_event(game, event)
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
        stored = self.storage.append(
            loaded.stored.id,
            expected_version=loaded.stored.version,
            events=events,
            snapshot=game.to_json(),
            status=game.status,
            outcome=outcome,
        )
        return Loaded(stored, game)


def _score_event(state: GameState, seat: Seat, category: Category) -> Event:
    option = state.preview()[category]
    assert state.dice is not None
    return Event(
        "score",
        {
            "seat": seat.value,
            "category": category.value,
            "points": option.points,
            "yahtzee_bonus": option.yahtzee_bonus,
            "dice": list(state.dice.values),
        },
    )


def _legal(state: GameState, category: Category) -> bool:
    option = state.preview().get(category)
    return option is not None and option.legal


def _best_option(state: GameState) -> Category:
    """The legal box that adds the most right now (a safe fallback, never the advice)."""
    options = [o for o in state.preview().values() if o.legal]
    return max(options, key=lambda o: o.gain).category


def _needs_zero_confirmation(options: dict[Category, ScoreOption], category: Category) -> bool:
    """U2: the box scores 0 while another open, allowed box would score more than 0."""
    chosen = options[category]
    if chosen.points > 0:
        return False
    return any(o.legal and o.points > 0 for c, o in options.items() if c is not category)
