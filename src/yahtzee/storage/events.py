"""The append-only event log of one game, and its replay.

Every change to a game is one :class:`Event`; the position is exactly the fold of its
events over :meth:`Game.new` (through ``apply_roll``/``score``/``use_hint``/
``restart_turn``). The server folds each new event with :func:`apply_event`, the same
function :func:`replay` uses, and keeps the folded positions in memory; after a restart (or
a cache miss) it rebuilds them by replaying the stored log. The tests and the crash script
check that the server's view of a game equals the replay of its log. What the page is
shown of the log (the computer's last turn) is built above this layer, by the server.

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
from yahtzee.game import Game, Mode, Seat
from yahtzee.players import Difficulty
from yahtzee.rules import Category

EventKind = Literal["start", "roll", "score", "hint", "restart_turn", "abandon"]


class CorruptLogError(IllegalMoveError):
    """An event log that does not replay (wrong first event, impossible action)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a game's log: what happened (``kind``) and its details (``data``)."""

    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)


def start(mode: Mode, difficulty: Difficulty | None) -> tuple[Event, Game]:
    """The first event of a game and the position it creates."""
    level = difficulty.value if difficulty is not None else None
    return Event("start", {"mode": mode.value, "difficulty": level}), Game.new(mode)


def apply_event(state: Game, event: Event) -> Game:
    """The position after ``event``; raises :class:`IllegalMoveError` if the rules forbid it."""
    data = event.data
    if event.kind == "roll":
        return state.apply_roll(data["hold"], data["faces"], by=Seat(data["seat"]))
    if event.kind == "score":
        if state.dice is None:
            raise CorruptLogError("a score with no dice on the table")
        return state.score(Category(data["category"]), by=Seat(data["seat"]))
    if event.kind == "hint":
        return state.use_hint()
    if event.kind == "restart_turn":
        return state.restart_turn()
    if event.kind == "abandon":
        return state  # the header's status records it; the position does not change
    raise CorruptLogError(f"unexpected event {event.kind!r} in the middle of a log")


def replay(events: Iterable[Event]) -> Game:
    """Rebuild a game's position from its whole log (first event ``start``)."""
    it = iter(events)
    first = next(it, None)
    if first is None or first.kind != "start":
        raise CorruptLogError("a game log must begin with a start event")
    state = Game.new(Mode(first.data["mode"]))
    for event in it:
        state = apply_event(state, event)
    return state
