"""The reminders' refusals (W4, W6): the domain's errors, and :func:`api_error`, the one
place giving each its HTTP status, stable ``code`` and message (a catalog key: docs/api.md
lists them)."""

from __future__ import annotations

from yahtzee.errors import OverCapError, YahtzeeError
from yahtzee.i18n import msg, msg_n
from yahtzee.server.errors import ApiError


class PushRefusedError(YahtzeeError):
    """A subscription or quiet hours the server does not take."""


class EndpointRefusedError(PushRefusedError):
    """A subscription's endpoint is not a push service the browsers use (nor one of
    ``--push-endpoints``): the server never calls an address of someone's choosing.
    ``host`` is what the refusal shows of it."""

    def __init__(self, host: str) -> None:
        super().__init__(f"the endpoint's host {host!r} is no push service")
        self.host = host


class KeysRefusedError(PushRefusedError):
    """A subscription's keys are not a P-256 point and a 16-byte secret."""


class TimeZoneRefusedError(PushRefusedError):
    """A time zone that is no IANA name this server knows."""

    def __init__(self, zone: str) -> None:
        super().__init__(f"unknown time zone {zone!r}")
        self.zone = zone


class QuietHoursRefusedError(PushRefusedError):
    """Quiet hours not written ``HH:MM``."""

    def __init__(self, value: str) -> None:
        super().__init__(f"quiet hours must be HH:MM, got {value!r}")
        self.value = value


class TooManySubscriptionsError(OverCapError):
    """The player's devices that take reminders are at ``--max-push-subscriptions``."""


def api_error(exc: Exception) -> ApiError | None:
    """The reminders' refusals as HTTP answers (``None``: not one of them)."""
    if isinstance(exc, TooManySubscriptionsError):
        return ApiError(
            409, "too_many_subscriptions", msg_n("error.push.too_many", exc.limit, limit=exc.limit)
        )
    if isinstance(exc, EndpointRefusedError):
        return ApiError(422, "invalid_request", msg("error.push.endpoint", host=exc.host))
    if isinstance(exc, KeysRefusedError):
        return ApiError(422, "invalid_request", msg("error.push.keys"))
    if isinstance(exc, TimeZoneRefusedError):
        return ApiError(422, "invalid_request", msg("error.push.time_zone", zone=exc.zone))
    if isinstance(exc, QuietHoursRefusedError):
        return ApiError(422, "invalid_request", msg("error.push.quiet", value=exc.value[:20]))
    return None
