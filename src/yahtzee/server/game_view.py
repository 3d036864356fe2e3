"""What the page is shown of a game, folded from its event log.

A :class:`GameView` is a stored header, the position, and what the page replays of the
log: the computer's most recent turn (U8) and every finished turn (P4's turn log). A
:class:`Fold` builds it event by event, each event put through :func:`yahtzee.log.apply`
once; the service (:mod:`yahtzee.server.service`) folds the events of an action with it
and :func:`from_log` / :func:`fold_log` rebuild a view from a stored log (a cache miss).
:mod:`yahtzee.server.views` turns a view into the game object of ``docs/api.md``.

The page's JSON names seats ``"human"``/``"computer"`` (solo and vs): that is the kind of
the seat at each index, read from the game here, never stored as a name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from yahtzee import log
from yahtzee.errors import CorruptLogError
from yahtzee.game import Game, GameKind, SeatKind
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, ScoreOption, score_options
from yahtzee.storage import GameRecord

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
    and every finished turn of every seat, in order (each dict shared between folds); who
    sits where (``seats``, the ``start`` event's); and the computers' turns played since a
    person last acted, each with its ``seat`` (a table's computers play one after another,
    T3; the page replays them step by step)."""

    record: GameRecord
    game: Game
    computer_turn: ComputerTurn | None = None
    turns: tuple[TurnRecord, ...] = ()
    seats: tuple[log.Seat, ...] = ()
    computer_turns: tuple[ComputerTurn, ...] = ()
    # The day a game of a dated kind is played on (its start's: a day's dice), and how
    # many faces the current turn has drawn from its round's sequence so far.
    date: dt.date | None = None
    drawn: int = 0
    # A game whose kind allows no 撤销 whatever the position (its rules, K2).
    strict: bool = False

    @property
    def kind(self) -> GameKind:
        """What the game is (K2), as stored."""
        return self.record.kind

    def undo(self) -> tuple[int, Category] | None:
        """The seat that may take back the box it just wrote, and that box (撤销), or
        ``None`` (no box to take back, or a :attr:`strict` game)."""
        before = self.game.undoable
        if before is None or self.strict:
            return None
        seat = before.turn
        old, new = before.card(seat), self.game.card(seat)
        written = next(
            c for c, a, b in zip(CATEGORIES, old.boxes, new.boxes, strict=True) if a != b
        )
        return seat, written


def advance_computer_turn(
    turn: ComputerTurn | None, event: log.Event, before: Game, after: Game
) -> ComputerTurn | None:
    """The computer's last turn once ``event`` took ``before`` to ``after``."""
    if type(event) is log.Roll:
        if before.seats[event.seat] is not SeatKind.COMPUTER:
            return turn
        assert after.dice is not None
        step: dict[str, Any] = {
            "action": "roll",
            "hold": list(event.hold),
            "dice": list(after.dice.values),
        }
        if before.dice is None:  # first roll: a new computer turn begins
            return {"round": after.current_card.filled_count + 1, "steps": [step]}
    elif type(event) is log.Score:
        if before.seats[event.seat] is not SeatKind.COMPUTER:
            return turn
        assert before.dice is not None
        step = {
            "action": "score",
            "category": event.category.value,
            "points": after.card(event.seat)[event.category],
            "dice": list(before.dice.values),
        }
    else:
        return turn
    assert turn is not None
    return {"round": turn["round"], "steps": [*turn["steps"], step]}


def advance_computer_turns(
    turns: tuple[ComputerTurn, ...], event: log.Event, before: Game, after: Game
) -> tuple[ComputerTurn, ...]:
    """The computers' turns since a person's last event, once ``event`` took ``before`` to
    ``after``: a person's event clears them, a computer's roll or score extends them."""
    if type(event) not in (log.Roll, log.Score, log.Hint):
        return turns
    seat = event.seat  # type: ignore[union-attr]
    if before.seats[seat] is not SeatKind.COMPUTER:
        return ()
    step: dict[str, Any]
    if type(event) is log.Roll:
        assert after.dice is not None
        step = {"action": "roll", "hold": list(event.hold), "dice": list(after.dice.values)}
        if before.dice is None:
            round_ = before.card(seat).filled_count + 1
            return (*turns, {"seat": seat, "round": round_, "steps": [step]})
    elif type(event) is log.Score:
        assert before.dice is not None
        step = {
            "action": "score",
            "category": event.category.value,
            "points": after.card(seat)[event.category],
            "dice": list(before.dice.values),
        }
    else:
        return turns
    last = turns[-1]
    return (*turns[:-1], {**last, "steps": [*last["steps"], step]})


def finished_turn(event: log.Event, before: Game, after: Game) -> TurnRecord | None:
    """The turn-log line of ``event`` when it is a score (which ends a turn), else ``None``."""
    if type(event) is not log.Score:
        return None
    assert before.dice is not None
    seat, category = event.seat, event.category
    card_before, card_after = before.card(seat), after.card(seat)
    return {
        "round": card_before.filled_count + 1,
        "seat": seat,
        "player": before.seats[seat].value,
        "dice": list(before.dice.values),
        "category": category.value,
        "points": card_after[category],
        "yahtzee_bonus": card_after.yahtzee_bonus - card_before.yahtzee_bonus,
        # K2/U11: a person's box written for them by the computer (托管) says so
        **({"proxy": event.proxy} if event.proxy is not None else {}),
    }


class Fold:
    """Events of a game and the view they lead to, each applied once: new events (the
    rules refuse legacy kinds), or with ``stored`` the events of a stored log (which replay
    legacy ``restart_turn`` events too). It starts from a view, or from a new game's
    ``start`` (the events that follow it, before the game is stored) of ``kind`` (by
    default its mode's plain kind), ``strict`` when that kind allows no 撤销."""

    def __init__(
        self,
        loaded: GameView | log.Start,
        *,
        stored: bool = False,
        kind: GameKind | None = None,
        strict: bool = False,
    ) -> None:
        self.computer_turn: ComputerTurn | None = None
        self.turns: tuple[TurnRecord, ...] = ()
        self.computer_turns: tuple[ComputerTurn, ...] = ()
        self.drawn = 0
        # Whose the stored game is (``None`` for a new one): a kind's dice may be keyed by
        # it (a feature's game owned by one of its things, K2).
        self.owner: str | None = None
        if isinstance(loaded, log.Start):  # a new game: the events after its start
            self.game, self.seats, self.date = loaded.game(), loaded.seats, loaded.date
            self.kind, self.strict = kind or GameKind.of(loaded.mode), strict
        else:
            self.game, self.seats, self.date = loaded.game, loaded.seats, loaded.date
            self.kind, self.strict = loaded.record.kind, loaded.strict
            self.owner = loaded.record.player_id
            self.computer_turn, self.turns = loaded.computer_turn, loaded.turns
            self.computer_turns, self.drawn = loaded.computer_turns, loaded.drawn
        self.events: list[log.Event] = []  # the new events, to be written (none when stored)
        self._stored = stored

    def add(self, event: log.Event, after: Game | None = None) -> None:
        """Fold ``event``; ``after`` is the game it leads to when :func:`yahtzee.log.apply`
        already played it (the computer's steps from :func:`~yahtzee.turn.play_turn`, a
        hint checked before its advice was asked)."""
        before = self.game
        # apply raises if the rules forbid the event.
        self.game = log.apply(before, event, stored=self._stored) if after is None else after
        self.computer_turn = advance_computer_turn(self.computer_turn, event, before, self.game)
        self.computer_turns = advance_computer_turns(self.computer_turns, event, before, self.game)
        done = finished_turn(event, before, self.game)
        if done is not None:
            self.turns = (*self.turns, done)
        elif type(event) is log.Undo:  # the box taken back leaves the turn log
            self.turns = self.turns[:-1]
        if type(event) is log.Roll:
            self.drawn += len(event.faces)
        elif self.game.dice is None:  # a score (or a legacy restart): a new turn
            self.drawn = 0
        if not self._stored:  # (a long stored log is not kept in memory twice)
            self.events.append(event)

    def view(self, record: GameRecord) -> GameView:
        """The folded game under the header ``record``."""
        return GameView(
            record,
            self.game,
            self.computer_turn,
            self.turns,
            seats=self.seats,
            computer_turns=self.computer_turns,
            date=self.date,
            drawn=self.drawn,
            strict=self.strict,
        )


def fold_log(
    stored: GameRecord, base: GameView | None, events: Sequence[log.Event], *, strict: bool = False
) -> GameView:
    """``stored``: ``base`` (an older position of it) followed by ``events``, or, with no
    base, the whole log ``events`` replayed (``strict``: its kind allows no 撤销)."""
    if base is None:
        return from_log(stored, events, strict=strict)
    fold = Fold(base, stored=True)
    for event in events:
        fold.add(event)
    return fold.view(stored)


def from_log(stored: GameRecord, events: Sequence[log.Event], *, strict: bool = False) -> GameView:
    """A game rebuilt from its whole log (which begins with its ``start`` event);
    ``strict``: its kind allows no 撤销."""
    start = events[0]
    if not isinstance(start, log.Start):
        raise CorruptLogError("a game log must begin with a start event")
    fold = Fold(start, stored=True, kind=stored.kind, strict=strict)
    for event in events[1:]:
        fold.add(event)
    return fold.view(stored)


@lru_cache(maxsize=4096)
def options_for(card: Scorecard, dice: Dice) -> dict[Category, ScoreOption]:
    """:func:`~yahtzee.rules.score_options`, memoised: a roll's response previews the
    options and the score that follows needs them again (callers must not mutate)."""
    return score_options(card, dice)
