"""The append-only event log of one game, and its replay.

Every change to a game is one :class:`Event`; the game is exactly the fold of its events
over :meth:`GameState.new` (through ``apply_roll``/``score``/``use_hint``/``restart_turn``).
The server folds each new event with :func:`apply_event`, the same function :func:`replay`
uses, and keeps the folded positions in memory; after a restart (or a cache miss) it
rebuilds them by replaying the stored log. The tests and the crash script check that the
server's view of a game equals the replay of its log.

Event kinds and their JSON ``data``:

* ``start`` ``{"mode": "solo"|"vs_computer", "difficulty": str|null}`` (always first)
* ``roll`` ``{"seat", "hold": [bool x5], "faces": [new faces, one per unheld die], "dice"}``
* ``score`` ``{"seat", "category", "points", "yahtzee_bonus", "dice"}``
* ``hint`` ``{"hold": [bool x5]|null, "category": str|null}`` (one hint spent)
* ``restart_turn`` ``{}`` (continue from the lobby, U6)
* ``abandon`` ``{}`` (a new game replaced this one, 重新开始)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from yahtzee.errors import IllegalMoveError
from yahtzee.game import GameState, Mode, Seat
from yahtzee.rules import Category

EventKind = Literal["start", "roll", "score", "hint", "restart_turn", "abandon"]
Status = Literal["in_progress", "finished", "abandoned"]


class CorruptLogError(IllegalMoveError):
    """An event log that does not replay (wrong first event, impossible action)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a game's log: what happened (``kind``) and its details (``data``)."""

    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Replay:
    """A game rebuilt from its log: the position, the status and the computer's last turn.

    ``computer_turn`` is ``{"round": n, "steps": [...]}`` for the computer's most recent
    turn in a vs game (U8), ``None`` before its first turn. ``turns`` lists every finished
    turn of the game, both players, in order (P4's turn log): ``{"round", "player", "dice",
    "category", "points", "yahtzee_bonus"}``, each dict shared between successive replays.
    """

    state: GameState
    difficulty: str | None
    status: Status = "in_progress"
    computer_turn: dict[str, Any] | None = None
    turns: tuple[dict[str, Any], ...] = ()


def start(mode: Mode, difficulty: str | None) -> tuple[Event, Replay]:
    """The first event of a game and the position it creates."""
    event = Event("start", {"mode": mode.value, "difficulty": difficulty})
    return event, Replay(GameState.new(mode), difficulty)


def apply_event(game: Replay, event: Event) -> Replay:
    """The game after ``event``; raises :class:`IllegalMoveError` if the rules forbid it.

    (Replays are built with the constructor, not :func:`dataclasses.replace`, which costs
    several times more: this runs for every event of every request.)
    """
    data = event.data
    state = game.state
    if event.kind == "roll":
        seat = Seat(data["seat"])
        state = state.apply_roll(data["hold"], data["faces"], by=seat)
        turn = game.computer_turn
        if seat is Seat.COMPUTER:
            step: dict[str, Any] = {
                "action": "roll",
                "hold": list(data["hold"]),
                "dice": _faces(state),
            }
            if game.state.dice is None:  # first roll: a new computer turn begins
                turn = {"round": state.current_card.filled_count + 1, "steps": [step]}
            else:
                assert turn is not None
                turn = {"round": turn["round"], "steps": [*turn["steps"], step]}
        return Replay(state, game.difficulty, game.status, turn, game.turns)
    if event.kind == "score":
        seat = Seat(data["seat"])
        category = Category(data["category"])
        dice = _faces(state)
        before = state.card(seat)
        state = state.score(category, by=seat)
        turn = game.computer_turn
        after = state.card(seat)
        points = after[category]
        done = {
            "round": before.filled_count + 1,
            "player": seat.value,
            "dice": dice,
            "category": category.value,
            "points": points,
            "yahtzee_bonus": after.yahtzee_bonus - before.yahtzee_bonus,
        }
        if seat is Seat.COMPUTER:
            assert turn is not None
            step = {
                "action": "score",
                "category": category.value,
                "points": points,
                "dice": dice,
            }
            turn = {"round": turn["round"], "steps": [*turn["steps"], step]}
        status: Status = "finished" if state.is_over else game.status
        return Replay(state, game.difficulty, status, turn, (*game.turns, done))
    if event.kind == "hint":
        return Replay(
            state.use_hint(), game.difficulty, game.status, game.computer_turn, game.turns
        )
    if event.kind == "restart_turn":
        return Replay(
            state.restart_turn(), game.difficulty, game.status, game.computer_turn, game.turns
        )
    if event.kind == "abandon":
        return Replay(state, game.difficulty, "abandoned", game.computer_turn, game.turns)
    raise CorruptLogError(f"unexpected event {event.kind!r} in the middle of a log")


def replay(events: Iterable[Event]) -> Replay:
    """Rebuild a game from its whole log (first event ``start``)."""
    it = iter(events)
    first = next(it, None)
    if first is None or first.kind != "start":
        raise CorruptLogError("a game log must begin with a start event")
    _, game = start(Mode(first.data["mode"]), first.data["difficulty"])
    for event in it:
        game = apply_event(game, event)
    return game


def _faces(state: GameState) -> list[int]:
    if state.dice is None:
        raise CorruptLogError("no dice on the table")
    return list(state.dice.values)
