"""The 快艇骰子 game server: HTTP API, storage of games and records, the browser game.

``yahtzee serve`` calls :func:`serve` (``serving.py``); tests build an app with
:func:`create_app` (``app.py``) from :class:`Settings` (``settings.py``).

Importing this package loads nothing else: the names below are imported on first use, so
that ``yahtzee.server.settings`` (pydantic only) never brings the web stack with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yahtzee.server.app import Wiring, create_app
    from yahtzee.server.serving import StartupError, serve
    from yahtzee.server.settings import Limits, Settings, default_db_path

__all__ = [
    "Limits",
    "Settings",
    "StartupError",
    "Wiring",
    "create_app",
    "default_db_path",
    "serve",
]

_HOMES = {
    "Limits": "settings",
    "Settings": "settings",
    "default_db_path": "settings",
    "StartupError": "serving",
    "serve": "serving",
    "Wiring": "app",
    "create_app": "app",
}


def __getattr__(name: str) -> Any:
    """``yahtzee.server.create_app`` and friends, imported when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
