"""Server configuration."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from yahtzee.dice import DiceSource
from yahtzee.serve_config import Limits
from yahtzee.storage import is_postgres_url
from yahtzee.turn import Player

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"


def default_db_path() -> Path | str:
    """``$YAHTZEE_DB`` if set (a path, or a ``postgresql://`` URL kept as text), else
    ``yahtzee.db`` in the user's data directory."""
    env = os.environ.get("YAHTZEE_DB")
    if env:
        return env if is_postgres_url(env) else Path(env)
    return Path(platformdirs.user_data_dir("yahtzee", appauthor=False)) / "yahtzee.db"


def _heartbeat_seconds() -> float:
    value = float(os.environ.get("YAHTZEE_HEARTBEAT_SECONDS") or 10.0)
    if not value > 0:
        raise ValueError(f"YAHTZEE_HEARTBEAT_SECONDS must be more than 0, got {value}")
    return value


@dataclass(frozen=True)
class Settings:
    """Everything :func:`yahtzee.server.create_app` needs.

    ``dice_seed`` and ``dice`` exist for tests only: production leaves both ``None`` and
    every die comes from the operating system's CSPRNG (:class:`~yahtzee.dice.SystemDice`).
    ``players`` replaces :func:`yahtzee.players.get_player` (tests).

    ``secret`` signs the player cookies (F4): by default ``$YAHTZEE_SECRET``, else the
    contents of ``secret_file``, else of ``<db>.secret`` (created on the first start).
    ``limits`` are the rate limits and the pruning age (F5).
    """

    # A file path (SQLite) or a ``postgresql://`` URL (PostgreSQL).
    db: Path | str = field(default_factory=default_db_path)
    dice_seed: int | None = None
    dice: DiceSource | None = None
    players: Callable[[str], Player] | None = None
    static_dir: Path = STATIC_DIR
    synchronous: str = "FULL"  # F6: an acknowledged action survives a machine crash
    max_body_bytes: int = 64 * 1024
    secret: str | None = field(default_factory=lambda: os.environ.get("YAHTZEE_SECRET") or None)
    secret_file: Path | None = None
    limits: Limits = field(default_factory=Limits)
    # Of the rate limits: wall-clock seconds, shared by every process (tests stop it).
    clock: Callable[[], float] = time.time
    # How often a process registers itself in the database (its share of the action
    # limit, F5): $YAHTZEE_HEARTBEAT_SECONDS, else 10 s.
    heartbeat_seconds: float = field(default_factory=_heartbeat_seconds)
