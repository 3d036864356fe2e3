"""The 快艇骰子 web app: the factory that wires the platform and the feature packages.

``yahtzee serve`` calls :func:`serve` (``serving.py``); tests build an app with
:func:`create_app` (``app.py``) from :class:`Settings` (the platform's settings,
``yahtzee/server/settings.py``, with every feature's section).
This package sits above the features (:mod:`yahtzee.rooms`, :mod:`yahtzee.daily`,
:mod:`yahtzee.practice`), which sit above the platform (:mod:`yahtzee.server`).

Importing this package loads nothing else: the names below are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yahtzee.server.settings import Limits, default_db_path
    from yahtzee.web.app import Settings, Wiring, create_app
    from yahtzee.web.serving import StartupError, serve

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
    "Limits": "yahtzee.server.settings",
    "Settings": "yahtzee.web.app",
    "default_db_path": "yahtzee.server.settings",
    "StartupError": "yahtzee.web.serving",
    "serve": "yahtzee.web.serving",
    "Wiring": "yahtzee.web.app",
    "create_app": "yahtzee.web.app",
}


def __getattr__(name: str) -> Any:
    """``yahtzee.web.create_app`` and friends, imported when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
