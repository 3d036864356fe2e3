"""The devices feature's refusals, each with its HTTP status, stable ``code`` and Chinese
message (the one place they are mapped; docs/api.md lists them)."""

from __future__ import annotations

from yahtzee.server.errors import ApiError


def api_error(exc: Exception) -> ApiError | None:
    """The feature's errors are :class:`ApiError` s already (each with its status, code and
    message below), which the server answers as they are: nothing else to map."""
    del exc
    return None


class InvalidCodeError(ApiError):
    """A link or recovery code that is unknown, used, expired or replaced (one answer for
    all of them: a guess learns nothing but "no")."""

    def __init__(self) -> None:
        super().__init__(404, "invalid_code", "这个代码不对，或者已经用过、过期了。请再核对一下。")


class AlreadyLinkedError(ApiError):
    """The code is this player's own: nothing to link."""

    def __init__(self) -> None:
        super().__init__(409, "already_linked", "这台设备已经是这位玩家的了。")


class HasOwnDataError(ApiError):
    """The device redeeming a code has games of its own: the player must choose."""

    def __init__(self) -> None:
        super().__init__(
            409,
            "choose_merge",
            "这台设备上已经有自己的记录。要合并到那位玩家吗？不合并就保持分开，什么都不会丢。",
        )


class BothUnfinishedError(ApiError):
    """Both players have an unfinished game: one game a player at a time (F2)."""

    def __init__(self) -> None:
        super().__init__(
            409,
            "both_unfinished",
            "两边各有一局没下完。请先在其中一台设备上下完或放弃那一局，再合并。",
        )


class DeviceNotFoundError(ApiError):
    """No such device of this player."""

    def __init__(self, device_id: str) -> None:
        super().__init__(404, "not_found", f"没有这台设备（{device_id[:8]}…）。")


class ThisDeviceError(ApiError):
    """A device cannot remove itself (that is 「删除我的数据」 or clearing the browser)."""

    def __init__(self) -> None:
        super().__init__(409, "this_device", "不能移除正在使用的这台设备，请在另一台设备上移除它。")


class ConfirmationNeededError(ApiError):
    """Deleting everything needs ``{"confirm": true}``."""

    def __init__(self) -> None:
        super().__init__(422, "invalid_request", "删除前需要确认：请求里要有 confirm: true。")
