"""好友房间's refusals (O1-O9): the domain errors of :mod:`yahtzee.rooms` and their HTTP
answers, which the app consults through the feature (:data:`yahtzee.rooms.FEATURE`)."""

from __future__ import annotations

from yahtzee.errors import OverCapError, YahtzeeError
from yahtzee.i18n import N_, msg, msg_n
from yahtzee.server.errors import ApiError
from yahtzee.server.kinds import Refusal, no_undo

#: A room's game is everyone's (O3): no seat takes a box back, nor gives the game up (the
#: room kind's rules, which the game service answers with; nothing changed).
NAME = N_("server.kind.room")
NO_UNDO = no_undo(NAME)
NO_ABANDON = Refusal("illegal_action", msg("error.room.not_abandoned"))


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


class TooManyStreamsError(OverCapError):
    """A cap on live event streams is reached (O9, F9): ``limit`` streams (this process's
    share of the setting), ``scope`` says which cap, ``room`` (the room's watchers),
    ``invite`` (the same, for the holder of its invite link, F18), ``player`` (this
    browser's) or ``address`` (its address group's)."""

    def __init__(self, message: str, limit: int, scope: str = "room") -> None:
        super().__init__(message, limit)
        self.scope = scope


class InvalidReactionError(YahtzeeError):
    """A reaction that is not one of the fixed set (O6): the message names it."""


def api_error(exc: Exception) -> ApiError | None:
    """The rooms' refusals (O1-O9)."""
    table: tuple[tuple[type[Exception], int, str, str], ...] = (
        (RoomNotFoundError, 404, "not_found", N_("error.room.not_found")),
        (NotRoomCreatorError, 403, "not_room_creator", N_("error.room.not_creator")),
        (RemovedFromRoomError, 403, "removed_from_room", N_("error.room.removed")),
        (StartExpiredError, 409, "start_expired", N_("error.room.start_expired")),
        (RoomFullError, 409, "room_full", N_("error.room.full")),
        (AlreadyStartedError, 409, "already_started", N_("error.room.already_started")),
        (RoomNotReadyError, 409, "room_not_ready", N_("error.room.not_ready")),
        (NameTakenError, 409, "name_taken", N_("error.room.name_taken")),
        (InvalidReactionError, 422, "invalid_reaction", N_("error.room.invalid_reaction")),
    )
    for cls, status, code, key in table:
        if isinstance(exc, cls):
            return ApiError(status, code, msg(key))
    if isinstance(exc, TooManyRoomsError):  # the configured number (K4)
        return ApiError(
            409, "too_many_rooms", msg_n("error.room.too_many", exc.limit, limit=exc.limit)
        )
    if isinstance(exc, TooManyStreamsError):
        key = {
            "player": N_("error.room.streams.player"),
            "address": N_("error.room.streams.address"),
            # (F18: a friend with the invite link counts as a watcher until seated)
            "invite": N_("error.room.streams.invite"),
        }.get(exc.scope, N_("error.room.streams.room"))
        retry = "5" if exc.scope == "invite" else "30"  # (the page asks again after a seat)
        return ApiError(429, "too_many_streams", msg(key), headers={"retry-after": retry})
    return None
