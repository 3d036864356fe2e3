"""The export's file (I4, U20): every time in one format, indented, and a summary a
parent can read.

The parts of the program keep their times as they suit them (seconds since the epoch, a
database's timestamp text with or without its zone); the file a person downloads says
every time one way, ISO 8601 in UTC with milliseconds (``2026-12-01T12:00:00.000Z``, what
a browser's ``Date.toISOString`` writes). A time is a value under a key that names one:
``at``, ``…_at`` or ``due``; a day (``day``: ``2026-12-01``) stays a day. The file is
indented JSON, two spaces, a game's events one to a line (orjson); it is rendered in a
worker thread (F22: never on the event loop).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson

from yahtzee.storage.feature_db import Pacer

#: The file's format (docs/api.md "The export").
EXPORT_FORMAT = "yahtzee-export-v2"
#: The keys whose values are times (besides every ``…_at``).
TIME_KEYS = frozenset({"at", "due"})


def iso_time(value: object) -> object:
    """``value`` (seconds since the epoch, or a timestamp's text) as ISO 8601 in UTC with
    milliseconds; ``None``, and anything that is not a time, as it is."""
    if isinstance(value, bool) or value is None:
        return value
    if (  # (the storage's own form, 2026-12-01T12:00:00.123456+00:00: most of a file's)
        isinstance(value, str)
        and len(value) == 32
        and value.endswith("+00:00")
        and value[10] == "T"
        and value[19] == "."
    ):
        return value[:23] + "Z"
    if isinstance(value, int | float):
        moment = datetime.fromtimestamp(float(value), UTC)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
        if moment.tzinfo is None:  # (the databases' own timestamps are UTC)
            moment = moment.replace(tzinfo=UTC)
    elif isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    else:
        return value
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _is_time(key: object) -> bool:
    return isinstance(key, str) and (key in TIME_KEYS or key.endswith("_at"))


def with_iso_times(value: Any, pace: Callable[[], None] = lambda: None) -> Any:
    """``value`` with every time in it (see the module docstring) as :func:`iso_time`. A
    game's ``events`` are written one to a line (their ``data``, the event as logged, is
    kept as it is: it holds no time), so that the file reads as the log does and stays
    about the size of the compact one. ``pace`` is called after each game's events (a
    worker thread's :class:`~yahtzee.storage.feature_db.Pacer`: F22)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if _is_time(key) and not isinstance(item, dict | list):
                out[key] = iso_time(item)
            elif key == "events" and isinstance(item, list):
                out[key] = [_event_line(event) for event in item]
                pace()
            else:
                out[key] = with_iso_times(item, pace)
        return out
    if isinstance(value, list):
        return [with_iso_times(item, pace) for item in value]
    return value


def _event_line(event: object) -> object:
    if not isinstance(event, dict):
        return with_iso_times(event)
    line = {k: iso_time(v) if _is_time(k) else v for k, v in event.items()}
    return orjson.Fragment(orjson.dumps(line))


def summary(data: dict[str, Any]) -> dict[str, Any]:
    """What a parent reads before downloading: how many games (and finished), the best
    score of a finished game, the groups it belongs to, the devices and the rooms' games
    it played in."""
    games = data.get("games") or []
    finished = [g for g in games if g.get("status") == "finished"]
    scores = [g["human_total"] for g in finished if isinstance(g.get("human_total"), int)]
    daily = data.get("daily") or {}
    groups = {g.get("id") for g in daily.get("groups_created") or []}
    groups |= {g.get("group_id") for g in daily.get("groups_joined") or []}
    rooms = data.get("rooms") or {}
    return {
        "games": len(games),
        "finished_games": len(finished),
        "best_score": max(scores) if scores else None,
        "groups": len(groups - {None}),
        "devices": len(data.get("devices") or []),
        "room_games": len(rooms.get("seats") or []),
    }


def render_export(data: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """The file's bytes (its summary first, then ``data``, every time in one format,
    indented) and the summary."""
    about = summary(data)
    head = {k: data[k] for k in ("format", "player_id", "exported_at") if k in data}
    document = with_iso_times({**head, "summary": about, **data}, Pacer())
    return orjson.dumps(document, option=orjson.OPT_INDENT_2), about
