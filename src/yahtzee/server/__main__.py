"""``python -m yahtzee.server [--host H] [--port P] [--db PATH|URL] [--workers N]``: same as
``yahtzee serve``.

Used by the benchmarks and the crash test, which must not depend on the CLI module.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from yahtzee.server import serve
from yahtzee.storage import StorageError, is_postgres_url


def db_argument(value: str | None) -> Path | str | None:
    """``--db``: a ``postgresql://`` URL stays text, anything else is a file path."""
    if value is None or is_postgres_url(value):
        return value
    return Path(value)


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m yahtzee.server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default=None, help="SQLite file or postgresql:// URL")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        serve(args.host, args.port, db_argument(args.db), workers=args.workers)
    except (StorageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
