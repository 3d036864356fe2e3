"""Run the real game server on a clock the caller moves: days pass in seconds (W1's tests and
``benchmarks/waiting_rooms_bench.py``).

``python tests/clocked_server.py --clock-file PATH [--clock-speed S] --port P --db DB [flags]``

``yahtzee serve`` reads the wall clock (on purpose: production has no other), so this
builds the same app through ``create_app(settings, Wiring(clock=...))`` — the settings
from the same flags as ``python -m yahtzee.server`` — with :class:`FileClock`: the wall
clock, run ``S`` times as fast from the server's start (default 1), plus the number of
seconds written in ``PATH`` (the caller jumps every server process on one database ahead
at once by writing a new number there). One process, as ``serve`` with one worker.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import uvicorn

from yahtzee.server.settings import add_flags, from_flags
from yahtzee.web import Settings, Wiring, create_app


class FileClock:
    """The wall clock run ``speed`` times as fast from ``start``, plus the seconds in
    ``path`` (read again whenever the file changes; a missing or partly written file
    keeps the last offset)."""

    def __init__(self, path: Path, speed: float = 1.0, start: float | None = None) -> None:
        self.path = path
        self.speed = speed
        self.start = time.time() if start is None else start
        self._stamp = -1
        self._offset = 0.0

    def offset(self) -> float:
        """The seconds written in the file now."""
        try:
            stamp = os.stat(self.path).st_mtime_ns
        except FileNotFoundError:
            return self._offset
        if stamp != self._stamp:
            try:
                self._offset = float(self.path.read_text().strip() or 0)
                self._stamp = stamp
            except (OSError, ValueError):
                pass
        return self._offset

    def __call__(self) -> float:
        now = time.time()
        return self.start + (now - self.start) * self.speed + self.offset()


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve until terminated."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clock-file", type=Path, required=True)
    parser.add_argument("--clock-speed", type=float, default=1.0)
    parser.add_argument(
        "--clock-start", type=float, default=None, help="the epoch the speed runs from"
    )
    flags = add_flags(parser, Settings)
    args = parser.parse_args(argv)
    settings = from_flags(flags, args)
    clock = FileClock(args.clock_file, args.clock_speed, args.clock_start)
    app = create_app(settings, Wiring(clock=clock))
    print(f"clocked server on {settings.port}", file=sys.stderr, flush=True)
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=settings.port,
        log_level="warning",
        access_log=False,
    )


if __name__ == "__main__":
    main()
