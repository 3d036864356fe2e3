"""The value table on disk and in memory: build once, then load in milliseconds.

The file lives in the user cache directory (``YAHTZEE_CACHE_DIR`` overrides it) and its
name carries :data:`RULES_VERSION`, so tables computed under other rules are never read.
Within a process the table is loaded once and shared (it is read-only).
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from yahtzee.progress import progress_bar
from yahtzee.rules import Scorecard
from yahtzee.solver.build import TABLE_SHAPE, solve
from yahtzee.solver.tables import F32, UPPER_CAP, rules_fingerprint

SOLVER_FORMAT = "v1"
RULES_VERSION = f"{SOLVER_FORMAT}-forced-joker-{rules_fingerprint()}"
"""Cache key: solver format plus a hash of the scoring rules (see :func:`rules_fingerprint`)."""


class TableMissingError(FileNotFoundError):
    """The value table is not in the cache and building it was not allowed."""


@dataclass(frozen=True, slots=True)
class ValueTable:
    """Expected future points of every turn-start state under optimal play.

    ``values`` is float32 shaped (8192, 64, 2): [used-box mask, upper subtotal capped at
    63, 快艇 box holds 50]. ``flat`` is the same memory, one-dimensional.
    """

    values: F32
    path: Path | None = None

    @property
    def flat(self) -> F32:
        """The table as one flat array (index ``(mask * 64 + upper) * 2 + flag``)."""
        return self.values.reshape(-1)

    @property
    def start_value(self) -> float:
        """Expected final score of a new game under optimal play."""
        return float(self.values[0, 0, 0])

    def value(self, card: Scorecard) -> float:
        """Expected points still to come for ``card`` at the start of its next turn."""
        mask, up, flag = state_of(card)
        return float(self.values[mask, up, flag])


def state_of(card: Scorecard) -> tuple[int, int, int]:
    """The solver's state of a scorecard: (used-box mask, capped upper subtotal, flag)."""
    mask = 0
    for i, points in enumerate(card.boxes):
        if points is not None:
            mask |= 1 << i
    up = min(UPPER_CAP, card.upper_subtotal)
    flag = int(card.yahtzee_bonus_eligible)
    return mask, up, flag


def cache_dir() -> Path:
    """Where tables are stored: ``$YAHTZEE_CACHE_DIR`` or the user cache directory."""
    override = os.environ.get("YAHTZEE_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs  # imported lazily: only needed when no override is set

    return Path(platformdirs.user_cache_dir("yahtzee"))


def table_path() -> Path:
    """The cache file of the table for the current rules version."""
    return cache_dir() / f"value-table-{RULES_VERSION}.npy"


_LOCK = threading.Lock()
_LOADED: dict[Path, ValueTable] = {}


def _save(values: F32, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write to a temporary file in the same directory, then rename: readers in other
    # processes (the server, parallel tests) never see a half-written table.
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, values)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read(path: Path) -> ValueTable:
    values = np.load(path, allow_pickle=False)
    if values.shape != TABLE_SHAPE or values.dtype != np.float32:
        raise ValueError(f"{path} is not a value table (shape {values.shape}, {values.dtype})")
    values.setflags(write=False)
    return ValueTable(values, path)


def build_table(*, force: bool = False, progress: bool = False) -> ValueTable:
    """Compute the table (unless cached and not ``force``), save it and return it.

    ``progress`` draws a progress bar on stderr when it is a terminal.
    """
    path = table_path()
    with _LOCK:
        if not force:
            if path in _LOADED:
                return _LOADED[path]
            if path.exists():
                try:
                    table = _read(path)
                except (OSError, ValueError, EOFError):
                    pass  # unreadable or truncated (e.g. disk full): rebuild it below
                else:
                    _LOADED[path] = table
                    return table
        report = progress_bar("solving", sys.stderr) if progress else None
        values = solve(progress=report)
        _save(values, path)
        values.setflags(write=False)
        table = ValueTable(values, path)
        _LOADED[path] = table
        return table


def load_table(*, build_if_missing: bool = True, progress: bool = False) -> ValueTable:
    """The process-wide value table: loaded from the cache once, built if missing.

    Raises :class:`TableMissingError` when it is not cached and ``build_if_missing`` is
    False.
    """
    path = table_path()
    table = _LOADED.get(path)
    if table is not None:
        return table
    if not build_if_missing and not path.exists():
        raise TableMissingError(f"no solver table at {path}; run `yahtzee solve`")
    return build_table(progress=progress)


__all__ = [
    "RULES_VERSION",
    "TableMissingError",
    "ValueTable",
    "build_table",
    "cache_dir",
    "load_table",
    "state_of",
    "table_path",
]
