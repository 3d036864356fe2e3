"""每日挑战's and 小组's refusals (D2-D6): the domain errors of :mod:`yahtzee.daily` and
their HTTP answers, which the app consults through the feature (:data:`yahtzee.daily.FEATURE`)."""

from __future__ import annotations

from yahtzee.errors import OverCapError, YahtzeeError
from yahtzee.server.errors import ApiError


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
        (
            AlreadyPlayedError,
            409,
            "already_played",
            "今天的每日挑战你已经下过了，明天再来吧！可以看看排行榜。",
        ),
        (NameRequiredError, 409, "name_required", "请先起一个名字，排行榜上会显示它。"),
        (GroupNotFoundError, 404, "not_found", "找不到这个小组，或者邀请链接已经失效。"),
        (NotGroupCreatorError, 403, "not_group_creator", "只有小组的创建者才能这样做。"),
        (GroupClosedError, 409, "group_closed", "这个小组已经关闭了。"),
        (
            RemovedFromGroupError,
            403,
            "removed_from_group",
            "你已经被小组的创建者移出了这个小组，不能再用邀请链接加入。",
        ),
    )
    # The caps' messages state the configured numbers (K4).
    if isinstance(exc, GroupFullError):
        return ApiError(409, "group_full", f"这个小组已经满员了（最多 {exc.limit} 人）。")
    if isinstance(exc, TooManyGroupsError):
        return ApiError(
            409,
            "too_many_groups",
            f"你创建的小组太多了（最多 {exc.limit} 个没关闭的小组），请先关闭不用的小组。",
        )
    for cls, status, code, message in table:
        if isinstance(exc, cls):
            return ApiError(status, code, message)
    if isinstance(exc, DayOutOfRangeError):
        return ApiError(
            422,
            "date_out_of_range",
            f"日期 {exc.day} 不在范围内：排行榜只有 {exc.first} 到 {exc.last} 之间的日子。",
        )
    return None
