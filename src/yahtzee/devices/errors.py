"""The devices feature's refusals, each with its HTTP status, stable ``code`` and Chinese
message (the one place they are mapped; docs/api.md lists them)."""

from __future__ import annotations

from yahtzee.i18n import Msg, msg
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


class MergeOverLimitError(ApiError):
    """A merge would break a per-player cap that nothing could be given up for (F27: the
    rooms in play, a seat in a game of each browser); the message names it."""

    def __init__(self, message: Msg) -> None:
        super().__init__(409, "merge_over_limit", message)


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


class WrongRecoveryCodeError(ApiError):
    """The recovery code given as proof is not the player's current one (or it has none)."""

    def __init__(self) -> None:
        super().__init__(
            403,
            "wrong_recovery_code",
            msg("error.devices.wrong_recovery_code"),
        )


class RecoveryCodeNeededError(ApiError):
    """This device's player has a recovery code: moving it to another player needs it."""

    def __init__(self) -> None:
        super().__init__(
            403,
            "recovery_code_needed",
            msg("error.devices.recovery_code_needed"),
        )


class TooNewError(ApiError):
    """A device that came in by a link code less than 7 days ago removes only newer ones."""

    def __init__(self) -> None:
        super().__init__(
            403,
            "device_too_new",
            msg("error.devices.too_new"),
        )


class OtherDevicesError(ApiError):
    """A merge would take the records from the player's other devices."""

    def __init__(self) -> None:
        super().__init__(
            409,
            "other_devices",
            msg("error.devices.other_devices"),
        )


class LastWayBackError(ApiError):
    """Signing out the player's only device without a recovery code would lose it."""

    def __init__(self) -> None:
        super().__init__(
            409,
            "last_way_back",
            msg("error.devices.last_way_back"),
        )


class NoRecoveryCodeError(ApiError):
    """There is no recovery code to remove."""

    def __init__(self) -> None:
        super().__init__(404, "not_found", msg("error.devices.no_recovery_code"))


class RequestNotFoundError(ApiError):
    """No such waiting request of this player (done, refused, or someone else's)."""

    def __init__(self, request_id: str) -> None:
        super().__init__(
            404,
            "not_found",
            msg("error.devices.request_not_found", request=request_id[:8]),
        )
