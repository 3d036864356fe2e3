"""What a ``--db`` value names: a PostgreSQL URL or an SQLite file (S1).

The one place that recognises a PostgreSQL URL; standard library only, so that the
command line, the settings and the storage can all ask without importing a driver.
"""

from __future__ import annotations

import re
from typing import Final

#: The URL schemes libpq (and so psycopg) accepts for a database.
POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")


def is_postgres_url(db: object) -> bool:
    """Whether ``db`` (a ``--db`` value or ``$YAHTZEE_DB``) names a PostgreSQL database
    rather than an SQLite file: a string starting ``postgresql://`` or ``postgres://``.
    A :class:`~pathlib.Path` is always a file."""
    return isinstance(db, str) and db.startswith(POSTGRES_SCHEMES)


def redact(url: str) -> str:
    """``url`` with its password, if any, replaced by ``***`` (for logs and errors)."""
    return re.sub(r"^(postgres(?:ql)?://[^:/@]*:)[^@]*@", r"\1***@", url)
