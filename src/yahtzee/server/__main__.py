"""``python -m yahtzee.server [--host H] [--port P] [--db PATH|URL] [--workers N] [...]``:
same as ``yahtzee serve`` (same options).

Used by the benchmarks and the crash test, which must not depend on the CLI module.
"""

from __future__ import annotations

import argparse
import sys

from yahtzee.serve_config import add_serve_options, db_argument, limits_from
from yahtzee.server import StartupError, serve


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve until interrupted (exit 2, one line, if it cannot)."""
    parser = argparse.ArgumentParser(prog="python -m yahtzee.server", description=__doc__)
    add_serve_options(parser)
    args = parser.parse_args(argv)
    try:
        serve(
            args.host,
            args.port,
            db_argument(args.db),
            secret_file=args.secret_file,
            limits=limits_from(args),
            workers=args.workers,
        )
    except StartupError as exc:
        print(f"yahtzee: error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
