"""The exception hierarchy of 快艇骰子.

Every error the rules engine raises is a :class:`YahtzeeError`. Callers that only want to
know "was this input bad?" can catch :class:`ValueError`, which every subclass also is.
Messages name the offending value so that a log line or a CLI error is self-explanatory;
the server maps each class to an HTTP status and a message of its own, a catalog key said
in the reader's language (G1).
"""

from __future__ import annotations

from yahtzee.i18n import Msg


class YahtzeeError(ValueError):
    """Base class of every error raised by the :mod:`yahtzee` package."""


class OverCapError(YahtzeeError):
    """A cap reached (F5, F14): ``limit`` is the configured number, which the player's
    message states (K4). Every cap is one of its subclasses: the features' (open rooms, a
    room's streams, open groups, a group's members), each in its package's errors."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class InvalidDiceError(YahtzeeError):
    """Dice that are not five faces in 1..6 (or a malformed dice string)."""


class InvalidScorecardError(YahtzeeError):
    """A scorecard that could not arise in a real game (e.g. ``twos=5``)."""


class IllegalMoveError(YahtzeeError):
    """An action the rules do not allow in the current position."""


class RollLimitError(IllegalMoveError):
    """A fourth roll in one turn, or a roll when no rolls are left."""


class NotRolledError(IllegalMoveError):
    """Scoring, holding or asking for a hint before the first roll of the turn."""


class CategoryUsedError(IllegalMoveError):
    """Scoring in a box that already holds a score."""


class JokerRuleError(IllegalMoveError):
    """Scoring a Yahtzee in a box the forced Joker rule (R6) forbids."""


class GameOverError(IllegalMoveError):
    """Any action after the game has ended."""


class WrongPlayerError(IllegalMoveError):
    """Acting for a player whose turn it is not."""


class NoHintsLeftError(IllegalMoveError):
    """Asking for a fourth hint in one game."""


class NothingToUndoError(IllegalMoveError):
    """撤销 with no box to take back: nothing written yet, a roll since, or this turn's one
    undo already spent."""


class UndoNotAllowedError(IllegalMoveError):
    """撤销 in a mode without it: vs the computer, who rolls at once (issue 21). (A kind of
    game that refuses it in a mode that has it says so by its own rules on the server.)"""


class ZeroNeedsConfirmationError(IllegalMoveError):
    """Writing 0 while another allowed box would score, without confirming it (U2)."""


class AbandonedGameError(IllegalMoveError):
    """Acting on a game that a newer game replaced (重新开始)."""


class CorruptLogError(IllegalMoveError):
    """A stored event log that does not read or replay: a malformed event (the message
    names the bad value), a log that does not begin with ``start``, an event where none
    can be (a ``start`` mid-log, a legacy ``restart_turn`` offered as a new event)."""


class GameNotFoundError(YahtzeeError):
    """No game has this id for this player (another player's game is not found either)."""


class StaleVersionError(YahtzeeError):
    """The game is not at the version the caller acted on: someone else acted first."""


class GameInProgressError(YahtzeeError):
    """A new game while the player's unfinished game ``game_id`` is kept (no ``replace``, F2).

    The server fills in what that game is (``what``: the catalog key of its kind's name),
    its ``difficulty`` and its ``round`` for its message.
    """

    def __init__(
        self,
        game_id: str,
        *,
        what: str | None = None,
        difficulty: str | None = None,
        round_: int | None = None,
    ) -> None:
        super().__init__(f"game {game_id} is still in progress")
        self.game_id = game_id
        self.what = what
        self.difficulty = difficulty
        self.round = round_


class NotReviewableError(IllegalMoveError):
    """A review (复盘) of a game that is not finished: still in progress, or abandoned."""


class InvalidNameError(YahtzeeError):
    """A display name that breaks the rule of :mod:`yahtzee.names`: ``reason`` is one of
    :data:`yahtzee.names.REASONS` (``type``, ``empty``, ``too_long``, ``control``,
    ``invisible``, ``no_visible``, ``marks``, ``computer``) and ``char`` the character at
    fault, if one is; the message names the value."""

    def __init__(self, value: object, reason: str, detail: str, *, char: str | None = None) -> None:
        super().__init__(f"invalid name {value!r}: {detail}")
        self.value = value
        self.reason = reason
        self.char = char


class InvalidSeatsError(YahtzeeError):
    """A table's seats that break T1 (2 to 6 seats, at least one person, each person a
    valid name unique in the game, each computer a level); the message names the seat,
    ``said`` says it to a player (a catalog message, in the reader's language)."""

    def __init__(self, message: str, said: Msg) -> None:
        super().__init__(message)
        self.said = said


class RateLimitExceededError(YahtzeeError):
    """Over a rate limit the database keeps for every server process (F5): the bucket
    ``bucket`` has no token left; one comes back in ``retry_after`` seconds."""

    def __init__(self, bucket: str, retry_after: int) -> None:
        super().__init__(f"rate limit {bucket!r} exceeded: retry after {retry_after} s")
        self.bucket = bucket
        self.retry_after = retry_after


class InvalidPuzzleError(YahtzeeError):
    """A puzzle position or answer that cannot be read (L6): the message names the part."""
