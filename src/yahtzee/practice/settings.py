"""练习's settings (F14): each a flag and a variable of the server
(:func:`yahtzee.server.settings.setting`); ``0`` switches a limit off."""

from __future__ import annotations

from dataclasses import dataclass

from yahtzee.server.settings import count, setting


@dataclass(frozen=True, slots=True)
class PracticeSettings:
    """练习's limits (F14): puzzles served per player and per client address and hour,
    each serving a row of ``practice_servings``."""

    servings_per_hour: int = setting(
        600,
        name="max_practice_servings_per_hour",
        help="practice puzzles served per player and hour, 0 = no limit",
        check=count,
    )
    servings_per_hour_per_address: int = setting(
        6000,
        name="max_practice_servings_per_hour_per_address",
        help="puzzles served per client address and hour, whatever its player ids, 0 = no limit",
        check=count,
    )
