"""Computer players: 入门 novice, 普通 intermediate, 高手 expert (B1).

Each implements :class:`yahtzee.turn.Player` and only ever returns legal decisions; the
levels, their names and how to build them are registered in :mod:`yahtzee.players.levels`.
The player classes live in their own modules (``yahtzee.players.expert`` …), imported on
first use.
"""

from __future__ import annotations

from yahtzee.players.levels import (
    DEFAULT_DIFFICULTY,
    HINT_DIFFICULTY,
    LEVELS,
    SUGGESTED_DIFFICULTY,
    Difficulty,
    Level,
    get_player,
    level_choices,
)

__all__ = [
    "DEFAULT_DIFFICULTY",
    "HINT_DIFFICULTY",
    "LEVELS",
    "SUGGESTED_DIFFICULTY",
    "Difficulty",
    "Level",
    "get_player",
    "level_choices",
]
