"""The server's limits and the options of ``yahtzee serve`` (shared with
``python -m yahtzee.server``).

Outside the ``yahtzee.server`` package on purpose: the command line builds its parser for
every subcommand, and importing anything under ``yahtzee.server`` loads the web stack.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Limits:
    """The configurable limits of F5 (see :mod:`yahtzee.server.limits`); ``0`` switches a
    rate limit off."""

    new_games_per_minute: int = 30  # per player
    new_players_per_minute: int = 60  # per client address: new player ids issued
    actions_per_second: int = 20  # per player: every game action (roll, score, hint, ...)
    prune_after_days: float = 7.0  # games abandoned before their first roll are deleted
    # per client address, whatever the number of its player ids: what bounds the growth of
    # the database per address (README)
    new_games_per_minute_per_address: int = 60


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more, got {value}")
    return value


def _days(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 days, got {text}")
    return value


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    """Add the server's options to ``parser``."""
    default = Limits()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--db",
        default=None,
        help="SQLite database file, or a PostgreSQL URL postgresql://user@host:port/dbname",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes sharing the port and the database (default 1)",
    )
    parser.add_argument(
        "--secret-file",
        type=Path,
        default=None,
        help="file holding the cookie-signing secret, created if missing "
        "(default: <db>.secret; YAHTZEE_SECRET overrides both)",
    )
    parser.add_argument(
        "--max-new-games-per-minute",
        type=_count,
        default=default.new_games_per_minute,
        help=f"per player, 0 = no limit (default {default.new_games_per_minute})",
    )
    parser.add_argument(
        "--max-new-players-per-minute",
        type=_count,
        default=default.new_players_per_minute,
        help=f"new player ids per client address, 0 = no limit "
        f"(default {default.new_players_per_minute})",
    )
    parser.add_argument(
        "--max-actions-per-second",
        type=_count,
        default=default.actions_per_second,
        help=f"per player, 0 = no limit (default {default.actions_per_second})",
    )
    parser.add_argument(
        "--max-new-games-per-minute-per-address",
        type=_count,
        default=default.new_games_per_minute_per_address,
        help=f"new games per client address, 0 = no limit "
        f"(default {default.new_games_per_minute_per_address})",
    )
    parser.add_argument(
        "--prune-after-days",
        type=_days,
        default=default.prune_after_days,
        help=f"delete games abandoned before their first roll after this many days "
        f"(default {default.prune_after_days:g})",
    )


def db_argument(value: str | Path | None) -> Path | str | None:
    """``--db``: a ``postgresql://`` (or ``postgres://``) URL stays text, anything else is a
    file path (so a URL is never taken for a file name, S1)."""
    # (Imported here: building the parser must not load the storage package.)
    from yahtzee.storage.url import is_postgres_url

    if value is None or isinstance(value, Path):
        return value
    return value if is_postgres_url(value) else Path(value)


def limits_from(args: argparse.Namespace) -> Limits:
    """The :class:`Limits` the parsed options ask for."""
    return Limits(
        new_games_per_minute=args.max_new_games_per_minute,
        new_players_per_minute=args.max_new_players_per_minute,
        actions_per_second=args.max_actions_per_second,
        prune_after_days=args.prune_after_days,
        new_games_per_minute_per_address=args.max_new_games_per_minute_per_address,
    )
