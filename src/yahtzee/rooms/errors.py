"""好友房间's refusals (O1-O9): the domain errors of :mod:`yahtzee.rooms` and their HTTP
answers, which the app consults through the feature (:data:`yahtzee.rooms.FEATURE`)."""

from __future__ import annotations

from yahtzee.errors import OverCapError, YahtzeeError
from yahtzee.server.errors import ApiError


class RoomNotFoundError(YahtzeeError):
    """No such room, or a token that does not open it (answered alike: O1, O9)."""


class NotRoomCreatorError(YahtzeeError):
    """Only the room's creator may do this (start, remove a seat's person, O2)."""


class RemovedFromRoomError(YahtzeeError):
    """The room's creator removed this browser from a seat: it stays out of that room (F8)."""


class StartExpiredError(YahtzeeError):
    """The start took longer than the start deadline and was undone (F10): start again."""


class RoomFullError(YahtzeeError):
    """Every person seat of the room is taken (O2)."""


class AlreadyStartedError(YahtzeeError):
    """The room's game has started (or the room is over): no more joins or changes (O2)."""


class RoomNotReadyError(YahtzeeError):
    """The room cannot start: fewer than two seats would play (O2)."""


class NameTakenError(YahtzeeError):
    """Another seat of the room already has this name (compared without case)."""


class TooManyRoomsError(OverCapError):
    """A browser opening a room while it holds the maximum of open rooms (O9)."""


class TooManyStreamsError(YahtzeeError):
    """A cap on live event streams is reached (O9, F9): ``scope`` says which one, ``room``
    (the room's watchers), ``player`` (this browser's) or ``address`` (its address's)."""

    def __init__(self, message: str, scope: str = "room") -> None:
        super().__init__(message)
        self.scope = scope


class InvalidReactionError(YahtzeeError):
    """A reaction that is not one of the fixed set (O6): the message names it."""


def api_error(exc: Exception) -> ApiError | None:
    """The rooms' refusals (O1-O9)."""
    table: tuple[tuple[type[Exception], int, str, str], ...] = (
        (RoomNotFoundError, 404, "not_found", "找不到这个房间，或者邀请链接不对。"),
        (NotRoomCreatorError, 403, "not_room_creator", "只有房主才能这样做。"),
        (
            RemovedFromRoomError,
            403,
            "removed_from_room",
            "房主已经请你离开了这个房间，不能再用这个链接进来。",
        ),
        (
            StartExpiredError,
            409,
            "start_expired",
            "开始对局时服务器太久没有回应，已经取消了。请再点一次「开始对局」。",
        ),
        (RoomFullError, 409, "room_full", "这个房间已经坐满了。"),
        (AlreadyStartedError, 409, "already_started", "这个房间的对局已经开始了。"),
        (
            RoomNotReadyError,
            409,
            "room_not_ready",
            "至少要有两个座位有人（或电脑）才能开始。",
        ),
        (NameTakenError, 409, "name_taken", "房间里已经有人叫这个名字了，请换一个。"),
        (InvalidReactionError, 422, "invalid_reaction", "没有这个表情。"),
    )
    for cls, status, code, message in table:
        if isinstance(exc, cls):
            return ApiError(status, code, message)
    if isinstance(exc, TooManyRoomsError):  # the configured number (K4)
        return ApiError(
            409,
            "too_many_rooms",
            f"你开的房间太多了（最多 {exc.limit} 个进行中的房间），请先下完或等它们结束。",
        )
    if isinstance(exc, TooManyStreamsError):
        message = {
            "player": "你同时打开的房间页面太多了，请关掉几个再试。",
            "address": "你所在的网络同时打开的房间页面太多了，请稍后再试。",
        }.get(exc.scope, "这个房间同时观战的人太多了，请稍后再试。")
        return ApiError(429, "too_many_streams", message, headers={"retry-after": "30"})
    return None
