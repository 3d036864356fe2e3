"""快艇骰子 (Yahtzee): exact rules, an optimal expected-value solver and a browser game."""

from yahtzee.errors import IllegalMoveError, YahtzeeError
from yahtzee.game import Game, Mode, Result, SeatKind
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, ScoreOption, score_options

__version__ = "0.1.0"

__all__ = [
    "CATEGORIES",
    "Category",
    "Dice",
    "Game",
    "IllegalMoveError",
    "Mode",
    "Result",
    "ScoreOption",
    "Scorecard",
    "SeatKind",
    "YahtzeeError",
    "score_options",
]
