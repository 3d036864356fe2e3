"""The append-only event log of one game, and its replay.

Every change to a game is one :class:`Event`; the position is exactly the fold of its
events over :meth:`Game.new` (through ``apply_roll``/``score``/``use_hint``). The
server folds each new event with :func:`apply_event` and keeps the folded positions in
memory; after a restart (or a cache miss) it rebuilds them from the stored log with
:func:`replay_event` (:func:`replay`). The tests and the crash script check that the
server's view of a game equals the replay of its log. What the page is shown of the log
(the computer's last turn) is built above this layer, by the server.

Event kinds and their JSON ``data``:

* ``start`` ``{"mode": "solo"|"vs_computer", "difficulty": str|null}`` (always first)
* ``roll`` ``{"seat", "hold": [bool x5], "faces": [new faces, one per unheld die], "dice"}``
* ``score`` ``{"seat", "category", "points", "yahtzee_bonus", "dice"}``
* ``hint`` ``{"hold": [bool x5]|null, "category": str|null}`` (one hint spent)
* ``abandon`` ``{}`` (a new game replaced this one, 重新开始)
* ``restart_turn`` ``{}``: **legacy**. Older versions wrote one each time a game was
  continued from the lobby (``POST /resume``, which started the turn over: a fourth roll at
  will). Stored logs that contain it still replay exactly as before (:func:`replay_event`),
  so existing databases keep every game; :func:`apply_event`, the only way new events
  enter a game, refuses it, so it can never be written again (F1, U6 changed).

The rules bound a log (F1): at most :func:`max_events` events, 57 in a solo game and 109
in a vs game. Only a legacy log can be longer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from yahtzee.errors import IllegalMoveError
from yahtzee.game import HINTS_PER_GAME, ROLLS_PER_TURN, ROUNDS, Game, Mode, Seat
from yahtzee.players import Difficulty
from yahtzee.rules import Category

EventKind = Literal["start", "roll", "score", "hint", "restart_turn", "abandon"]


class CorruptLogError(IllegalMoveError):
    """An event log that does not replay (wrong first event, impossible action)."""


def max_events(mode: Mode) -> int:
    """The longest log a game of ``mode`` can have under the rules (F1).

    One ``start``; per player 13 turns of at most 3 rolls and 1 score; the human's 3
    hints; one ``abandon``: 1 + 13 x 4 + 3 + 1 = 57 (solo), 1 + 2 x 13 x 4 + 3 + 1 = 109
    (vs). (A finished game has no ``abandon``, so the longest real log is one shorter.)
    """
    players = 2 if mode is Mode.VS_COMPUTER else 1
    return 1 + players * ROUNDS * (ROLLS_PER_TURN + 1) + HINTS_PER_GAME + 1


#: The bound of every game's log, whatever its mode (a vs game's).
MAX_EVENTS = max_events(Mode.VS_COMPUTER)


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
    """The position after the new ``event``; raises :class:`IllegalMoveError` if the rules
    forbid it (a legacy ``restart_turn`` is a :class:`CorruptLogError`: never new)."""
    data = event.data
    if event.kind == "roll":
        return state.apply_roll(data["hold"], data["faces"], by=Seat(data["seat"]))
    if event.kind == "score":
        if state.dice is None:
            raise CorruptLogError("a score with no dice on the table")
        return state.score(Category(data["category"]), by=Seat(data["seat"]))
    if event.kind == "hint":
        return state.use_hint()
    if event.kind == "abandon":
        return state  # the header's status records it; the position does not change
    raise CorruptLogError(f"unexpected event {event.kind!r} in the middle of a log")


def replay_event(state: Game, event: Event) -> Game:
    """The position after a *stored* ``event``: :func:`apply_event`, plus the legacy kinds."""
    if event.kind == "restart_turn":  # legacy (see the module docstring)
        return state.restart_turn()
    return apply_event(state, event)


def replay(events: Iterable[Event]) -> Game:
    """Rebuild a game's position from its whole log (first event ``start``)."""
    it = iter(events)
    first = next(it, None)
    if first is None or first.kind != "start":
        raise CorruptLogError("a game log must begin with a start event")
    state = Game.new(Mode(first.data["mode"]))
    for event in it:
        state = replay_event(state, event)
    return state
