"""What every part of the program keeps about a player, as 我的设备 needs it (I1, I4).

A player's data lives in several features' tables of one database: the games and their
logs (this package's), the daily challenge and groups, 练习, rooms, the devices. Each part
that keeps something implements :class:`PlayerData` over a :class:`~yahtzee.storage.
feature_db.Tx`, and the devices feature runs all of them in **one transaction** on the
feature database (the same database as the games), so that a merge of two players or the
erasure of one is whole or not at all, whatever fails midway.

``export`` is what the player may download (JSON values, or stored JSON text as an
:class:`orjson.Fragment`); ``has_data`` says whether a
device's player would lose anything by being linked elsewhere (``kept_sql``, the same as an
SQL condition, lets one query find the players no part keeps anything of: the pruning of
devices that never played, F27); ``merge`` moves everything
of ``source`` to ``target`` (the two players become one); ``erase`` deletes every row of
the player (others' games and boards stay whole).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from yahtzee.i18n import Msg
from yahtzee.storage.feature_db import Tx
from yahtzee.storage.sql import dumps, is_second_unfinished


class MergeConflictError(Exception):
    """Two players cannot be merged as they stand (both have an unfinished game)."""


class MergeOverCapError(MergeConflictError):
    """A merge would break a per-player cap that nothing can be given up for (F27): its
    ``message`` says which cap, by how much, and what to do."""

    def __init__(self, cap: str, message: Msg) -> None:
        super().__init__(f"the merge would exceed {cap}")
        self.cap = cap
        self.message = message


@dataclass(frozen=True, slots=True)
class MergeNote:
    """What a merge gave up to keep a per-player cap (F27), said to the player: ``cap``
    (``open_rooms``, ``room_seat``, ``open_groups``, ``waiting_rooms``), what was done
    (``room_closed``, ``seat_freed``, ``group_handed_over``, ``group_closed``), the room's
    or group's ``id`` and one sentence (said in the reader's language)."""

    cap: str
    done: str
    id: str
    message: Msg


class PlayerData(Protocol):
    """One part of what the server keeps about a player (see the module docstring)."""

    #: The key of this part in the export (``games``, ``daily``...).
    name: str

    async def export(self, tx: Tx, player_id: str) -> Any:
        """Everything this part keeps about ``player_id``, as JSON values."""
        ...

    async def has_data(self, tx: Tx, player_id: str) -> bool:
        """Whether this part keeps anything of ``player_id`` that a person would miss
        (:func:`keeps`: ``kept_sql`` for one player)."""
        ...

    def kept_sql(self, player: str) -> str:
        """An SQL condition, true when this part keeps anything a person would miss of
        the player whose id is the SQL expression ``player`` (a column, ``:player_id``);
        each test an index lookup."""
        ...

    async def merge(self, tx: Tx, source: str, target: str) -> Sequence[MergeNote]:
        """Move everything of ``source`` to ``target`` (raise to refuse, changing nothing),
        keeping this part's per-player caps: what it gave up for them (F27)."""
        ...

    async def erase(self, tx: Tx, player_id: str) -> None:
        """Delete every row of ``player_id``."""
        ...


async def keeps(tx: Tx, part: PlayerData, player_id: str) -> bool:
    """``part.has_data``: its :meth:`~PlayerData.kept_sql` for one player."""
    row = await tx.one(f"SELECT 1 WHERE {part.kept_sql(':player_id')}", {"player_id": player_id})
    return row is not None


_GAME_COLUMNS = (
    "id",
    "kind",
    "mode",
    "difficulty",
    "status",
    "version",
    "created_at",
    "updated_at",
    "finished_at",
    "result",
    "human_total",
    "computer_total",
    "new_record",
)


class GamesData:
    """The games a player owns and their event logs (solo, vs, 多人同屏, daily, tutorial),
    and the rate-limit buckets kept under its id."""

    name = "games"

    async def export(self, tx: Tx, player_id: str) -> Any:
        games = await export_games(tx, "player_id = :player_id", {"player_id": player_id})
        return [game for _owner, game in games]

    async def has_data(self, tx: Tx, player_id: str) -> bool:
        return await keeps(tx, self, player_id)

    def kept_sql(self, player: str) -> str:
        return f"EXISTS (SELECT 1 FROM games WHERE player_id = {player})"  # (games_player)

    async def merge(self, tx: Tx, source: str, target: str) -> Sequence[MergeNote]:
        unfinished = await tx.all(
            "SELECT DISTINCT player_id FROM games WHERE player_id IN (:source, :target) "
            "AND status = 'in_progress'",
            {"source": source, "target": target},
        )
        if len(unfinished) == 2:
            raise MergeConflictError("both players have an unfinished game")
        try:
            await tx.all(
                "UPDATE games SET player_id = :target WHERE player_id = :source",
                {"target": target, "source": source},
            )
        except Exception as exc:
            # (PostgreSQL: a new game of either committed after the check above, F26)
            if is_second_unfinished(exc):
                raise MergeConflictError("both players have an unfinished game") from exc
            raise
        return ()  # (F2, one unfinished game, is kept by the refusals above)

    async def erase(self, tx: Tx, player_id: str) -> None:
        # The schema's own exception to the append-only log (level 8): listed, deleted,
        # unlisted, all in this transaction.
        await tx.all(
            "INSERT INTO game_erasures (game_id) SELECT id FROM games WHERE player_id = :player_id",
            {"player_id": player_id},
        )
        await tx.all(
            "DELETE FROM events WHERE game_id IN (SELECT id FROM games WHERE player_id = "
            ":player_id)",
            {"player_id": player_id},
        )
        gone = await tx.all(
            "DELETE FROM games WHERE player_id = :player_id RETURNING id", {"player_id": player_id}
        )
        # (by id: a NOT IN of every game's id read the whole table at each erasure)
        if gone:
            await tx.many(
                "DELETE FROM game_erasures WHERE game_id = :id", [{"id": r[0]} for r in gone]
            )
        await tx.all("DELETE FROM rate_buckets WHERE key = :player_id", {"player_id": player_id})


async def export_games(
    tx: Tx, condition: str, params: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """The games whose header meets the SQL ``condition`` (with ``params``), oldest
    first, each with its owner: its header and its ``events`` as the export has them."""
    games = await tx.all(
        f"SELECT player_id, {', '.join(_GAME_COLUMNS)} FROM games WHERE {condition} "
        "ORDER BY created_at, id",
        params,
    )
    events: dict[str, list[dict[str, Any]]] = {}
    rows = await tx.all(
        "SELECT game_id, seq, kind, data, created_at FROM events WHERE game_id IN "
        f"(SELECT id FROM games WHERE {condition}) ORDER BY game_id, seq",
        params,
    )
    for game_id, seq, kind, data, created_at in rows:
        await tx.pause()  # (the rest of the server runs now and then, F22)
        # (the event's data as logged, JSON text kept as it is: orjson writes it into
        # the file unparsed; parsing 16,000 events held the GIL for ~50 ms, F22)
        events.setdefault(str(game_id), []).append(
            {"seq": seq, "kind": kind, "data": orjson.Fragment(data), "at": created_at}
        )
    out = []
    for row in games:
        game = dict(zip(_GAME_COLUMNS, row[1:], strict=True))
        if game["new_record"] is not None:
            game["new_record"] = bool(game["new_record"])
        game["events"] = events.get(str(game["id"]), [])
        out.append((str(row[0]), game))
    return out


async def unname_seat(tx: Tx, game_id: str, seat: int) -> None:
    """Remove the name of ``seat`` from the start event of game ``game_id`` (a room game
    whose person deleted their data: the seat stays, nameless, so that the others' game
    is whole). The log's one rewrite, under the schema's exception (level 8); the game's
    ``seat_serial`` moves with it (level 9), so that no process serves or builds on a
    position it had cached with the name (F24)."""
    await tx.all(
        "UPDATE games SET seat_serial = seat_serial + 1 WHERE id = :game_id",
        {"game_id": game_id},
    )
    row = await tx.one(
        "SELECT seq, data FROM events WHERE game_id = :game_id AND kind = 'start' ORDER BY seq "
        "LIMIT 1",
        {"game_id": game_id},
    )
    if row is None:
        return
    data = json.loads(row[1])
    seats = data.get("seats") if isinstance(data, dict) else None
    if not isinstance(seats, list) or not 0 <= seat < len(seats):
        return
    entry = seats[seat]
    if not isinstance(entry, dict) or "name" not in entry:
        return
    del entry["name"]
    await tx.all(
        "INSERT INTO game_erasures (game_id) VALUES (:game_id) ON CONFLICT (game_id) DO NOTHING",
        {"game_id": game_id},
    )
    await tx.all(
        "UPDATE events SET data = :data WHERE game_id = :game_id AND seq = :seq",
        {"data": dumps(data), "game_id": game_id, "seq": row[0]},
    )
    await tx.all("DELETE FROM game_erasures WHERE game_id = :game_id", {"game_id": game_id})
