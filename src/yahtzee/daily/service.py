"""The daily challenge (每日挑战, D1-D7) and groups (小组) for the API.

* **One attempt (D2).** Starting the day's game *claims* the (day, player) row of
  ``daily_plays`` in the new game's own transaction (a solo game whose ``start`` event
  names the day, so its dice come from the day's stream, D1): its primary key lets one
  request through, on any number of processes, and the claim and its game are committed
  together or not at all (a kept unfinished game without ``replace``, a rate limit, a full
  disk: nothing was spent). A claim that stands refuses the game; its own game continues
  while in progress, else 409 ``already_played`` (an abandoned attempt is an attempt).
* **The result (D3)** is the review of the finished game (score, skill loss, accuracy,
  luck, each round's worst mark), computed once, in a worker thread, when the game ends
  (and, should the process have died meanwhile, when it is next asked for) and kept in
  ``daily_plays``. The expert's own game on the day's stream is played once a day per
  database (``daily_reference``): the expert's skill loss is 0 by definition, its score
  is what the same dice give to perfect play.
* **Boards (D4)** rank by skill loss (then score), never by the finishing time, and equal
  entries share a place (F13): with the same dice for everyone, skill loss measures only
  the choices (docs/daily.md says why knowing the dice in advance does not lower it). The
  board of everyone lists a browser once it finished the challenge on
  ``--board-min-days`` earlier days (a fresh cookie's perfect game, a bot's, does not
  crowd people out; docs/deployment.md); a group's boards list every member.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, date, datetime, timedelta
from typing import Any

from yahtzee.daily.dice import DailyStream, day_of
from yahtzee.daily.errors import (
    NAME,
    NO_HINTS,
    NO_UNDO,
    AlreadyPlayedError,
    DayOutOfRangeError,
    GroupNotFoundError,
    NameRequiredError,
    NotGroupCreatorError,
    RemovedFromGroupError,
)
from yahtzee.daily.settings import DailySettings
from yahtzee.daily.store import DailyStore, Play, Result
from yahtzee.errors import GameInProgressError, GameNotFoundError, IllegalMoveError
from yahtzee.game import Game, GameKind, Mode, Status
from yahtzee.i18n import DEFAULT, N_, Lang, format_month_day, format_number, plural, text
from yahtzee.names import parse_name
from yahtzee.players import HINT_DIFFICULTY
from yahtzee.review import MARK_NAMES, mark_of, review_events
from yahtzee.server.cpu import CpuPool
from yahtzee.server.game_view import Fold, GameView
from yahtzee.server.kinds import KeyedDice, KindHooks, KindRules
from yahtzee.server.limits import Guard, Rate
from yahtzee.server.service import GameService
from yahtzee.storage.base import Charge, ClaimRefusedError
from yahtzee.turn import play_turn

log = logging.getLogger("yahtzee.server")

TREND_DAYS = 28  # the creator's view of each member's accuracy, day by day

SQUARES = {"b": "🟩", "i": "🟨", "m": "🟧", "x": "🟥"}
_MARK_LETTER = {"best": "b", "inaccuracy": "i", "mistake": "m", "blunder": "x"}
MARK_OF_LETTER = {"b": "best", "i": "inaccuracy", "m": "mistake", "x": "blunder"}

#: 每日挑战's kind of game (K2, D1-D3): a solo game on the day's dice (its start carries
#: the day), no hints, no 撤销, counted apart in 统计 (``daily``), never a 单人挑战 record.
DAILY = GameKind("daily")
RULES = KindRules(
    DAILY,
    NAME,
    Mode.SOLO,
    title=N_("core.kind.daily"),
    hints=NO_HINTS,
    undo=NO_UNDO,
    stats="daily",
    dated=True,
)


# The buckets of the groups' rates (F5's shared table).
NEW_GROUPS = "new_groups"  # per player
ADDRESS_GROUPS = "address_groups"  # per client address, whatever its player ids (F14)
GROUP_JOINS = "group_joins"  # per player

#: The first day a board can be asked for: the year the daily challenge began (every
#: board before its first day is empty, and nothing older is worth a query).
FIRST_DAY = date(2026, 1, 1)
#: How many days past today a board can be asked for: the current week's board is asked
#: by any of its days (Sunday is at most six days away), and a client's clock may be
#: ahead of Shanghai's by a day.
DAYS_AHEAD = 7


def board_days(today: date) -> tuple[date, date]:
    """The first and last day whose board the service answers for, ``today`` being
    Shanghai's date (F11: a day outside them is 422, never arithmetic on ``date.max``).
    (A clock set before :data:`FIRST_DAY`, a test's, starts the range at today.)"""
    return min(FIRST_DAY, today), today + timedelta(days=DAYS_AHEAD)


def check_board_day(day: date, today: date) -> date:
    """``day`` if the service has boards for it (:func:`board_days`), else
    :class:`~yahtzee.daily.errors.DayOutOfRangeError` naming the day and the range."""
    first, last = board_days(today)
    if not first <= day <= last:
        raise DayOutOfRangeError(day.isoformat(), first.isoformat(), last.isoformat())
    return day


def result_of(events: Sequence[Any]) -> tuple[int, float, float, float, str]:
    """Score, skill loss, accuracy, luck and the 13 rounds' worst marks of a finished
    solo game's log (the review of L1-L3)."""
    human = review_events(events).human
    worst = ["b"] * 13
    order = "bimx"
    for decision in human.decisions:
        letter = _MARK_LETTER[mark_of(decision.loss)]
        i = decision.round - 1
        if order.index(letter) > order.index(worst[i]):
            worst[i] = letter
    return (
        human.final_score,
        round(human.skill_loss, 4),
        round(human.accuracy, 2),
        round(human.luck, 4),
        "".join(worst),
    )


def share_text(day: date, score: int, accuracy: float, marks: str, lang: Lang = DEFAULT) -> str:
    """D5: the spoiler-free line to share (no dice, no boxes), in the reader's language
    (G5: each reader shares it in theirs; the squares are the same for everyone)."""
    squares = "".join(SQUARES[m] for m in marks)
    return plural(
        lang,
        "server.daily.share",
        score,
        date=format_month_day(lang, day),
        score=score,
        # (rounded as the result's ``accuracy`` is, so the two never differ: Babel rounds a
        # half to even, Python's round the float's nearest binary value)
        accuracy=format_number(lang, round(accuracy, 1), decimals=1),
        squares=squares,
    )


def expert_game(stream: DailyStream, service: GameService) -> Game:
    """The expert's own game on the day's stream (each turn from its round's faces)."""
    player = service.player(HINT_DIFFICULTY.value)
    game = Game.new(Mode.SOLO)
    for round_ in range(1, 14):
        game = play_turn(game, player, stream.turn(round_)).state
    return game


#: Days' streams kept: today's, and yesterday's near midnight.
KEPT_DAYS = 4


def _day_of(fold: Fold) -> date:
    if fold.date is None:
        raise IllegalMoveError("a daily challenge game starts with its day")
    return fold.date


def daily_dice(secret: bytes) -> KeyedDice[date, DailyStream]:
    """每日挑战's dice policy (D1, K2): a daily game's rolls are the next faces of its day's
    stream (its start's date), from the server's secret, which every process on the
    database shares."""
    return KeyedDice(_day_of, lambda day: DailyStream(secret, day), KEPT_DAYS)


class DailyService:
    """Every daily-challenge and group operation of the API."""

    def __init__(
        self,
        store: DailyStore,
        games: GameService,
        clock: Any,
        cpu: CpuPool | None = None,
        *,
        dice: KeyedDice[date, DailyStream],
        guard: Guard,
        limits: DailySettings | None = None,
    ) -> None:
        self.store = store
        self.games = games
        self.dice = dice
        # The groups' caps (D6, F5) and the public board's history rule (F13): settings.
        self.limits = limits = limits or DailySettings()
        # The groups' rates in the shared table (F5, F14: groups make the database grow).
        self.guard = guard
        self.new_groups = Rate(NEW_GROUPS, limits.groups_per_hour, 3600.0)
        self.address_groups = Rate(ADDRESS_GROUPS, limits.groups_per_hour_per_address, 3600.0)
        self.joins = Rate(GROUP_JOINS, limits.group_joins_per_hour, 3600.0)
        self._clock = clock
        # The results' reviews run in the server's CPU pool (issue 22), as the player's
        # jobs; without one (tests of the service alone) in a thread.
        self._cpu = cpu
        self._references: dict[date, int] = {}
        self._reference_lock = asyncio.Lock()
        self._pending: set[asyncio.Task[None]] = set()

    def kind_hooks(self) -> KindHooks:
        """What the game service needs of a daily game once built (K2): the day's dice,
        and its result recorded once it finishes (the app's wiring registers them)."""
        return KindHooks(dice=self.dice, finished=self._game_finished)

    async def charge_new_group(self, player_id: str, address: str) -> None:
        """A token of the player's new groups and one of its client address's, or 429
        (``--max-groups-per-hour``, ``-per-address``)."""
        guard = self.guard
        await guard.take(
            guard.charge(self.new_groups, player_id) + guard.charge(self.address_groups, address)
        )

    async def charge_join(self, player_id: str) -> None:
        """A token of the player's group joins, or 429 (``--max-group-joins-per-hour``)."""
        await self.guard.take(self.guard.charge(self.joins, player_id))

    def now(self) -> float:
        """The server's wall clock (seconds): the rate limits' and the day's."""
        value: float = self._clock()
        return value

    def today(self) -> date:
        """Today in Shanghai, by the server's clock."""
        return day_of(datetime.fromtimestamp(self._clock(), UTC))

    # -- the day's game ------------------------------------------------------------------

    async def set_name(self, player_id: str, raw: object) -> str:
        """Set this browser's board name (D4); returns the canonical name."""
        name = parse_name(raw)
        await self.store.set_name(player_id, name)
        return name

    async def start(
        self,
        player_id: str,
        *,
        name: object = None,
        replace: bool = False,
        charges: Sequence[Charge] = (),
    ) -> tuple[GameView, bool]:
        """Start (or continue) today's game; returns it and whether it is new (D2)."""
        valid = parse_name(name) if name is not None else None
        day = self.today()
        game_id = secrets.token_hex(16)
        try:
            # One transaction, one commit: the tokens, the check of a kept game, the name,
            # the claim and the game (storage.base.Claim).
            view = await self.games.new_game(
                player_id,
                DAILY,
                replace=replace,
                charges=charges,
                date=day,
                game_id=game_id,
                claim=self.store.claim(day, player_id, game_id, valid),
            )
        except (ClaimRefusedError, GameInProgressError) as exc:
            # A standing claim answers (the kept game may be today's own); else a kept
            # ordinary game, or no name yet.
            play = await self.store.play(day, player_id)
            if play is not None:
                return await self._existing(player_id, play), False
            if isinstance(exc, GameInProgressError):
                raise
            raise NameRequiredError("the daily board needs a name first") from None
        return view, True

    async def _existing(self, player_id: str, play: Play) -> GameView:
        """The game of a standing claim: continued while in progress, else refused."""
        try:
            view = await self.games.load(player_id, play.game_id)
        except GameNotFoundError:  # never rolled, then pruned (F5): the attempt is spent
            raise AlreadyPlayedError(f"the challenge of {play.day} was already played") from None
        if view.record.status is Status.IN_PROGRESS:
            return view
        raise AlreadyPlayedError(f"the challenge of {play.day} was already played")

    async def status(
        self, player_id: str, day: date | None = None, lang: Lang = DEFAULT
    ) -> dict[str, Any]:
        """``GET /api/daily``: today's state for this browser, with the result once over
        (its words in ``lang``, the reader's)."""
        day = day or self.today()
        play = await self.store.play(day, player_id)
        out: dict[str, Any] = {
            "date": day.isoformat(),
            "game_id": None,
            "status": "not_started",
            "result": None,
            "name": await self.store.name(player_id),
        }
        if play is None:
            return out
        out["game_id"] = play.game_id
        stored = await self.games.storage.get_game(play.game_id)
        if stored is None:
            # (a claim is committed with its game) a game abandoned before its first roll
            # and since pruned (F5): the attempt is spent.
            out["status"] = "abandoned"
            return out
        out["status"] = stored.status.value
        if stored.status is Status.FINISHED:
            play = await self._with_result(play)
            out["result"] = await self.result_json(play, player_id, lang)
        return out

    async def _with_result(self, play: Play) -> Play:
        """``play`` with its result, computed now if the end-of-game task did not."""
        if play.skill_loss is not None:
            return play
        await self._record(play.game_id)
        fresh = await self.store.play(play.day, play.player_id)
        assert fresh is not None
        return fresh

    async def _record(self, game_id: str) -> None:
        stored = await self.games.storage.get_game(game_id)
        if stored is None or stored.status is not Status.FINISHED:
            return
        events = await self.games.storage.events(game_id)
        if self._cpu is not None:
            computed = await self._cpu.run(stored.player_id, result_of, events)
        else:
            computed = await asyncio.to_thread(result_of, events)
        score, loss, accuracy, luck, marks = computed
        finished = stored.finished_at or stored.updated_at
        await self.store.record_result(
            game_id,
            Result(score, loss, accuracy, luck, marks, finished),
            self.limits.board_min_days,
            self.limits.board_history_days,
        )

    def _game_finished(self, view: GameView) -> None:
        """The game service's end-of-game hook of daily games: the result, in the
        background."""
        task = asyncio.get_running_loop().create_task(self._record_quietly(view.record.id))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _record_quietly(self, game_id: str) -> None:
        try:
            await self._record(game_id)
        except Exception:  # it is recorded when next asked for
            log.exception("recording the daily result of %s failed", game_id)

    async def drain(self) -> None:
        """Wait for the results being recorded (shutdown, tests)."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    async def expert_score(self, day: date) -> int:
        """The expert's score on ``day``'s stream: once a day per database (D7)."""
        found = self._references.get(day)
        if found is not None:
            return found
        async with self._reference_lock:
            found = self._references.get(day) or await self.store.reference(day)
            if found is None:
                stream = self.dice.stream(day)
                game = await asyncio.to_thread(expert_game, stream, self.games)
                found = await self.store.set_reference(day, game.cards[0].total)
            self._references[day] = found
            return found

    async def result_json(self, play: Play, player_id: str, lang: Lang = DEFAULT) -> dict[str, Any]:
        """D3: the finished game's result, the expert's score and the rank; the marks'
        names and the text to share in ``lang``, the reader's (G5)."""
        assert play.score is not None
        assert play.accuracy is not None
        assert play.marks is not None
        board = await self.store.board(play.day, player_id, 1)
        you = board.you
        return {
            "score": play.score,
            "skill_loss": round(play.skill_loss or 0.0, 2),
            "accuracy": round(play.accuracy, 1),
            "luck": round(play.luck or 0.0, 1),
            "expert_score": await self.expert_score(play.day),
            "expert_skill_loss": 0,
            "rank": you.rank if you is not None else None,
            "listed": you.listed if you is not None else False,
            "players": board.players,
            "board_min_days": self.limits.board_min_days,
            "marks": [MARK_OF_LETTER[m] for m in play.marks],
            "mark_names": {mark: text(lang, key) for mark, key in MARK_NAMES.items()},
            "share": share_text(play.day, play.score, play.accuracy, play.marks, lang),
            "share_squares": {MARK_OF_LETTER[k]: sq for k, sq in SQUARES.items()},
        }

    # -- boards --------------------------------------------------------------------------

    async def board(
        self,
        player_id: str,
        day: date,
        *,
        limit: int,
        group_id: str | None,
        period: str,
    ) -> dict[str, Any]:
        """``GET /api/daily/{date}/leaderboard`` (a day outside the service's dates is
        :class:`~yahtzee.errors.DayOutOfRangeError`, F11)."""
        check_board_day(day, self.today())
        if group_id is not None:
            group = await self.store.group(group_id, player_id)
            if group is None or not group.is_member:
                raise GroupNotFoundError(group_id)
        mine = await self.store.play(day, player_id)
        if mine is not None and mine.skill_loss is None:
            await self._with_result(mine)  # the player's own entry, even if not yet recorded
        board = await self.store.board(day, player_id, limit, group_id, week=period == "week")
        return {"date": day.isoformat(), "period": period, "group": group_id, **asdict(board)}

    # -- groups --------------------------------------------------------------------------

    async def create_group(self, player_id: str, raw_name: object, raw_you: object) -> str:
        """A new group (its creator a member under ``raw_you``); returns its id."""
        name = parse_name(raw_name)
        you = parse_name(raw_you) if raw_you is not None else await self._name_for(player_id)
        if await self.store.name(player_id) is None:
            await self.store.set_name(player_id, you)
        group_id, _ = await self.store.create_group(player_id, name, you, self.limits.open_groups)
        return group_id

    async def _name_for(self, player_id: str) -> str:
        name = await self.store.name(player_id)
        if name is None:
            raise NameRequiredError("a name is needed to be in a group")
        return name

    async def lookup(self, token: object, player_id: str) -> dict[str, Any]:
        """What an invite link opens (before joining)."""
        group_id = await self.store.group_of_token(token)
        group = await self.store.group(group_id, player_id) if group_id else None
        if group is None:
            await self._removed_by(token, player_id)
            raise GroupNotFoundError("no group for this invite")
        if await self.store.removed(group.id, player_id):  # (said before a name is typed)
            raise RemovedFromGroupError(group.id)
        return self.group_json(group)

    async def _removed_by(self, token: object, player_id: str) -> None:
        """403 for a dead link of a group whose creator removed this browser (F8: said
        clearly, not "no such group"; a fresh cookie gets the 404 of a dead link)."""
        removed = await self.store.removed_by_token(token, player_id)
        if removed is not None:
            raise RemovedFromGroupError(removed)

    async def header(self, group_id: str, player_id: str) -> dict[str, Any]:
        """The group's header as ``player_id`` sees it now (after a change)."""
        group = await self.store.group(group_id, player_id)
        if group is None:
            raise GroupNotFoundError(group_id)
        return self.group_json(group)

    async def join(self, token: object, player_id: str, raw_name: object) -> dict[str, Any]:
        """Join the group of ``token`` under a name (the board name by default); its
        header."""
        group_id = await self.store.group_of_token(token)
        if group_id is None:
            await self._removed_by(token, player_id)
            raise GroupNotFoundError("no group for this invite")
        name = parse_name(raw_name) if raw_name is not None else await self._name_for(player_id)
        await self.store.join(group_id, player_id, name, self.limits.group_members)
        if await self.store.name(player_id) is None:
            await self.store.set_name(player_id, name)
        return await self.header(group_id, player_id)

    async def _as_creator(self, group_id: str, player_id: str) -> None:
        group = await self.store.group(group_id, player_id)
        if group is None or not group.is_member:
            raise GroupNotFoundError(group_id)
        if not group.is_creator:
            raise NotGroupCreatorError(group_id)

    async def leave(self, group_id: str, player_id: str) -> dict[str, Any]:
        """Leave a group: the member's entries leave its boards (D6); its header."""
        group = await self.store.group(group_id, player_id)
        if group is None or not group.is_member:
            raise GroupNotFoundError(group_id)
        if group.is_creator:
            raise IllegalMoveError("the creator closes the group rather than leaving it")
        await self.store.leave(group_id, player_id)
        return await self.header(group_id, player_id)

    async def remove(self, group_id: str, player_id: str, member_id: str) -> dict[str, Any]:
        """The creator removes a member; the group's header."""
        await self._as_creator(group_id, player_id)
        if not await self.store.remove_member(group_id, member_id):
            raise GroupNotFoundError(member_id)
        return await self.header(group_id, player_id)

    async def close(self, group_id: str, player_id: str) -> dict[str, Any]:
        """The creator closes the group (no more joins; the link stops); its header."""
        await self._as_creator(group_id, player_id)
        await self.store.close(group_id)
        return await self.header(group_id, player_id)

    async def new_invite(self, group_id: str, player_id: str) -> None:
        """The creator replaces the invite link (the old one stops at once)."""
        await self._as_creator(group_id, player_id)
        await self.store.new_invite(group_id)

    async def invite_token(self, group_id: str, player_id: str) -> str | None:
        """The creator's invite token (``None`` once closed)."""
        await self._as_creator(group_id, player_id)
        return await self.store.invite(group_id)

    def group_json(self, group: Any) -> dict[str, Any]:
        """A group's header."""
        return {
            "id": group.id,
            "name": group.name,
            "members": group.members,
            "closed": group.closed,
            "creator": group.is_creator,
            "member": group.is_member,
            "your_name": group.your_name,
            "max_members": self.limits.group_members,
        }

    async def groups(self, player_id: str) -> list[dict[str, Any]]:
        """The browser's groups."""
        return [self.group_json(g) for g in await self.store.groups_of(player_id)]

    async def group_page(self, group_id: str, player_id: str) -> dict[str, Any]:
        """The group page (D6): header, members, today's and this week's boards and, for
        the creator, each member's accuracy by day."""
        group = await self.store.group(group_id, player_id)
        if group is None or not group.is_member:
            raise GroupNotFoundError(group_id)
        day = self.today()
        members = await self.store.members(group_id, player_id, day)
        # (every member: a group's boards are never cut, F13)
        everyone = max(1, group.members)
        today_board = await self.store.board(day, player_id, everyone, group_id)
        week_board = await self.store.board(day, player_id, everyone, group_id, week=True)
        out: dict[str, Any] = {
            "group": self.group_json(group),
            "date": day.isoformat(),
            "members": [
                {
                    "name": m.name,
                    "creator": m.is_creator,
                    "you": m.you,
                    "played_today": m.finished_today,
                    **({"member_id": m.member_id} if group.is_creator else {}),
                }
                for m in members
            ],
            "today": asdict(today_board),
            "week": asdict(week_board),
            "trends": None,
        }
        if group.is_creator:
            since = day - timedelta(days=TREND_DAYS - 1)
            trends = await self.store.trends(group_id, since)
            out["trends"] = [
                {
                    "member_id": m.member_id,
                    "name": m.name,
                    "days": [
                        {"date": d, "accuracy": round(a, 1)} for d, a in trends.get(m.member_id, [])
                    ],
                }
                for m in members
            ]
        return out
