"""The devices feature's refusals, each with its HTTP status, stable ``code`` and Chinese
message (the one place they are mapped; docs/api.md lists them)."""

from __future__ import annotations

from yahtzee.i18n import msg
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
        super().__init__(404, "invalid_code", msg("error.devices.invalid_code"))


class AlreadyLinkedError(ApiError):
    """The code is this player's own: nothing to link."""

    def __init__(self) -> None:
        super().__init__(409, "already_linked", msg("error.devices.already_linked"))


class HasOwnDataError(ApiError):
    """The device redeeming a code has games of its own: the player must choose."""

    def __init__(self) -> None:
        super().__init__(409, "choose_merge", msg("error.devices.choose_merge"))


class BothUnfinishedError(ApiError):
    """Both players have an unfinished game: one game a player at a time (F2)."""

    def __init__(self) -> None:
        super().__init__(409, "both_unfinished", msg("error.devices.both_unfinished"))


class DeviceNotFoundError(ApiError):
    """No such device of this player."""

    def __init__(self, device_id: str) -> None:
        super().__init__(404, "not_found", msg("error.devices.not_found", device=device_id[:8]))


class ThisDeviceError(ApiError):
    """A device cannot remove itself (that is 「删除我的数据」 or clearing the browser)."""

    def __init__(self) -> None:
        super().__init__(409, "this_device", msg("error.devices.this_device"))


class ConfirmationNeededError(ApiError):
    """Deleting everything needs ``{"confirm": true}``."""

    def __init__(self) -> None:
        super().__init__(422, "invalid_request", msg("error.devices.confirm"))
