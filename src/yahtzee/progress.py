"""The one progress bar of the command line (the solve, the simulations)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


def progress_bar(label: str, stream: TextIO) -> Callable[[int, int], None] | None:
    """A ``progress(done, total)`` callback drawing one line on ``stream``, or ``None``
    when ``stream`` is not a terminal (logs and pipes get no carriage-return noise)."""
    if not stream.isatty():
        return None
    start = time.perf_counter()

    def report(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        percent = 100 * done / total if total else 100.0
        elapsed = time.perf_counter() - start
        end = "\n" if done >= total else ""
        stream.write(f"\r{label} [{bar}] {percent:5.1f}% {elapsed:5.1f}s{end}")
        stream.flush()

    return report
