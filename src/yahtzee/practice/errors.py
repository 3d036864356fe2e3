"""练习's refusals (L6): the domain errors of :mod:`yahtzee.practice` and their HTTP answers,
which the app consults through the feature (:data:`yahtzee.practice.FEATURE`)."""

from __future__ import annotations

from yahtzee.errors import YahtzeeError
from yahtzee.i18n import msg
from yahtzee.server.errors import ApiError


class PuzzleNotFoundError(YahtzeeError):
    """No puzzle serving has this id for this player, or it is not the one being served
    now (a newer puzzle replaced it): its answer would grade a stale position (L6)."""


class PuzzleAnsweredError(YahtzeeError):
    """A second answer to one serving of a puzzle (L6): only the first is graded."""


def api_error(exc: Exception) -> ApiError | None:
    """The puzzles' refusals (L6)."""
    if isinstance(exc, PuzzleNotFoundError):
        return ApiError(404, "not_found", msg("error.practice.not_found"))
    if isinstance(exc, PuzzleAnsweredError):
        return ApiError(409, "already_answered", msg("error.practice.already_answered"))
    return None
