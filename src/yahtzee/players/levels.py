"""The computer levels (B1): the one registry of their ids, names and players.

Everything that names a level reads it from here: the API's models and ``GET
/api/config`` (so the page's menu), the CLI's ``simulate --player``, the stored games.
To add a level, write its player module and add one :class:`Difficulty` member and one
:data:`LEVELS` entry below; the API, the page and the tests that iterate over the levels
pick it up.

Player classes are imported only when a level is first played, so reading the registry
(or importing the numpy-free novice) does not load the solver.
"""

from __future__ import annotations

import enum
import importlib
import random
from collections.abc import Mapping
from dataclasses import dataclass

from yahtzee.i18n import N_, Msg, msg
from yahtzee.turn import Player


class Difficulty(enum.Enum):
    """A computer level's stable id, weakest first."""

    NOVICE = "novice"
    INTERMEDIATE = "intermediate"
    EXPERT = "expert"

    @property
    def name_key(self) -> str:
        """The catalog key of its name (入门 / 普通 / 高手, Beginner / Normal / Expert)."""
        return LEVELS[self].name_key

    @classmethod
    def parse(cls, text: str) -> Difficulty:
        """Look a level up by its id; :class:`ValueError` naming the known ids otherwise."""
        try:
            return cls(text)
        except ValueError:
            known = ", ".join(d.value for d in cls)
            raise ValueError(f"unknown level {text!r}; expected one of: {known}") from None


@dataclass(frozen=True, slots=True)
class Level:
    """A level's name, one line on how it plays (their catalog keys, G1: said in the
    reader's language; ``/api/config``'s ``name_key`` and ``summary_key``), and where its
    player lives.

    ``player`` is ``"module:Class"``; the class is built with ``Class()`` or, when
    ``seeded``, ``Class(rng)`` (players that make random choices take the injected rng).
    """

    name_key: str
    summary_key: str
    player: str
    seeded: bool = False


LEVELS: Mapping[Difficulty, Level] = {
    Difficulty.NOVICE: Level(
        N_("core.level.novice"),
        N_("core.level.novice_summary"),
        "yahtzee.players.novice:NovicePlayer",
    ),
    Difficulty.INTERMEDIATE: Level(
        N_("core.level.intermediate"),
        N_("core.level.intermediate_summary"),
        "yahtzee.players.intermediate:IntermediatePlayer",
        seeded=True,
    ),
    Difficulty.EXPERT: Level(
        N_("core.level.expert"),
        N_("core.level.expert_summary"),
        "yahtzee.players.expert:ExpertPlayer",
    ),
}

COMPUTER_NAME = N_("core.computer")
"""The catalog key of what a computer seat is called (电脑, Computer): 「电脑（高手）」, or
「电脑3（普通）」 at a table with several (the page's words; :mod:`yahtzee.names` keeps
people from taking them in any language, F16)."""


def level_choices() -> Msg:
    """The levels' names as a choice, weakest first (「入门、普通 或 高手」, "Beginner,
    Normal or Expert"), said in the reader's language: for the messages that list them
    (K4: read from here, never copied)."""
    names = [msg(LEVELS[d].name_key) for d in Difficulty]
    listed = names[0]
    for name in names[1:-1]:
        listed = msg("server.list.and_more", first=listed, next=name)
    return msg("server.list.or", first=listed, last=names[-1])


DEFAULT_DIFFICULTY = Difficulty.EXPERT
"""The level of a vs game when none is chosen (B1)."""
HINT_DIFFICULTY = Difficulty.EXPERT
"""Whose advice the 「提示」 button gives (U4)."""
SUGGESTED_DIFFICULTY = Difficulty.INTERMEDIATE
"""The level the lobby offers a new player first (P5); 高手 is one click away."""


def get_player(difficulty: Difficulty | str, rng: random.Random | None = None) -> Player:
    """A new player of ``difficulty`` (an enum member or its id); ``rng`` seeds its choices.

    Raises :class:`ValueError` naming an unknown level.
    """
    level = difficulty if isinstance(difficulty, Difficulty) else Difficulty.parse(difficulty)
    module, _, name = LEVELS[level].player.partition(":")
    cls = getattr(importlib.import_module(module), name)
    player: Player = cls(rng) if LEVELS[level].seeded else cls()
    return player
