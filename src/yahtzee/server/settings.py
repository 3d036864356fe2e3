"""The server's configuration: one class, read from flags, the environment and defaults.

Every option is declared once, where it belongs. The platform's own are the fields of
:class:`Settings` and its sections :class:`Limits` and :class:`Connections`; a feature's
are a section of its own, a small frozen dataclass in its package whose fields are
:func:`setting` (its default, the flag's name when it is not the field's, help text,
metavar, check), given as ``Feature.settings``. :func:`settings_class` turns the sections
into fields of one pydantic-settings class (the app's is ``yahtzee.web.Settings``), and
from that one class come:

* the command-line flags (``--max-open-rooms``, help and metavar from the declaration, see
  :func:`add_flags`) and the environment variables (``YAHTZEE_MAX_OPEN_ROOMS``; a flag
  wins over its variable, a variable over the default);
* the hand-off to the worker processes of ``--workers N`` (:meth:`Settings.to_env`: new
  interpreters read the same variables back);
* docs/deployment.md's table of them (:func:`flag_table`; a test checks it is the same);
* each section as its owner reads it (:meth:`Settings.section`: ``RoomSettings(open_rooms=5,
  ...)``, the names the service counts by, whatever the flag says).

This module needs pydantic only: the command line imports it without the web stack.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import platformdirs
from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    SecretStr,
    ValidationError,
    create_model,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, CliSettingsSource, SettingsConfigDict

from yahtzee.storage.url import is_postgres_url

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
ENV_PREFIX = "YAHTZEE_"

S = TypeVar("S")
#: A setting's check: returns the value, or raises :class:`ValueError` saying why not.
Check = Callable[[Any], Any]


def default_db_path() -> Path | str:
    """``$YAHTZEE_DB`` if set (a path, or a ``postgresql://`` URL kept as text), else
    ``yahtzee.db`` in the user's data directory."""
    env = os.environ.get(f"{ENV_PREFIX}DB")
    if env:
        return _database(env)
    return Path(platformdirs.user_data_dir("yahtzee", appauthor=False)) / "yahtzee.db"


def _database(value: object) -> Path | str:
    """A PostgreSQL URL stays text, anything else is a file path (so a URL is never taken
    for a file name, S1); nothing given means the default."""
    if value is None or value == "":
        return default_db_path()
    if isinstance(value, Path):
        return value
    if isinstance(value, str) and is_postgres_url(value):
        return value
    return Path(str(value))


def count(value: int) -> int:
    """A limit: ``0`` (off) or more."""
    if value < 0:
        raise ValueError(f"must be 0 (no limit) or more, got {value}")
    return value


def days(value: float) -> float:
    """An age in days, more than 0."""
    if not value > 0:
        raise ValueError(f"must be more than 0 days, got {value:g}")
    return value


def positive(value: float) -> float:
    """A time or size, more than 0."""
    if not value > 0:
        raise ValueError(f"must be more than 0, got {value:g}")
    return value


def share_of_one(value: float) -> float:
    """A share: more than 0 and at most 1."""
    if not 0 < value <= 1:
        raise ValueError(f"must be more than 0 and at most 1, got {value:g}")
    return value


def at_least_one(value: int) -> int:
    """A number of things that must exist: 1 or more."""
    if value < 1:
        raise ValueError(f"must be at least 1, got {value}")
    return value


Count = Annotated[int, AfterValidator(count)]

#: Where a field keeps how it is shown (its metavar, and its default as the docs show it
#: where that is not the value itself): pydantic's ``json_schema_extra`` of the field.
_METAVAR = "metavar"
_SHOWN = "shown"
#: The key of a section field's :class:`Option` in its dataclass metadata.
_OPTION = "yahtzee_setting"


@dataclass(frozen=True, slots=True)
class Option:
    """How a section's field is given (see :func:`setting`)."""

    help: str
    name: str | None = None
    metavar: str = "N"
    check: Check | None = None
    shown: str | None = None


def setting(
    default: Any,
    *,
    help: str,
    name: str | None = None,
    metavar: str = "N",
    check: Check | None = None,
    shown: str | None = None,
) -> Any:
    """A field of a settings section, declared once: its ``default``, its ``help`` (the
    flag's help and docs/deployment.md's line; backticks are code there, dropped in
    ``--help``), the ``name`` of its flag and variable when not the field's own
    (``name="max_open_rooms"`` for ``open_rooms``: the flags say "max", the service says
    what it counts), its ``metavar``, a ``check`` of its value (:func:`count`,
    :func:`positive`...) and the default as the docs ``shown`` it, if not its value."""
    return dataclasses.field(
        default=default, metadata={_OPTION: Option(help, name, metavar, check, shown)}
    )


def options(section: type) -> Iterator[tuple[str, str, Option, Any, Any]]:
    """Each field of ``section`` (a dataclass of :func:`setting` fields): its name in the
    section, its flag's, its :class:`Option`, its type and its default."""
    hints = typing.get_type_hints(section)
    for f in dataclasses.fields(section):
        option = f.metadata.get(_OPTION)
        if not isinstance(option, Option):
            raise TypeError(f"{section.__name__}.{f.name} is not declared with setting()")
        yield f.name, option.name or f.name, option, hints[f.name], f.default


def _pydantic_field(option: Option, kind: Any, default: Any) -> tuple[Any, FieldInfo]:
    """A section field as the settings class's pydantic field."""
    annotated = Annotated[kind, AfterValidator(option.check)] if option.check else kind
    extra: dict[str, Any] = {_METAVAR: option.metavar}
    if option.shown is not None:
        extra[_SHOWN] = option.shown
    return annotated, Field(default, description=option.help, json_schema_extra=extra)


def _shown(metavar: str, shown: str | None = None) -> dict[str, Any]:
    """A platform field's ``json_schema_extra``: its metavar, and its default as shown."""
    return {_METAVAR: metavar} if shown is None else {_METAVAR: metavar, _SHOWN: shown}


@dataclass(frozen=True, slots=True)
class Limits:
    """The platform's limits (F5, issue 22; K4: one vocabulary, each one a flag, see
    :mod:`yahtzee.server.limits`); ``0`` switches a rate limit off. A feature's own are in
    its section (the rooms', the groups', 练习's)."""

    new_games_per_minute: int = setting(
        30, name="max_new_games_per_minute", help="new games per player, 0 = no limit", check=count
    )
    new_players_per_minute: int = setting(
        60,
        name="max_new_players_per_minute",
        help="new player ids per client address, 0 = no limit",
        check=count,
    )
    actions_per_second: int = setting(
        20,
        name="max_actions_per_second",
        help="game actions (roll, score, hint, undo, give up) per player, 0 = no limit",
        check=count,
    )
    prune_after_days: float = setting(
        7.0,
        help="games never rolled (abandoned or left in progress) are deleted after this many days",
        metavar="DAYS",
        check=days,
    )
    # per client address, whatever the number of its player ids: what bounds the growth of
    # the database per address (docs/deployment.md)
    new_games_per_minute_per_address: int = setting(
        60,
        name="max_new_games_per_minute_per_address",
        help="new games per client address, 0 = no limit",
        check=count,
    )
    # per player (or client address without one): the units of CPU work a second the costly
    # reads may spend, each route declaring its cost (server/routers/_common.py, issue 22)
    work_per_second: int = setting(
        20,
        name="max_work_per_second",
        help="units of costly reads a second per player, or per address without a cookie "
        "(meter, review, stats, advice, practice, boards: each route's cost is in "
        "docs/api.md; 429 past it), 0 = no limit",
        check=count,
    )


@dataclass(frozen=True, slots=True)
class Connections:
    """The bare app's socket limits (issue 22; behind nginx, ``deploy/``, nginx's own
    limits come first). See :mod:`yahtzee.server.protocol`."""

    max_connections: int = setting(
        1000,
        help="open connections at once, fewer when the open-file limit is lower (that limit "
        "less 192); past it a new one replaces the connection waiting longest without a "
        "request for the app, or, when every one is being answered, is answered 503 `busy` "
        "and closed",
        check=at_least_one,
    )
    request_timeout: float = setting(
        10.0,
        help="seconds for a request's head and body to arrive, else the connection is closed "
        "(slow and silent sockets)",
        metavar="SECONDS",
        check=positive,
    )
    keep_alive_timeout: float = setting(
        5.0,
        help="seconds an idle keep-alive connection stays open",
        metavar="SECONDS",
        check=positive,
    )
    # None: nobody's X-Forwarded-For counts, the connection's own address is the client's.
    forwarded_allow_ips: str | None = setting(
        None,
        help="comma-separated addresses of reverse proxies whose `X-Forwarded-For` and "
        "`X-Forwarded-Proto` are believed; `deploy/` sets `127.0.0.1` for its nginx",
        metavar="ADDRESSES",
        shown="(nobody)",
    )


#: The platform's sections, fields of every settings class.
PLATFORM_SECTIONS: tuple[type, ...] = (Limits, Connections)

# Read from the environment only: a flag's value is visible to every user of the machine
# (ps), a secret's must not be.
_ENV_ONLY = frozenset({"secret"})


class SettingsError(ValueError):
    """A setting has a value that cannot be used; the message is one line naming the flag
    and its environment variable."""


class _PlatformSettings(BaseSettings):
    """Everything ``yahtzee serve`` and :func:`yahtzee.web.create_app` are configured by.

    Each field is a flag (``--secret-file``), an environment variable (``YAHTZEE_SECRET_FILE``)
    and a value handed to the worker processes; the cookie secret is a variable only. The
    fields of the sections (:data:`PLATFORM_SECTIONS`, the features') are added by
    :func:`settings_class`; ``limits=Limits(...)`` and ``sections=(...)`` may be given
    instead of their fields (tests).
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,  # YAHTZEE_DB= means the default, as it always did
        frozen=True,
        extra="forbid",
        validate_default=True,
    )

    host: str = Field(
        "127.0.0.1",
        description="address to listen on (0.0.0.0: every IPv4 one)",
        json_schema_extra=_shown("ADDRESS"),
    )
    port: int = Field(
        8000, ge=0, le=65535, description="TCP port to listen on", json_schema_extra=_shown("N")
    )
    db: Annotated[Path | str, BeforeValidator(_database)] = Field(
        default_factory=default_db_path,
        description="SQLite database file, or a PostgreSQL URL "
        "`postgresql://user@host:port/dbname`; the server prints which when it starts (the "
        "file's path, or the database's host, name and user, never the password)",
        json_schema_extra=_shown(
            "PATH|URL",
            "`yahtzee.db` in the user's data directory (`make run`: the checkout's "
            "`.data/yahtzee.db`)",
        ),
    )
    workers: Annotated[int, AfterValidator(at_least_one)] = Field(
        1,
        description="server processes sharing the port and the database",
        json_schema_extra=_shown("N"),
    )
    secret: SecretStr | None = Field(
        None,
        description="the cookie-signing secret (F4) itself, 32+ characters; needed with "
        "PostgreSQL unless `--secret-file` is given (never a flag: `ps` would show it)",
        json_schema_extra=_shown("SECRET", "—"),
    )
    secret_file: Path | None = Field(
        None,
        description="file holding the cookie-signing secret, created if missing "
        "(`YAHTZEE_SECRET` overrides it)",
        json_schema_extra=_shown("PATH", "`<db>.secret`"),
    )
    heartbeat_seconds: Annotated[float, AfterValidator(positive)] = Field(
        10.0,
        description="how often a process registers itself in the database (its share of "
        "the action limit, F5)",
        json_schema_extra=_shown("SECONDS"),
    )
    cpu_workers: Annotated[int, AfterValidator(at_least_one)] = Field(
        1,
        description="worker processes of each server process's CPU pool (meters, reviews, "
        "stats, advice, practice grading), at nice +10; one leaves a core to the event loop "
        "and the writes",
        json_schema_extra=_shown("N"),
    )
    cpu_queue: Annotated[int, AfterValidator(at_least_one)] = Field(
        64,
        description="CPU jobs that may wait for a worker; past it a costly read is 503 `busy`",
        json_schema_extra=_shown("N"),
    )
    max_in_flight: Count = Field(
        64,
        description="cheap requests one process serves at once (costly reads, room streams "
        "and `/api/health` not counted: F19) before it may refuse: past it, once the oldest "
        "has been served for `--admission-wait`, a request is answered at once with 503 "
        "`busy` and `Retry-After: 1`, nothing done (S4); 0 = no bound",
        json_schema_extra=_shown("N"),
    )
    admission_wait: float = Field(
        0.5,
        gt=0,
        description="seconds the oldest request in flight has been served when the process "
        "counts as behind (with `--max-in-flight` reached: 503 `busy`; a burst it clears at "
        "once is never refused)",
        json_schema_extra=_shown("SECONDS"),
    )
    max_costly_in_flight: Count = Field(
        32,
        description="costly requests (the routes with a cost in the work budget: meters, "
        "reviews, stats, advice, export...) one process serves at once, shared fairly "
        "between client address groups and, in a group, between cookies: each group at "
        "most the slots / the groups holding one, each cookie its share of its group's, a "
        "group under its share let in at once up to twice the slots in all; past a share, "
        "503 `busy` after 0.5 s (cheap requests are never refused for them, F19); 0 = no "
        "bound",
        json_schema_extra=_shown("N"),
    )
    stream_share: Annotated[float, AfterValidator(share_of_one)] = Field(
        0.5,
        description="part of the connection cap (`--max-connections`, as fitted to the "
        "open-file limit) that long-lived requests (room streams) may hold in one process; "
        "past it a new stream is 503 `busy` with `Retry-After: 5`, and the other connections "
        "stay for everything else (F18); 1 = streams may take every connection",
        json_schema_extra=_shown("SHARE"),
    )
    pseudo_language: bool = Field(
        False,
        description="also serve the pseudo-language `en-XA` (accented English 40 % longer, "
        "made from the English catalog at startup) for the layout tests (G1, docs/i18n.md); "
        "never in production",
        json_schema_extra=_shown("true|false", "false (`--pseudo-language true` to enable)"),
    )

    def __init__(
        self, *, limits: Limits | None = None, sections: Sequence[object] = (), **values: Any
    ) -> None:
        given: dict[str, Any] = {}
        for section in (*sections, *([limits] if limits is not None else [])):
            for name, flag, _option, _kind, _default in options(type(section)):
                given[flag] = getattr(section, name)
        super().__init__(**{**given, **values})

    def section(self, cls: type[S]) -> S:
        """The section ``cls`` (a dataclass of :func:`setting` fields) with these settings'
        values, under the section's own names; a field this class lacks (a settings class
        made without that section) keeps its default."""
        fields = type(self).model_fields
        values = {
            name: getattr(self, flag)
            for name, flag, _option, _kind, _default in options(cls)
            if flag in fields
        }
        return cls(**values)

    @property
    def limits(self) -> Limits:
        """The platform's limits and pruning age, as the limiter and the pruning take
        them (K4: one vocabulary)."""
        return self.section(Limits)

    @property
    def connections(self) -> Connections:
        """The socket limits, as :mod:`yahtzee.server.protocol` takes them."""
        return self.section(Connections)

    def to_env(self) -> dict[str, str]:
        """The environment variables that give a new process these settings (the hand-off
        to ``--workers`` processes: each builds its settings from them)."""
        env: dict[str, str] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, SecretStr):
                value = value.get_secret_value()
            env[f"{ENV_PREFIX}{name.upper()}"] = str(value)
        return env


def settings_class(sections: Sequence[type], name: str = "Settings") -> type[_PlatformSettings]:
    """The settings class of the platform's fields and sections and of ``sections`` (the
    features'): each section field one more flag and variable. Two sections may not name
    the same flag."""
    fields: dict[str, Any] = {}
    for section in (*PLATFORM_SECTIONS, *sections):
        for _name, flag, option, kind, default in options(section):
            if flag in fields or flag in _PlatformSettings.model_fields:
                raise TypeError(f"two settings are named {flag!r} ({section.__name__})")
            fields[flag] = _pydantic_field(option, kind, default)
    made: type[_PlatformSettings] = create_model(
        name, __base__=_PlatformSettings, __module__=__name__, **fields
    )
    return made


if TYPE_CHECKING:
    Settings = _PlatformSettings
else:
    #: The platform's settings: its fields and sections, no feature's (the app's class,
    #: with every feature's section, is ``yahtzee.web.Settings``).
    Settings = settings_class(())


def flag_name(field: str) -> str:
    """The command-line flag of a settings field."""
    return "--" + field.replace("_", "-")


def _extra(info: FieldInfo) -> dict[str, Any]:
    extra = info.json_schema_extra
    return extra if isinstance(extra, dict) else {}


def _default_shown(info: FieldInfo) -> str:
    shown = _extra(info).get(_SHOWN)
    if isinstance(shown, str):
        return shown
    value = info.default
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def flag_table(cls: type[_PlatformSettings]) -> str:
    """docs/deployment.md's table of the settings of ``cls``, one row a field in its
    declaration order: flag, variable, default, what (the help)."""
    rows = ["| flag | variable | default | what |", "|---|---|---|---|"]
    for name, info in cls.model_fields.items():
        flag = "(none)" if name in _ENV_ONLY else f"`{flag_name(name)}`"
        variable = f"`{ENV_PREFIX}{name.upper()}`"
        rows.append(f"| {flag} | {variable} | {_default_shown(info)} | {info.description} |")
    return "\n".join(rows) + "\n"


def _one_line(exc: ValidationError, cls: type[_PlatformSettings]) -> str:
    """A validation error as one line that names the flag and its environment variable."""
    parts = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else ""
        message = str(error["msg"]).removeprefix("Value error, ")
        if "got" not in message:
            message += f", got {error.get('input')!r}"
        if field in cls.model_fields:
            where = f"{ENV_PREFIX}{field.upper()}"
            if field not in _ENV_ONLY:
                where = f"{flag_name(field)} ({where})"
            parts.append(f"{where}: {message}")
        else:
            parts.append(message)
    return "; ".join(parts)


def _flag_adder(cls: type[_PlatformSettings]) -> Callable[..., Any]:
    def add(parser: Any, *names: str, **kwargs: Any) -> Any:
        """How a field becomes a flag: pydantic-settings' argument, with the field's
        metavar, its help without the docs' backticks, and without the "(default: null)" or
        "(default factory: …)" that a field whose default is none or computed would show
        (its help says what the default is)."""
        dest = kwargs.get("dest", "")
        if dest in _ENV_ONLY:
            return None
        info = cls.model_fields.get(dest)
        if "metavar" in kwargs:
            metavar = _extra(info).get(_METAVAR) if info is not None else None
            kwargs["metavar"] = metavar if isinstance(metavar, str) else dest.upper()
        if isinstance(kwargs.get("help"), str):
            text = re.sub(r" \((?:default: null|default factory: \w+)\)", "", kwargs["help"])
            kwargs["help"] = text.replace("`", "")
        return parser.add_argument(*names, **kwargs)

    return add


def add_flags(
    parser: argparse.ArgumentParser, cls: type[_PlatformSettings] = Settings
) -> CliSettingsSource[_PlatformSettings]:
    """Add one flag per field of ``cls`` to ``parser``; pass what it parsed to
    :func:`from_flags`."""
    return CliSettingsSource(
        cls,
        root_parser=parser,
        cli_kebab_case=True,
        cli_show_env_vars=True,
        add_argument_method=_flag_adder(cls),
    )


def from_flags(
    source: CliSettingsSource[_PlatformSettings], args: argparse.Namespace
) -> _PlatformSettings:
    """The settings of the parsed flags over the environment over the defaults; a value that
    cannot be used raises :class:`SettingsError` (one line)."""
    cls: type[_PlatformSettings] = source.settings_cls  # type: ignore[assignment]
    values = {k: v for k, v in vars(args).items() if k in cls.model_fields}
    try:
        return cls(_cli_settings_source=source(parsed_args=argparse.Namespace(**values)))
    except ValidationError as exc:
        raise SettingsError(_one_line(exc, cls)) from None


def from_env(cls: type[_PlatformSettings] = Settings) -> _PlatformSettings:
    """The settings given by the environment (a ``--workers`` process); :class:`SettingsError`
    if one cannot be used."""
    try:
        return cls()
    except ValidationError as exc:
        raise SettingsError(_one_line(exc, cls)) from None
