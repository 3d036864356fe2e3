"""A player's settings kept by the platform: the language they chose (G3), for every device
linked to them (我的设备).

One row per player who chose something, in the table ``player_settings`` (its own owner of
migrations, ``SCHEMA`` in the app factory, as the invite tokens'). The language is stored as
its tag (:meth:`yahtzee.i18n.Lang.parse` reads it back; a tag this release no longer knows
reads as no choice). :class:`PlayerSettingsData` is its part of what 我的设备 exports,
merges and erases (:class:`~yahtzee.storage.player_data.PlayerData`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from yahtzee.i18n import Lang
from yahtzee.storage.feature_db import FeatureDb, Tx
from yahtzee.storage.player_data import MergeNote
from yahtzee.storage.schema import Migrations

OWNER = "player_settings"
MIGRATIONS = Migrations.shared(
    OWNER,
    (
        (
            """CREATE TABLE player_settings (
            player_id TEXT PRIMARY KEY,
            language TEXT NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL
        )""",
        ),
    ),
)

_SET = (
    "INSERT INTO player_settings (player_id, language, updated_at) "
    "VALUES (:player_id, :language, :now) "
    "ON CONFLICT (player_id) DO UPDATE SET language = excluded.language, "
    "updated_at = excluded.updated_at"
)
_GET = "SELECT language FROM player_settings WHERE player_id = :player_id"


def _lang(value: object) -> Lang | None:
    try:
        return Lang.parse(str(value))
    except ValueError:
        return None


class PlayerSettings:
    """The settings' table on the features' connection."""

    def __init__(self, db: FeatureDb, clock: Any = time.time) -> None:
        self.db = db
        self.clock = clock

    async def language(self, player_id: str) -> Lang | None:
        """The language ``player_id`` chose, or ``None``."""
        row = await self.db.one(_GET, {"player_id": player_id}, write=False)
        return None if row is None else _lang(row[0])

    async def set_language(self, player_id: str, lang: Lang) -> None:
        """Keep ``lang`` as ``player_id``'s choice (committed when this returns)."""
        params = {"player_id": player_id, "language": str(lang), "now": float(self.clock())}
        await self.db.one(_SET, params)


class PlayerSettingsData:
    """The settings' part of a player's data (export, merge, erase: I1, I4)."""

    name = "settings"

    async def export(self, tx: Tx, player_id: str) -> Any:
        row = await tx.one(
            "SELECT language, updated_at FROM player_settings WHERE player_id = :player_id",
            {"player_id": player_id},
        )
        return {} if row is None else {"language": row[0], "updated_at": row[1]}

    async def has_data(self, tx: Tx, player_id: str) -> bool:
        # A language alone is nothing a person would miss by linking elsewhere.
        del tx, player_id
        return False

    def kept_sql(self, player: str) -> str:
        del player
        return "FALSE"  # (as has_data: a never-played browser's choice goes with it, F27)

    async def merge(self, tx: Tx, source: str, target: str) -> Sequence[MergeNote]:
        # The player kept (the code's) keeps their choice; without one they take the other's.
        await tx.all(
            "UPDATE player_settings SET player_id = :target WHERE player_id = :source "
            "AND NOT EXISTS (SELECT 1 FROM player_settings WHERE player_id = :target)",
            {"source": source, "target": target},
        )
        await tx.all("DELETE FROM player_settings WHERE player_id = :source", {"source": source})
        return ()

    async def erase(self, tx: Tx, player_id: str) -> None:
        await tx.all(
            "DELETE FROM player_settings WHERE player_id = :player_id", {"player_id": player_id}
        )
