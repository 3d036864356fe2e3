"""What the two SQL backends share: the statements, the row mappers, and the logic of the
writes that are the same in both, written once.

The logic is *sans-I/O*: a write is a generator of :class:`Step` (a statement and its
parameters) that receives each statement's first row back (``None`` when it returned
none). :class:`~yahtzee.storage.sqlite.SQLiteStorage` runs the steps on a blocking
connection in its writer thread, :class:`~yahtzee.storage.postgres.PostgresStorage` awaits
them on a pooled connection; each backend adds only its own transactions and error
mapping. The statements are written once with ``:name`` parameters; :class:`Dialect` holds
each backend's text of them (PostgreSQL's ``%(name)s``, and the few that differ).

The schema is one design in both backends, at the levels below: version *n* of the
``games`` owner (:data:`yahtzee.storage.games_schema.GAMES`, applied by
:mod:`yahtzee.storage.schema`), each level with each backend's statements:

1. ``games`` (header, ``version``, result) and the append-only ``events`` log; at most one
   unfinished game per player (a unique partial index).
2. The one exception to the append-only log: a game abandoned before its first roll may
   be deleted whole (pruning, F5); a ``heartbeat`` row for ``/api/health``'s probe write.
   (PostgreSQL shipped this with level 1, its migration 1, and its heartbeat with level 4.)
3. ``rate_buckets`` (the rate limits every process shares, F5) and ``server_processes``.
4. Pruning also deletes games still *in progress* that never had a roll (issue 22.6).
5. The ``table`` mode and result (T1, 多人同屏).
6. The tutorial's mode, ``tutorial`` (L10).
7. Each game's ``kind`` (:class:`~yahtzee.game.GameKind`, K2) and, for a room's game, its
   ``room_id``. Older games get the kind the code used to infer: ``room`` for an owner
   ``room:<id>`` (and that id), ``daily`` for a solo game whose ``start`` has a date, else
   their mode's (``games_schema.KIND_FROM_OLD_GAMES``).
8. ``game_erasures``: a game listed there (by the transaction that erases a player's data,
   I4, which empties it again) may be deleted whole, and its events rewritten.
9. One name per concept (issue 36): a mode is the seats' shape only, so a tutorial (kind
   ``tutorial``) is of mode ``solo``, and the ``mode`` check allows the three modes.
10. A room's game has its room stored once, as its owner (``room:<id>``): the
    ``room_id`` column of level 7 is dropped (the platform stores no feature's column).

Before ``schema_versions``, SQLite's ``PRAGMA user_version`` counted levels 1–8 one by one
and PostgreSQL's ``schema_migrations`` 1 (levels 1 and 2), 2 (level 3) … 7 (level 8): the
first migration adopts either (:mod:`yahtzee.storage.schema`).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson

from yahtzee.errors import (
    GameInProgressError,
    GameNotFoundError,
    RateLimitExceededError,
    StaleVersionError,
)
from yahtzee.game import GameKind, Mode, Result, Status
from yahtzee.log import Abandon, Event, from_json
from yahtzee.players import Difficulty
from yahtzee.storage.base import (
    Charge,
    Claim,
    ClaimRefusedError,
    Ending,
    GameRecord,
    NewGame,
    OwnerGoneError,
    RecentGame,
)

T = TypeVar("T")

#: A statement and its named parameters; :class:`Many` is one statement for many rows.
Params = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Step:
    """Run ``sql`` with ``params``; the runner sends back its first row, or ``None``."""

    sql: str
    params: Params


@dataclass(frozen=True, slots=True)
class Many:
    """Run ``sql`` once for each of ``rows`` (``executemany``); the runner sends ``None``."""

    sql: str
    rows: Sequence[Params]


@dataclass(frozen=True, slots=True)
class RunClaim:
    """Run a feature's :class:`~yahtzee.storage.base.Claim` in this transaction (its work,
    on the runner's connection: :mod:`yahtzee.storage.feature_db`); the runner sends back
    whether the game may be made."""

    claim: Claim


#: A write's logic: yields steps, receives their first rows, returns its result.
Steps = Generator[Step | Many | RunClaim, Any, T]

GAME_COLUMNS = (
    "id, player_id, mode, difficulty, status, version, created_at, updated_at, "
    "finished_at, result, human_total, computer_total, new_record, kind, seat_serial"
)
RECENT_COLUMNS = "id, finished_at, mode, difficulty, human_total, computer_total, result, kind"
#: The condition of every list and count of a player's finished games (records, stats,
#: practice): a tutorial is never one of them (L10).
COUNTED = "status = 'finished' AND kind <> 'tutorial'"


def now_iso() -> str:
    """The time of a write as stored: ISO 8601 UTC with microseconds (sorts as text)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def dumps(data: Any) -> str:
    """An event's data as stored: the same text as ``json.dumps(data, separators=(",",
    ":"), ensure_ascii=False)``."""
    return orjson.dumps(data).decode()


def event_of(row: Sequence[Any]) -> Event:
    """An event from a row ``(kind, data)`` as stored."""
    kind, data = row
    return from_json(kind, orjson.loads(data))


def game_of(row: Sequence[Any]) -> GameRecord:
    """A header from a row of :data:`GAME_COLUMNS` (``new_record`` is 0/1 in SQLite)."""
    new_record = row[12]
    return GameRecord(
        row[0],
        row[1],
        Mode(row[2]),
        None if row[3] is None else Difficulty(row[3]),
        Status(row[4]),
        row[5],
        row[6],
        row[7],
        row[8],
        None if row[9] is None else Result(row[9]),
        row[10],
        row[11],
        None if new_record is None else bool(new_record),
        GameKind(row[13]),
        int(row[14]),
    )


def recent_of(row: Sequence[Any]) -> RecentGame:
    """A line of the recent games from a row of :data:`RECENT_COLUMNS`."""
    game_id, finished_at, mode, difficulty, human_total, computer_total, result, kind = row
    level = None if difficulty is None else Difficulty(difficulty)
    return RecentGame(
        game_id,
        finished_at,
        Mode(mode),
        level,
        human_total,
        computer_total,
        Result(result),
        GameKind(kind),
    )


def new_game_record(new: NewGame, now: str) -> GameRecord:
    """The header of the game ``new`` as just inserted at ``now``."""
    return GameRecord(
        id=new.game_id,
        player_id=new.player_id,
        mode=new.mode,
        difficulty=new.difficulty,
        status=Status.IN_PROGRESS,
        version=len(new.events),
        created_at=now,
        updated_at=now,
        finished_at=None,
        result=None,
        human_total=None,
        computer_total=None,
        new_record=None,
        kind=new.kind,
    )


def pyformat(sql: str) -> str:
    """``:name`` parameters as psycopg's ``%(name)s`` (no statement holds a ``%``): the one
    parameter style of every statement, the games' and the feature tables'."""
    assert "%" not in sql, sql
    return re.sub(r"(?<!:):([a-z_][a-z0-9_]*)", r"%(\1)s", sql)


# -- the statements -----------------------------------------------------------------------

_SHARED = {
    "bucket_full_at": "SELECT full_at FROM rate_buckets WHERE bucket = :bucket AND key = :key",
    "game_exists": "SELECT 1 FROM games WHERE id = :id",
    "get_game": f"SELECT {GAME_COLUMNS} FROM games WHERE id = :id",
    "current_game": f"SELECT {GAME_COLUMNS} FROM games "
    "WHERE player_id = :player AND status = 'in_progress'",
    "unfinished": "SELECT id, version, kind FROM games WHERE player_id = :player "
    "AND status = 'in_progress'",
    "abandon": "UPDATE games SET status = 'abandoned', version = version + 1, "
    "updated_at = :now WHERE id = :id",
    "insert_game": "INSERT INTO games (id, player_id, mode, difficulty, status, version, "
    "created_at, updated_at, kind) VALUES (:id, :player, :mode, :difficulty, "
    "'in_progress', :version, :now, :now, :kind)",
    "insert_event": "INSERT INTO events (game_id, seq, kind, data, created_at) "
    "VALUES (:game, :seq, :kind, :data, :now)",
    "events": "SELECT kind, data FROM events WHERE game_id = :id AND seq > :after "
    "AND seq <= :until ORDER BY seq",
    "best_solo": "SELECT MAX(human_total) FROM games WHERE player_id = :player "
    "AND status = 'finished' AND kind = 'solo' AND id <> :id",
    "finish": "UPDATE games SET finished_at = :now, result = :result, human_total = :human, "
    "computer_total = :computer, new_record = :new_record WHERE id = :id",
    "register": "INSERT INTO server_processes (id, seen_at) VALUES (:id, :now) "
    "ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
    "expire_processes": "DELETE FROM server_processes WHERE seen_at < :oldest",
    "count_processes": "SELECT COUNT(*) FROM server_processes",
    "process_ids": "SELECT id FROM server_processes",
    "unregister": "DELETE FROM server_processes WHERE id = :id",
    # Games never rolled (no roll event) and unchanged since :before: the abandoned ones
    # and, from schema level 4, the unfinished ones too (issue 22.6). The delete triggers
    # check every row again.
    "unplayed": "SELECT id FROM games WHERE status IN ('abandoned', 'in_progress') "
    "AND updated_at < :before AND NOT EXISTS (SELECT 1 FROM events "
    "WHERE events.game_id = games.id AND kind = 'roll') LIMIT :limit",
    "heartbeat": "INSERT INTO heartbeat (id, at) VALUES (1, :now) "
    "ON CONFLICT (id) DO UPDATE SET at = excluded.at",
}


@dataclass(frozen=True)
class Dialect:
    """One backend's text of every statement (see :data:`_SHARED`), by name."""

    name: str
    #: One token of a shared bucket (storage.base.Charge): the conditional upsert returns
    #: the new ``full_at``, or no row when the bucket is empty (then nothing changed). A
    #: ``full_at`` too far ahead (the clock went back) is read as one token left.
    take: str
    #: A statement run before a player's unfinished game is looked up (PostgreSQL: an
    #: advisory lock on the player; SQLite's ``BEGIN IMMEDIATE`` already serialises).
    lock_player: str | None
    statements: Mapping[str, str]

    def __getattr__(self, name: str) -> str:
        try:
            return self.statements[name]
        except KeyError:
            raise AttributeError(name) from None


SQLITE = Dialect(
    "sqlite",
    take="INSERT INTO rate_buckets (bucket, key, full_at) VALUES (:bucket, :key, "
    ":now + :interval) ON CONFLICT (bucket, key) DO UPDATE SET full_at = CASE "
    "WHEN full_at - :now > :stepped_back THEN :now + :slack ELSE MAX(full_at, :now) END "
    "+ :interval WHERE full_at - :now <= :slack OR full_at - :now > :stepped_back "
    "RETURNING full_at",
    lock_player=None,
    statements=_SHARED,
)

POSTGRES = Dialect(
    "postgresql",
    take=pyformat(
        "INSERT INTO rate_buckets AS b (bucket, key, full_at) VALUES (:bucket, :key, "
        ":now + :interval) ON CONFLICT (bucket, key) DO UPDATE SET full_at = CASE "
        "WHEN b.full_at - :now > :stepped_back THEN :now + :slack "
        "ELSE GREATEST(b.full_at, :now) END + :interval "
        "WHERE b.full_at - :now <= :slack OR b.full_at - :now > :stepped_back "
        "RETURNING full_at"
    ),
    # Two processes creating a game for one player at once take turns here, so exactly
    # one abandons the old game and the other abandons the first's.
    lock_player=pyformat("SELECT pg_advisory_xact_lock(hashtextextended(:player, 1))"),
    statements={name: pyformat(sql) for name, sql in _SHARED.items()},
)


# -- the shared logic -----------------------------------------------------------------------


def take_tokens(sql: Dialect, charges: Sequence[Charge]) -> Steps[None]:
    """One token of each bucket of ``charges``, or :class:`RateLimitExceededError` (the
    runner rolls back what was taken)."""
    for charge in charges:
        if (yield Step(sql.take, charge.params())) is None:
            row = yield Step(sql.bucket_full_at, {"bucket": charge.bucket, "key": charge.key})
            full_at = row[0] if row is not None else charge.now
            raise RateLimitExceededError(charge.bucket, charge.retry_after(full_at))


def insert_events(
    sql: Dialect, game_id: str, first_seq: int, events: Sequence[Event], now: str
) -> Many:
    """The step that logs ``events`` as versions ``first_seq``, ``first_seq + 1``..."""
    return Many(
        sql.insert_event,
        [
            {
                "game": game_id,
                "seq": first_seq + i,
                "kind": e.kind,
                "data": dumps(e.to_json()),
                "now": now,
            }
            for i, e in enumerate(events)
        ],
    )


def create_game(
    sql: Dialect, new: NewGame, now: str
) -> Steps[GameRecord | GameInProgressError | ClaimRefusedError | OwnerGoneError]:
    """A new game (see :meth:`Storage.create_game`): its tokens, then (under the player's
    lock) its owner checked, the player's unfinished game abandoned (with ``replace``, or
    when it is a tutorial: L10) or kept, and a feature's claim. A gone owner, a kept game or
    a refused claim is *returned* as the refusal, not raised, so that the runner commits
    the tokens taken (F2)."""
    yield from take_tokens(sql, new.charges)
    if sql.lock_player is not None:
        yield Step(sql.lock_player, {"player": new.player_id})
    if new.owner is not None and not (yield RunClaim(new.owner)):
        return OwnerGoneError(new.player_id)
    old = yield Step(sql.unfinished, {"player": new.player_id})
    if old is not None and not new.replace and old[2] != GameKind.TUTORIAL.value:
        return GameInProgressError(old[0])
    # (before the old game is abandoned: a refused claim changes nothing)
    if new.claim is not None and not (yield RunClaim(new.claim)):
        return ClaimRefusedError(new.game_id)
    if old is not None:
        yield Step(sql.abandon, {"now": now, "id": old[0]})
        yield insert_events(sql, old[0], old[1] + 1, [Abandon()], now)
    difficulty = None if new.difficulty is None else new.difficulty.value
    yield Step(
        sql.insert_game,
        {
            "id": new.game_id,
            "player": new.player_id,
            "mode": new.mode.value,
            "difficulty": difficulty,
            "version": len(new.events),
            "now": now,
            "kind": new.kind.value,
        },
    )
    yield insert_events(sql, new.game_id, 1, new.events, now)
    return new_game_record(new, now)


#: The unique index that keeps a player to one unfinished game (level 1, F2).
ONE_UNFINISHED = "games_one_unfinished"


def is_second_unfinished(exc: BaseException) -> bool:
    """Whether ``exc`` is the database refusing a player a second unfinished game: the
    unique index :data:`ONE_UNFINISHED` (PostgreSQL names it; in SQLite it is the only
    unique index on ``games.player_id``). The one test of it (F26). A write checks for an
    unfinished game before it makes one, but a merge of two players (我的设备) and a new
    game of the target player, on PostgreSQL, can each pass their check before the other
    commits; the one that comes second meets the index, and its writer answers what it
    would have without the race (:class:`~yahtzee.errors.GameInProgressError` for a new
    game, :class:`~yahtzee.storage.player_data.MergeConflictError` for a merge)."""
    diag = getattr(exc, "diag", None)
    if diag is not None:  # psycopg's error
        return getattr(exc, "sqlstate", None) == "23505" and diag.constraint_name == ONE_UNFINISHED
    return "UNIQUE constraint failed: games.player_id" in str(exc)


def finish(sql: Dialect, game: GameRecord, ending: Ending, now: str) -> Steps[bool]:
    """Write the result of ``game`` as it finishes; returns ``new_record``: a 单人挑战 total
    above every earlier finished 单人挑战 of the player (U7; a tutorial never is, L10, nor a
    每日挑战, K2: they are solo games of other kinds)."""
    new_record = False
    if ending.result is Result.SOLO and game.kind is GameKind.SOLO:
        row = yield Step(sql.best_solo, {"player": game.player_id, "id": game.id})
        new_record = ending.solo_record(row[0] if row is not None else None)
    yield Step(
        sql.finish,
        {
            "now": now,
            "result": ending.result.value,
            "human": ending.human_total,
            "computer": ending.computer_total,
            "new_record": new_record,
            "id": game.id,
        },
    )
    return new_record


def refusal(sql: Dialect, game_id: str) -> Steps[Exception]:
    """Why a compare-and-set wrote nothing: the game is gone, or it moved on."""
    if (yield Step(sql.game_exists, {"id": game_id})) is None:
        return GameNotFoundError(game_id)
    return StaleVersionError(game_id)


def register_process(
    sql: Dialect, process_id: str, now: float, ttl: float, forget: Sequence[str] = ()
) -> Steps[int]:
    """Record ``process_id`` alive at ``now``, forget those older than ``ttl`` and those of
    ``forget`` (known dead); returns how many are alive (this one included)."""
    yield Step(sql.register, {"id": process_id, "now": now})
    yield Step(sql.expire_processes, {"oldest": now - ttl})
    if forget:
        yield Many(sql.unregister, [{"id": gone} for gone in forget if gone != process_id])
    row = yield Step(sql.count_processes, {})
    return int(row[0]) if row is not None else 1
