"""好友房间's refusals (O1-O9): the domain errors of :mod:`yahtzee.rooms` and their HTTP
answers, which the app consults through the feature (:data:`yahtzee.rooms.FEATURE`)."""

from __future__ import annotations

from yahtzee.errors import OverCapError, YahtzeeError
from yahtzee.i18n import N_, Msg, msg, msg_n
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


class InvalidPaceError(YahtzeeError):
    """A pace (or a live turn's seconds) that is not one of the listed values: the message
    names the value; :attr:`said` is the readable message (W6)."""

    def __init__(self, message: str, said: Msg) -> None:
        super().__init__(message)
        self.said = said


class InvalidRaceError(YahtzeeError):
    """A race's length that is not one of the listed days (W5): the message names the
    value; :attr:`said` is the readable message."""

    def __init__(self, message: str, said: Msg) -> None:
        super().__init__(message)
        self.said = said


class TooManyWaitingRoomsError(OverCapError):
    """A player in the maximum of waiting rooms not over opening or joining one more (W2)."""

    def __init__(self, player_id: str, limit: int) -> None:
        super().__init__(f"{player_id} is in {limit} waiting rooms", limit)


class NudgeTooSoonError(YahtzeeError):
    """「提醒他」 for a seat nudged less than an hour ago (W4): ``retry_after`` seconds
    until it may be nudged again."""

    def __init__(self, room_id: str, seat: int, retry_after: int) -> None:
        super().__init__(f"room {room_id} seat {seat} was nudged {retry_after} s too soon")
        self.retry_after = retry_after


class NotTheirTurnError(YahtzeeError):
    """「提醒他」 for a seat that is not on turn, or whose room is not in play (W4)."""


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
        (NotTheirTurnError, 409, "not_their_turn", N_("error.room.not_their_turn")),
    )
    for cls, status, code, key in table:
        if isinstance(exc, cls):
            return ApiError(status, code, msg(key))
    if isinstance(exc, TooManyRoomsError):  # the configured number (K4)
        return ApiError(
            409, "too_many_rooms", msg_n("error.room.too_many", exc.limit, limit=exc.limit)
        )
    if isinstance(exc, TooManyWaitingRoomsError):
        return ApiError(
            409,
            "too_many_waiting_rooms",
            msg_n("error.room.too_many_waiting", exc.limit, limit=exc.limit),
        )
    if isinstance(exc, InvalidPaceError):  # (the message names the value and the choices)
        return ApiError(422, "invalid_pace", exc.said)
    if isinstance(exc, InvalidRaceError):  # (the message names the value and the choices)
        return ApiError(422, "invalid_race_days", exc.said)
    if isinstance(exc, NudgeTooSoonError):
        minutes = max(1, -(-exc.retry_after // 60))
        return ApiError(
            429,
            "nudge_too_soon",
            msg_n("error.room.nudge_too_soon", minutes, minutes=minutes),
            headers={"retry-after": str(exc.retry_after)},
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
