"""The tables of the daily challenge (每日挑战) and of groups (小组), D2-D6.

They live in the feature database (:mod:`yahtzee.storage.feature_db`): the games' tables
are never touched; a daily play only *names* its game by id.

* ``daily_names`` — the one board name of a browser (its signed player id), asked once.
* ``daily_plays`` — one row per (day, player): the **primary key is the one-attempt rule**
  (D2). Two processes racing to start a browser's second attempt both try to insert; the
  database lets exactly one through. The result columns are filled when the game ends.
* ``daily_reference`` — the expert's own game on the day's stream: one row per day, so it
  is computed once a day per database (D7).
* ``groups`` and ``group_members`` — a group, its creator and members (a name each, no
  other personal data, D6). A membership has an id of its own (``member_id``), so the
  creator can remove a member without ever seeing a player id. Leaving deletes the row:
  the member's entries leave the group's boards with it (the boards are joins).
* ``group_removals`` — the browsers the creator removed from a group: removed means out
  (F8), so their joins of that group are refused, whichever link they bring. (A member
  who leaves is not kept out.)

Boards are read with index range scans: the top ``limit`` entries of a day in order of
``(skill_loss, score)`` and, for the player's own entry, a count of the entries before it
(``daily_board`` index), so a day of 10,000 players answers in milliseconds. Equal entries
share a place; the board of everyone lists only the plays whose browser had some history
when it finished (``listed``, F13; docs/deployment.md says why), a group's board every
member's.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from yahtzee.daily.errors import (
    GroupClosedError,
    GroupFullError,
    GroupNameTakenError,
    RemovedFromGroupError,
    TooManyGroupsError,
)
from yahtzee.i18n import msg
from yahtzee.names import name_key
from yahtzee.storage.base import Claim
from yahtzee.storage.feature_db import FeatureDb, Row, Tx
from yahtzee.storage.invites import derived_token, issue_in, resolve_in, revoke_in
from yahtzee.storage.player_data import MergeNote, keeps
from yahtzee.storage.schema import Migrations

FEATURE = "daily"
GROUP_INVITE = "group"  # the purpose of a group's invite tokens

MIGRATIONS = Migrations.shared(
    FEATURE,
    (
        (
            """CREATE TABLE daily_names (
            player_id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
            """CREATE TABLE daily_plays (
            day TEXT NOT NULL,
            player_id TEXT NOT NULL,
            game_id TEXT NOT NULL UNIQUE,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            score INTEGER,
            skill_loss DOUBLE PRECISION,
            accuracy DOUBLE PRECISION,
            luck DOUBLE PRECISION,
            marks TEXT,
            PRIMARY KEY (day, player_id)
        )""",
            """CREATE INDEX daily_board ON daily_plays (day, skill_loss, finished_at)
            WHERE skill_loss IS NOT NULL""",
            "CREATE INDEX daily_plays_player ON daily_plays (player_id, day)",
            """CREATE TABLE daily_reference (
            day TEXT PRIMARY KEY,
            score INTEGER NOT NULL,
            computed_at TEXT NOT NULL
        )""",
            """CREATE TABLE groups (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            creator_id TEXT NOT NULL,
            created_at TEXT NOT NULL,
            closed_at TEXT,
            invite_serial INTEGER NOT NULL DEFAULT 0
        )""",
            "CREATE INDEX groups_creator ON groups (creator_id)",
            """CREATE TABLE group_members (
            group_id TEXT NOT NULL REFERENCES groups (id),
            player_id TEXT NOT NULL,
            member_id TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            joined_at TEXT NOT NULL,
            PRIMARY KEY (group_id, player_id)
        )""",
            "CREATE INDEX group_members_player ON group_members (player_id)",
        ),
        # v2: the board's index covers the rank's tie-break too (index-only counts, D4).
        (
            "DROP INDEX daily_board",
            """CREATE INDEX daily_board ON daily_plays (day, skill_loss, finished_at, player_id)
            WHERE skill_loss IS NOT NULL""",
        ),
        # v3: the browsers a group's creator removed, kept out of that group (F8).
        (
            """CREATE TABLE group_removals (
            group_id TEXT NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
            player_id TEXT NOT NULL,
            removed_at TEXT NOT NULL,
            PRIMARY KEY (group_id, player_id)
        )""",
        ),
        # v4 (F13): whether the public board lists the play (its browser had some history when
        # it finished; the plays before this version stay listed), and a board ordered by skill
        # loss, then score, never by the finishing time (equal entries share a place).
        (
            "ALTER TABLE daily_plays ADD COLUMN listed INTEGER NOT NULL DEFAULT 1",
            "DROP INDEX daily_board",
            """CREATE INDEX daily_board ON daily_plays (day, listed, skill_loss, score DESC,
            player_id) WHERE skill_loss IS NOT NULL""",
        ),
    ),
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True, slots=True)
class Play:
    """A player's daily play: its game and, once finished, its result."""

    day: date
    player_id: str
    game_id: str
    started_at: str
    finished_at: str | None
    score: int | None
    skill_loss: float | None
    accuracy: float | None
    luck: float | None
    marks: str | None

    @classmethod
    def of(cls, row: Row) -> Play:
        """A ``daily_plays`` row (``_PLAY_COLUMNS``)."""
        return cls(
            date.fromisoformat(row[0]),
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            row[6],
            row[7],
            row[8],
            row[9],
        )


@dataclass(frozen=True, slots=True)
class Result:
    """What a finished daily game records (D3)."""

    score: int
    skill_loss: float
    accuracy: float
    luck: float
    marks: str  # 13 letters, one per round: b(est) i(naccuracy) m(istake) x (blunder)
    finished_at: str


# A board is sent as it is (dataclasses.asdict) and documented as it is (the API's models
# name these classes): one description of a board line. pydantic reads the config below
# when it validates one (the API tests: no field beyond these).
_STRICT = {"extra": "forbid"}


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a board (D4): a day's (``days`` is 1) or a week's means over the days
    played, rounded as shown (skill loss to 2 decimals, accuracy to 1)."""

    __pydantic_config__ = _STRICT

    name: str
    score: float
    skill_loss: float
    accuracy: float
    rank: int  # equal entries share a place (1, 1, 3), F13
    days: int
    you: bool
    # False only for the browser's own entry on a board of everyone that does not list it
    # yet (F13: no history); its rank is then where it would stand.
    listed: bool = True

    @classmethod
    def of(
        cls,
        name: str,
        score: float,
        loss: float,
        accuracy: float,
        rank: int,
        days: int,
        you: bool,
        listed: bool = True,
    ) -> Entry:
        """An entry from a board's row (means are rounded here, once)."""
        return cls(
            name, round(score, 1), round(loss, 2), round(accuracy, 1), rank, days, you, listed
        )


@dataclass(frozen=True, slots=True)
class Board:
    """The top entries, the player's own entry (even outside them) and the count."""

    __pydantic_config__ = _STRICT

    entries: tuple[Entry, ...]
    you: Entry | None
    players: int


@dataclass(frozen=True, slots=True)
class Group:
    """A group as a browser sees it."""

    id: str
    name: str
    created_at: str
    closed: bool
    members: int
    is_creator: bool
    is_member: bool
    your_name: str | None


@dataclass(frozen=True, slots=True)
class Member:
    """A member of a group (the creator sees ``member_id`` to remove one)."""

    member_id: str
    name: str
    joined_at: str
    is_creator: bool
    you: bool
    finished_today: bool  # the day's game asked about is finished (who still has to play)


_PLAY_COLUMNS = (
    "day, player_id, game_id, started_at, finished_at, score, skill_loss, accuracy, luck, marks"
)


def week_of(day: date) -> tuple[date, date]:
    """The Monday and Sunday of ``day``'s week (a weekly board's days)."""
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


class DailyStore:
    """Every read and write of the daily challenge and the groups (one transaction each)."""

    def __init__(self, db: FeatureDb, secret: bytes) -> None:
        self.db = db
        self._secret = secret  # derives the groups' invite tokens (storage.invites)

    def _token(self, group_id: str, serial: int) -> str:
        return derived_token(self._secret, GROUP_INVITE, group_id, serial)

    # -- names ---------------------------------------------------------------------------

    async def name(self, player_id: str) -> str | None:
        """The browser's board name, if it gave one."""
        row = await self.db.run(
            lambda tx: tx.one(
                "SELECT name FROM daily_names WHERE player_id = :player", {"player": player_id}
            ),
            write=False,
        )
        return None if row is None else str(row[0])

    async def set_name(self, player_id: str, name: str) -> None:
        """Set the browser's board name (an already valid :mod:`yahtzee.names` name)."""
        await self.db.run(lambda tx: _set_name(tx, player_id, name))

    # -- plays ---------------------------------------------------------------------------

    @staticmethod
    def claim(day: date, player_id: str, game_id: str, name: str | None) -> Claim:
        """The player's play of ``day`` for ``game_id``, as the :class:`Claim` of the new
        game's transaction (D2): ``name`` (when given) set as the board name, then the
        ``(day, player)`` row inserted — none when one exists (the one attempt) or the
        browser has no name, and then the game is refused."""
        now = _now()
        player = {"player": player_id, "now": now}
        statements: list[tuple[str, dict[str, str]]] = []
        if name is not None:
            statements.append((_SET_NAME, {**player, "name": name}))
        statements.append((_CLAIM, {**player, "day": day.isoformat(), "game": game_id}))
        return Claim.rows(*statements)

    async def play(self, day: date, player_id: str) -> Play | None:
        """The player's play of ``day``."""
        row = await self.db.run(
            lambda tx: tx.one(
                f"SELECT {_PLAY_COLUMNS} FROM daily_plays WHERE day = :day AND player_id = :player",
                {"day": day.isoformat(), "player": player_id},
            ),
            write=False,
        )
        return None if row is None else Play.of(row)

    async def play_of_game(self, game_id: str) -> Play | None:
        """The play whose game is ``game_id`` (``None``: not a daily game)."""
        row = await self.db.run(
            lambda tx: tx.one(
                f"SELECT {_PLAY_COLUMNS} FROM daily_plays WHERE game_id = :game", {"game": game_id}
            ),
            write=False,
        )
        return None if row is None else Play.of(row)

    async def record_result(
        self, game_id: str, result: Result, min_days: int = 0, history_days: int = 28
    ) -> None:
        """Write a finished daily game's result (once: a second write changes nothing),
        and whether the board of everyone lists it (F13): its browser finished the
        challenge on at least ``min_days`` earlier days of the ``history_days`` before."""

        async def work(tx: Tx) -> None:
            row = await tx.one(
                "SELECT day, player_id FROM daily_plays WHERE game_id = :game", {"game": game_id}
            )
            if row is None:
                return
            day = date.fromisoformat(str(row[0]))
            listed = True
            if min_days > 0:
                count = await tx.one(
                    "SELECT COUNT(*) FROM daily_plays WHERE player_id = :player "
                    "AND day >= :since AND day < :day AND skill_loss IS NOT NULL",
                    {
                        "player": row[1],
                        "since": (day - timedelta(days=history_days)).isoformat(),
                        "day": day.isoformat(),
                    },
                )
                listed = count is not None and int(count[0]) >= min_days
            await tx.all(
                "UPDATE daily_plays SET finished_at = :finished_at, score = :score, "
                "skill_loss = :skill_loss, accuracy = :accuracy, luck = :luck, marks = :marks, "
                "listed = :listed WHERE game_id = :game AND skill_loss IS NULL",
                {
                    "finished_at": result.finished_at,
                    "score": result.score,
                    "skill_loss": result.skill_loss,
                    "accuracy": result.accuracy,
                    "luck": result.luck,
                    "marks": result.marks,
                    "listed": 1 if listed else 0,
                    "game": game_id,
                },
            )

        await self.db.run(work)

    async def reference(self, day: date) -> int | None:
        """The expert's score on ``day``'s stream, if computed."""
        row = await self.db.run(
            lambda tx: tx.one(
                "SELECT score FROM daily_reference WHERE day = :day", {"day": day.isoformat()}
            ),
            write=False,
        )
        return None if row is None else int(row[0])

    async def set_reference(self, day: date, score: int) -> int:
        """Store the expert's score of ``day`` unless a process did first; the stored one."""

        async def work(tx: Tx) -> int:
            await tx.all(
                "INSERT INTO daily_reference (day, score, computed_at) VALUES (:day, :score, :now) "
                "ON CONFLICT (day) DO NOTHING",
                {"day": day.isoformat(), "score": score, "now": _now()},
            )
            row = await tx.one(
                "SELECT score FROM daily_reference WHERE day = :day", {"day": day.isoformat()}
            )
            assert row is not None
            return int(row[0])

        return await self.db.run(work)

    # -- boards --------------------------------------------------------------------------

    async def board(
        self,
        day: date,
        player_id: str,
        limit: int,
        group_id: str | None = None,
        *,
        week: bool = False,
    ) -> Board:
        """``day``'s board, by skill loss, or (``week``) the board of its week (Monday to
        Sunday) by mean accuracy over the days played; of ``group_id``'s members, or of
        everyone with a name."""
        read = _week_board if week else _day_board
        return await self.db.run(lambda tx: read(tx, day, player_id, limit, group_id), write=False)

    # -- groups --------------------------------------------------------------------------

    async def create_group(
        self, creator_id: str, name: str, creator_name: str, max_open: int
    ) -> tuple[str, str]:
        """A new group with its creator as first member; returns ``(group_id, token)``."""

        async def work(tx: Tx) -> tuple[str, str]:
            row = await tx.one(
                "SELECT COUNT(*) FROM groups WHERE creator_id = :creator AND closed_at IS NULL",
                {"creator": creator_id},
            )
            if max_open > 0 and row is not None and int(row[0]) >= max_open:
                raise TooManyGroupsError(f"{creator_id} has {row[0]} open groups", max_open)
            group_id = secrets.token_hex(8)
            now = _now()
            await tx.all(
                "INSERT INTO groups (id, name, creator_id, created_at) "
                "VALUES (:group, :name, :creator, :now)",
                {"group": group_id, "name": name, "creator": creator_id, "now": now},
            )
            await _add_member(tx, group_id, creator_id, creator_name, now)
            return group_id, await issue_in(tx, GROUP_INVITE, group_id, self._token(group_id, 0))

        return await self.db.run(work)

    async def group_of_token(self, token: object) -> str | None:
        """The group a live invite token opens."""
        return await self.db.run(lambda tx: resolve_in(tx, GROUP_INVITE, token), write=False)

    async def removed_by_token(self, token: object, player_id: str) -> str | None:
        """The group of ``token``, live or not, if its creator removed this browser from
        it (F8: it is told so, whichever of the group's links it brings, the one the
        removal renewed included, F27)."""

        async def work(tx: Tx) -> str | None:
            group_id = await resolve_in(tx, GROUP_INVITE, token, revoked=True)
            return group_id if group_id and await _removed(tx, group_id, player_id) else None

        return await self.db.run(work, write=False)

    async def invite(self, group_id: str) -> str | None:
        """The group's live invite token (the creator's to show; ``None`` once closed)."""
        row = await self.db.run(
            lambda tx: tx.one(
                "SELECT invite_serial, closed_at FROM groups WHERE id = :group",
                {"group": group_id},
            ),
            write=False,
        )
        if row is None or row[1] is not None:
            return None
        return self._token(group_id, int(row[0]))

    async def new_invite(self, group_id: str) -> str:
        """A new invite token for the group (the old link stops working)."""

        async def work(tx: Tx) -> str:
            token = await self._renew_in(tx, group_id)
            if token is None:
                raise GroupClosedError(group_id)
            return token

        return await self.db.run(work)

    async def _renew_in(self, tx: Tx, group_id: str) -> str | None:
        """The next invite token of an open group, in the caller's transaction (the old
        one revoked); ``None`` for a closed group (it has no link)."""
        row = await tx.one(
            "UPDATE groups SET invite_serial = invite_serial + 1 WHERE id = :group "
            "AND closed_at IS NULL RETURNING invite_serial",
            {"group": group_id},
        )
        if row is None:
            return None
        await revoke_in(tx, GROUP_INVITE, group_id)
        return await issue_in(tx, GROUP_INVITE, group_id, self._token(group_id, int(row[0])))

    async def join(self, group_id: str, player_id: str, name: str, max_members: int) -> bool:
        """Add the browser to the group under ``name`` (a member already: the name is
        updated). Returns whether it was new. Raises :class:`GroupFullError`,
        :class:`GroupClosedError`, :class:`RemovedFromGroupError`,
        :class:`GroupNameTakenError` (another member's name, as people see it, F25)."""

        async def work(tx: Tx) -> bool:
            at = {"group": group_id, "player": player_id}
            group = await tx.one("SELECT closed_at FROM groups WHERE id = :group", at)
            if group is None or group[0] is not None:
                raise GroupClosedError(group_id)
            if await _removed(tx, group_id, player_id):
                raise RemovedFromGroupError(group_id)
            if tx.dialect == "postgresql":  # serialise joins of one group (the limit, names)
                await tx.all("SELECT id FROM groups WHERE id = :group FOR UPDATE", at)
            # F25: no two members whom people could not tell apart.
            key = name_key(name)
            for (other,) in await tx.all(
                "SELECT name FROM group_members WHERE group_id = :group AND player_id <> :player",
                at,
            ):
                if name_key(str(other)) == key:
                    raise GroupNameTakenError(f"{name!r} is taken in group {group_id}")
            if await tx.one(
                "SELECT 1 FROM group_members WHERE group_id = :group AND player_id = :player", at
            ):
                await tx.all(
                    "UPDATE group_members SET name = :name "
                    "WHERE group_id = :group AND player_id = :player",
                    {**at, "name": name},
                )
                return False
            count = await tx.one("SELECT COUNT(*) FROM group_members WHERE group_id = :group", at)
            if max_members > 0 and count is not None and int(count[0]) >= max_members:
                raise GroupFullError(f"group {group_id} has {count[0]} members", max_members)
            await _add_member(tx, group_id, player_id, name, _now())
            return True

        return await self.db.run(work)

    async def leave(self, group_id: str, player_id: str) -> bool:
        """The browser leaves the group (its entries leave the group's boards). The
        creator cannot leave (they close the group instead)."""
        return await self._delete_member(group_id, "player_id", player_id)

    async def remove_member(self, group_id: str, member_id: str) -> bool:
        """The creator removes a member (never themself), who is kept out of the group
        from then on (F8), in the same transaction; so is a fresh cookie of theirs with
        the link they had: an open group's invite link is renewed with it (F27, the
        others stay members)."""

        async def work(tx: Tx) -> bool:
            rows = await _delete_member(tx, group_id, "member_id", member_id)
            for (player_id,) in rows:
                await tx.all(
                    "INSERT INTO group_removals (group_id, player_id, removed_at) "
                    "VALUES (:group, :player, :now) ON CONFLICT DO NOTHING",
                    {"group": group_id, "player": player_id, "now": _now()},
                )
            if rows:
                await self._renew_in(tx, group_id)
            return bool(rows)

        return await self.db.run(work)

    async def _delete_member(self, group_id: str, column: str, value: str) -> bool:
        """Delete the membership whose ``column`` is ``value``, never the creator's."""
        rows = await self.db.run(lambda tx: _delete_member(tx, group_id, column, value))
        return bool(rows)

    async def removed(self, group_id: str, player_id: str) -> bool:
        """Whether the group's creator removed this browser from it (F8)."""
        return await self.db.run(lambda tx: _removed(tx, group_id, player_id), write=False)

    async def close(self, group_id: str) -> None:
        """Close the group: no more joins, its invite link stops."""

        async def work(tx: Tx) -> None:
            await tx.all(
                "UPDATE groups SET closed_at = :now WHERE id = :group AND closed_at IS NULL",
                {"now": _now(), "group": group_id},
            )
            await revoke_in(tx, GROUP_INVITE, group_id)

        await self.db.run(work)

    async def prune_groups(self, before: str, batch: int) -> int:
        """Delete at most ``batch`` groups closed before ``before`` (ISO time), or created
        before it and never joined by anyone but their creator, with their members and
        invite tokens (F14); returns how many."""

        async def work(tx: Tx) -> int:
            rows = await tx.all(
                "SELECT g.id FROM groups g WHERE (g.closed_at IS NOT NULL AND "
                "g.closed_at < :before) OR (g.closed_at IS NULL AND g.created_at < :before "
                "AND NOT EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.id "
                "AND m.player_id <> g.creator_id)) LIMIT :batch",
                {"before": before, "batch": batch},
            )
            for (group_id,) in rows:
                at = {"group": group_id, "purpose": GROUP_INVITE}
                await tx.all("DELETE FROM group_members WHERE group_id = :group", at)
                await tx.all("DELETE FROM group_removals WHERE group_id = :group", at)
                await tx.all(
                    "DELETE FROM invite_tokens WHERE purpose = :purpose AND target = :group", at
                )
                await tx.all("DELETE FROM groups WHERE id = :group", at)
            return len(rows)

        return await self.db.run(work)

    async def group(self, group_id: str, player_id: str) -> Group | None:
        """The group as ``player_id`` sees it (``None``: no such group)."""
        return await self.db.run(lambda tx: _group(tx, group_id, player_id), write=False)

    async def groups_of(self, player_id: str) -> list[Group]:
        """The groups the browser created or belongs to, newest first."""

        async def work(tx: Tx) -> list[Group]:
            ids = await tx.all(
                "SELECT g.id FROM groups g JOIN group_members m ON m.group_id = g.id "
                "WHERE m.player_id = :player ORDER BY g.created_at DESC",
                {"player": player_id},
            )
            groups = [await _group(tx, str(gid), player_id) for (gid,) in ids]
            return [g for g in groups if g is not None]

        return await self.db.run(work, write=False)

    async def members(self, group_id: str, player_id: str, day: date) -> list[Member]:
        """The group's members in joining order, and whether each finished ``day``'s game."""
        rows = await self.db.run(
            lambda tx: tx.all(
                "SELECT m.member_id, m.name, m.joined_at, m.player_id = g.creator_id, "
                "m.player_id = :player, EXISTS (SELECT 1 FROM daily_plays p WHERE p.day = :day "
                "AND p.player_id = m.player_id AND p.skill_loss IS NOT NULL) "
                "FROM group_members m JOIN groups g ON g.id = m.group_id "
                "WHERE m.group_id = :group ORDER BY m.joined_at, m.member_id",
                {"player": player_id, "day": day.isoformat(), "group": group_id},
            ),
            write=False,
        )
        return [Member(r[0], r[1], r[2], bool(r[3]), bool(r[4]), bool(r[5])) for r in rows]

    async def trends(self, group_id: str, since: date) -> dict[str, list[tuple[str, float]]]:
        """Each member's accuracy per day played since ``since`` (by ``member_id``)."""
        rows = await self.db.run(
            lambda tx: tx.all(
                "SELECT m.member_id, p.day, p.accuracy FROM group_members m "
                "JOIN daily_plays p ON p.player_id = m.player_id "
                "WHERE m.group_id = :group AND p.day >= :since AND p.accuracy IS NOT NULL "
                "ORDER BY m.member_id, p.day",
                {"group": group_id, "since": since.isoformat()},
            ),
            write=False,
        )
        out: dict[str, list[tuple[str, float]]] = {}
        for member_id, day, accuracy in rows:
            out.setdefault(str(member_id), []).append((str(day), float(accuracy)))
        return out


# The board name's upsert: in this module's transactions and in a game's (Claim).
_SET_NAME = (
    "INSERT INTO daily_names (player_id, name, updated_at) VALUES (:player, :name, :now) "
    "ON CONFLICT (player_id) DO UPDATE SET name = excluded.name, "
    "updated_at = excluded.updated_at"
)
# The one attempt (D2): the (day, player) row, for a browser with a board name; no row
# when either is missing (the SELECT's WHERE also keeps SQLite's upsert unambiguous).
_CLAIM = (
    "INSERT INTO daily_plays (day, player_id, game_id, started_at) "
    "SELECT :day, :player, :game, :now "
    "WHERE EXISTS (SELECT 1 FROM daily_names WHERE player_id = :player) "
    "ON CONFLICT (day, player_id) DO NOTHING RETURNING game_id"
)


async def _set_name(tx: Tx, player_id: str, name: str) -> None:
    await tx.all(_SET_NAME, {"player": player_id, "name": name, "now": _now()})


async def _delete_member(tx: Tx, group_id: str, column: str, value: str) -> list[Row]:
    """Delete the membership whose ``column`` is ``value``, never the creator's; the
    deleted member's player id (none or one row)."""
    assert column in ("player_id", "member_id")
    return await tx.all(
        f"DELETE FROM group_members WHERE group_id = :group AND {column} = :value "
        "AND player_id <> (SELECT creator_id FROM groups WHERE id = :group) "
        "RETURNING player_id",
        {"group": group_id, "value": value},
    )


async def _removed(tx: Tx, group_id: str, player_id: str) -> bool:
    return (
        await tx.one(
            "SELECT 1 FROM group_removals WHERE group_id = :group AND player_id = :player",
            {"group": group_id, "player": player_id},
        )
        is not None
    )


async def _add_member(tx: Tx, group_id: str, player_id: str, name: str, now: str) -> None:
    await tx.all(
        "INSERT INTO group_members (group_id, player_id, member_id, name, joined_at) "
        "VALUES (:group, :player, :member, :name, :now)",
        {
            "group": group_id,
            "player": player_id,
            "member": secrets.token_hex(8),
            "name": name,
            "now": now,
        },
    )


async def _group(tx: Tx, group_id: str, player_id: str) -> Group | None:
    row = await tx.one(
        "SELECT g.id, g.name, g.created_at, g.closed_at, g.creator_id, "
        "(SELECT COUNT(*) FROM group_members c WHERE c.group_id = g.id), "
        "(SELECT m.name FROM group_members m WHERE m.group_id = g.id AND m.player_id = :player) "
        "FROM groups g WHERE g.id = :group",
        {"player": player_id, "group": group_id},
    )
    if row is None:
        return None
    return Group(
        id=row[0],
        name=row[1],
        created_at=row[2],
        closed=row[3] is not None,
        members=int(row[5]),
        is_creator=row[4] == player_id,
        is_member=row[6] is not None,
        your_name=row[6],
    )


def _who(group_id: str | None) -> tuple[str, str]:
    """The name column and the join of a board (everyone, or a group: ``:group``)."""
    if group_id is None:
        return "COALESCE(n.name, '')", "LEFT JOIN daily_names n ON n.player_id = p.player_id"
    return "n.name", "JOIN group_members n ON n.player_id = p.player_id AND n.group_id = :group"


def _competition_ranks(keys: list[tuple[float, ...]]) -> list[int]:
    """The places of entries sorted by ``keys``: equal keys share one (1, 1, 3), F13."""
    ranks: list[int] = []
    for i, key in enumerate(keys):
        ranks.append(ranks[-1] if i > 0 and key == keys[i - 1] else i + 1)
    return ranks


async def _day_board(tx: Tx, day: date, player_id: str, limit: int, group_id: str | None) -> Board:
    """A day's board: by skill loss, then score; equal entries share a place and are
    listed in the order of their browsers' ids (never by finishing time: a bot finishes
    first, F13). The board of everyone lists the listed plays only (F13); a group's lists
    every member's."""
    name, join = _who(group_id)
    where = "p.day = :day AND p.skill_loss IS NOT NULL"
    if group_id is None:
        where += " AND p.listed = 1"
    params: dict[str, Any] = {"group": group_id, "day": day.isoformat(), "player": player_id}
    top = await tx.all(
        f"SELECT {name}, p.score, p.skill_loss, p.accuracy, p.player_id "
        f"FROM daily_plays p {join} WHERE {where} "
        "ORDER BY p.skill_loss, p.score DESC, p.player_id LIMIT :limit",
        {**params, "limit": limit},
    )
    ranks = _competition_ranks([(r[2], -r[1]) for r in top])
    entries = tuple(
        Entry.of(r[0], r[1], r[2], r[3], rank, 1, r[4] == player_id)
        for r, rank in zip(top, ranks, strict=True)
    )
    # The counts of the board of everyone read the daily_board index alone (every play
    # has a name: a claim needs one); a group's join its members (at most a few hundred).
    # All in one statement: one round trip.
    count_join = join if group_id is not None else ""
    count = f"SELECT COUNT(*) FROM daily_plays p {count_join} WHERE {where}"
    you = next((e for e in entries if e.you), None)
    own = None
    if you is None:
        own = await tx.one(
            f"SELECT {name}, p.score, p.skill_loss, p.accuracy, p.listed "
            f"FROM daily_plays p {join} WHERE p.day = :day AND p.skill_loss IS NOT NULL "
            "AND p.player_id = :player",
            params,
        )
    if own is None:
        row = await tx.one(count, params)
        players = int(row[0]) if row is not None else 0
    else:
        # Two index range counts (not one OR, which no index serves): the entries with a
        # lower loss, and with an equal loss and a higher score.
        row = await tx.one(
            f"SELECT ({count}), ({count} AND p.skill_loss < :loss), "
            f"({count} AND p.skill_loss = :loss AND p.score > :score)",
            {**params, "loss": own[2], "score": own[1]},
        )
        assert row is not None
        players = int(row[0])
        better = int(row[1]) + int(row[2])
        listed = group_id is not None or bool(own[4])
        you = Entry.of(own[0], own[1], own[2], own[3], better + 1, 1, True, listed)
    return Board(entries, you, players)


async def _week_board(tx: Tx, day: date, player_id: str, limit: int, group_id: str | None) -> Board:
    """The week of ``day`` (Monday to Sunday): by mean accuracy over the days played,
    then more days, lower mean skill loss, higher mean score, as shown (rounded); equal
    entries share a place, in the order of their browsers' ids, as on the day's board.
    The board of everyone lists the browsers with a listed play in the week (F13)."""
    name, join = _who(group_id)
    monday, sunday = week_of(day)
    rows = await tx.all(
        f"SELECT {name}, AVG(p.score), AVG(p.skill_loss), AVG(p.accuracy), COUNT(*), "
        f"p.player_id, MAX(p.listed) FROM daily_plays p {join} "
        "WHERE p.day >= :monday AND p.day <= :sunday AND p.skill_loss IS NOT NULL "
        f"GROUP BY p.player_id, {name}",
        {"group": group_id, "monday": monday.isoformat(), "sunday": sunday.isoformat()},
    )
    everyone = group_id is None
    lines = [
        (
            Entry.of(r[0], float(r[1]), float(r[2]), float(r[3]), 0, int(r[4]), r[5] == player_id),
            str(r[5]),
            not everyone or bool(r[6]),
        )
        for r in rows
    ]

    def key(entry: Entry) -> tuple[float, ...]:
        return (-entry.accuracy, -entry.days, entry.skill_loss, -entry.score)

    shown = sorted((line for line in lines if line[2]), key=lambda line: (key(line[0]), line[1]))
    ranks = _competition_ranks([key(e) for e, _, _ in shown])
    ranked = [
        dataclasses.replace(e, rank=rank) for (e, _, _), rank in zip(shown, ranks, strict=True)
    ]
    you = next((e for e in ranked if e.you), None)
    if you is None:
        own = next((e for e, _, _ in lines if e.you), None)
        if own is not None:  # not listed: where it would stand
            better = sum(1 for e in ranked if key(e) < key(own))
            you = dataclasses.replace(own, rank=better + 1, listed=False)
    return Board(tuple(ranked[:limit]), you, len(ranked))


class DailyData:
    """The daily challenge's and groups' rows of a player (I1, I4; see
    :mod:`yahtzee.storage.player_data`). A merge keeps ``open_groups`` (the groups one
    player created and has not closed, 0: no cap, F27): past it, the linked browser's
    groups (the newest first), then the player's own, go to their oldest other member as
    on a deletion (the player stays a member), or are closed when nobody else is in them."""

    name = "daily"

    def __init__(self, open_groups: int = 0) -> None:
        self.open_groups = open_groups

    async def export(self, tx: Tx, player_id: str) -> Any:
        name = await tx.one(
            "SELECT name, updated_at FROM daily_names WHERE player_id = :player_id",
            {"player_id": player_id},
        )
        plays = await tx.all(
            "SELECT day, game_id, started_at, finished_at, score, skill_loss, accuracy, luck, "
            "marks FROM daily_plays WHERE player_id = :player_id ORDER BY day",
            {"player_id": player_id},
        )
        created = await tx.all(
            "SELECT id, name, created_at, closed_at FROM groups WHERE creator_id = :player_id "
            "ORDER BY created_at",
            {"player_id": player_id},
        )
        memberships = await tx.all(
            "SELECT m.group_id, g.name, m.name, m.joined_at FROM group_members m "
            "JOIN groups g ON g.id = m.group_id WHERE m.player_id = :player_id ORDER BY "
            "m.joined_at",
            {"player_id": player_id},
        )
        removed = await tx.all(
            "SELECT group_id, removed_at FROM group_removals WHERE player_id = :player_id "
            "ORDER BY removed_at",
            {"player_id": player_id},
        )
        keys = (
            *("day", "game_id", "started_at", "finished_at", "score"),
            *("skill_loss", "accuracy", "luck", "marks"),
        )
        return {
            "board_name": None if name is None else {"name": name[0], "updated_at": name[1]},
            "plays": [dict(zip(keys, row, strict=True)) for row in plays],
            "groups_created": [
                dict(zip(("id", "name", "created_at", "closed_at"), row, strict=True))
                for row in created
            ],
            "groups_joined": [
                dict(zip(("group_id", "group_name", "name", "joined_at"), row, strict=True))
                for row in memberships
            ],
            "removed_from_groups": [{"group_id": row[0], "removed_at": row[1]} for row in removed],
        }

    async def has_data(self, tx: Tx, player_id: str) -> bool:
        return await keeps(tx, self, player_id)

    def kept_sql(self, player: str) -> str:
        return " OR ".join(
            f"EXISTS (SELECT 1 FROM {table} WHERE {column} = {player})"
            for table, column in (
                ("daily_plays", "player_id"),
                ("group_members", "player_id"),
                ("groups", "creator_id"),
            )
        )

    async def merge(self, tx: Tx, source: str, target: str) -> Sequence[MergeNote]:
        # (the linked browser's open groups first when the cap makes some go, F27)
        theirs = [
            str(r[0])
            for r in await tx.all(
                "SELECT id FROM groups WHERE creator_id = :source AND closed_at IS NULL "
                "ORDER BY created_at DESC, id",
                {"source": source},
            )
        ]
        # The board name: the linked player's, if it has one.
        if (
            await tx.one("SELECT 1 FROM daily_names WHERE player_id = :target", {"target": target})
            is None
        ):
            await tx.all(
                "UPDATE daily_names SET player_id = :target WHERE player_id = :source",
                {"target": target, "source": source},
            )
        await tx.all("DELETE FROM daily_names WHERE player_id = :source", {"source": source})
        # D2 stays one attempt a day for the player: on a day both played, the attempt
        # started first is the day's (on the boards); the other game stays in the records.
        both = await tx.all(
            "SELECT s.day, s.started_at, t.started_at FROM daily_plays s JOIN daily_plays t "
            "ON t.day = s.day AND t.player_id = :target WHERE s.player_id = :source",
            {"target": target, "source": source},
        )
        for day, source_started, target_started in both:
            loser = target if str(source_started) < str(target_started) else source
            await tx.all(
                "DELETE FROM daily_plays WHERE day = :day AND player_id = :loser",
                {"day": day, "loser": loser},
            )
        await tx.all(
            "UPDATE daily_plays SET player_id = :target WHERE player_id = :source",
            {"target": target, "source": source},
        )
        await tx.all(
            "UPDATE groups SET creator_id = :target WHERE creator_id = :source",
            {"target": target, "source": source},
        )
        # A group both belong to keeps the linked player's membership (and name).
        await tx.all(
            "DELETE FROM group_members WHERE player_id = :source AND group_id IN "
            "(SELECT group_id FROM group_members WHERE player_id = :target)",
            {"source": source, "target": target},
        )
        await tx.all(
            "UPDATE group_members SET player_id = :target WHERE player_id = :source",
            {"target": target, "source": source},
        )
        # A removal follows the person (F8): the linked device stays out of that group too.
        # (as the memberships: the linked player's row stays where both have one)
        await tx.all(
            "DELETE FROM group_removals WHERE player_id = :source AND group_id IN "
            "(SELECT group_id FROM group_removals WHERE player_id = :target)",
            {"source": source, "target": target},
        )
        await tx.all(
            "UPDATE group_removals SET player_id = :target WHERE player_id = :source",
            {"target": target, "source": source},
        )
        return await self._keep_open_groups(tx, target, theirs)

    async def _keep_open_groups(self, tx: Tx, player_id: str, first: list[str]) -> list[MergeNote]:
        """F27: ``player_id``'s open groups past :attr:`open_groups`, those of ``first``
        (the linked browser's, newest first) before its own (newest first), handed to
        their oldest other member, or closed when they have none."""
        mine = [
            str(r[0])
            for r in await tx.all(
                "SELECT id FROM groups WHERE creator_id = :player AND closed_at IS NULL "
                "ORDER BY created_at DESC, id",
                {"player": player_id},
            )
        ]
        over = len(mine) - self.open_groups
        if self.open_groups <= 0 or over <= 0:
            return []
        order = [g for g in first if g in mine] + [g for g in mine if g not in first]
        notes = []
        for group_id in order[:over]:
            row = await tx.one("SELECT name FROM groups WHERE id = :group", {"group": group_id})
            name = str(row[0]) if row is not None else ""
            heir = await tx.one(
                "SELECT player_id, name FROM group_members WHERE group_id = :group "
                "AND player_id <> :player ORDER BY joined_at, member_id LIMIT 1",
                {"group": group_id, "player": player_id},
            )
            limit = self.open_groups
            if heir is not None:
                await tx.all(
                    "UPDATE groups SET creator_id = :heir WHERE id = :group",
                    {"heir": heir[0], "group": group_id},
                )
                said = msg(
                    "server.merge.group_handed_over", limit=limit, group=name, heir=str(heir[1])
                )
                notes.append(MergeNote("open_groups", "group_handed_over", group_id, said))
            else:
                await tx.all(
                    "UPDATE groups SET closed_at = :now WHERE id = :group AND closed_at IS NULL",
                    {"now": _now(), "group": group_id},
                )
                await revoke_in(tx, GROUP_INVITE, group_id)
                said = msg("server.merge.group_closed", limit=limit, group=name)
                notes.append(MergeNote("open_groups", "group_closed", group_id, said))
        return notes

    async def erase(self, tx: Tx, player_id: str) -> None:
        await tx.all(
            "DELETE FROM daily_names WHERE player_id = :player_id", {"player_id": player_id}
        )
        await tx.all(
            "DELETE FROM daily_plays WHERE player_id = :player_id", {"player_id": player_id}
        )
        await tx.all(
            "DELETE FROM group_members WHERE player_id = :player_id", {"player_id": player_id}
        )
        await tx.all(
            "DELETE FROM group_removals WHERE player_id = :player_id", {"player_id": player_id}
        )
        # A group the player created goes to its oldest remaining member; with nobody
        # left it is closed (its invite links end).
        for (group_id,) in await tx.all(
            "SELECT id FROM groups WHERE creator_id = :player_id", {"player_id": player_id}
        ):
            heir = await tx.one(
                "SELECT player_id FROM group_members WHERE group_id = :group_id "
                "ORDER BY joined_at, member_id LIMIT 1",
                {"group_id": group_id},
            )
            if heir is not None:
                await tx.all(
                    "UPDATE groups SET creator_id = :heir WHERE id = :group_id",
                    {"heir": heir[0], "group_id": group_id},
                )
            else:
                await tx.all(
                    "UPDATE groups SET creator_id = '', closed_at = COALESCE(closed_at, :now) "
                    "WHERE id = :group_id",
                    {"now": _now(), "group_id": group_id},
                )
                await revoke_in(tx, GROUP_INVITE, group_id)
