"""``python -m yahtzee.server [--host H] [--port P] [--db PATH|URL] [--workers N] [...]``:
same as ``yahtzee serve`` (same options, from the app's :class:`~yahtzee.web.Settings`).

Used by the benchmarks and the crash test, which must not depend on the CLI module.
"""

from __future__ import annotations

import argparse
import sys

from yahtzee.server.settings import SettingsError, add_flags, from_flags
from yahtzee.web.app import Settings
from yahtzee.web.serving import StartupError, serve


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve until interrupted (exit 2, one line, if it cannot)."""
    parser = argparse.ArgumentParser(prog="python -m yahtzee.server", description=__doc__)
    flags = add_flags(parser, Settings)
    args = parser.parse_args(argv)
    try:
        serve(from_flags(flags, args))
    except (StartupError, SettingsError) as exc:
        print(f"yahtzee: error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
