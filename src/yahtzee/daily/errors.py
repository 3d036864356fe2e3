"""每日挑战's and 小组's refusals (D2-D6): the domain errors of :mod:`yahtzee.daily` and
their HTTP answers, which the app consults through the feature (:data:`yahtzee.daily.FEATURE`)."""

from __future__ import annotations

from yahtzee.errors import OverCapError, YahtzeeError
from yahtzee.i18n import N_, msg, msg_n
from yahtzee.server.errors import ApiError
from yahtzee.server.kinds import Refusal, no_undo

#: D3: the day's game refuses hints (the ranking measures the player alone) and 撤销
#: (every player's game is judged alike): the daily kind's rules, which the game service
#: answers with (nothing spent, nothing changed).
NAME = N_("server.kind.daily")
NO_HINTS = Refusal("no_hints_in_daily", msg("error.no_hints_in_daily"))
NO_UNDO = no_undo(NAME)


class AlreadyPlayedError(YahtzeeError):
    """A second attempt at a day's challenge (D2)."""


class NameRequiredError(YahtzeeError):
    """The daily board or a group needs this browser's name first (asked once, D4)."""


class GroupNotFoundError(YahtzeeError):
    """No such group for this browser, or a dead invite token (answered alike, D6)."""


class NotGroupCreatorError(YahtzeeError):
    """Only the group's creator may do this (remove, close, a new link, the trends)."""


class GroupFullError(OverCapError):
    """The group has its maximum of members (D6)."""


class GroupClosedError(YahtzeeError):
    """The group was closed by its creator: no more joins or links."""


class TooManyGroupsError(OverCapError):
    """A browser creating a group while it has the maximum of open groups (F5)."""


class RemovedFromGroupError(YahtzeeError):
    """A browser its group's creator removed, joining that group again (F8: removed means
    out, whatever link it comes with)."""


class GroupNameTakenError(YahtzeeError):
    """Another member of the group has this name, as people see it (F25: case and
    default-ignorable code points aside): two members could not be told apart."""


class DayOutOfRangeError(YahtzeeError):
    """A board asked for a day outside the service's dates (F11); the message names the
    day and the range (``first``..``last``)."""

    def __init__(self, day: object, first: object, last: object) -> None:
        super().__init__(f"the day {day} is outside the boards' dates {first}..{last}")
        self.day = day
        self.first = first
        self.last = last


def api_error(exc: Exception) -> ApiError | None:
    """The daily challenge's and the groups' refusals (D2-D6)."""
    table: tuple[tuple[type[Exception], int, str, str], ...] = (
        (AlreadyPlayedError, 409, "already_played", N_("error.daily.already_played")),
        (NameRequiredError, 409, "name_required", N_("error.daily.name_required")),
        (GroupNotFoundError, 404, "not_found", N_("error.group.not_found")),
        (NotGroupCreatorError, 403, "not_group_creator", N_("error.group.not_creator")),
        (GroupClosedError, 409, "group_closed", N_("error.group.closed")),
        (GroupNameTakenError, 409, "name_taken", N_("error.group.name_taken")),
        (RemovedFromGroupError, 403, "removed_from_group", N_("error.group.removed")),
    )
    # The caps' messages state the configured numbers (K4).
    if isinstance(exc, GroupFullError):
        return ApiError(409, "group_full", msg_n("error.group.full", exc.limit, limit=exc.limit))
    if isinstance(exc, TooManyGroupsError):
        return ApiError(
            409, "too_many_groups", msg_n("error.group.too_many", exc.limit, limit=exc.limit)
        )
    for cls, status, code, key in table:
        if isinstance(exc, cls):
            return ApiError(status, code, msg(key))
    if isinstance(exc, DayOutOfRangeError):
        return ApiError(
            422,
            "date_out_of_range",
            msg("error.daily.date_out_of_range", day=exc.day, first=exc.first, last=exc.last),
        )
    return None
