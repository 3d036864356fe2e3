"""The tables of 好友房间 (rooms, O1-O9): the rooms, their seats and their event log.

They live in the feature database (:mod:`yahtzee.storage.feature_db`, both backends, one
code path): the games' tables are never touched, a room only *names* its game by id.

* ``rooms`` — one row per room: its creator, status (``waiting`` → ``starting`` →
  ``playing`` → ``finished``; ``waiting`` → ``expired`` after a day), turn time, the game
  once started, the deadline of the turn being played, the turn it is for (set once a
  turn, F12) and the game's version it was set at (the 托管 sweeper's index and its
  compare-and-set, O5), the claim of a start (the id its game will have and when: a
  claim not followed by its game is undone by the sweep, F10), the serial of its links
  (F7), the room a rematch made (O7) and ``last_seq``, the last event id of the room.
* ``room_seats`` — the seats in playing order: a person seat's browser (its signed player
  id) and name once taken, a computer seat's level, the 托管 flag (``away``) and the time
  of the seat's last reaction (1 a second, O6, checked in the transaction that logs it, so
  it holds across processes).
* ``room_events`` — the room's event log, ``(room_id, seq)`` its primary key. The ``seq``
  is taken by ``UPDATE rooms SET last_seq = last_seq + 1 ... RETURNING``: the row lock
  serialises the room's writers in one process or several, so ids are dense, ordered
  and commit in order. This log is what a stream replays after ``Last-Event-ID`` (O4).
* ``room_bans`` — the browsers the creator removed from a seat: kept out of that room (F8).

On PostgreSQL the event's insert also runs ``pg_notify`` in the same transaction: the
notification is delivered at commit, in commit order, to every process that listens
(:mod:`yahtzee.rooms.stream`), and never for a transaction that rolled back. Its
payload is the event itself when it fits (under :data:`NOTIFY_MAX` bytes), else only the
room and id, which the listener then reads back from this log.

Invite tokens (O1, O9) are :mod:`yahtzee.storage.invites` tokens derived from the server
secret and the room's link serial (``room`` to take a seat, ``room_watch`` to watch),
stored as digests and checked in constant time against the room's own digests; a renewal
(F7) deletes the old digests and stores the next serial's.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from yahtzee.errors import RateLimitExceededError
from yahtzee.i18n import N_, msg
from yahtzee.lru import LruCache
from yahtzee.names import name_key
from yahtzee.rooms.errors import (
    AlreadyStartedError,
    NameTakenError,
    NotRoomCreatorError,
    RemovedFromRoomError,
    RoomFullError,
    RoomNotFoundError,
    RoomNotReadyError,
    TooManyRoomsError,
    TooManyWaitingRoomsError,
)
from yahtzee.storage.feature_db import FeatureDb, Row, Tx
from yahtzee.storage.invites import check_in, delete_in, derived_token, issue_in
from yahtzee.storage.player_data import (
    MergeNote,
    MergeOverCapError,
    export_games,
    keeps,
    unname_seat,
)
from yahtzee.storage.schema import Migrations

FEATURE = "rooms"
ROOM_INVITE = "room"  # a token that takes a seat
ROOM_WATCH = "room_watch"  # a token that only watches
NOTIFY_CHANNEL = "yahtzee_rooms"
#: PostgreSQL refuses a notification payload of 8000 bytes or more.
NOTIFY_MAX = 7800
#: Rooms whose state a process keeps for :meth:`RoomStore.record` (a few hundred bytes each).
KNOWN_ROOMS = 10_000
#: Plans of one game action's events on a room that another process keeps moving, before
#: :meth:`RoomStore.record` locks the room's row instead.
RECORD_TRIES = 3
#: Statuses of a room that still counts against its creator's open rooms (O9).
OPEN = ("waiting", "starting", "playing")
#: The head of the owner of a race's seat game (W5: ``race:<room>:<seat>``,
#: :func:`~yahtzee.rooms.race.race_owner`), and the same owner as SQL of a seat row ``s``.
RACE_OWNER = "race:"
_RACE_OWNER_SQL = f"'{RACE_OWNER}' || s.room_id || ':' || CAST(s.idx AS TEXT)"
#: The games of the race seats ``:player_id`` holds (W5: its own, in the export and the
#: erasure).
_RACE_GAMES_OF = (
    f"player_id IN (SELECT {_RACE_OWNER_SQL} FROM room_seats s JOIN rooms r "
    "ON r.id = s.room_id WHERE s.player_id = :player_id AND r.pace = 'race')"
)

MIGRATIONS = Migrations.shared(
    FEATURE,
    (
        (
            """CREATE TABLE rooms (
            id TEXT PRIMARY KEY,
            creator_id TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN
                ('waiting', 'starting', 'playing', 'finished', 'expired')),
            turn_seconds INTEGER NOT NULL,
            game_id TEXT,
            created_at DOUBLE PRECISION NOT NULL,
            deadline DOUBLE PRECISION,
            deadline_version INTEGER,
            rematch_id TEXT,
            last_seq INTEGER NOT NULL DEFAULT 0
        )""",
            "CREATE INDEX rooms_creator ON rooms (creator_id, status)",
            "CREATE INDEX rooms_deadline ON rooms (deadline) WHERE deadline IS NOT NULL",
            "CREATE INDEX rooms_waiting ON rooms (created_at) WHERE status = 'waiting'",
            "CREATE INDEX rooms_game ON rooms (game_id) WHERE game_id IS NOT NULL",
            """CREATE TABLE room_seats (
            room_id TEXT NOT NULL REFERENCES rooms (id),
            idx INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('human', 'computer')),
            difficulty TEXT,
            player_id TEXT,
            name TEXT,
            away INTEGER NOT NULL DEFAULT 0,
            reacted_at DOUBLE PRECISION,
            PRIMARY KEY (room_id, idx)
        )""",
            "CREATE INDEX room_seats_player ON room_seats (player_id) WHERE player_id IS NOT NULL",
            """CREATE TABLE room_events (
            room_id TEXT NOT NULL REFERENCES rooms (id),
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (room_id, seq)
        )""",
        ),
        (
            # F7: the links' serial (a renewal derives new tokens from serial + 1).
            "ALTER TABLE rooms ADD COLUMN link_serial INTEGER NOT NULL DEFAULT 0",
            # F10: the claim of a start: the id its game will have and when it was claimed.
            "ALTER TABLE rooms ADD COLUMN start_game TEXT",
            "ALTER TABLE rooms ADD COLUMN start_at DOUBLE PRECISION",
            "CREATE INDEX rooms_starting ON rooms (start_at) WHERE status = 'starting'",
            # F12: the turn the deadline was set for (round * 8 + seat).
            "ALTER TABLE rooms ADD COLUMN deadline_turn INTEGER",
            # F8: browsers the creator removed, kept out of that room; the seat they held and
            # the events from its join to the removal, whose name an erasure (I4) takes out.
            """CREATE TABLE room_bans (
            room_id TEXT NOT NULL REFERENCES rooms (id),
            player_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            join_seq INTEGER NOT NULL,
            leave_seq INTEGER NOT NULL,
            PRIMARY KEY (room_id, player_id)
        )""",
        ),
        (
            # W1: the pace (live, or a turn that waits hours or days, or no clock), when a
            # person last acted (a waiting room idle for days is finished), a sweeper's
            # lease on a due turn (one process plays it, another once the lease ran out),
            # and the turn's next reminder point (W4).
            "ALTER TABLE rooms ADD COLUMN pace TEXT NOT NULL DEFAULT 'live'",
            "ALTER TABLE rooms ADD COLUMN acted_at DOUBLE PRECISION",
            "ALTER TABLE rooms ADD COLUMN sweep_until DOUBLE PRECISION",
            "ALTER TABLE rooms ADD COLUMN remind_at DOUBLE PRECISION",
            "CREATE INDEX rooms_idle ON rooms (acted_at) "
            "WHERE status = 'playing' AND pace <> 'live'",
            "CREATE INDEX rooms_remind ON rooms (remind_at) WHERE remind_at IS NOT NULL",
            # W1: the turns in a row 托管 played for a seat; W3: the last event its person
            # saw; W4: when someone last nudged it (「提醒他」).
            "ALTER TABLE room_seats ADD COLUMN missed INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE room_seats ADD COLUMN seen_seq INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE room_seats ADD COLUMN nudged_at DOUBLE PRECISION",
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat of a new room: a person (the creator's, or in a rematch every person's,
    with its browser and ``name``; else open) or a computer at ``difficulty``."""

    kind: str
    name: str | None = None
    difficulty: str | None = None
    player_id: str | None = None


@dataclass(frozen=True, slots=True)
class RoomSeat:
    """A seat of a room as stored."""

    index: int
    kind: str
    difficulty: str | None
    player_id: str | None
    name: str | None
    away: bool
    missed: int = 0  # the turns in a row 托管 played for it (W1)
    seen_seq: int = 0  # the last event of the room its person saw (W3)

    @property
    def is_person(self) -> bool:
        """A person's seat (taken or open)."""
        return self.kind == "human"

    @property
    def taken(self) -> bool:
        """A person seat with its browser (computers are never "taken")."""
        return self.player_id is not None


@dataclass(frozen=True, slots=True)
class Room:
    """A room and its seats in playing order."""

    id: str
    creator_id: str
    status: str
    turn_seconds: int
    game_id: str | None
    created_at: float
    deadline: float | None
    deadline_version: int | None
    rematch_id: str | None
    last_seq: int
    seats: tuple[RoomSeat, ...]
    link_serial: int = 0
    start_game: str | None = None
    start_at: float | None = None
    deadline_turn: int | None = None
    pace: str = "live"
    acted_at: float | None = None
    remind_at: float | None = None

    def seat_of(self, player_id: str) -> RoomSeat | None:
        """The seat this browser holds, if any (a browser holds at most one, O2)."""
        return next((s for s in self.seats if s.player_id == player_id), None)


@dataclass(frozen=True, slots=True)
class FinishedSeat:
    """A seat a browser held in a finished room (O7) or race (W5): the room, its game id
    (a race's: the base of its seats' game ids), the name played under, the seat's index
    and the room's pace."""

    room_id: str
    game_id: str
    name: str
    index: int
    pace: str


@dataclass(frozen=True, slots=True)
class RoomEvent:
    """One event of a room's log: its id (``seq``, dense and ordered per room), its kind
    and its JSON data. :meth:`to_json`/:meth:`from_json` are the print/parse pair of the
    form sent through ``NOTIFY``."""

    room_id: str
    seq: int
    kind: str
    data: dict[str, Any]
    #: ``data`` as logged (compact JSON), when known: the stream's frame is made from it
    #: rather than by encoding ``data`` again (:func:`yahtzee.rooms.stream.sse_frame`).
    text: str | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> str:
        """``{"r", "s", "k", "d"}`` as compact JSON."""
        return json.dumps(
            {"r": self.room_id, "s": self.seq, "k": self.kind, "d": self.data},
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> RoomEvent:
        """Read :meth:`to_json`'s form (``ValueError`` naming the text if it is not)."""
        try:
            raw = json.loads(text)
            event = cls(str(raw["r"]), int(raw["s"]), str(raw["k"]), dict(raw["d"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"not a room event: {text[:80]!r} ({exc})") from None
        return event


_ROOM = (
    "id, creator_id, status, turn_seconds, game_id, created_at, deadline, rematch_id, last_seq, "
    "deadline_version, link_serial, start_game, start_at, deadline_turn, pace, acted_at, remind_at"
)


_ROOM_WITH_SEATS = (
    ", ".join(f"r.{c.strip()}" for c in _ROOM.split(","))
    + ", s.idx, s.kind, s.difficulty, s.player_id, s.name, s.away, s.missed, s.seen_seq "
    "FROM rooms r LEFT JOIN room_seats s ON s.room_id = r.id WHERE r.id = :room ORDER BY s.idx"
)
_ROOM_COLUMNS = len(_ROOM.split(","))


async def _room_in(tx: Tx, room_id: str, *, lock: bool = False) -> Room | None:
    """The room and its seats, one statement (one round trip, one snapshot)."""
    suffix = " FOR UPDATE OF r" if lock and tx.dialect == "postgresql" else ""
    rows = await tx.all(f"SELECT {_ROOM_WITH_SEATS}{suffix}", {"room": room_id})
    if not rows:
        return None
    n = _ROOM_COLUMNS
    return _room(rows[0][:n], [r[n:] for r in rows if r[n] is not None])


def _room(row: Row, seats: Sequence[Row]) -> Room:
    return Room(
        id=str(row[0]),
        creator_id=str(row[1]),
        status=str(row[2]),
        turn_seconds=int(row[3]),
        game_id=row[4],
        created_at=float(row[5]),
        deadline=None if row[6] is None else float(row[6]),
        deadline_version=None if row[9] is None else int(row[9]),
        rematch_id=row[7],
        last_seq=int(row[8]),
        seats=tuple(
            RoomSeat(int(s[0]), s[1], s[2], s[3], s[4], bool(s[5]), int(s[6]), int(s[7]))
            for s in seats
        ),
        link_serial=int(row[10]),
        start_game=row[11],
        start_at=None if row[12] is None else float(row[12]),
        deadline_turn=None if row[13] is None else int(row[13]),
        pace=str(row[14]),
        acted_at=None if row[15] is None else float(row[15]),
        remind_at=None if row[16] is None else float(row[16]),
    )


@overload
async def append_in(
    tx: Tx,
    room_id: str,
    kind: str,
    data: dict[str, Any],
    now: float,
    *,
    also_set: str = "",
    also_params: Mapping[str, Any] | None = None,
    expected: None = None,
) -> RoomEvent: ...


@overload
async def append_in(
    tx: Tx,
    room_id: str,
    kind: str,
    data: dict[str, Any],
    now: float,
    *,
    also_set: str = "",
    also_params: Mapping[str, Any] | None = None,
    expected: int,
) -> RoomEvent | None: ...


async def append_in(
    tx: Tx,
    room_id: str,
    kind: str,
    data: dict[str, Any],
    now: float,
    *,
    also_set: str = "",
    also_params: Mapping[str, Any] | None = None,
    expected: int | None = None,
) -> RoomEvent | None:
    """Log an event of ``room_id`` in the caller's transaction: the next id, the row,
    and on PostgreSQL the notification (delivered at commit). ``also_set`` (``", col =
    :col"``..., its parameters ``also_params``) sets more of the room's columns in the
    same ``UPDATE``. With ``expected``, only if the room's last id is still that (else
    ``None``, nothing written): the caller planned the event on the room as it was then.

    On PostgreSQL the three are one statement (the ``UPDATE``, the ``INSERT`` and
    ``pg_notify`` in data-modifying ``WITH`` clauses), one round trip instead of three:
    a room's every action writes here. The payload is :meth:`RoomEvent.to_json`'s form,
    put together around the id the ``UPDATE`` returns."""
    if tx.dialect == "postgresql":
        sql, params, text = _event_statement(
            room_id, kind, data, now, also_set=also_set, also_params=also_params, expected=expected
        )
    else:  # (the UPDATE alone here; the row below)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        sql, params = _bump(room_id, kind, text, now, also_set, also_params, expected)
    row = await tx.one(sql, params)
    if row is None:
        if expected is not None:
            return None
        raise RoomNotFoundError(room_id)
    event = RoomEvent(room_id, int(row[0]), kind, data, text)
    if tx.dialect != "postgresql":
        await tx.all(
            "INSERT INTO room_events (room_id, seq, kind, data, at) "
            "VALUES (:room, :seq, :kind, :data, :now)",
            {**params, "seq": event.seq},
        )
    return event


def _bump(
    room_id: str,
    kind: str,
    text: str,
    now: float,
    also_set: str,
    also_params: Mapping[str, Any] | None,
    expected: int | None,
) -> tuple[str, dict[str, Any]]:
    """The ``UPDATE`` that takes the room's next id (see :func:`append_in`), and the
    parameters of the event's row."""
    where = "id = :room" if expected is None else "id = :room AND last_seq = :expected"
    bump = f"UPDATE rooms SET last_seq = last_seq + 1{also_set} WHERE {where} RETURNING last_seq"
    params = {**(also_params or {}), "room": room_id, "kind": kind, "data": text, "now": now}
    if expected is not None:
        params["expected"] = expected
    return bump, params


def _event_statement(
    room_id: str,
    kind: str,
    data: dict[str, Any],
    now: float,
    *,
    also_set: str = "",
    also_params: Mapping[str, Any] | None = None,
    expected: int | None = None,
) -> tuple[str, dict[str, Any], str]:
    """PostgreSQL's one statement of :func:`append_in` (the ``UPDATE``, the ``INSERT``
    and ``pg_notify`` in data-modifying ``WITH`` clauses), its parameters and the data's
    JSON text. It yields the new id, or no row when the room is not there (or, with
    ``expected``, moved on)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    bump, params = _bump(room_id, kind, text, now, also_set, also_params, expected)
    head = '{"r":' + json.dumps(room_id) + ',"s":'
    tail = ',"k":' + json.dumps(kind, ensure_ascii=False) + ',"d":' + text + "}"
    if len(head.encode()) + len(tail.encode()) + 12 >= NOTIFY_MAX:
        tail = "}"  # too long to send: the listener reads it back from the log
    sql = (
        f"WITH r AS ({bump}), e AS (INSERT INTO room_events (room_id, seq, kind, data, at) "
        "SELECT :room, last_seq, :kind, :data, :now FROM r RETURNING seq) "
        "SELECT seq, pg_notify(:channel, :head::text || seq::text || :tail::text) FROM e"
    )
    return sql, {**params, "channel": NOTIFY_CHANNEL, "head": head, "tail": tail}, text


@dataclass(frozen=True, slots=True)
class Publication:
    """An event to log with what it changes in the room (:meth:`RoomStore.publish`): the
    turn ``deadline`` (``None`` clears it; ``False`` leaves it) with the game ``version``
    it is for and the turn's first reminder point ``remind_at`` (W4; ``False`` leaves it),
    ``finished``, seats'
    托管 flags (``away``: seat → flag) and turns 托管 played in a row (``missed``: seat →
    count, W1), and ``acted_at``, when a person acted (W1: a waiting room idle for days is
    finished)."""

    kind: str
    data: dict[str, Any]
    deadline: float | bool | None = False
    version: int | None = None
    finished: bool = False
    away: dict[int, bool] | None = None
    turn: int | None = None
    missed: dict[int, int] | None = None
    remind_at: float | bool | None = False
    acted_at: float | None = None

    @property
    def sets_seats(self) -> bool:
        """Whether it writes seats' rows too (then it is logged in a locked transaction)."""
        return bool(self.away) or bool(self.missed)


#: A game action's deadline is written only over one set for an earlier version of the game:
#: two processes may log the events of one game's consecutive actions in either order, and
#: the later action's deadline (and the version the sweeper plays) must win.
_NEWER = (
    "CASE WHEN deadline_version IS NULL OR deadline_version <= :version "
    "THEN :{value} ELSE {col} END"
)


async def _publish_in(tx: Tx, room_id: str, pub: Publication, now: float) -> RoomEvent:
    event = await _publish_if(tx, room_id, pub, now, None)
    assert event is not None
    return event


async def _publish_if(
    tx: Tx, room_id: str, pub: Publication, now: float, expected: int | None
) -> RoomEvent | None:
    """:func:`_publish_in`, with ``expected`` as :func:`append_in`'s (then one statement:
    a publication that sets no seat's 托管 flag, see :meth:`RoomStore.record`)."""
    assert expected is None or not pub.sets_seats
    for index, flag in (pub.away or {}).items():
        await tx.all(
            "UPDATE room_seats SET away = :away WHERE room_id = :room AND idx = :idx",
            {"away": int(flag), "room": room_id, "idx": index},
        )
    for index, count in (pub.missed or {}).items():
        await tx.all(
            "UPDATE room_seats SET missed = :missed WHERE room_id = :room AND idx = :idx",
            {"missed": count, "room": room_id, "idx": index},
        )
    also, params = _room_columns(pub)
    if expected is None:
        return await append_in(
            tx, room_id, pub.kind, pub.data, now, also_set=also, also_params=params
        )
    return await append_in(
        tx, room_id, pub.kind, pub.data, now, also_set=also, also_params=params, expected=expected
    )


def _room_columns(pub: Publication) -> tuple[str, dict[str, Any]]:
    """What else of the room's row ``pub`` sets (``", col = ..."``) and its parameters:
    a game's end, or the turn's deadline (:data:`_NEWER`'s rule)."""
    params: dict[str, Any] = {}
    if pub.finished:
        also = ", status = 'finished', deadline = NULL, remind_at = NULL"
    elif pub.deadline is not False and pub.version is not None:
        # (a new deadline ends any sweeper's lease on the old one)
        columns = [("deadline", "deadline"), ("deadline_turn", "turn")]
        columns += [("deadline_version", "version")]
        params = {"deadline": pub.deadline, "turn": pub.turn, "version": pub.version}
        if pub.remind_at is not False:
            columns.append(("remind_at", "remind_at"))
            params["remind_at"] = pub.remind_at
        also = ", sweep_until = NULL" + "".join(
            f", {col} = " + _NEWER.format(col=col, value=value) for col, value in columns
        )
    elif pub.deadline is not False:
        also, params = ", deadline = :deadline, sweep_until = NULL", {"deadline": pub.deadline}
        if pub.remind_at is not False:
            also += ", remind_at = :remind_at"
            params["remind_at"] = pub.remind_at
    else:
        also = ""
    if pub.acted_at is not None:
        also += ", acted_at = :acted_at"
        params["acted_at"] = pub.acted_at
    return also, params


def after_publication(room: Room, pub: Publication, seq: int) -> Room:
    """The room as logging ``pub`` as its event ``seq`` leaves it: what
    :func:`_publish_in`'s statements write (the same rules, the deadline's :data:`_NEWER`
    included), worked out without reading it back."""
    seats = room.seats
    if pub.away:
        flags = pub.away
        seats = tuple(
            dataclasses.replace(s, away=flags[s.index]) if s.index in flags else s for s in seats
        )
    if pub.missed:
        counts = pub.missed
        seats = tuple(
            dataclasses.replace(s, missed=counts[s.index]) if s.index in counts else s
            for s in seats
        )
    status, deadline = room.status, room.deadline
    turn, version, remind = room.deadline_turn, room.deadline_version, room.remind_at
    if pub.finished:
        status, deadline, remind = "finished", None, None
    elif pub.deadline is not False and pub.version is not None:
        if version is None or version <= pub.version:
            deadline, turn, version = _seconds(pub.deadline), pub.turn, pub.version
            remind = remind if pub.remind_at is False else _seconds(pub.remind_at)
    elif pub.deadline is not False:
        deadline = _seconds(pub.deadline)
        remind = remind if pub.remind_at is False else _seconds(pub.remind_at)
    return dataclasses.replace(
        room,
        seats=seats,
        status=status,
        deadline=deadline,
        deadline_turn=turn,
        deadline_version=version,
        remind_at=remind,
        acted_at=room.acted_at if pub.acted_at is None else pub.acted_at,
        last_seq=seq,
    )


def _seconds(deadline: float | bool | None) -> float | None:
    return None if deadline is None else float(deadline)


def _for_plans(room: Room) -> Room:
    """``room`` as :attr:`RoomStore._known` keeps it: its seats without names or browsers
    (a plan reads their indices and 托管 flags only)."""
    if all(s.name is None and s.player_id is None for s in room.seats):
        return room
    seats = tuple(dataclasses.replace(s, name=None, player_id=None) for s in room.seats)
    return dataclasses.replace(room, seats=seats)


class RoomStore:
    """Every read and write of the rooms (one transaction each)."""

    def __init__(self, db: FeatureDb, secret: bytes) -> None:
        self.db = db
        self._secret = secret  # derives the rooms' tokens (storage.invites)
        # The rooms as this process last wrote them, for :meth:`record`'s plans only (one
        # bounded cache, K4): an entry is used only through a write conditional on its
        # ``last_seq``, so one that another process (or another write here) made stale
        # costs a read, never a wrong event. Kept without the seats' names and browsers
        # (:func:`_for_plans`), which no plan reads: nothing of a person waits here after
        # their data is deleted (F24).
        self._known: LruCache[str, Room] = LruCache(KNOWN_ROOMS)

    def invite_token(self, room_id: str, serial: int = 0) -> str:
        """The token of the room's invite link (takes a seat); ``serial`` counts the
        room's renewals of its links (F7)."""
        return derived_token(self._secret, ROOM_INVITE, room_id, serial)

    def watch_token(self, room_id: str, serial: int = 0) -> str:
        """The token of the room's watch link (read-only)."""
        return derived_token(self._secret, ROOM_WATCH, room_id, serial)

    # -- reads ---------------------------------------------------------------------------

    async def room(self, room_id: str) -> Room | None:
        """The room with its seats."""
        return await self.db.run(lambda tx: _room_in(tx, room_id), write=False)

    async def room_of_game(self, game_id: str) -> Room | None:
        """The room whose game is ``game_id`` (``None``: not a room's game)."""

        async def work(tx: Tx) -> Room | None:
            row = await tx.one("SELECT id FROM rooms WHERE game_id = :game", {"game": game_id})
            return None if row is None else await _room_in(tx, str(row[0]))

        return await self.db.run(work, write=False)

    async def role(self, room_id: str, token: object, player_id: str | None = None) -> str | None:
        """What ``token`` opens in the room for ``player_id``: ``"banned"`` (the creator
        removed this browser, F8: nothing), ``"seat"`` (the invite link), ``"watch"``, or
        ``None``. Both of the room's digests are compared in constant time."""

        async def work(tx: Tx) -> str | None:
            if player_id is not None and await _banned_in(tx, room_id, player_id):
                return "banned"
            if await check_in(tx, ROOM_INVITE, room_id, token):
                return "seat"
            if await check_in(tx, ROOM_WATCH, room_id, token):
                return "watch"
            return None

        return await self.db.run(work, write=False)

    async def events(self, room_id: str, after: int, limit: int = 1000) -> list[RoomEvent]:
        """The room's events with ids above ``after``, in order (at most ``limit``)."""
        rows = await self.db.run(
            lambda tx: tx.all(
                "SELECT seq, kind, data FROM room_events WHERE room_id = :room AND seq > :after "
                "ORDER BY seq LIMIT :limit",
                {"room": room_id, "after": after, "limit": limit},
            ),
            write=False,
        )
        return [RoomEvent(room_id, int(s), str(k), json.loads(d), str(d)) for s, k, d in rows]

    async def last_event(self, room_id: str, kind: str) -> dict[str, Any] | None:
        """The data of the room's last event of ``kind`` (a race's ``end``, W5)."""
        row = await self.db.one(
            "SELECT data FROM room_events WHERE room_id = :room AND kind = :kind "
            "ORDER BY seq DESC LIMIT 1",
            {"room": room_id, "kind": kind},
            write=False,
        )
        return None if row is None else dict(json.loads(row[0]))

    async def stuck(self, cutoff: float, limit: int = 100) -> list[Room]:
        """Rooms whose start was claimed before ``cutoff`` and is not done (F10: the
        process that claimed it died, or waits on a database that does not answer), and
        those left ``starting`` by a version that did not record its claims."""
        return await self._rooms_by(
            "SELECT id FROM rooms WHERE status = 'starting' "
            "AND (start_at < :cutoff OR start_at IS NULL) ORDER BY start_at LIMIT :limit",
            {"cutoff": cutoff, "limit": limit},
        )

    async def _rooms_by(self, sql: str, params: dict[str, Any]) -> list[Room]:
        """The rooms whose ids ``sql`` selects, in its order, read in one transaction."""

        async def work(tx: Tx) -> list[Room]:
            rooms = [await _room_in(tx, str(i)) for (i,) in await tx.all(sql, params)]
            return [r for r in rooms if r is not None]

        return await self.db.run(work, write=False)

    async def due(self, now: float, limit: int = 100, lease: float = 0.0) -> list[Room]:
        """Rooms in play whose turn deadline has passed (the 托管 sweeper, O5), soonest
        first. With a ``lease`` (seconds) they are claimed for this process: another
        process's sweep skips them until the lease runs out (a process killed while it
        played them leaves them to the others then) or a new deadline ends it, so that
        processes sweeping many due rooms at once (W1's waiting rooms) share them instead
        of playing the same ones and losing the game's compare-and-set."""
        due = (
            "SELECT id FROM rooms WHERE deadline IS NOT NULL AND deadline <= :now "
            "AND status = 'playing' {free}ORDER BY deadline LIMIT :limit"
        )
        if lease <= 0:
            return await self._rooms_by(due.format(free=""), {"now": now, "limit": limit})
        free = "(sweep_until IS NULL OR sweep_until <= :now)"

        async def work(tx: Tx) -> list[Room]:
            skip = " FOR UPDATE SKIP LOCKED" if tx.dialect == "postgresql" else ""
            rows = await tx.all(
                f"UPDATE rooms SET sweep_until = :until WHERE id IN "
                f"({due.format(free=f'AND {free} ')}{skip}) AND {free} RETURNING id",
                {"now": now, "limit": limit, "until": now + lease},
            )
            rooms = [await _room_in(tx, str(i)) for (i,) in rows]
            found = [r for r in rooms if r is not None]
            return sorted(found, key=lambda r: r.deadline or 0.0)

        if (
            await self.db.one(
                due.format(free=f"AND {free} "), {"now": now, "limit": 1}, write=False
            )
            is None
        ):
            return []  # (nothing due: no write lock taken, as :meth:`expire`)
        return await self.db.run(work)

    async def idle(self, cutoff: float, limit: int = 100) -> list[Room]:
        """Waiting rooms in play in which no person has acted since ``cutoff`` (W1)."""
        return await self._rooms_by(
            # (a race, W5, ends at its own deadline: never idle)
            "SELECT id FROM rooms WHERE status = 'playing' AND pace <> 'live' "
            "AND pace <> 'race' AND acted_at < :cutoff ORDER BY acted_at LIMIT :limit",
            {"cutoff": cutoff, "limit": limit},
        )

    async def reminders_due(self, now: float, limit: int = 100) -> list[Room]:
        """Rooms in play whose turn passed a reminder point (W4: 80 %, an hour before)."""
        return await self._rooms_by(
            "SELECT id FROM rooms WHERE remind_at IS NOT NULL AND remind_at <= :now "
            "AND status = 'playing' ORDER BY remind_at LIMIT :limit",
            {"now": now, "limit": limit},
        )

    async def take_reminders(self, moves: Sequence[tuple[str, float, float | None]]) -> set[str]:
        """Move each room's reminder point ``(room, point, after)`` from ``point`` to
        ``after`` (the next, or none), all in one transaction (a sweep's due points: one
        commit, not one each): the rooms whose point this write moved, for which this
        process reminds (another process's sweep moved the others)."""

        async def work(tx: Tx) -> set[str]:
            taken: set[str] = set()
            for room_id, point, after in moves:
                rows = await tx.all(
                    "UPDATE rooms SET remind_at = :after WHERE id = :room "
                    "AND remind_at = :point RETURNING id",
                    {"after": after, "room": room_id, "point": point},
                )
                taken.update(str(i) for (i,) in rows)
            return taken

        return await self.db.run(work) if moves else set()

    async def games_of(self, player_id: str) -> list[Room]:
        """The rooms in play in which ``player_id`` holds a seat (W2: 「轮到你了」; the
        caller sorts), with their seats: one statement (the lobby asks often)."""
        head = _ROOM_WITH_SEATS.partition(" WHERE ")[0]
        sql = (
            f"SELECT {head} WHERE r.status = 'playing' AND r.id IN "
            "(SELECT room_id FROM room_seats WHERE player_id = :player) ORDER BY r.id, s.idx"
        )

        async def work(tx: Tx) -> list[Room]:
            rooms: dict[str, list[Row]] = {}
            for row in await tx.all(sql, {"player": player_id}):
                rooms.setdefault(str(row[0]), []).append(row)
            n = _ROOM_COLUMNS
            return [
                _room(rows[0][:n], [r[n:] for r in rows if r[n] is not None])
                for rows in rooms.values()
            ]

        return await self.db.run(work, write=False)

    async def game_at(self, room_id: str, seq: int) -> dict[str, Any] | None:
        """The room's game as its last event up to ``seq`` carried it (W3: what a seat's
        person saw when they last looked), if any is left (a pruned log has none)."""
        row = await self.db.run(
            lambda tx: tx.one(
                "SELECT data FROM room_events WHERE room_id = :room AND seq <= :seq "
                "AND kind IN ('start', 'roll', 'score', 'hint') ORDER BY seq DESC LIMIT 1",
                {"room": room_id, "seq": seq},
            ),
            write=False,
        )
        game = None if row is None else json.loads(row[0]).get("game")
        return game if isinstance(game, dict) else None

    async def seen(self, room_id: str, player_id: str, seq: int) -> int | None:
        """This browser's seat of the room has seen its events up to ``seq`` (W3): the
        marker only moves forward, and not past the room's last event. Returns the marker
        (``None``: no seat of the room)."""

        async def work(tx: Tx) -> int | None:
            row = await tx.one(
                "UPDATE room_seats SET seen_seq = CASE WHEN seen_seq >= :seq THEN seen_seq "
                "ELSE (SELECT CASE WHEN r.last_seq < :seq THEN r.last_seq ELSE :seq END "
                "FROM rooms r WHERE r.id = :room) END "
                "WHERE room_id = :room AND player_id = :player RETURNING seen_seq",
                {"room": room_id, "player": player_id, "seq": seq},
            )
            return None if row is None else int(row[0])

        return await self.db.run(work)

    async def nudge(self, room_id: str, index: int, now: float, every: float) -> float | None:
        """Mark seat ``index`` nudged now unless it was less than ``every`` seconds ago
        (W4: once an hour a seat, across processes: the check is the write). Returns
        ``None`` when done, else when the last nudge was."""

        async def work(tx: Tx) -> float | None:
            rows = await tx.all(
                "UPDATE room_seats SET nudged_at = :now WHERE room_id = :room AND idx = :idx "
                "AND (nudged_at IS NULL OR nudged_at <= :since OR nudged_at > :ahead) "
                "RETURNING idx",
                {
                    "now": now,
                    "room": room_id,
                    "idx": index,
                    "since": now - every,
                    "ahead": now + 5.0,
                },
            )
            if rows:
                return None
            row = await tx.one(
                "SELECT nudged_at FROM room_seats WHERE room_id = :room AND idx = :idx",
                {"room": room_id, "idx": index},
            )
            return now if row is None or row[0] is None else float(row[0])

        return await self.db.run(work)

    async def rooms_of(self, player_id: str, limit: int = 20) -> list[Room]:
        """The rooms the browser holds a seat of, newest first."""
        return await self._rooms_by(
            "SELECT r.id FROM rooms r JOIN room_seats s ON s.room_id = r.id "
            "WHERE s.player_id = :player ORDER BY r.created_at DESC LIMIT :limit",
            {"player": player_id, "limit": limit},
        )

    async def finished_seats_of(self, player_id: str, limit: int) -> tuple[list[FinishedSeat], int]:
        """The seats this browser held in the last ``limit`` finished rooms and races,
        newest first, and how many such rooms there are in all (the lobby counts every
        one, shows the last few): one query (O7, W5)."""

        async def work(tx: Tx) -> tuple[list[FinishedSeat], int]:
            # COUNT(*) OVER () is taken before LIMIT: the whole count rides on each row.
            rows = await tx.all(
                "SELECT r.id, r.game_id, s.name, s.idx, r.pace, COUNT(*) OVER () FROM rooms r "
                "JOIN room_seats s ON s.room_id = r.id "
                "WHERE s.player_id = :player AND r.status = 'finished' AND r.game_id IS NOT NULL "
                "AND s.name IS NOT NULL ORDER BY r.created_at DESC LIMIT :limit",
                {"player": player_id, "limit": limit},
            )
            total = int(rows[0][5]) if rows else 0
            seats = [
                FinishedSeat(str(r), str(g), str(n), int(i), str(p)) for r, g, n, i, p, _all in rows
            ]
            return seats, total

        return await self.db.run(work, write=False)

    # -- writes --------------------------------------------------------------------------

    async def create(
        self,
        creator_id: str,
        seats: Sequence[SeatSpec],
        turn_seconds: int,
        now: float,
        max_open: int,
        *,
        rematch_of: str | None = None,
        pace: str = "live",
        max_waiting: int = 0,
    ) -> tuple[Room, RoomEvent]:
        """A new room of ``seats`` (the creator's person seat first) at ``pace`` (W1),
        with its two tokens. Refused with :class:`TooManyRoomsError` while the creator has
        ``max_open`` open live rooms (0: no limit), and a waiting room with
        :class:`TooManyWaitingRoomsError` while the creator is in ``max_waiting`` waiting
        rooms not over (W2; a rematch's other persons past it get their seat open
        instead). ``rematch_of`` (O7) also links the old room to the new one, once: a
        second rematch of the same room returns the first."""

        async def work(tx: Tx) -> tuple[Room, RoomEvent]:
            if rematch_of is not None:
                lock = " FOR UPDATE" if tx.dialect == "postgresql" else ""
                row = await tx.one(
                    f"SELECT rematch_id FROM rooms WHERE id = :room{lock}", {"room": rematch_of}
                )
                if row is not None and row[0] is not None:
                    existing = await _room_in(tx, str(row[0]))
                    if existing is not None:
                        raise _Existing(existing)
            if max_open > 0 and pace == "live":
                count = await tx.one(
                    "SELECT COUNT(*) FROM rooms WHERE creator_id = :creator "
                    "AND status IN ('waiting', 'starting', 'playing') AND pace = 'live'",
                    {"creator": creator_id},
                )
                if count is not None and int(count[0]) >= max_open:
                    raise TooManyRoomsError(f"{creator_id} has {count[0]} open rooms", max_open)
            specs = list(seats)
            if max_waiting > 0 and pace != "live":
                if await waiting_rooms_in(tx, creator_id) >= max_waiting:
                    raise TooManyWaitingRoomsError(creator_id, max_waiting)
                for i, spec in enumerate(specs):
                    held = spec.player_id
                    if i and held is not None and await waiting_rooms_in(tx, held) >= max_waiting:
                        specs[i] = SeatSpec("human")  # (open: they join once under the cap)
            room_id = secrets.token_hex(8)
            await tx.all(
                "INSERT INTO rooms (id, creator_id, status, turn_seconds, created_at, pace) "
                "VALUES (:room, :creator, 'waiting', :turn_seconds, :now, :pace)",
                {
                    "room": room_id,
                    "creator": creator_id,
                    "turn_seconds": turn_seconds,
                    "now": now,
                    "pace": pace,
                },
            )
            await tx.many(
                "INSERT INTO room_seats (room_id, idx, kind, difficulty, player_id, name) "
                "VALUES (:room, :idx, :kind, :difficulty, :player, :name)",
                [
                    {
                        "room": room_id,
                        "idx": i,
                        "kind": s.kind,
                        "difficulty": s.difficulty,
                        "player": s.player_id,
                        "name": s.name,
                    }
                    for i, s in enumerate(specs)
                ],
            )
            await issue_in(tx, ROOM_INVITE, room_id, self.invite_token(room_id))
            await issue_in(tx, ROOM_WATCH, room_id, self.watch_token(room_id))
            if rematch_of is not None:
                await tx.all(
                    "UPDATE rooms SET rematch_id = :room WHERE id = :old AND rematch_id IS NULL",
                    {"room": room_id, "old": rematch_of},
                )
            names = [s.name for s in specs]
            event = await append_in(tx, room_id, "created", {"names": names}, now)
            room = await _room_in(tx, room_id)
            assert room is not None
            return room, event

        return await self.db.run(work)

    async def join(
        self,
        room_id: str,
        token: object,
        player_id: str,
        name: str,
        now: float,
        max_waiting: int = 0,
    ) -> tuple[Room, int, RoomEvent | None]:
        """Seat the browser at the first open person seat under ``name``; a browser that
        holds a seat gets the same seat back (no event). Returns the room, the seat and
        the ``join`` event. Raises :class:`RoomNotFoundError` (unknown room or a token
        that is not its invite), :class:`AlreadyStartedError`, :class:`RoomFullError`,
        :class:`NameTakenError`, and for a waiting room :class:`TooManyWaitingRoomsError`
        while the browser's player is in ``max_waiting`` of them (W2)."""

        async def work(tx: Tx) -> tuple[Room, int, RoomEvent | None]:
            # F8 first: a removed browser is told so, whatever link it brings (the one the
            # removal renewed included, F27); a fresh cookie with it gets the 404 below.
            if await _banned_in(tx, room_id, player_id):
                raise RemovedFromRoomError(room_id)
            if not await check_in(tx, ROOM_INVITE, room_id, token):
                raise RoomNotFoundError(room_id)
            room = await _room_in(tx, room_id, lock=True)
            if room is None:
                raise RoomNotFoundError(room_id)
            held = room.seat_of(player_id)
            if held is not None:
                return room, held.index, None
            if room.status != "waiting":
                raise AlreadyStartedError(f"room {room_id} is {room.status}")
            key = name_key(name)  # (as people see them, F25: a seat named before it too)
            if any(s.name is not None and name_key(s.name) == key for s in room.seats):
                raise NameTakenError(f"{name!r} is taken in room {room_id}")
            seat = next((s for s in room.seats if s.is_person and not s.taken), None)
            if seat is None:
                raise RoomFullError(room_id)
            over = max_waiting > 0 and room.pace != "live"
            if over and await waiting_rooms_in(tx, player_id) >= max_waiting:
                raise TooManyWaitingRoomsError(player_id, max_waiting)
            taken = await tx.all(
                "UPDATE room_seats SET player_id = :player, name = :name "
                "WHERE room_id = :room AND idx = :idx AND player_id IS NULL RETURNING idx",
                {"player": player_id, "name": name, "room": room_id, "idx": seat.index},
            )
            if not taken:  # (SQLite serialises writers: cannot happen; PostgreSQL: locked)
                raise RoomFullError(room_id)
            event = await append_in(tx, room_id, "join", {"seat": seat.index, "name": name}, now)
            after = await _room_in(tx, room_id)
            assert after is not None
            return after, seat.index, event

        return await self.db.run(work)

    async def remove(
        self, room_id: str, creator_id: str, index: int, now: float
    ) -> tuple[Room, list[RoomEvent]]:
        """The creator frees person seat ``index`` before the start (not their own); its
        browser may not come back to this room (F8: a ban by player id), nor a fresh
        cookie of it with the old link: the room's links are renewed in the same
        transaction (F27; the others keep their seats). Returns the room and its
        ``leave`` and ``links`` events."""

        async def work(tx: Tx) -> tuple[Room, list[RoomEvent]]:
            room = await _room_in(tx, room_id, lock=True)
            if room is None:
                raise RoomNotFoundError(room_id)
            if room.creator_id != creator_id:
                raise NotRoomCreatorError(room_id)
            if room.status != "waiting":
                raise AlreadyStartedError(f"room {room_id} is {room.status}")
            if not 0 < index < len(room.seats) or not room.seats[index].taken:
                raise RoomNotFoundError(f"room {room_id} has no person in seat {index}")
            name = room.seats[index].name
            joined = 0  # the seat's last join: its person's name is in the events from there
            for seq, data in await tx.all(
                "SELECT seq, data FROM room_events WHERE room_id = :room AND kind = 'join' "
                "ORDER BY seq DESC",
                {"room": room_id},
            ):
                if json.loads(data).get("seat") == index:
                    joined = int(seq)
                    break
            await tx.all(
                "UPDATE room_seats SET player_id = NULL, name = NULL "
                "WHERE room_id = :room AND idx = :idx",
                {"room": room_id, "idx": index},
            )
            event = await append_in(tx, room_id, "leave", {"seat": index, "name": name}, now)
            await tx.all(
                "INSERT INTO room_bans (room_id, player_id, seat, join_seq, leave_seq) "
                "VALUES (:room, :player, :seat, :joined, :left) "
                "ON CONFLICT (room_id, player_id) DO NOTHING",
                {
                    "room": room_id,
                    "player": room.seats[index].player_id,
                    "seat": index,
                    "joined": joined,
                    "left": event.seq,
                },
            )
            links = await self._renew_in(tx, room_id, room.link_serial + 1, now)
            after = await _room_in(tx, room_id)
            assert after is not None
            return after, [event, links]

        return await self.db.run(work)

    async def _renew_in(self, tx: Tx, room_id: str, serial: int, now: float) -> RoomEvent:
        """The room's links of ``serial`` in the caller's transaction: the old tokens'
        digests deleted, the new ones stored, and the ``links`` event."""
        for purpose, token in (
            (ROOM_INVITE, self.invite_token(room_id, serial)),
            (ROOM_WATCH, self.watch_token(room_id, serial)),
        ):
            await delete_in(tx, purpose, room_id)
            await issue_in(tx, purpose, room_id, token)
        return await append_in(
            tx,
            room_id,
            "links",
            {},
            now,
            also_set=", link_serial = :serial",
            also_params={"serial": serial},
        )

    async def renew_links(
        self, room_id: str, creator_id: str, now: float
    ) -> tuple[Room, RoomEvent]:
        """New invite and watch tokens for the room (F7: its creator's, any time): the old
        ones are deleted, so they open nothing from now on; a ``links`` event (without
        the tokens: watchers read the log too) tells the seat holders' pages to read the
        room again."""

        async def work(tx: Tx) -> tuple[Room, RoomEvent]:
            room = await _room_in(tx, room_id, lock=True)
            if room is None:
                raise RoomNotFoundError(room_id)
            if room.creator_id != creator_id:
                raise NotRoomCreatorError(room_id)
            event = await self._renew_in(tx, room_id, room.link_serial + 1, now)
            after = await _room_in(tx, room_id)
            assert after is not None
            return after, event

        return await self.db.run(work)

    async def begin_start(self, room_id: str, creator_id: str, game_id: str, now: float) -> Room:
        """Claim the start (``waiting`` → ``starting``) for the game ``game_id`` about to
        be created: of racing starts, in one process or several, one wins; the others get
        :class:`AlreadyStartedError`. Fewer than two seats to play (the open person seats
        do not): :class:`RoomNotReadyError`. The seats change only when the game is
        stored (:meth:`started`), so a claim that comes to nothing (F10, :meth:`stuck`)
        leaves the room as it was."""

        async def work(tx: Tx) -> Room:
            room = await _room_in(tx, room_id, lock=True)
            if room is None:
                raise RoomNotFoundError(room_id)
            if room.creator_id != creator_id:
                raise NotRoomCreatorError(room_id)
            if room.status != "waiting":
                raise AlreadyStartedError(f"room {room_id} is {room.status}")
            playing = playing_seats(room)
            if len(playing) < 2:
                raise RoomNotReadyError(f"room {room_id} has {len(playing)} seat(s) to play")
            await tx.all(
                "UPDATE rooms SET status = 'starting', start_game = :game, start_at = :now "
                "WHERE id = :room",
                {"game": game_id, "now": now, "room": room_id},
            )
            after = await _room_in(tx, room_id)
            assert after is not None
            return after

        return await self.db.run(work)

    async def abort_start(self, room_id: str, game_id: str | None) -> bool:
        """Back to ``waiting`` after the claim of a start for ``game_id`` whose game could
        not be created (or was not, F10); ``False`` if that claim is no longer the room's
        (another process finished or undid it)."""

        # (``None``: a claim of a version that did not record it, F10's upgrade)
        claim = "start_game IS NULL" if game_id is None else "start_game = :game"

        async def work(tx: Tx) -> bool:
            rows = await tx.all(
                "UPDATE rooms SET status = 'waiting', start_game = NULL, start_at = NULL "
                f"WHERE id = :room AND status = 'starting' AND {claim} RETURNING id",
                {"room": room_id, "game": game_id},
            )
            return bool(rows)

        return await self.db.run(work)

    async def started(
        self,
        room_id: str,
        game_id: str,
        deadline: float | None,
        turn: int | None,
        version: int,
        data: dict[str, Any],
        now: float,
        remind_at: float | None = None,
    ) -> tuple[Room, RoomEvent] | None:
        """``starting`` → ``playing`` with the claim's game ``game_id``: the open person
        seats are dropped and the others renumbered in order (the game's seats are 0..n-1);
        logs the ``start`` event. ``None`` when the claim is no longer the room's (F10:
        the sweep undid it, or another process already did this)."""

        async def work(tx: Tx) -> tuple[Room, RoomEvent] | None:
            claimed = await tx.all(
                "UPDATE rooms SET status = 'playing', game_id = :game, deadline = :deadline, "
                "deadline_turn = :turn, deadline_version = :version, start_game = NULL, "
                "start_at = NULL, acted_at = :now, remind_at = :remind_at "
                "WHERE id = :room AND status = 'starting' AND start_game = :game RETURNING id",
                {
                    "game": game_id,
                    "deadline": deadline,
                    "turn": turn,
                    "version": version,
                    "room": room_id,
                    "now": now,
                    "remind_at": remind_at,
                },
            )
            if not claimed:
                return None
            room = await _room_in(tx, room_id)
            assert room is not None
            await tx.all(
                "DELETE FROM room_seats "
                "WHERE room_id = :room AND kind = 'human' AND player_id IS NULL",
                {"room": room_id},
            )
            # Renumber the seats that play, in order (the game's seats are 0..n-1).
            for new, seat in enumerate(playing_seats(room)):
                if seat.index != new:
                    await tx.all(
                        "UPDATE room_seats SET idx = :new WHERE room_id = :room AND idx = :old",
                        {"new": new, "room": room_id, "old": seat.index},
                    )
            event = await append_in(tx, room_id, "start", data, now)
            after = await _room_in(tx, room_id)
            assert after is not None
            return after, event

        done = await self.db.run(work)
        if done is not None:
            self._known.put(room_id, _for_plans(done[0]))
        return done

    async def publish(
        self,
        room_id: str,
        kind: str,
        data: dict[str, Any],
        now: float,
        *,
        deadline: float | bool | None = False,
        version: int | None = None,
        finished: bool = False,
        away: dict[int, bool] | None = None,
        missed: dict[int, int] | None = None,
        remind_at: float | bool | None = False,
        acted_at: float | None = None,
    ) -> RoomEvent:
        """Log an event; in the same transaction set the turn ``deadline`` (``None``
        clears it; ``False`` leaves it) with the game ``version`` it is for (the
        sweeper plays only that version, so never a turn that moved on meanwhile) and
        its first reminder point, mark the room ``finished``, set seats' 托管 flags
        (``away``: seat → flag) and missed turns, and when a person acted (W1)."""
        pub = Publication(
            kind,
            data,
            deadline,
            version,
            finished,
            away,
            missed=missed,
            remind_at=remind_at,
            acted_at=acted_at,
        )
        event = await self.db.run(lambda tx: _publish_in(tx, room_id, pub, now))
        self._advance(room_id, pub, event.seq)
        return event

    def _advance(self, room_id: str, pub: Publication | None, seq: int) -> None:
        """Keep the room known here up to date after this process logged its event
        ``seq`` (``pub``: what it changed; ``None``: nothing :meth:`record` plans with):
        only from the id just before, else it is dropped (another event came between)."""
        known = self._known.peek(room_id)
        if known is None:
            return
        if known.last_seq != seq - 1:
            self._known.pop(room_id)
        elif pub is None:
            self._known.put(room_id, dataclasses.replace(known, last_seq=seq))
        else:
            self._known.put(room_id, after_publication(known, pub, seq))

    async def _publish_one(
        self, room_id: str, pub: Publication, now: float, expected: int
    ) -> RoomEvent | None:
        """``pub`` logged if the room's last id is still ``expected`` (else ``None``):
        one statement, its own transaction (:meth:`FeatureDb.one`, on the event loop on
        PostgreSQL); on SQLite the two statements of :func:`append_in` in one."""
        if self.db.dialect != "postgresql":
            return await self.db.run(
                functools.partial(
                    _publish_if, room_id=room_id, pub=pub, now=now, expected=expected
                ),
                single=True,
            )
        also, params = _room_columns(pub)
        sql, params, text = _event_statement(
            room_id, pub.kind, pub.data, now, also_set=also, also_params=params, expected=expected
        )
        row = await self.db.one(sql, params)
        return None if row is None else RoomEvent(room_id, int(row[0]), pub.kind, pub.data, text)

    async def record(
        self, room_id: str, plan: Callable[[Room], Sequence[Publication]], now: float
    ) -> list[RoomEvent]:
        """Log what ``plan`` (a pure function of the room) makes of the room: a game
        action's events. Nearly every action is one event that changes no seat: it is
        planned on the room as this process last wrote it (or as read, in one
        statement, when not known here) and written by one statement, conditional on
        the room's last id being still the one planned on: one round trip, no
        ``BEGIN``/``COMMIT``. When another event came between (another process's, a
        turn played by 托管), the room is read again and the plan made again. Anything
        else (托管's flags, a game's end, a room that keeps moving) is read and written
        in one transaction, with the room's row locked. An unknown room logs nothing."""
        for _ in range(RECORD_TRIES):
            room = self._known.get(room_id) or await self.room(room_id)
            if room is None:
                return []
            pubs = plan(room)
            if len(pubs) != 1 or pubs[0].sets_seats:
                break
            pub = pubs[0]
            event = await self._publish_one(room_id, pub, now, room.last_seq)
            if event is not None:
                self._known.put(room_id, _for_plans(after_publication(room, pub, event.seq)))
                return [event]
            self._known.pop(room_id)  # it moved on: read it again

        async def work(tx: Tx) -> tuple[list[RoomEvent], Room | None]:
            room = await _room_in(tx, room_id, lock=True)
            if room is None:
                return [], None
            events = []
            for pub in plan(room):
                event = await _publish_in(tx, room_id, pub, now)
                room = after_publication(room, pub, event.seq)
                events.append(event)
            return events, room

        events, after = await self.db.run(work)
        if after is not None:
            self._known.put(room_id, _for_plans(after))
        return events

    async def react(
        self, room_id: str, index: int, data: dict[str, Any], now: float, every: float
    ) -> RoomEvent:
        """Log seat ``index``'s reaction unless it reacted less than ``every`` seconds ago
        (then :class:`~yahtzee.errors.RateLimitExceededError`, nothing logged): the check
        and the event are one transaction, so the limit holds across processes (O6)."""

        async def work(tx: Tx) -> RoomEvent:
            rows = await tx.all(
                "UPDATE room_seats SET reacted_at = :now WHERE room_id = :room AND idx = :idx "
                "AND (reacted_at IS NULL OR reacted_at <= :since OR reacted_at > :ahead) "
                "RETURNING idx",
                {
                    "now": now,
                    "room": room_id,
                    "idx": index,
                    "since": now - every,
                    "ahead": now + 5.0,
                },
            )
            if not rows:
                raise RateLimitExceededError("reactions", 1)
            return await append_in(tx, room_id, "reaction", data, now)

        event = await self.db.run(work)
        self._advance(room_id, None, event.seq)
        return event

    async def expire(self, now: float, max_age: float) -> list[RoomEvent]:
        """Rooms left waiting longer than ``max_age`` seconds expire (O2): their links
        open nothing to join any more; each gets an ``expired`` event."""

        cutoff = now - max_age

        async def any_due(tx: Tx) -> bool:
            return (
                await tx.one(
                    "SELECT 1 FROM rooms WHERE status = 'waiting' AND created_at < :cutoff LIMIT 1",
                    {"cutoff": cutoff},
                )
                is not None
            )

        async def work(tx: Tx) -> list[RoomEvent]:
            rows = await tx.all(
                "UPDATE rooms SET status = 'expired' WHERE status = 'waiting' "
                "AND created_at < :cutoff RETURNING id",
                {"cutoff": cutoff},
            )
            return [await append_in(tx, str(r[0]), "expired", {}, now) for r in rows]

        # Every process sweeps twice a second: a read first, so that a sweep with nothing
        # to expire takes no write lock (on SQLite it would queue behind every writer).
        if not await self.db.run(any_due, write=False):
            return []
        return await self.db.run(work)

    async def prune_events(self, before: float, batch: int) -> int:
        """Delete the events of at most ``batch`` rooms over (finished or expired) whose
        last event is older than ``before`` (F14); returns how many rooms. The rooms,
        their seats and games stay (a stream of one replays nothing more)."""

        async def work(tx: Tx) -> int:
            rows = await tx.all(
                "SELECT r.id FROM rooms r WHERE r.status IN ('finished', 'expired') "
                "AND EXISTS (SELECT 1 FROM room_events e WHERE e.room_id = r.id "
                "AND e.seq = r.last_seq AND e.at < :before) LIMIT :batch",
                {"before": before, "batch": batch},
            )
            for (room_id,) in rows:
                await tx.all("DELETE FROM room_events WHERE room_id = :room", {"room": room_id})
            return len(rows)

        return await self.db.run(work)


async def waiting_rooms_in(tx: Tx, player_id: str) -> int:
    """How many waiting rooms (any pace but live) not over ``player_id`` holds a seat of
    (W2's cap)."""
    row = await tx.one(
        "SELECT COUNT(*) FROM room_seats s JOIN rooms r ON r.id = s.room_id "
        "WHERE s.player_id = :player AND r.pace <> 'live' "
        "AND r.status IN ('waiting', 'starting', 'playing')",
        {"player": player_id},
    )
    return 0 if row is None else int(row[0])


def playing_seats(room: Room) -> tuple[RoomSeat, ...]:
    """The seats that play when the room starts, in order and numbered 0..n-1: the open
    person seats are dropped."""
    playing = (s for s in room.seats if not s.is_person or s.taken)
    return tuple(dataclasses.replace(s, index=i) for i, s in enumerate(playing))


async def _banned_in(tx: Tx, room_id: str, player_id: str) -> bool:
    row = await tx.one(
        "SELECT 1 FROM room_bans WHERE room_id = :room AND player_id = :player",
        {"room": room_id, "player": player_id},
    )
    return row is not None


class _Existing(Exception):  # noqa: N818 (a signal from inside a transaction, not an error)
    """A rematch that already exists: leave the transaction with it."""

    def __init__(self, room: Room) -> None:
        super().__init__(room.id)
        self.room = room


async def create_or_existing(
    store: RoomStore, *args: Any, **kwargs: Any
) -> tuple[Room, RoomEvent | None]:
    """:meth:`RoomStore.create`, where a rematch made already is returned (no event)."""
    try:
        return await store.create(*args, **kwargs)
    except _Existing as found:
        return found.room, None


async def _unname_events(
    tx: Tx, room_id: str, seat: int, first: int = 0, last: int | None = None
) -> None:
    """Take the name of ``seat`` out of the room's events ``first``..``last`` (all by
    default): an erased player's (I4)."""
    for seq, data in await tx.all(
        "SELECT seq, data FROM room_events WHERE room_id = :room_id AND seq >= :first",
        {"room_id": room_id, "first": first},
    ):
        if last is not None and int(seq) > last:
            continue
        before = json.loads(data)
        after = _unname(before, seat)
        if after != before:
            text = json.dumps(after, ensure_ascii=False, separators=(",", ":"))
            await tx.all(
                "UPDATE room_events SET data = :text WHERE room_id = :room_id AND seq = :seq",
                {"text": text, "room_id": room_id, "seq": seq},
            )


def _unname(data: Any, seat: int) -> Any:
    """A room event's data without the name of ``seat`` (its ``join``/``leave``, the
    ``created`` event's ``names`` and the seat lists of ``start``/``end``-like events)."""
    if isinstance(data, dict):
        out = {k: _unname(v, seat) for k, v in data.items()}
        if out.get("seat") == seat and "name" in out:
            out["name"] = None
        for key in ("seats", "names"):
            seats = out.get(key)
            if isinstance(seats, list) and 0 <= seat < len(seats):
                entry = seats[seat]
                if isinstance(entry, dict) and "name" in entry:
                    seats[seat] = {**entry, "name": None}
                elif isinstance(entry, str):
                    seats[seat] = None
        return out
    if isinstance(data, list):
        return [_unname(v, seat) for v in data]
    return data


def _without_name(data: Any, name: str) -> Any:
    """A room event's data with every occurrence of the seat name ``name`` as a name (a
    ``name`` field, an entry of ``names`` or of a list of seats) made ``None``: the name
    of a seat whose person deleted their data (F24). By value, not by index: a room's
    seats are renumbered at its start, so the index of the ``created`` and ``join`` events
    is not the seat's index in the events after it; and at a time only one seat of a
    room has a name (F25's ``name_key`` keeps them apart)."""
    if isinstance(data, dict):
        out = {k: _without_name(v, name) for k, v in data.items()}
        if out.get("name") == name:
            out["name"] = None
        for key in ("seats", "names"):
            entries = out.get(key)
            if isinstance(entries, list):
                out[key] = [None if entry == name else entry for entry in entries]
        return out
    if isinstance(data, list):
        return [_without_name(v, name) for v in data]
    return data


async def _unname_seat_events(tx: Tx, room_id: str, name: str) -> None:
    """Take the seat name ``name`` out of the room's events since its holder took it: the
    last ``join`` under that name, else the room's creation (the creator's seat, or every
    seat of a rematch). Before then a seat removed by the creator may have had the same
    name (its own ban's range is unnamed by index)."""
    first = 0
    for seq, data in await tx.all(
        "SELECT seq, data FROM room_events WHERE room_id = :room_id AND kind = 'join' "
        "ORDER BY seq DESC",
        {"room_id": room_id},
    ):
        if json.loads(data).get("name") == name:
            first = int(seq)
            break
    # The name as the log's compact JSON writes it: events without it are not parsed.
    needle = json.dumps(name, ensure_ascii=False)[1:-1]
    for seq, data in await tx.all(
        "SELECT seq, data FROM room_events WHERE room_id = :room_id AND seq >= :first",
        {"room_id": room_id, "first": first},
    ):
        if needle not in data:
            continue
        before = json.loads(data)
        after = _without_name(before, name)
        if after != before:
            await tx.all(
                "UPDATE room_events SET data = :text WHERE room_id = :room_id AND seq = :seq",
                {
                    "text": json.dumps(after, ensure_ascii=False, separators=(",", ":")),
                    "room_id": room_id,
                    "seq": seq,
                },
            )


class RoomsData:
    """The rooms a player opened and the seats it holds (I1, I4; see
    :mod:`yahtzee.storage.player_data`). Erased, a seat of a room that has started keeps
    its place, nameless and nobody's, so that the others' game stays whole; a seat of a
    room still waiting is open again. Its name goes from the room's seats, every event of
    the room and its game's start event; a room not over gets a ``leave`` event (its
    pages show the seat nameless, its streams end and are checked again).

    ``clock`` dates those events; ``changed`` is told each room whose log got one, so that
    the service hands them to this process's streams once the transaction has committed
    (on PostgreSQL every process's listener gets them from the log's notification too).

    A merge keeps the per-player caps (F27): O2's one seat a browser in a room (both
    seated in a room still waiting: the later seat is freed; in a room in play: the merge
    is refused until it is over) and ``open_rooms`` (past it, the rooms still waiting,
    the linked browser's newest first, then the player's own, expire; rooms in play are
    never closed: when they alone are over the cap, the merge is refused)."""

    name = "rooms"

    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        changed: Callable[[str], None] = lambda _room_id: None,
        open_rooms: int = 0,
        waiting_rooms: int = 0,
    ) -> None:
        self._clock = clock
        self._changed = changed
        self.open_rooms = open_rooms
        self.waiting_rooms = waiting_rooms

    async def export(self, tx: Tx, player_id: str) -> Any:
        created = await tx.all(
            "SELECT id, status, created_at, game_id FROM rooms WHERE creator_id = :player_id "
            "ORDER BY created_at",
            {"player_id": player_id},
        )
        seats = await tx.all(
            "SELECT s.room_id, s.idx, s.name, r.game_id, r.status FROM room_seats s "
            "JOIN rooms r ON r.id = s.room_id WHERE s.player_id = :player_id ORDER BY r.created_at",
            {"player_id": player_id},
        )
        banned = await tx.all(
            "SELECT room_id FROM room_bans WHERE player_id = :player_id ORDER BY room_id",
            {"player_id": player_id},
        )
        # W5: a race seat's game is the player's own play (owned by the seat, so that the
        # race holds it), with its whole log as the player's other games.
        race_games = []
        for owner, game in await export_games(tx, _RACE_GAMES_OF, {"player_id": player_id}):
            room_id, _, seat = owner[len(RACE_OWNER) :].rpartition(":")
            race_games.append({"room_id": room_id, "seat": int(seat), **game})
        return {
            "banned_from_rooms": [str(row[0]) for row in banned],
            "rooms_created": [
                dict(zip(("id", "status", "created_at", "game_id"), row, strict=True))
                for row in created
            ],
            "seats": [
                dict(zip(("room_id", "seat", "name", "game_id", "status"), row, strict=True))
                for row in seats
            ],
            "race_games": race_games,
        }

    async def has_data(self, tx: Tx, player_id: str) -> bool:
        return await keeps(tx, self, player_id)

    def kept_sql(self, player: str) -> str:
        return f"EXISTS (SELECT 1 FROM room_seats WHERE player_id = {player})"

    async def merge(self, tx: Tx, source: str, target: str) -> Sequence[MergeNote]:
        notes = await self._one_seat_a_room(tx, source, target)
        theirs = [
            str(r[0])
            for r in await tx.all(
                "SELECT id FROM rooms WHERE creator_id = :source AND status = 'waiting' "
                "ORDER BY created_at DESC, id",
                {"source": source},
            )
        ]
        # The seats' browsers change outside the games' logs: every process reads them
        # again (F24, the seat serial; before, the others did when they restarted).
        await tx.all(
            "UPDATE games SET seat_serial = seat_serial + 1 WHERE id IN (SELECT r.game_id "
            "FROM rooms r JOIN room_seats s ON s.room_id = r.id WHERE s.player_id = :source "
            "AND r.game_id IS NOT NULL)",
            {"source": source},
        )
        await tx.all(  # (W5: a race's seat games too, which its game id does not name)
            f"UPDATE games SET seat_serial = seat_serial + 1 WHERE {_RACE_GAMES_OF}",
            {"player_id": source},
        )
        await tx.all(
            "UPDATE room_seats SET player_id = :target WHERE player_id = :source",
            {"target": target, "source": source},
        )
        await tx.all(
            "UPDATE rooms SET creator_id = :target WHERE creator_id = :source",
            {"target": target, "source": source},
        )
        # A ban follows the person (F8): the linked device is kept out of the same rooms.
        # (the linked player's row stays where both were banned from a room)
        await tx.all(
            "DELETE FROM room_bans WHERE player_id = :source AND room_id IN "
            "(SELECT room_id FROM room_bans WHERE player_id = :target)",
            {"source": source, "target": target},
        )
        await tx.all(
            "UPDATE room_bans SET player_id = :target WHERE player_id = :source",
            {"target": target, "source": source},
        )
        notes = [*notes, *(await self._keep_open_rooms(tx, target, theirs))]
        return [*notes, *(await self._keep_waiting_rooms(tx, target))]

    async def _keep_waiting_rooms(self, tx: Tx, player_id: str) -> list[MergeNote]:
        """``waiting_rooms`` through a merge (W2, F27): past the cap, ``player_id``'s seats
        in waiting rooms not started yet are given up, the newest rooms first — a friend's
        room is left (the seat open again, a ``leave`` event), a room of its own expires;
        :class:`MergeOverCapError` when the rooms in play alone are past it."""
        cap = self.waiting_rooms

        async def give_up(row: Row) -> MergeNote:
            room_id, _status, index, name = str(row[0]), row[1], row[2], row[3]
            if int(index) == 0:  # (its own room: nobody else can start it)
                await self._expire_waiting(tx, room_id)
                said = msg("server.merge.waiting_room_closed", limit=cap)
                done = "room_closed"
            else:
                await tx.all(
                    "UPDATE room_seats SET player_id = NULL, name = NULL "
                    "WHERE room_id = :room AND idx = :idx",
                    {"room": room_id, "idx": index},
                )
                await append_in(tx, room_id, "leave", {"seat": index, "name": name}, self._clock())
                said = msg("server.merge.waiting_seat_left", limit=cap)
                done = "seat_freed"
            self._changed(room_id)
            return MergeNote("waiting_rooms", done, room_id, said)

        return await _keep_cap(
            tx,
            cap,
            "SELECT r.id, r.status, s.idx, s.name FROM rooms r JOIN room_seats s "
            "ON s.room_id = r.id WHERE s.player_id = :player AND r.pace <> 'live' "
            "AND r.status IN ('waiting', 'starting', 'playing') ORDER BY r.created_at DESC, r.id",
            player_id,
            "waiting_rooms",
            N_("error.devices.merge_waiting_rooms"),
            lambda waiting: waiting,
            give_up,
        )

    async def _expire_waiting(self, tx: Tx, room_id: str) -> None:
        """A room not started yet given up through a merge: expired, with its event."""
        await tx.all(
            "UPDATE rooms SET status = 'expired' WHERE id = :room AND status = 'waiting'",
            {"room": room_id},
        )
        await append_in(tx, room_id, "expired", {}, self._clock())

    async def _one_seat_a_room(self, tx: Tx, source: str, target: str) -> list[MergeNote]:
        """O2 through a merge (F27): where both players sit in one room still waiting, the
        later of the two seats is freed (the creator's, the first, never is); in a room
        in play, :class:`MergeOverCapError` (one person would hold two seats of a game)."""
        notes = []
        for room_id, mine, theirs, status in await tx.all(
            "SELECT s.room_id, s.idx, t.idx, r.status FROM room_seats s JOIN room_seats t "
            "ON t.room_id = s.room_id AND t.player_id = :target JOIN rooms r "
            "ON r.id = s.room_id WHERE s.player_id = :source",
            {"source": source, "target": target},
        ):
            if status in ("starting", "playing"):
                raise MergeOverCapError("room_seat", msg("error.devices.merge_room_seat"))
            if status != "waiting":
                continue  # (a room over: both seats stay in its history)
            freed = max(int(mine), int(theirs))
            row = await tx.one(
                "SELECT name FROM room_seats WHERE room_id = :room AND idx = :idx",
                {"room": room_id, "idx": freed},
            )
            name = None if row is None else row[0]
            await tx.all(
                "UPDATE room_seats SET player_id = NULL, name = NULL "
                "WHERE room_id = :room AND idx = :idx",
                {"room": room_id, "idx": freed},
            )
            await append_in(tx, str(room_id), "leave", {"seat": freed, "name": name}, self._clock())
            self._changed(str(room_id))
            said = msg("server.merge.seat_freed", name=name or "")
            notes.append(MergeNote("room_seat", "seat_freed", str(room_id), said))
        return notes

    async def _keep_open_rooms(self, tx: Tx, player_id: str, first: list[str]) -> list[MergeNote]:
        """``open_rooms`` through a merge (F27): ``player_id``'s rooms not over, past the
        cap, expire, the rooms still waiting of ``first`` (the linked browser's, newest
        first) before its own (newest first); :class:`MergeOverCapError` when the rooms
        in play alone are past it."""
        cap = self.open_rooms

        def order(waiting: list[Row]) -> list[Row]:
            by_id = {str(r[0]): r for r in waiting}
            theirs = [by_id[i] for i in first if i in by_id]
            return theirs + [r for r in waiting if str(r[0]) not in first]

        async def give_up(row: Row) -> MergeNote:
            room_id = str(row[0])
            waited = await tx.one(  # (the first friend who waits there, to name the room by)
                "SELECT name FROM room_seats WHERE room_id = :room AND idx > 0 "
                "AND name IS NOT NULL ORDER BY idx LIMIT 1",
                {"room": room_id},
            )
            await self._expire_waiting(tx, room_id)
            self._changed(room_id)
            said = (
                msg("server.merge.room_closed", limit=cap)
                if waited is None
                else msg("server.merge.room_closed_waiting", limit=cap, name=str(waited[0]))
            )
            return MergeNote("open_rooms", "room_closed", room_id, said)

        return await _keep_cap(
            tx,
            cap,
            "SELECT id, status FROM rooms WHERE creator_id = :player AND pace = 'live' "
            "AND status IN ('waiting', 'starting', 'playing') ORDER BY created_at DESC, id",
            player_id,
            "open_rooms",
            N_("error.devices.merge_open_rooms"),
            order,
            give_up,
        )

    async def erase(self, tx: Tx, player_id: str) -> None:
        # W5: its race games stay (the others' ranking and 复盘), their seat nobody's from
        # now on: every process reads the seat's holder again (F24, the seat serial).
        await tx.all(
            f"UPDATE games SET seat_serial = seat_serial + 1 WHERE {_RACE_GAMES_OF}",
            {"player_id": player_id},
        )
        seats = await tx.all(
            "SELECT s.room_id, s.idx, s.name, r.status, r.game_id, r.pace FROM room_seats s "
            "JOIN rooms r ON r.id = s.room_id WHERE s.player_id = :player_id",
            {"player_id": player_id},
        )
        for room_id, index, name, status, game_id, pace in seats:
            await tx.all(
                "UPDATE room_seats SET player_id = NULL, name = NULL WHERE room_id = :room_id AND "
                "idx = :index",
                {"room_id": room_id, "index": index},
            )
            # (a race's game id names its seats' solo games, which hold no seat names)
            if game_id is not None and pace != "race":
                await unname_seat(tx, str(game_id), int(index))
            if name is not None:
                await _unname_seat_events(tx, str(room_id), str(name))
            if status in OPEN:
                await append_in(
                    tx, str(room_id), "leave", {"seat": index, "name": None}, self._clock()
                )
                self._changed(str(room_id))
        await tx.all(
            "UPDATE rooms SET creator_id = '' WHERE creator_id = :player_id",
            {"player_id": player_id},
        )
        # A seat the creator removed it from is no longer its seat, but its name is still in
        # that seat's events from its join to the removal.
        for room_id, index, joined, left in await tx.all(
            "SELECT room_id, seat, join_seq, leave_seq FROM room_bans WHERE player_id = :player",
            {"player": player_id},
        ):
            await _unname_events(tx, str(room_id), int(index), int(joined), int(left))
        # The id names nobody once erased: its bans keep nothing out and would keep the id.
        await tx.all("DELETE FROM room_bans WHERE player_id = :player_id", {"player_id": player_id})


async def _keep_cap(
    tx: Tx,
    cap: int,
    sql: str,
    player_id: str,
    key: str,
    error_key: str,
    order: Callable[[list[Row]], list[Row]],
    give_up: Callable[[Row], Awaitable[MergeNote]],
) -> list[MergeNote]:
    """A cap through a merge (F27): the rooms ``sql`` counts for ``player_id`` (``id,
    status, ...`` rows), past ``cap`` (0: none), are given up (``give_up``), the rooms
    still waiting in ``order``; :class:`MergeOverCapError` (``key``, the sentence
    ``error_key``) when the rooms in play alone are past it."""
    rooms = await tx.all(sql, {"player": player_id})
    over = len(rooms) - cap
    if cap <= 0 or over <= 0:
        return []
    waiting = order([r for r in rooms if r[1] == "waiting"])
    if len(waiting) < over:
        playing = len(rooms) - len(waiting)
        raise MergeOverCapError(key, msg(error_key, rooms=len(rooms), playing=playing, limit=cap))
    return [await give_up(row) for row in waiting[:over]]
