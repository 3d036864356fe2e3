"""同骰竞速 (W5): a race on the same dice, a kind of room.

A race room is made like any room (its seats, the invite link, the start), with a length
of :data:`RACE_DAYS` instead of a pace. Its start gives every seat a solo game of its own,
of the kind :data:`RACE` (K2), each owned by its seat (:func:`race_owner`) and played from
that seat's browser only, all on the room's one dice stream (:func:`race_dice`: the
server's secret stream that 每日挑战 uses for a day, :class:`~yahtzee.dice.KeyedStreams`,
keyed by the room), so two seats that hold the same dice see the same faces. Nobody waits
for anybody: each seat plays at its own pace until the race's end.

The room's log says each seat's progress (a ``progress`` event after each box written:
rounds played and score so far, never the dice), and its end: when the last seat
finishes, the room's deadline is brought to now; when the deadline passes, the rooms'
sweep (a lease-claimed due room, :meth:`~yahtzee.rooms.store.RoomStore.due`, so one
process does it, and another if it dies) closes the games still in play (abandoned, as
they stand) and logs the ranking (:func:`race_ranking`): finished seats by score, then the
others by score as it stands, each finished seat's skill loss and luck beside it (its
review, L1-L3). Once the race is over every seat may open every finished seat's 复盘 (the
ordinary review of its game, :meth:`RaceSeats.holders`); before, only its own game.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from yahtzee import log
from yahtzee.dice import KeyedStreams
from yahtzee.errors import IllegalMoveError, InvalidSeatsError, StaleVersionError, YahtzeeError
from yahtzee.game import ROUNDS, GameKind, Mode, Status
from yahtzee.i18n import N_, msg
from yahtzee.lru import LruCache
from yahtzee.review import review_events
from yahtzee.rooms.errors import InvalidPaceError, InvalidRaceError
from yahtzee.rooms.store import (
    RACE_OWNER,
    Publication,
    Room,
    RoomSeat,
    RoomStore,
    SeatSpec,
    playing_seats,
)
from yahtzee.server.kinds import KeyedDice, KindHooks, KindRules, Refusal, no_undo
from yahtzee.server.views import game_json

if TYPE_CHECKING:
    from yahtzee.server.cpu import CpuPool
    from yahtzee.server.game_view import Fold, GameView
    from yahtzee.server.service import GameService
    from yahtzee.storage.base import GameRecord, Storage

log_ = logging.getLogger("yahtzee.server")

#: A race's pace, as the rooms' ``pace`` column says it (its ``turn_seconds``: the race's
#: length in seconds).
RACE_PACE = "race"
#: The lengths a race is made with, in days (W5).
RACE_DAYS = (1, 3, 7)
DAY = 86400
#: 同骰竞速's kind of game (K2): a seat's own solo game on the race's dice; no hints (the
#: expert's move), no 撤销, no giving up (the race closes it), counted apart in 统计
#: (``race``: a race's games are not 单人挑战's, their dice are shared).
RACE = GameKind("race")
NAME = N_("server.kind.race")
RULES = KindRules(
    RACE,
    NAME,
    Mode.SOLO,
    title=N_("core.kind.race"),
    hints=Refusal("no_hints_in_race", msg("error.race.no_hints")),
    undo=no_undo(NAME),
    abandon=Refusal("illegal_action", msg("error.race.not_abandoned")),
    stats="race",
)
#: The purpose of the race's stream (每日挑战's is ``yahtzee-daily-v1:``).
_PURPOSE = b"yahtzee-race-v1:"
_OWNER = RACE_OWNER


def parse_race_days(raw: object, pace: object, turn_seconds: object) -> int:
    """A new race's length in days: 1, 3 or 7 (a whole number), with no pace or turn time
    beside it; anything else :class:`InvalidRaceError` naming the value."""
    if pace is not None or turn_seconds is not None:
        raise InvalidPaceError("a race has no pace", msg("error.race.no_pace"))
    if type(raw) is not int or raw not in RACE_DAYS:
        shown = repr(raw)[:40]
        choices = ", ".join(str(d) for d in RACE_DAYS)
        raise InvalidRaceError(
            f"race_days must be one of {choices}, got {shown}",
            msg("error.race.invalid_days", value=shown, choices=choices),
        )
    return raw


def check_race_seats(seats: Sequence[SeatSpec]) -> None:
    """A race is between people: every seat a person's (W5)."""
    for n, spec in enumerate(seats, start=1):
        if spec.kind != "human":
            raise InvalidSeatsError(
                f"seat {n}: a race is between people", msg("error.race.people_only", n=n)
            )


def race_owner(room_id: str, seat: int) -> str:
    """The owner of seat ``seat``'s game in race ``room_id``: no browser (a player id
    never has a colon), so it is nobody's unfinished game and the room holds it."""
    return f"{_OWNER}{room_id}:{seat}"


def race_seat_of(owner: str) -> tuple[str, int] | None:
    """The race and seat whose game a game owned by ``owner`` is, else ``None``."""
    if not owner.startswith(_OWNER):
        return None
    room_id, _, seat = owner[len(_OWNER) :].partition(":")
    return (room_id, int(seat)) if seat.isdigit() else None


def seat_game_id(base: str, seat: int) -> str:
    """Seat ``seat``'s game id in a race whose start claimed ``base`` (a room game's id,
    :func:`~yahtzee.rooms.service.room_game_id`): its last two hex digits the seat's, so
    the one claim (F10) names every seat's game."""
    return f"{base[:-2]}{seat:02x}"


def race_ranking(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The race's ranking (W5): the seats that finished by score, highest first, then the
    others by their score as it stands; equal entries share a place (1, 1, 3), listed in
    seat order."""
    order = sorted(entries, key=lambda e: (not e["finished"], -e["score"], e["seat"]))
    out = []
    for entry in order:
        better = sum(
            1
            for o in order
            if (o["finished"], o["score"]) != (entry["finished"], entry["score"])
            and (
                o["finished"] > entry["finished"]
                or (o["finished"] == entry["finished"] and o["score"] > entry["score"])
            )
        )
        out.append({**entry, "rank": better + 1})
    return out


def skill_and_luck(events: Sequence[log.Event]) -> tuple[float, float]:
    """A finished game's skill loss and luck (its review, L1-L3): run in the CPU pool."""
    human = review_events(events).human
    return round(human.skill_loss, 2), round(human.luck, 1)


def _race_of(fold: Fold) -> str:
    seat = race_seat_of(fold.owner or "")
    if seat is None:
        raise IllegalMoveError("a race game is owned by its race's seat")
    return seat[0]


def race_dice(secret: bytes) -> KeyedDice[str, KeyedStreams]:
    """同骰竞速's dice policy (K2): a race game's rolls are the next faces of its room's
    stream (每日挑战's mechanism keyed by the room, from the server's secret, which every
    process shares)."""
    return KeyedDice(_race_of, lambda room_id: KeyedStreams(secret, _PURPOSE, room_id), 1000)


def progress_of(index: int, seat: RoomSeat, view: GameView | None) -> dict[str, Any]:
    """What every seat sees of seat ``index``'s game (W5): its rounds played and score so
    far, and whether it finished: never its dice."""
    card = view.game.card(0) if view is not None else None
    return {
        "index": index,
        "name": seat.name,
        "rounds": card.filled_count if card is not None else 0,
        "score": card.total if card is not None else 0,
        "finished": view is not None and view.record.status is Status.FINISHED,
    }


class RaceService:
    """The races of the rooms (see the module docstring): their start, their games' seats
    and events, and their end."""

    def __init__(
        self,
        store: RoomStore,
        games: GameService,
        storage: Storage,
        secret: bytes,
        clock: Callable[[], float],
        deliver: Callable[[Any], None],
        cpu: CpuPool | None = None,
    ) -> None:
        self.store = store
        self.games = games
        self.storage = storage
        self.dice = race_dice(secret)
        self.clock = clock
        self._deliver = deliver  # (the room hub's: an event to this process's streams)
        self._cpu = cpu
        # Each race's seat holders, once fixed (the start) and once over (everyone may
        # read every game), with the seat serial they were read at (F24; K4).
        self._holders: LruCache[tuple[str, bool], tuple[int, tuple[str | None, ...]]] = LruCache(
            10_000
        )

    def kind_hooks(self) -> KindHooks:
        """What the game service needs of a race game (K2): its dice, its seat's browser
        (and, once the race is over, every seat's for its 复盘), and its progress logged
        after each action."""
        return KindHooks(dice=self.dice, seats=self, after_commit=self.after_commit)

    # -- seats -----------------------------------------------------------------------------

    async def holders(self, game: GameRecord) -> tuple[str | None, ...]:
        """The browser of the seat whose game ``game`` is, first (the one who plays it);
        once its game is over and the race too, every other seat's after it (they may
        read it: 复盘 side by side, W5), never before."""
        found = race_seat_of(game.player_id)
        if found is None:
            return ()
        room_id, index = found
        over = game.status is not Status.IN_PROGRESS
        key = (game.id, over)
        cached = self._holders.get(key)
        if cached is not None and cached[0] == game.seat_serial:
            return cached[1]
        room = await self.store.room(room_id)
        if room is None or not 0 <= index < len(room.seats):
            return ()
        own = room.seats[index].player_id
        if over and room.status == "finished":
            others = tuple(s.player_id for s in room.seats if s.index != index)
            holders = (own, *others)
        else:
            holders = (own,)
        if not over or room.status == "finished":  # (fixed from here on)
            self._holders.put(key, (game.seat_serial, holders))
        return holders

    def forget(self) -> None:
        """Drop the holders known here (a merge or a deletion, I1, I4)."""
        self._holders.clear()

    # -- the start -------------------------------------------------------------------------

    @staticmethod
    def seat_game(room_id: str, base: str, index: int) -> tuple[str, str]:
        """Seat ``index``'s game in race ``room_id`` claimed for ``base``: its owner and id."""
        return race_owner(room_id, index), seat_game_id(base, index)

    async def create_games(self, room: Room, base: str) -> None:
        """Every playing seat's game of the race claimed for ``base`` (an earlier claim's
        unplayed game of a seat is replaced, F10)."""
        for index, _seat in enumerate(playing_seats(room)):
            await self.games.new_game(
                race_owner(room.id, index), RACE, replace=True, game_id=seat_game_id(base, index)
            )

    async def all_stored(self, room: Room, base: str) -> bool:
        """Whether every playing seat's game of the claim ``base`` is stored (F10)."""
        for index, _seat in enumerate(playing_seats(room)):
            if await self.storage.get_game(seat_game_id(base, index)) is None:
                return False
        return True

    def start_data(self, room: Room, now: float) -> tuple[float, dict[str, Any]]:
        """The race's end, and its ``start`` event's data."""
        ends = now + room.turn_seconds
        playing = playing_seats(room)
        seats = [
            {"index": i, "kind": s.kind, "name": s.name, "difficulty": None, "taken": True}
            for i, s in enumerate(playing)
        ]
        data = {
            "game": None,
            "deadline": ends,
            "now": now,
            "seats": seats,
            "race": {"days": room.turn_seconds // DAY, "ends_at": ends},
        }
        return ends, data

    # -- reads -----------------------------------------------------------------------------

    async def view(self, room: Room, index: int) -> GameView | None:
        """Seat ``index``'s game as it stands (``None``: none stored)."""
        if room.game_id is None:
            return None
        try:
            return await self.games.view_of(seat_game_id(room.game_id, index))
        except YahtzeeError:
            return None

    async def race_json(self, room: Room, mine: RoomSeat | None) -> tuple[dict[str, Any], Any]:
        """The room's ``race`` object (W5) and this browser's own game object (``None``
        without a seat or before the start)."""
        ends: float | None = room.deadline
        seats: list[dict[str, Any]] = []
        own = None
        ranking = None
        if room.game_id is not None:
            views = await asyncio.gather(*(self.view(room, s.index) for s in room.seats))
            for seat, view in zip(room.seats, views, strict=True):
                seats.append(progress_of(seat.index, seat, view))
                if mine is not None and seat.index == mine.index and view is not None:
                    own = game_json(view)
            if room.status == "finished":
                end = await self.store.last_event(room.id, "end")
                if end is not None:
                    ranking = end.get("ranking")
                    ends = end.get("ends_at", ends)
        race = {
            "days": room.turn_seconds // DAY,
            "ends_at": ends,
            "your_game_id": (
                seat_game_id(room.game_id, mine.index)
                if room.game_id is not None and mine is not None
                else None
            ),
            "seats": seats,
            "ranking": ranking,
        }
        return race, own

    async def turns_entry(self, room: Room, mine: RoomSeat, now: float) -> dict[str, Any] | None:
        """The race in 「轮到你了」 (W2) for the player of seat ``mine``, while it is open
        and that seat's game is not over: always the player's turn (nobody waits for
        anybody), ``round`` the player's own (its rounds played and one), ``turn`` its
        seat, ``deadline`` the race's end; ``None`` otherwise (the caller adds the seats)."""
        if room.game_id is None or room.status != "playing":
            return None
        if room.deadline is not None and room.deadline <= now:
            return None  # (over: the sweep closes it)
        view = await self.view(room, mine.index)
        if view is None or view.record.status is not Status.IN_PROGRESS:
            return None
        rounds = view.game.card(0).filled_count
        return {
            "room_id": room.id,
            "game_id": seat_game_id(room.game_id, mine.index),
            "url": f"/races/{room.id}",
            "pace": room.pace,
            "round": min(rounds + 1, ROUNDS),
            "turn": mine.index,
            "your_seat": mine.index,
            "your_turn": True,
            "deadline": room.deadline,
            "new_events": max(0, room.last_seq - mine.seen_seq),
            "kind": "race",
            "rounds": rounds,
        }

    # -- the games' events -----------------------------------------------------------------

    async def after_commit(self, view: GameView, events: Sequence[log.Event], proxy: bool) -> None:
        """After a box is written in a race game: the seat's ``progress`` event (its rounds
        and score, never its dice); when that game is over and every seat's is, the race's
        deadline comes to now, so the sweep ends it (one process, whichever dies)."""
        del proxy
        found = race_seat_of(view.record.player_id)
        if found is None or not any(isinstance(e, log.Score) for e in events):
            return
        room_id, index = found
        room = await self.store.room(room_id)
        if room is None or room.status != "playing" or not 0 <= index < len(room.seats):
            return
        now = self.clock()
        deadline: float | bool = False
        if view.game.is_over and await self._all_over(room, index):
            deadline = now
        data = progress_of(index, room.seats[index], view)
        data["seat"] = data.pop("index")
        del data["name"]

        def plan(current: Room) -> list[Publication]:
            if current.status != "playing":
                return []
            return [Publication("progress", data, deadline=deadline)]

        try:
            published = await self.store.record(room_id, plan, now)
        except Exception:  # the game is stored: the room's read shows it anyway
            log_.exception("logging race %s's progress failed", room_id)
            return
        for event in published:
            self._deliver(event)

    async def _all_over(self, room: Room, but: int) -> bool:
        """Whether every other seat's game of the race is over (its header, as stored)."""
        assert room.game_id is not None
        for seat in room.seats:
            if seat.index == but:
                continue
            record = await self.storage.get_game(seat_game_id(room.game_id, seat.index))
            if record is None or record.status is Status.IN_PROGRESS:
                return False
        return True

    # -- the end ---------------------------------------------------------------------------

    async def finish(self, room: Room) -> int:
        """The race's deadline passed (or every seat finished): the games still in play
        are closed as they stand (the game's compare-and-set: a seat that acts meanwhile
        has its box counted, and the close follows), then the room's ``end`` event with
        the ranking, logged once whoever else tries. Returns 1 when it logged it."""
        if room.game_id is None or room.status != "playing":
            return 0
        base = room.game_id
        now = self.clock()
        entries = []
        for seat in room.seats:
            game_id = seat_game_id(base, seat.index)
            record = await self._close(game_id)
            view = await self.view(room, seat.index)
            entry = progress_of(seat.index, seat, view)
            entry["seat"] = entry.pop("index")
            entry["game_id"] = game_id
            entry["skill_loss"] = entry["luck"] = None
            if record is not None and record.status is Status.FINISHED:
                events = await self.storage.events(game_id)
                if self._cpu is not None:
                    loss, luck = await self._cpu.run(game_id, skill_and_luck, events)
                else:
                    loss, luck = await asyncio.to_thread(skill_and_luck, events)
                entry["skill_loss"], entry["luck"] = loss, luck
            entries.append(entry)
        ranking = race_ranking(entries)
        reason = "finished" if all(e["finished"] for e in entries) else "deadline"
        ends = now if room.deadline is None else room.deadline
        data = {"ranking": ranking, "reason": reason, "ends_at": ends}

        def plan(current: Room) -> list[Publication]:
            if current.status != "playing":
                return []
            return [Publication("end", data, finished=True)]

        published = await self.store.record(room.id, plan, now)
        for event in published:
            self._deliver(event)
        return 1 if published else 0

    async def _close(self, game_id: str) -> GameRecord | None:
        """Game ``game_id`` closed if it is still in play (abandoned: its boxes as they
        stand); its header."""
        for _ in range(5):
            record = await self.storage.get_game(game_id)
            if record is None or record.status is not Status.IN_PROGRESS:
                return record
            try:
                return await self.storage.append(record, [log.Abandon()], status=Status.ABANDONED)
            except StaleVersionError:
                continue  # its seat acted meanwhile: close it after that box
        return await self.storage.get_game(game_id)
