"""好友房间 (O1-O9): rooms of a table game played from several browsers, live.

A room is made by its creator with the seats of a table game (T1): the creator's own
person seat first, open person seats for friends, computers. Friends take the open seats
through the invite link (a token, O2); the creator starts, which creates the room's game:
a table game (:mod:`yahtzee.table`) of the kind ``room`` (:data:`ROOM`, K2), owned by
the room itself (:func:`room_owner`, the one place its room is stored), whose seats act
each from its own browser (:meth:`RoomService.holders`, O3; the game service asks through
the :meth:`RoomService.kind_hooks` the app's wiring registers). Every change is an event of
the room's log (:mod:`yahtzee.rooms.store`), which the streams send
(:mod:`yahtzee.rooms.stream`).

The game's actions are the ordinary ``/api/games/{id}/roll|score|hint`` ones: after each
one the game service calls :meth:`RoomService.after_commit`, which logs the event (with
the game as the seats now see it and the new turn deadline) before the action answers,
so an acknowledged action is always in the log.

Nobody waits forever (O5): each process sweeps, twice a second, the rooms whose turn
deadline passed; the person on turn is marked away and the 普通 computer plays the turn
for them through the one turn driver (:meth:`GameService.play_for`). Of processes racing
to do so, the game's compare-and-set lets one through. An away person's later turns are
played after :data:`AWAY_GRACE` seconds, until they act again (or press 「我回来了」).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from yahtzee import log
from yahtzee.errors import (
    GameNotFoundError,
    IllegalMoveError,
    InvalidSeatsError,
    StaleVersionError,
    WrongPlayerError,
)
from yahtzee.game import (
    MAX_SEATS,
    MIN_TABLE_SEATS,
    GameKind,
    Mode,
    SeatKind,
    Status,
    as_hold,
    ranking,
)
from yahtzee.i18n import N_, msg
from yahtzee.lru import LruCache
from yahtzee.names import parse_name
from yahtzee.players import Difficulty, level_choices
from yahtzee.review.stats import TABLE_STATS
from yahtzee.rooms.errors import (
    NAME,
    NO_ABANDON,
    NO_UNDO,
    InvalidReactionError,
    NotTheirTurnError,
    NudgeTooSoonError,
    RemovedFromRoomError,
    RoomNotFoundError,
    StartExpiredError,
    TooManyStreamsError,
)
from yahtzee.rooms.notices import NoNotices, TurnNotice, TurnNotices
from yahtzee.rooms.pace import IDLE_DAYS, Pace, time_left
from yahtzee.rooms.race import (
    RACE_PACE,
    RaceService,
    check_race_seats,
    parse_race_days,
)
from yahtzee.rooms.settings import RoomSettings
from yahtzee.rooms.store import (
    Publication,
    Room,
    RoomSeat,
    RoomStore,
    SeatSpec,
    create_or_existing,
    playing_seats,
)
from yahtzee.rooms.stream import RoomHub, Subscription
from yahtzee.server.cpu import CpuPool
from yahtzee.server.feature import PlayedGames
from yahtzee.server.game_view import GameView
from yahtzee.server.kinds import KindHooks, KindRules
from yahtzee.server.limits import Guard, Rate
from yahtzee.server.service import GameService
from yahtzee.server.views import game_json
from yahtzee.storage.base import GameRecord, RecentGame, Storage

log_ = logging.getLogger("yahtzee.server")


#: 好友房间's kind of game (K2, O1-O9): a table game played from several browsers, whose
#: seats the room holds; no 撤销 and no giving up (everyone's game), counted in 统计 as a
#: table game (O7).
ROOM = GameKind("room")
RULES = KindRules(
    ROOM,
    NAME,
    Mode.TABLE,
    title=N_("core.kind.room"),
    undo=NO_UNDO,
    abandon=NO_ABANDON,
    stats=TABLE_STATS,
)

_OWNER = "room:"


def room_owner(room_id: str) -> str:
    """The owner of room ``room_id``'s games: no browser (player ids are URL-safe base64,
    never with a colon), one per room, so a room has at most one unfinished game. It is
    where a game's room is stored, once (:func:`room_of`); the game's id only begins with
    the room's id as a routing hint (:func:`room_game_id`)."""
    return _OWNER + room_id


def room_of(game: GameRecord) -> str | None:
    """The room whose game ``game`` is (its owner, :func:`room_owner`), else ``None``."""
    owner = game.player_id
    return owner[len(_OWNER) :] if owner.startswith(_OWNER) else None


#: The last seconds of a turn in which everyone sees the countdown (O5).
COUNTDOWN_SECONDS = 15
#: An away (托管) person's turn is played this long after it comes up.
AWAY_GRACE = 3.0
#: The computer that plays for an away person (O5: 普通).
PROXY_LEVEL = Difficulty.INTERMEDIATE.value
#: A room left waiting this long expires (O2).
WAIT_SECONDS = 24 * 3600.0
#: The quick reactions (O6): id → the catalog key of what is shown (the room's chunk: each
#: member reads them in their own language). No free text.
REACTIONS: dict[str, str] = {
    "good_luck": N_("room.reaction.good_luck"),
    "nice": N_("room.reaction.nice"),
    "oops": N_("room.reaction.oops"),
    "thumbs_up": N_("room.reaction.thumbs_up"),
}
#: Seconds between two reactions of a seat (O6).
REACTION_EVERY = 1.0
SWEEP_EVERY = 0.5
#: How long a sweep's claim on a due turn keeps the other processes' sweeps off it (a
#: process killed while it plays them leaves them to the others after this).
SWEEP_LEASE = 10.0
#: Due turns a sweep plays at once (each mostly waits on the database).
SWEEP_AT_ONCE = 8
#: Seconds between two nudges of one seat (W4: once an hour).
NUDGE_EVERY = 3600.0

# The buckets of the rooms' rates (F5's shared table; the holds' in memory).
ROOMS_PER_ADDRESS = "rooms_per_address"
ROOM_JOINS = "room_joins"
ROOM_LINKS = "room_links"
ROOM_HOLDS = "room_holds"
ROOM_NUDGES = "room_nudges"
ROOM_NUDGES_PER_ADDRESS = "room_nudges_per_address"


def turn_seats(room: Room, mine: RoomSeat) -> list[dict[str, Any]]:
    """The seats of a room game in 「轮到你了」 (W2), ``you`` for the player's."""
    return [
        {
            "index": s.index,
            "kind": s.kind,
            "name": s.name,
            "difficulty": s.difficulty,
            "away": s.away,
            "you": s.index == mine.index,
        }
        for s in room.seats
    ]


def room_game_id(room_id: str) -> str:
    """A new id for a game of room ``room_id``: the room's 16 hex digits, then 16 random
    ones (64 bits: an id is an address, not a key; every action checks the seat). Its
    length and alphabet are any game's, so every route takes it as it is, and it starts
    with the room: nginx sends a room's streams and its game's actions to one process by
    that head (``deploy/nginx/yahtzee.conf``, ``$yahtzee_affinity``), where the game's
    position stays cached and each event is framed once for all of the room's streams.
    The head is a routing hint only, derived from the room once: nothing reads the room
    from a game's id (its owner says it, :func:`room_of`)."""
    return room_id + secrets.token_hex(8)


def parse_room_seats(raw: object, creator_name: object) -> tuple[SeatSpec, ...]:
    """The seats of a new room (O1), checked: 2 to 6 as a table game's, the first a person
    (the creator, named ``creator_name`` or by that seat's ``name``), the other person
    seats open (``{"kind": "human"}``, no name: whoever takes one names it), computers
    ``{"kind": "computer", "difficulty"}``. Anything else: one
    :class:`~yahtzee.errors.InvalidSeatsError` naming the seat."""
    if not isinstance(raw, list):
        raise InvalidSeatsError(f"seats must be a list, got {raw!r}", msg("error.seats.not_list"))
    if not MIN_TABLE_SEATS <= len(raw) <= MAX_SEATS:
        raise InvalidSeatsError(
            f"a room seats {MIN_TABLE_SEATS} to {MAX_SEATS}, not {len(raw)}",
            msg("error.room.seats.count", min=MIN_TABLE_SEATS, max=MAX_SEATS, n=len(raw)),
        )
    specs: list[SeatSpec] = []
    for i, item in enumerate(raw):
        n = i + 1
        if not isinstance(item, dict) or not set(item) <= {"kind", "name", "difficulty"}:
            raise InvalidSeatsError(
                f"seat {n} must be {{kind, ...}}, got {item!r}", msg("error.seats.malformed", n=n)
            )
        kind = item.get("kind")
        if kind == SeatKind.HUMAN.value:
            if item.get("difficulty") is not None:
                raise InvalidSeatsError(
                    f"seat {n} is a person: no difficulty", msg("error.seats.person_level", n=n)
                )
            if i == 0:
                name = parse_name(item.get("name", creator_name))
                specs.append(SeatSpec("human", name=name))
            elif item.get("name") is not None:
                raise InvalidSeatsError(
                    f"seat {n} is open: its name is given by whoever takes it",
                    msg("error.room.seats.open_name", n=n),
                )
            else:
                specs.append(SeatSpec("human"))
        elif kind == SeatKind.COMPUTER.value:
            if i == 0:
                raise InvalidSeatsError(
                    "seat 1 is the creator's: a person", msg("error.room.seats.host")
                )
            level = item.get("difficulty")
            if level not in {d.value for d in Difficulty} or item.get("name") is not None:
                raise InvalidSeatsError(
                    f"seat {n}: a computer needs a difficulty, got {level!r}",
                    msg("error.seats.level", n=n, levels=level_choices()),
                )
            assert isinstance(level, str)
            specs.append(SeatSpec("computer", difficulty=level))
        else:
            raise InvalidSeatsError(
                f"seat {n}: kind must be human or computer, got {kind!r}",
                msg("error.seats.kind", n=n),
            )
    if not any(s.kind == "human" and s.name is None for s in specs[1:]) and len(specs) < 2:
        raise InvalidSeatsError("a room needs a second seat", msg("error.room.seats.second"))
    return tuple(specs)


def pace_of(room: Room) -> Pace:
    """The room's pace (W1), as stored."""
    return Pace.stored(room.pace, room.turn_seconds)


def room_game_json(view: GameView) -> dict[str, Any]:
    """The game as a room's event carries it: :func:`game_json` with only the last round's
    worth of its turn log (one turn per seat: what each seat, a friend or 托管, just wrote,
    U11) — every event carries the game, framed once for all the room's streams, so the
    whole log would grow each one; the room object (a page's load) has every turn, and the
    page adds each event's new ones to it (U17)."""
    out = game_json(view)
    turns = out.get("turns") or []
    out["turns"] = turns[-len(out["seats"]) :] if out["seats"] else []
    return out


class RoomService:
    """Every room action (see the module docstring)."""

    def __init__(
        self,
        store: RoomStore,
        games: GameService,
        storage: Storage,
        limits: RoomSettings,
        guard: Guard,
        clock: Callable[[], float] = time.time,
        processes: Callable[[], int] = lambda: 1,
        notices: TurnNotices | None = None,
        *,
        secret: bytes = b"",
        cpu: CpuPool | None = None,
    ) -> None:
        self.store = store
        # W4's seam: who is told when a turn comes to a person and when it nears its end.
        self.notices: TurnNotices = notices if notices is not None else NoNotices()
        self.games = games
        self.storage = storage
        self.limits = limits
        self.guard = guard
        # O9's rates, in the table every process shares (F5), and a seat's holds (F14),
        # each an event sent to every stream of the room: in memory, as the actions are.
        self.new_rooms = Rate(ROOMS_PER_ADDRESS, limits.rooms_per_hour_per_address, 3600.0)
        self.joins = Rate(ROOM_JOINS, limits.joins_per_minute, 60.0)
        self.renewals = Rate(ROOM_LINKS, limits.link_renewals_per_hour, 3600.0)
        self.holds = guard.local(Rate(ROOM_HOLDS, limits.holds_per_second, 1.0))
        self.nudges = Rate(ROOM_NUDGES, limits.nudges_per_hour, 3600.0)
        self.nudges_per_address = Rate(
            ROOM_NUDGES_PER_ADDRESS, limits.nudges_per_hour_per_address, 3600.0
        )
        self.clock = clock
        self.hub = RoomHub(store, stream_seconds=limits.stream_minutes * 60.0)
        # 同骰竞速 (W5): the rooms that race on one dice stream.
        self.race = RaceService(store, games, storage, secret, clock, self.hub.deliver, cpu)
        self._processes = processes  # live server processes (the streams' share, O9)
        # Each started room's seat holders, with the game's seat serial they were read at
        # (fixed from the start but for an erasure or a merge, F24; one bounded cache, K4).
        self._holders: LruCache[str, tuple[int, tuple[str | None, ...]]] = LruCache(10_000)
        self._changed: set[str] = set()  # rooms whose logs another part wrote (F24)
        # One sweep at a time in a process (a sweep asked for while one runs waits for it).
        self._sweeping = asyncio.Lock()

    def kind_hooks(self) -> KindHooks:
        """What the game service needs of a room's games once built (K2): their seats'
        browsers, and the room's log after each action (the app's wiring registers them)."""
        return KindHooks(seats=self, after_commit=self.after_commit)

    # -- seats of the game (O3) -----------------------------------------------------------

    async def holders(self, game: GameRecord) -> tuple[str | None, ...]:
        """Each seat's browser in the room's game ``game`` (fixed from the start: cached,
        as of the game's seat serial: an erasure or a merge bumps it, F24, and the seats
        are read again); none for a game of no room."""
        room_id = room_of(game)
        if room_id is None:
            return ()
        serial = game.seat_serial
        found = self._holders.get(room_id)
        if found is None or found[0] != serial:
            room = await self.store.room(room_id)
            if room is None or room.game_id is None:
                return ()
            found = (serial, tuple(s.player_id for s in room.seats))
            self._holders.put(room_id, found)
        return found[1]

    def forget_holders(self) -> None:
        """Drop the seats' browsers known here: a player's devices were merged into
        another player's, or its data deleted (I1, I4); and hand the rooms whose logs that
        wrote to this process's streams (:meth:`rooms_changed`)."""
        self._holders.clear()
        self.race.forget()
        rooms: set[str] = set()
        while self._changed:
            rooms.add(self._changed.pop())
        if rooms:
            task = asyncio.get_running_loop().create_task(self.hub.resync(rooms))
            task.add_done_callback(_log_resync_failure)

    def rooms_changed(self, room_id: str) -> None:
        """The log of ``room_id`` got an event in another part's transaction (a deletion's
        ``leave``, F24): its streams here get it once that has committed
        (:meth:`forget_holders`). Called from the transaction's thread (``set.add`` is
        atomic)."""
        self._changed.add(room_id)

    # -- reads ----------------------------------------------------------------------------

    async def room(self, room_id: str, player_id: str, token: object = None) -> dict[str, Any]:
        """The room as this browser sees it (a seat holder, or with a token)."""
        room, _role = await self._visible(room_id, player_id, token)
        return await self.room_json(room, player_id)

    async def _visible(self, room_id: str, player_id: str, token: object) -> tuple[Room, str]:
        """The room, for a seat holder or the holder of a link, and how this browser sees
        it: ``"seat"`` (it holds one, or the invite to take one) or ``"watch"``. A browser
        the creator removed gets :class:`~yahtzee.rooms.errors.RemovedFromRoomError`
        whatever link it has (F8)."""
        room = await self.store.room(room_id)
        if room is None:
            raise RoomNotFoundError(room_id)
        if room.seat_of(player_id) is not None:
            return room, "seat"
        role = await self.store.role(room_id, token, player_id)
        if role == "banned":
            raise RemovedFromRoomError(room_id)
        if role is None:
            raise RoomNotFoundError(room_id)
        return room, role

    async def room_json(self, room: Room, player_id: str) -> dict[str, Any]:
        """O1's room object, with the game (once started) and the live details."""
        game = None
        if room.game_id is not None and room.pace != RACE_PACE:
            with contextlib.suppress(GameNotFoundError):
                # U17: the whole turn log (one read of a page; the events carry the
                # last round's turns only)
                game = game_json(await self._game(room.game_id))
        mine = room.seat_of(player_id)
        # F7: the links only to its seat holders. A watcher (or a friend about to join)
        # already has the one link it came with; the other would give it more (a watch
        # link that shows the invite is an invite).
        invite = watch = None
        if mine is not None:
            page = "races" if room.pace == RACE_PACE else "rooms"  # (W5: a race's own page)
            invite = f"/{page}/{room.id}#t={self.store.invite_token(room.id, room.link_serial)}"
            watch = f"/{page}/{room.id}#w={self.store.watch_token(room.id, room.link_serial)}"
        pace = pace_of(room)
        seen = mine.seen_seq if mine is not None else None
        race = None
        if room.pace == RACE_PACE:  # W5: this seat's own game, and everyone's progress
            race, game = await self.race.race_json(room, mine)
        elif game is not None and mine is not None and pace.waits:
            await self._mark_new(room, game, mine)
        return {
            "id": room.id,
            "invite_url": invite,
            "watch_url": watch,
            "status": room.status,
            "pace": pace.id(),
            "turn_seconds": pace.seconds,
            "creator": room.creator_id == player_id,
            "your_seat": mine.index if mine is not None else None,
            "seats": [
                {
                    "index": s.index,
                    "kind": s.kind,
                    "name": s.name,
                    "difficulty": s.difficulty,
                    "taken": s.taken,
                    "you": s.player_id == player_id and s.player_id is not None,
                    "away": s.away,
                }
                for s in room.seats
            ],
            "game_id": room.game_id,
            "game": game,
            "deadline": room.deadline,
            "now": self.clock(),
            "last_event_id": room.last_seq,
            "seen_event_id": seen,
            "rematch_id": room.rematch_id,
            "race": race,
        }

    async def _mark_new(self, room: Room, game: dict[str, Any], mine: RoomSeat) -> None:
        """W3: mark the turns of ``game``'s turn log written since this seat's person
        last looked (its marker, :meth:`seen`) ``"new": true`` — the other seats' and the
        ones 托管 played for them. A turn's place in the game is (round - 1) × seats +
        seat; the turns written when they looked are the position of the last event up to
        their marker that carries the game."""
        before = await self.store.game_at(room.id, mine.seen_seq)
        seats = len(room.seats)
        done = 0 if before is None else (int(before["round"]) - 1) * seats + int(before["turn"])
        if before is not None and before.get("status") != "in_progress":
            done = 13 * seats
        marked = []
        for turn in game.get("turns") or []:
            place = (int(turn["round"]) - 1) * seats + int(turn["seat"])
            if place >= done and (turn["seat"] != mine.index or "proxy" in turn):
                turn = {**turn, "new": True}  # (a copy: the game's own is cached)
            marked.append(turn)
        game["turns"] = marked

    async def _game(self, game_id: str) -> GameView:
        return await self.games.view_of(game_id)

    async def finished_games_of(self, player_id: str, limit: int) -> PlayedGames:
        """The finished games of the last ``limit`` rooms and races this browser held a
        seat of, newest first, each with the name it played under, and how many finished
        rooms it played in all (O7: its recent games and 统计; a room's game belongs to
        the room, a race seat's to the race, not to any one browser). A race seat that did
        not finish its game by the end has no finished game here (W5)."""
        seats, total = await self.store.finished_seats_of(player_id, limit)
        out: list[tuple[RecentGame, str]] = []
        for seat in seats:
            if seat.pace == RACE_PACE:
                owner, game_id = self.race.seat_game(seat.room_id, seat.game_id, seat.index)
            else:
                owner, game_id = room_owner(seat.room_id), seat.game_id
            for game in await self.storage.finished_games(owner, limit=1):
                if game.id == game_id:
                    out.append((game, seat.name))
        return PlayedGames(tuple(out), total)

    async def rooms_of(self, player_id: str) -> list[dict[str, Any]]:
        """The rooms this browser has a seat in, newest first (a short summary each)."""
        return [
            {
                "id": r.id,
                "status": r.status,
                "game_id": r.game_id,
                "created_at": r.created_at,
                "seats": [s.name for s in r.seats],
            }
            for r in await self.store.rooms_of(player_id)
        ]

    async def turns(self, player_id: str) -> dict[str, Any]:
        """「轮到你了」 (W2): every room game in play this player holds a seat of (on any of
        its linked devices: they are one player), and every open race whose seat game it
        has not finished (W5: always its turn), its own turns first, then the soonest
        deadline (no clock last); ``your_turns`` counts the first kind (the lobby card's,
        the page title's and the app badge's number)."""
        now = self.clock()
        games = []
        for room in await self.store.games_of(player_id):
            mine = room.seat_of(player_id)
            if mine is not None and room.pace == RACE_PACE:  # W5: the player's own game
                race = await self.race.turns_entry(room, mine, now)
                if race is not None:
                    games.append({**race, "seats": turn_seats(room, mine)})
                continue
            if mine is None or room.deadline_turn is None or room.game_id is None:
                continue
            round_, turn = divmod(room.deadline_turn, 8)
            games.append(
                {
                    "room_id": room.id,
                    "game_id": room.game_id,
                    "url": f"/rooms/{room.id}",
                    "pace": room.pace,
                    "round": round_,
                    "turn": turn,
                    "your_seat": mine.index,
                    "your_turn": turn == mine.index,
                    "deadline": room.deadline,
                    "new_events": max(0, room.last_seq - mine.seen_seq),
                    "kind": "room",
                    "rounds": None,
                    "seats": turn_seats(room, mine),
                }
            )
        games.sort(
            key=lambda g: (
                not g["your_turn"],
                g["deadline"] is None,
                g["deadline"] or 0.0,
                g["room_id"],
            )
        )
        mine_now = sum(1 for g in games if g["your_turn"])
        return {"games": games, "your_turns": mine_now, "now": now}

    async def seen(self, room_id: str, player_id: str, event_id: int) -> int:
        """W3: this browser's seat has seen the room's events up to ``event_id`` (the
        marker moves forward only, never past the room's last event); returns it."""
        marker = await self.store.seen(room_id, player_id, event_id)
        if marker is None:
            raise RoomNotFoundError(room_id)
        return marker

    async def nudge(
        self, room_id: str, player_id: str, index: int, address: str, base: str = ""
    ) -> dict[str, Any]:
        """「提醒他」 (W4): a short message with the room's address for the person of seat
        ``index``, whose turn it is, to send by any messenger; by a seat holder of the
        room, at most once an hour per seat across processes
        (:class:`~yahtzee.rooms.errors.NudgeTooSoonError`), and within the nudges an
        hour per player and per address (429). The address is this server's (``base``)
        page of the room, which a seat holder's browser opens without a token; ``text``
        is a message to say in the asker's language."""
        room = await self.store.room(room_id)
        if room is None or room.seat_of(player_id) is None:
            raise RoomNotFoundError(room_id)
        on = None if room.deadline_turn is None else room.deadline_turn % 8
        if (
            room.status != "playing"
            or on != index
            or not 0 <= index < len(room.seats)
            or not room.seats[index].is_person
            or room.seats[index].player_id == player_id
        ):
            raise NotTheirTurnError(f"room {room_id}: seat {index} is not a friend on turn")
        guard = self.guard
        await guard.take(
            [
                *guard.charge(self.nudges, player_id),
                *guard.charge(self.nudges_per_address, address),
            ]
        )
        now = self.clock()
        last = await self.store.nudge(room_id, index, now, NUDGE_EVERY)
        if last is not None:
            wait = max(1, int(-(-(last + NUDGE_EVERY - now) // 1)))
            raise NudgeTooSoonError(room_id, index, wait)
        name = room.seats[index].name or ""
        link = f"{base}/rooms/{room.id}"
        if room.deadline is None:
            said = msg("server.room.nudge.no_clock", name=name, link=link)
        else:
            left = time_left(max(0.0, room.deadline - now))
            said = msg("server.room.nudge.timed", name=name, left=left, link=link)
        return {
            "seat": index,
            "name": room.seats[index].name,
            "url": link,
            "text": said,
            "deadline": room.deadline,
            "next_nudge_at": now + NUDGE_EVERY,
        }

    # -- the room's life (O1, O2) ---------------------------------------------------------

    async def create(
        self,
        player_id: str,
        address: str,
        raw_seats: object,
        raw_turn: object,
        raw_name: object,
        raw_pace: object = None,
        raw_race_days: object = None,
    ) -> dict[str, Any]:
        """A new room (O1) at its pace (W1), or a race of ``raw_race_days`` days (W5:
        people only, no pace); the creator sits in seat 0."""
        seats = parse_room_seats(raw_seats, raw_name)
        if raw_race_days is not None:
            days = parse_race_days(raw_race_days, raw_pace, raw_turn)
            check_race_seats(seats)
            pace = Pace(RACE_PACE, days * 86400)
        else:
            pace = Pace.parse(raw_pace, raw_turn)
        specs = (SeatSpec("human", seats[0].name, player_id=player_id), *seats[1:])
        # O9: 30 an hour per address, in the table every process shares.
        await self.guard.take(self.guard.charge(self.new_rooms, address))
        room, event = await self.store.create(
            player_id,
            specs,
            pace.seconds or 0,
            self.clock(),
            self.limits.open_rooms,
            pace=pace.id(),
            max_waiting=self.limits.waiting_rooms,
        )
        self.hub.deliver(event)
        return await self.room_json(room, player_id)

    async def join(
        self, room_id: str, player_id: str, token: object, raw_name: object
    ) -> dict[str, Any]:
        """Take the first open person seat (O2); the same seat again for its browser."""
        name = parse_name(raw_name)
        await self.guard.take(self.guard.charge(self.joins, player_id))
        room, _seat, event = await self.store.join(
            room_id, token, player_id, name, self.clock(), self.limits.waiting_rooms
        )
        if event is not None:
            self.hub.deliver(event)
        return await self.room_json(room, player_id)

    async def remove(self, room_id: str, player_id: str, index: int) -> dict[str, Any]:
        """The creator frees a seat before the start (O2); the room's links are new (F27:
        the removed browser's fresh cookie cannot come back with the old one), which the
        answer's room carries for the creator to share."""
        room, events = await self.store.remove(room_id, player_id, index, self.clock())
        for event in events:
            self.hub.deliver(event)
        return await self.room_json(room, player_id)

    async def renew_links(self, room_id: str, player_id: str) -> dict[str, Any]:
        """The creator's new invite and watch links (F7): the old ones open nothing any
        more, and the streams of the room end once to be checked again (a watcher of an
        old link is out). ``link_renewals_per_hour`` per browser (429 past it)."""
        await self.guard.take(self.guard.charge(self.renewals, player_id))
        room, event = await self.store.renew_links(room_id, player_id, self.clock())
        self.hub.deliver(event)
        return await self.room_json(room, player_id)

    async def start(self, room_id: str, player_id: str) -> dict[str, Any]:
        """The creator starts the room's game (O2): a table game of the seats taken.

        Three steps: claim the start (the room is ``starting``, with the id its game will
        have), create the game, then mark the room ``playing``. A process that dies (or a
        database that does not answer) between the first and the last leaves the claim,
        which the sweep resolves after ``start_timeout`` seconds (F10, :meth:`sweep`)."""
        game_id = room_game_id(room_id)
        room = await self.store.begin_start(room_id, player_id, game_id, self.clock())
        if room.pace == RACE_PACE:
            return await self._start_race(room, player_id, game_id)
        seats = tuple(
            log.Seat(SeatKind.HUMAN, name=s.name)
            if s.is_person
            else log.Seat(SeatKind.COMPUTER, difficulty=s.difficulty)
            for s in playing_seats(room)
        )
        try:
            # ``replace``: the game of an earlier claim that was undone while its process
            # was still creating it may be there, unplayed (F10): it is abandoned.
            view = await self.games.new_game(
                room_owner(room.id), ROOM, seats=seats, replace=True, game_id=game_id
            )
        except BaseException:
            await self.store.abort_start(room.id, game_id)
            raise
        started = await self._started(room, view)
        if started is None:
            now = await self.store.room(room.id)
            if now is None or now.game_id != game_id:  # the sweep undid the claim meanwhile
                raise StartExpiredError(f"room {room.id}: the start of {game_id} was undone")
            started = now  # the sweep of another process finished it meanwhile
        return await self.room_json(started, player_id)

    async def _start_race(self, room: Room, player_id: str, base: str) -> dict[str, Any]:
        """W5: the claimed start of a race: every seat's game, then ``playing`` until
        the race's end (F10 as any start: a claim whose games were not all stored is
        undone by the sweep, one whose games were is finished by it)."""
        try:
            await self.race.create_games(room, base)
        except BaseException:
            await self.store.abort_start(room.id, base)
            raise
        started = await self._race_started(room, base)
        if started is None:
            now = await self.store.room(room.id)
            if now is None or now.game_id != base:
                raise StartExpiredError(f"room {room.id}: the start of {base} was undone")
            started = now
        return await self.room_json(started, player_id)

    async def _race_started(self, room: Room, base: str) -> Room | None:
        now = self.clock()
        ends, data = self.race.start_data(room, now)
        done = await self.store.started(room.id, base, ends, None, 0, data, now)
        if done is None:
            return None
        started, event = done
        self.hub.deliver(event)
        return started

    async def _started(self, room: Room, view: GameView) -> Room | None:
        """Mark ``room`` (claimed for ``view``'s game) ``playing`` and log the start;
        ``None`` if the claim is no longer the room's."""
        now = self.clock()
        playing = playing_seats(room)
        pace = pace_of(room)
        away = {s.index: s.away for s in playing}
        deadline, remind = self._deadline(view, pace, away, now)
        done = await self.store.started(
            room.id,
            view.record.id,
            deadline,
            _turn_of(view),
            view.record.version,
            {
                "game": room_game_json(view),
                "deadline": deadline,
                "now": now,
                "seats": [_seat_json(s) for s in playing],
            },
            now,
            remind,
        )
        if done is None:
            return None
        started, event = done
        self.hub.deliver(event)
        await self._tell_turn(started, view)
        return started

    def _deadline(
        self, view: GameView, pace: Pace, away: dict[int, bool], now: float
    ) -> tuple[float | None, float | None]:
        """When the turn now on comes to 托管 — the pace's time from now (``None``: no
        clock), or the short grace of an away person (``away``: seat → 托管); ``None``
        once the game is over — and its first reminder point (W4)."""
        game = view.game
        if game.is_over:
            return None, None
        if away.get(game.turn, False):
            return now + AWAY_GRACE, None
        deadline = pace.deadline(now)
        return deadline, pace.next_reminder(deadline, now)

    async def _tell_turn(self, room: Room, view: GameView) -> None:
        """W4: a waiting room's turn came to a person (not away, nor watching the room on
        this process): :attr:`notices` is told. Never fails the action."""
        game = view.game
        if not pace_of(room).waits or game.is_over or not 0 <= game.turn < len(room.seats):
            return
        seat = room.seats[game.turn]
        holders = await self.holders(view.record)
        player = holders[game.turn] if game.turn < len(holders) else None
        if player is None or seat.away or game.kind is not SeatKind.HUMAN:
            return
        if self.hub.watching(room.id, player):
            return
        try:
            await self.notices.turn(self._notice(room, view, player, room.deadline))
        except Exception:
            log_.exception("room %s: the turn's notice failed", room.id)

    def _notice(
        self, room: Room, view: GameView, player: str, deadline: float | None
    ) -> TurnNotice:
        names = tuple(s.name for s in view.seats)
        return TurnNotice(player, room.id, names, view.game.round, f"/rooms/{room.id}", deadline)

    # -- the game's events (O3-O5) --------------------------------------------------------

    async def after_commit(self, view: GameView, events: Sequence[log.Event], proxy: bool) -> None:
        """Log what an action of a room's game did (see the module docstring): the room
        read and its events written in one transaction (:meth:`RoomStore.record`); then,
        when the turn moved on to a person in a waiting room, :attr:`notices` is told."""
        room_id = room_of(view.record)
        if room_id is None or not events:
            return
        first = events[0]
        seat = getattr(first, "seat", None)
        now = self.clock()
        game = room_game_json(view)
        kind = _kind_of(first, proxy)

        turn = _turn_of(view)
        came_up: Room | None = None  # the room, when the turn moved on (W4)

        def plan(room: Room) -> list[Publication]:
            nonlocal came_up
            pace = pace_of(room)
            pubs: list[Publication] = []
            away = {s.index: s.away for s in room.seats}
            missed: dict[int, int] = {}
            came_back = False
            if isinstance(seat, int) and 0 <= seat < len(room.seats):
                was = room.seats[seat].missed
                if proxy and pace.waits:
                    missed[seat] = was + 1  # W1: three in a row and the seat is away
                elif not proxy and was:
                    missed[seat] = 0
                if proxy and not away[seat] and missed.get(seat, 1) >= pace.away_after:
                    away[seat] = True
                    pubs.append(Publication("away", {"seat": seat}, away={seat: True}))
                elif not proxy and away[seat]:
                    away[seat] = False
                    came_back = True
                    pubs.append(Publication("back", {"seat": seat}, away={seat: False}))
            # F12: the deadline is set once a turn, when it begins (or when its away
            # person comes back): a roll or a hint does not give the turn its time again,
            # nor moves its reminder point (which a sweep may have moved meanwhile).
            remind: float | bool | None = False
            if turn is not None and turn == room.deadline_turn and not came_back:
                deadline = room.deadline
            else:
                deadline, remind = self._deadline(view, pace, away, now)
            data = {"seat": seat, "game": game, "deadline": deadline, "now": now, "proxy": proxy}
            pubs.append(
                Publication(
                    kind,
                    data,
                    deadline,
                    view.record.version,
                    turn=turn,
                    missed=missed or None,
                    remind_at=remind,
                    acted_at=None if proxy else now,
                )
            )
            if view.game.is_over:
                pubs.append(Publication("end", {"ranking": game["ranking"]}, finished=True))
            came_up = None
            if turn is not None and turn != room.deadline_turn:
                seats = tuple(dataclasses.replace(s, away=away[s.index]) for s in room.seats)
                came_up = dataclasses.replace(room, seats=seats, deadline=deadline)
            return pubs

        try:
            published = await self.store.record(room_id, plan, now)
        except Exception:  # the game is stored: the next event carries it anyway
            log_.exception("logging room %s's event failed", room_id)
            return
        for event in published:
            self.hub.deliver(event)
        if published and came_up is not None:
            await self._tell_turn(came_up, view)

    async def hold(self, room_id: str, player_id: str, raw: object) -> None:
        """The seat on turn shows which dice it holds before rolling (O4: the others see
        the holds as they happen). Nothing is stored in the game. Each one is an event
        every stream of the room is sent: ``holds_per_second`` per browser first (429
        past it, nothing sent; the roll carries the dice held anyway)."""
        self.holds.take(player_id)
        room, game = await self._on_turn(room_id, player_id)
        if not isinstance(raw, list):
            raise IllegalMoveError(f"hold must be five booleans, got {raw!r}")
        mask = as_hold(raw)
        if game.game.dice is None:
            raise IllegalMoveError("nothing to hold before the first roll")
        event = await self.store.publish(
            room_id, "hold", {"seat": game.game.turn, "hold": list(mask)}, self.clock()
        )
        self.hub.deliver(event)
        del room

    async def _on_turn(self, room_id: str, player_id: str) -> tuple[Room, GameView]:
        room = await self.store.room(room_id)
        if room is None or room.seat_of(player_id) is None:
            raise RoomNotFoundError(room_id)
        if room.game_id is None or room.status != "playing" or room.pace == RACE_PACE:
            raise IllegalMoveError(f"room {room_id} is not playing a shared game")
        view = await self._game(room.game_id)
        turn = view.game.turn
        if room.seats[turn].player_id != player_id:
            raise WrongPlayerError(f"seat {turn} is on turn, not this browser's")
        return room, view

    async def back(self, room_id: str, player_id: str) -> None:
        """「我回来了」: an away person takes their seat back (O5)."""
        room = await self.store.room(room_id)
        seat = room.seat_of(player_id) if room is not None else None
        if room is None or seat is None:
            raise RoomNotFoundError(room_id)
        if not seat.away:
            return
        now = self.clock()
        pace = pace_of(room)
        deadline: float | bool | None = False
        remind: float | bool | None = False
        if room.game_id is not None and room.status == "playing":
            view = await self._game(room.game_id)
            if not view.game.is_over and view.game.turn == seat.index:
                deadline = pace.deadline(now)  # (no clock: none)
                remind = pace.next_reminder(deadline, now)
        event = await self.store.publish(
            room_id,
            "back",
            {"seat": seat.index, "deadline": deadline or None},
            now,
            away={seat.index: False},
            deadline=deadline,
            missed={seat.index: 0},
            remind_at=remind,
            acted_at=now if room.status == "playing" else None,
        )
        self.hub.deliver(event)

    async def react(self, room_id: str, player_id: str, reaction: object) -> None:
        """A quick reaction of the browser's seat (O6): one of :data:`REACTIONS`, at most
        one a second per seat (429 otherwise)."""
        if not isinstance(reaction, str) or reaction not in REACTIONS:
            raise InvalidReactionError(f"unknown reaction {reaction!r}")
        room = await self.store.room(room_id)
        seat = room.seat_of(player_id) if room is not None else None
        if room is None or seat is None:
            raise RoomNotFoundError(room_id)
        event = await self.store.react(
            room_id,
            seat.index,
            {"seat": seat.index, "reaction": reaction},
            self.clock(),
            REACTION_EVERY,
        )
        self.hub.deliver(event)

    async def rematch(self, room_id: str, player_id: str, address: str) -> dict[str, Any]:
        """「再来一局」 (O7): a new room with the same seats, every person already seated;
        its creator is whoever asked first (F10: it takes their open-room slot, not the
        old creator's), in the first seat, the others following in the old order. Once
        per room: everyone who asks gets the same."""
        room = await self.store.room(room_id)
        asker = room.seat_of(player_id) if room is not None else None
        if room is None or asker is None:
            raise RoomNotFoundError(room_id)
        if room.status != "finished":
            raise IllegalMoveError(f"room {room_id} is {room.status}: not over")
        order = room.seats[asker.index :] + room.seats[: asker.index]
        specs = tuple(SeatSpec(s.kind, s.name, s.difficulty, s.player_id) for s in order)
        if room.rematch_id is None:
            await self.guard.take(self.guard.charge(self.new_rooms, address))
        new, event = await create_or_existing(
            self.store,
            player_id,
            specs,
            room.turn_seconds,
            self.clock(),
            self.limits.open_rooms,
            rematch_of=room.id,
            pace=room.pace,  # W1: a rematch keeps the pace
            max_waiting=self.limits.waiting_rooms,
        )
        if event is not None:
            self.hub.deliver(event)
            notice = await self.store.publish(room.id, "rematch", {"room": new.id}, self.clock())
            self.hub.deliver(notice)
        return await self.room_json(new, player_id)

    # -- streams (O4, O9) -----------------------------------------------------------------

    async def open_stream(
        self, room_id: str, player_id: str, address: str, token: object, device: str = ""
    ) -> Subscription:
        """A stream of the room for this browser, if it may hold one (a seat holder, or a
        link's token) and the caps allow (F9; :class:`~yahtzee.errors.TooManyStreamsError`
        otherwise): ``streams_per_player`` in this process; ``streams_per_address`` and
        the room's ``streams_per_room``, each process taking its share (the limit / live
        processes). The room's cap counts everyone but its seat holders, who always get
        theirs: the holders of the invite link too (F18: any number of cookies could
        open a stream with it, uncounted), who get theirs once they take a seat. The
        subscription is counted from now on: release it (:class:`RoomEventStream` does)."""
        room, role = await self._visible(room_id, player_id, token)
        processes = max(1, self._processes())
        limits = self.limits
        caps = (
            limits.streams_per_player,
            _share(limits.streams_per_address, processes),
            _share(limits.streams_per_room, processes),
        )
        watcher = room.seat_of(player_id) is None
        try:
            return self.hub.admit(
                room_id, player_id, address, watcher=watcher, caps=caps, device=device
            )
        except TooManyStreamsError as exc:
            if exc.scope == "room" and role == "seat":  # (an invite holder: a seat will do)
                raise TooManyStreamsError(str(exc), exc.limit, "invite") from None
            raise

    # -- the sweeper (O2, O5) -------------------------------------------------------------

    async def sweep(self) -> int:
        """Play the turns whose deadline passed (托管), resolve the starts claimed too
        long ago (F10) and expire rooms left waiting; finish the waiting rooms idle for
        :data:`IDLE_DAYS` days and tell of the turns past a reminder point (W1, W4);
        returns how many turns were played."""
        async with self._sweeping:
            return await self._sweep()

    async def _sweep(self) -> int:
        now = self.clock()
        for room in await self.store.stuck(now - self.limits.start_timeout):
            await self._resolve_start(room)
        # Claimed for this process for SWEEP_LEASE seconds: the other processes sweep
        # the others (a thousand waiting rooms may come due in a minute, W1).
        due = await self.store.due(now, lease=SWEEP_LEASE)
        gate = asyncio.Semaphore(SWEEP_AT_ONCE)
        played = sum(await asyncio.gather(*(self._play_due(room, gate) for room in due)))
        for event in await self.store.expire(now, WAIT_SECONDS):
            self.hub.deliver(event)
        for room in await self.store.idle(now - IDLE_DAYS * 86400.0):
            await self._finish_idle(room)
        await self._remind_due(now, gate)
        return played

    async def _remind_due(self, now: float, gate: asyncio.Semaphore) -> None:
        """W4: the turns past a reminder point. Their points are moved on in one
        transaction (the process whose write moved a point reminds), then their notices
        go out a few at once."""
        rooms = await self.store.reminders_due(now)
        moves = [
            (r.id, r.remind_at, pace_of(r).next_reminder(r.deadline, max(now, r.remind_at)))
            for r in rooms
            if r.remind_at is not None
        ]
        taken = await self.store.take_reminders(moves)
        await asyncio.gather(*(self._remind(r, gate) for r in rooms if r.id in taken))

    async def _play_due(self, room: Room, gate: asyncio.Semaphore) -> int:
        """托管 plays the due turn of ``room`` (1), unless it moved on meanwhile (0)."""
        if room.pace == RACE_PACE:  # W5: the race's end (its games closed, its ranking)
            async with gate:
                try:
                    return await self.race.finish(room)
                except Exception:
                    log_.exception("room %s: the race could not be ended", room.id)
                    return 0
        if room.game_id is None or room.deadline_version is None:
            return 0
        async with gate:
            try:
                # Only the position the deadline was set for: a turn that moved on since
                # (the person acted, another process played it) is refused by the
                # game's compare-and-set.
                await self.games.play_for(room.game_id, room.deadline_version, PROXY_LEVEL)
            except StaleVersionError:
                # the person acted, or another process played it first; or the process
                # that committed that action died before it logged it (kill -9 between
                # the game's commit and the room's event): then the room would wait on
                # its old deadline forever, so its log catches up with the game
                await self._catch_up(room)
                return 0
            except GameNotFoundError:
                return 0
            except Exception:
                log_.exception("room %s: autoplay could not play the due turn", room.id)
                return 0
        return 1

    async def _catch_up(self, room: Room) -> None:
        """The room's log is behind its game (an action committed, its event never
        logged): log the game as it stands (a ``game`` event) with the turn on's deadline
        from now, and its end if it is over. Nothing when the log has it meanwhile."""
        if room.game_id is None:
            return
        view = await self._game(room.game_id)
        version = view.record.version
        if version <= (room.deadline_version or 0):
            return
        now = self.clock()
        game = room_game_json(view)
        turn = _turn_of(view)

        def plan(current: Room) -> list[Publication]:
            if current.status != "playing" or (current.deadline_version or 0) >= version:
                return []
            away = {s.index: s.away for s in current.seats}
            deadline, remind = self._deadline(view, pace_of(current), away, now)
            data = {"seat": None, "game": game, "deadline": deadline, "now": now}
            pubs = [Publication("game", data, deadline, version, turn=turn, remind_at=remind)]
            if view.game.is_over:
                pubs.append(Publication("end", {"ranking": game["ranking"]}, finished=True))
            return pubs

        events = await self.store.record(room.id, plan, now)
        for event in events:
            self.hub.deliver(event)
        if events:
            log_.warning("room %s: its log caught up with its game at version %s", room.id, version)

    async def _finish_idle(self, room: Room) -> None:
        """W1: a waiting room in which no person acted for :data:`IDLE_DAYS` days is
        finished as it stands. Its game is closed (an ``abandon`` event, status
        ``abandoned``: the game's compare-and-set lets one process through, and a person
        who acts meanwhile wins), then the room's ``end`` event says so (``reason:
        "idle"``) with the ranking as it stands; a process killed between the two leaves
        the game closed, which the next sweep finds and ends the room for."""
        if room.game_id is None:
            return
        record = await self.storage.get_game(room.game_id)
        if record is None:
            return
        if record.status is Status.IN_PROGRESS:
            try:
                record = await self.storage.append(record, [log.Abandon()], status=Status.ABANDONED)
            except StaleVersionError:
                return  # somebody acted (or another process closed it): seen next sweep
        if record.status is not Status.ABANDONED:
            return  # (finished by its last turn: its own end event follows)
        view = await self.games.view_of(room.game_id)
        totals = [c.total for c in view.game.cards]
        ranking_ = [p.to_json() for p in ranking(totals)]

        def plan(now: Room) -> list[Publication]:
            if now.status != "playing":
                return []
            data = {"ranking": ranking_, "reason": "idle", "days": IDLE_DAYS}
            return [Publication("end", data, finished=True)]

        for event in await self.store.record(room.id, plan, self.clock()):
            self.hub.deliver(event)
        log_.info("room %s: nobody played for %s days, finished as it stands", room.id, IDLE_DAYS)

    async def _remind(self, room: Room, gate: asyncio.Semaphore) -> None:
        """W4: the turn on passed a reminder point (moved on by this process's write):
        tell :attr:`notices` (unless its person is away or watching here)."""
        if room.game_id is None:
            return
        async with gate:
            try:
                view = await self._game(room.game_id)
                game = view.game
                holders = await self.holders(view.record)
                if game.is_over or game.turn >= len(holders) or room.seats[game.turn].away:
                    return
                player = holders[game.turn]
                if player is None or self.hub.watching(room.id, player):
                    return
                notice = self._notice(room, view, player, room.deadline)
                await self.notices.deadline_near(notice)
            except Exception:
                log_.exception("room %s: the reminder's notice failed", room.id)

    async def _resolve_start(self, room: Room) -> None:
        """A start claimed more than ``start_timeout`` seconds ago (F10): on to ``playing``
        if its game was stored, else back to ``waiting`` (the seats as they were). Racing
        sweeps and the claim's own process settle it by the claim's compare-and-set."""
        game_id = room.start_game
        if room.pace == RACE_PACE and game_id is not None:
            if not await self.race.all_stored(room, game_id):
                if await self.store.abort_start(room.id, game_id):
                    log_.warning("room %s: a race's start without its games was undone", room.id)
            elif await self._race_started(room, game_id) is not None:
                log_.warning(
                    "room %s: a race's start whose games were stored was finished", room.id
                )
            return
        record = None if game_id is None else await self.storage.get_game(game_id)
        if game_id is None or record is None:
            if await self.store.abort_start(room.id, game_id):
                log_.warning("room %s: a start without its game was undone", room.id)
            return
        with contextlib.suppress(GameNotFoundError):
            if await self._started(room, await self._game(game_id)) is not None:
                log_.warning("room %s: a start whose game was stored was finished", room.id)

    async def run_sweeper(self) -> None:
        """Sweep every :data:`SWEEP_EVERY` seconds until cancelled (faults are logged)."""
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                await self.sweep()
            except Exception:
                log_.exception("the rooms' sweep failed")


def _log_resync_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log_.warning("room streams not caught up: %s", task.exception())


def _share(limit: int, processes: int) -> int:
    """A process's share of a limit of every process together (0: none)."""
    return 0 if limit <= 0 else max(1, -(-limit // processes))


def _turn_of(view: GameView) -> int | None:
    """The turn on, as one number (round × 8 + seat; the deadline's turn, F12), or
    ``None`` once the game is over."""
    game = view.game
    return None if game.is_over else game.round * 8 + game.turn


def _seat_json(seat: RoomSeat) -> dict[str, Any]:
    """A seat as every browser may see it (the start event's seats, renumbered)."""
    return {
        "index": seat.index,
        "kind": seat.kind,
        "name": seat.name,
        "difficulty": seat.difficulty,
        "taken": seat.taken,
        "away": seat.away,
    }


def _kind_of(event: log.Event, proxy: bool) -> str:
    """The room event's kind for a game action's first event."""
    del proxy
    if isinstance(event, log.Roll):
        return "roll"
    if isinstance(event, log.Score):
        return "score"
    if isinstance(event, log.Hint):
        return "hint"
    return "game"
