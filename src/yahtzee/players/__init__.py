"""Computer players: 高手 expert, 普通 intermediate, 入门 novice (issue 2 §3, B1).

All implement :class:`yahtzee.players.base.Player` and only ever return legal actions.
"""

from __future__ import annotations

import random

from yahtzee.players.base import Decision, Player, RollDecision, ScoreDecision
from yahtzee.players.expert import ExpertPlayer
from yahtzee.players.intermediate import IntermediatePlayer
from yahtzee.players.novice import NovicePlayer

PLAYER_NAMES: tuple[str, ...] = ("expert", "intermediate", "novice")
"""Stable ids of the difficulty levels (高手, 普通, 入门)."""

PLAYER_ZH = {"expert": "高手", "intermediate": "普通", "novice": "入门"}


def get_player(name: str, rng: random.Random | None = None) -> Player:
    """The player called ``name``; ``rng`` seeds the intermediate player's choices.

    Raises :class:`ValueError` naming the unknown level otherwise.
    """
    if name == "expert":
        return ExpertPlayer()
    if name == "intermediate":
        return IntermediatePlayer(rng)
    if name == "novice":
        return NovicePlayer()
    raise ValueError(f"unknown player {name!r}; expected one of: {', '.join(PLAYER_NAMES)}")


__all__ = [
    "PLAYER_NAMES",
    "PLAYER_ZH",
    "Decision",
    "ExpertPlayer",
    "IntermediatePlayer",
    "NovicePlayer",
    "Player",
    "RollDecision",
    "ScoreDecision",
    "get_player",
]
