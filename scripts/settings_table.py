"""Write docs/deployment.md's table of the server's settings from their declarations.

Every flag and environment variable of ``yahtzee serve`` is declared once (the platform's
in ``src/yahtzee/server/settings.py``, each feature's in its package's ``settings.py``);
the table between the ``settings`` markers of docs/deployment.md is
:func:`yahtzee.server.settings.flag_table` of the app's settings class, and
``tests/unit/test_docs.py`` fails when it is not. Run ``python scripts/settings_table.py``
after adding or changing a setting (``--check`` only says whether it is up to date).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "deployment.md"
BEGIN = "<!-- settings: written by scripts/settings_table.py from the declarations -->\n"
END = "<!-- /settings -->\n"


def table() -> str:
    """The table as the settings declare it."""
    from yahtzee.server.settings import flag_table
    from yahtzee.web.app import Settings

    return flag_table(Settings)


def with_table(text: str, rows: str) -> str:
    """``text`` (docs/deployment.md) with ``rows`` between its markers."""
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{GUIDE} has no settings markers")
    return pattern.sub(lambda _m: BEGIN + rows + END, text)


def main(argv: list[str] | None = None) -> int:
    """Rewrite the table (or, with ``--check``, exit 1 when it differs)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args(argv)
    text = GUIDE.read_text(encoding="utf-8")
    new = with_table(text, table())
    if args.check:
        if new != text:
            print(f"{GUIDE} is out of date: run python scripts/settings_table.py")
            return 1
        return 0
    GUIDE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
