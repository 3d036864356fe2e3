"""The 快艇骰子 web platform: settings, middleware, identity, limits, assets, the CPU pool,
the game service and the game routes. The feature packages (:mod:`yahtzee.rooms`,
:mod:`yahtzee.daily`, :mod:`yahtzee.practice`) build on it, and :mod:`yahtzee.web` (the
app factory and ``serve``) wires them together.

Importing this package loads nothing else: the names below are imported on first use, so
that ``yahtzee.server.settings`` (pydantic only) never brings the web stack with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yahtzee.server.settings import Limits, Settings, default_db_path

__all__ = [
    "Limits",
    "Settings",
    "default_db_path",
]

_HOMES = {
    "Limits": "settings",
    "Settings": "settings",
    "default_db_path": "settings",
}


def __getattr__(name: str) -> Any:
    """``yahtzee.server.Settings`` and friends, imported when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
