"""``python -m yahtzee.server [--host H] [--port P] [--db PATH]``: same as ``yahtzee serve``.

Used by the benchmarks and the crash test, which must not depend on the CLI module.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from yahtzee.server import serve


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m yahtzee.server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args(argv)
    serve(args.host, args.port, args.db)


if __name__ == "__main__":
    main()
