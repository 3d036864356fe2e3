"""The one schema-migration mechanism of the database, on both backends (K3).

Every table belongs to an *owner*: the platform's games (:data:`GAMES`), the invite tokens
(:mod:`yahtzee.storage.invites`) and each feature package, which contributes its own
:class:`Migrations` as its ``Feature.migrations`` (the platform still knows no feature).
An owner's migrations are numbered 1, 2, … in order; a shipped one is never edited, a new
one is appended. A migration is written once for both backends (:meth:`Migration.both`)
or, where their SQL differs (the games' triggers, SQLite's ``CHECK`` edits), once per
backend.

They are applied in one place: the games' storage, when it opens the database
(:class:`~yahtzee.storage.sqlite.SQLiteStorage`'s constructor,
:meth:`~yahtzee.storage.postgres.PostgresStorage.open`), with the owners the app gives it.
Each migration runs in a transaction of its own, which also records it in the one table
``schema_versions`` (owner, version): it is applied once or not at all. Processes starting
together take turns: SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's advisory lock
(:data:`LOCK`), and each transaction reads the versions again once it has its turn.

A database written before this mechanism kept its versions three ways: SQLite's ``PRAGMA
user_version`` (the games' levels 1–8), PostgreSQL's ``schema_migrations`` (its own
numbering of the same levels, :func:`_games_level`) and ``feature_schema`` (a version per
feature). The first transaction adopts them into ``schema_versions`` and removes them.

The logic is sans-I/O, like :mod:`yahtzee.storage.sql`'s: :func:`next_migration` yields
:class:`Statement` values and receives each one's first row; each backend runs it on its
own connection (:func:`run_sync`, :func:`run_async`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from yahtzee.storage.base import StorageError

T = TypeVar("T")

#: The backends' names, as :attr:`yahtzee.storage.sql.Dialect.name` spells them.
SQLITE, POSTGRESQL = "sqlite", "postgresql"

#: Serialises the migrations of processes starting together on PostgreSQL (an arbitrary
#: constant: "yahtzee" in ASCII; the games' migrations took the same lock before).
LOCK = 0x7961687473656500

TABLE = "schema_versions"
_CREATE = (
    "CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT NOT NULL, version INTEGER NOT NULL, "
    "applied_at TEXT NOT NULL, PRIMARY KEY (owner, version))"
)


@dataclass(frozen=True, slots=True)
class Migration:
    """One migration: the statements each backend runs, in one transaction."""

    sqlite: tuple[str, ...]
    postgresql: tuple[str, ...]

    @classmethod
    def both(cls, *statements: str) -> Migration:
        """A migration whose statements are the same on both backends."""
        return cls(statements, statements)

    def statements(self, dialect: str) -> tuple[str, ...]:
        """The statements of ``dialect`` (``"sqlite"`` or ``"postgresql"``)."""
        if dialect == SQLITE:
            return self.sqlite
        if dialect == POSTGRESQL:
            return self.postgresql
        raise ValueError(f"no such database backend: {dialect!r}")


@dataclass(frozen=True, slots=True)
class Migrations:
    """The numbered migrations of one ``owner``: ``steps[0]`` is version 1."""

    owner: str
    steps: tuple[Migration, ...]

    @classmethod
    def shared(cls, owner: str, steps: Sequence[Sequence[str]]) -> Migrations:
        """``owner``'s migrations, each a sequence of statements both backends run."""
        return cls(owner, tuple(Migration.both(*statements) for statements in steps))

    @property
    def version(self) -> int:
        """The version this program brings the owner's tables to."""
        return len(self.steps)


@dataclass(frozen=True, slots=True)
class Statement:
    """Run ``sql`` (with ``params``, ``:name`` style, or none: a migration's own text is
    run as written, ``%`` and all); the runner sends back its first row, or ``None``."""

    sql: str
    params: Mapping[str, Any] | None = None


#: One transaction's logic: yields statements, receives their first rows.
Steps = Generator[Statement, Any, T]


def _named(dialect: str, text: str, params: Mapping[str, Any]) -> Statement:
    from yahtzee.storage.sql import pyformat

    return Statement(pyformat(text) if dialect == POSTGRESQL else text, params)


def _table_exists(dialect: str, name: str) -> Statement:
    if dialect == SQLITE:
        return _named(
            dialect,
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = :name",
            {"name": name},
        )
    return _named(dialect, "SELECT 1 WHERE to_regclass(:name) IS NOT NULL", {"name": name})


def _games_level(old_postgres_version: int) -> int:
    """The games' level of PostgreSQL's old ``schema_migrations`` version: its migration 1
    shipped levels 1 and 2 together, and each later one a level."""
    return 0 if old_postgres_version == 0 else old_postgres_version + 1


def _record(dialect: str, owner: str, version: int, now: str) -> Statement:
    return _named(
        dialect,
        "INSERT INTO schema_versions (owner, version, applied_at) VALUES (:owner, :version, :now) "
        "ON CONFLICT (owner, version) DO NOTHING",
        {"owner": owner, "version": version, "now": now},
    )


def _adopt(dialect: str, now: str) -> Steps[None]:
    """The versions an older program kept (see the module docstring) into
    ``schema_versions``; the old markers go in the same transaction, so this runs once."""
    adopted: dict[str, int] = {}
    if dialect == SQLITE:
        row = yield Statement("PRAGMA user_version")
        if row is not None and int(row[0]) > 0:
            adopted["games"] = int(row[0])
            yield Statement("PRAGMA user_version = 0")
    elif (yield _table_exists(dialect, "schema_migrations")) is not None:
        row = yield Statement("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
        adopted["games"] = _games_level(int(row[0]) if row is not None else 0)
        yield Statement("DROP TABLE schema_migrations")
    if (yield _table_exists(dialect, "feature_schema")) is not None:
        # (Few rows, one per feature: read one at a time through the first-row protocol.)
        after = ""
        while True:
            row = yield _named(
                dialect,
                "SELECT feature, version FROM feature_schema WHERE feature > :after "
                "ORDER BY feature LIMIT 1",
                {"after": after},
            )
            if row is None:
                break
            after, version = str(row[0]), int(row[1])
            adopted[after] = version
        yield Statement("DROP TABLE feature_schema")
    for owner, version in adopted.items():
        for n in range(1, version + 1):
            yield _record(dialect, owner, n, now)


def _version(dialect: str, owner: str) -> Steps[int]:
    row = yield _named(
        dialect,
        "SELECT COALESCE(MAX(version), 0) FROM schema_versions WHERE owner = :owner",
        {"owner": owner},
    )
    return int(row[0]) if row is not None else 0


def next_migration(dialect: str, owners: Sequence[Migrations], now: str) -> Steps[str | None]:
    """One transaction's work: the versions read (after the lock, on PostgreSQL), a
    database newer than this program refused, then the first pending migration of the
    first owner that has one applied and recorded. Returns what it applied (``"rooms
    v2"``), or ``None`` when every owner is up to date (the runner then stops)."""
    if dialect == POSTGRESQL:
        yield _named(dialect, "SELECT pg_advisory_xact_lock(:lock)", {"lock": LOCK})
    yield Statement(_CREATE)
    yield from _adopt(dialect, now)
    versions = {}
    for owner in owners:
        current = yield from _version(dialect, owner.owner)
        if current > owner.version:
            raise StorageError(
                f"the database's {owner.owner} tables are at v{current}, "
                f"newer than this program (v{owner.version})"
            )
        versions[owner.owner] = current
    for owner in owners:
        current = versions[owner.owner]
        if current < owner.version:
            for text in owner.steps[current].statements(dialect):
                yield Statement(text)
            yield _record(dialect, owner.owner, current + 1, now)
            return f"{owner.owner} v{current + 1}"
    return None


def check_owners(owners: Sequence[Migrations]) -> None:
    """Every owner once (two lists of one owner would share its version numbers)."""
    names = [owner.owner for owner in owners]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"migrations given twice for {', '.join(twice)}")


def run_sync(execute: Callable[[Statement], Any], steps: Steps[T]) -> T:
    """Run ``steps`` with ``execute`` (a statement → its first row, or ``None``)."""
    answer: Any = None
    try:
        while True:
            answer = execute(steps.send(answer))
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


async def run_async(execute: Callable[[Statement], Awaitable[Any]], steps: Steps[T]) -> T:
    """:func:`run_sync` with an awaitable ``execute``."""
    answer: Any = None
    try:
        while True:
            answer = await execute(steps.send(answer))
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
