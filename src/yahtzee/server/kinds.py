"""What each kind of game is beyond the rules of its mode (K2; issue 36, A2): its rules.

A game's :class:`~yahtzee.game.GameKind` says what it is to the player; its
:class:`KindRules` say what that means to the server: the mode its games are played in,
its name (a catalog key, said in the reader's language), the actions it refuses although
the mode's rules allow them (hints, 撤销, giving up: each a :class:`Refusal`, the API's code
and message), the 统计 section its
finished games count in, whether its ``start`` carries the day it is played on, and, once
its maker is built, its :class:`KindHooks` (where its dice come from, who holds its seats,
what follows its actions and its end).

The platform declares its own kinds here (:data:`PLATFORM_KINDS`); a feature declares the
kinds it makes on its :class:`~yahtzee.server.feature.Feature` (``kinds``) and gives their
hooks once built (:class:`~yahtzee.server.feature.Parts` ``kinds``). The app registers
them all in one :class:`KindRegistry`, which the game service, the game's view, the error
mapping and 统计 consult: none of them names a feature's kind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from yahtzee.dice import DiceSource, KeyedStreams, RoundStreams
from yahtzee.errors import IllegalMoveError
from yahtzee.game import GameKind, Mode
from yahtzee.i18n import N_, Msg, msg
from yahtzee.lru import LruCache
from yahtzee.review.stats import SOLO_STATS, TABLE_STATS, VS_STATS
from yahtzee.tutorial import TutorialStream

if TYPE_CHECKING:
    from yahtzee import log
    from yahtzee.server.game_view import Fold, GameView
    from yahtzee.storage import GameRecord


@dataclass(frozen=True, slots=True)
class Refusal:
    """How a kind of game refuses an action its mode's rules allow: the API's 409 ``code``
    (docs/api.md lists them) and the ``message`` the player reads, in their language."""

    code: str
    message: Msg


class KindRefusalError(IllegalMoveError):
    """An action the rules allow and the game's kind refuses (its :class:`Refusal`, which
    the error mapping answers with); nothing was changed."""

    def __init__(self, message: str, refusal: Refusal) -> None:
        super().__init__(message)
        self.refusal = refusal


def no_undo(name: str) -> Refusal:
    """The refusal of 撤销 by the kind whose name is the key ``name``, whose boxes are final
    once written."""
    return Refusal("undo_not_allowed", msg("error.undo_not_allowed.kind", kind=msg(name)))


class SeatAccess(Protocol):
    """Who may act for the seats of a game played from several browsers (a kind whose
    seats its maker holds)."""

    async def holders(self, game: GameRecord) -> tuple[str | None, ...]:
        """The browser (player id) of each seat of ``game``, ``None`` for a computer (no
        seat for a game its maker does not know), as of ``game.seat_serial`` (a change of
        its seats outside its log bumps it: an erased seat, a merged holder, F24)."""
        ...


#: Where the faces of a roll come from in a game of one kind, given the game as folded so
#: far (its start's date, its round, the faces its turn drew). A kind without one rolls
#: the service's injected dice (the OS's).
DicePolicy = Callable[["Fold"], DiceSource]
K = TypeVar("K")
S = TypeVar("S", bound=KeyedStreams)

#: Called after each committed action of a game with the view after it, the new events and
#: whether the computer played for an away person (托管, O5).
CommitHook = Callable[["GameView", "Sequence[log.Event]", bool], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class KindHooks:
    """What a kind's maker gives the game service once built: its dice (by default the
    service's), who acts for its seats (by default the game's owner), what follows each
    committed action and each finished game."""

    dice: DicePolicy | None = None
    seats: SeatAccess | None = None
    after_commit: CommitHook | None = None
    finished: Callable[[GameView], None] | None = None


@dataclass(frozen=True, slots=True)
class KindRules:
    """What a kind of game is to the server (see the module docstring).

    ``mode`` is the rules' shape its games are played in, ``name`` the catalog key of its
    name in a sentence (the error that names a saved game: English's is a noun phrase,
    "game against the computer") and ``title`` the key of its name as a heading (``GET
    /api/config``'s ``kinds``: the lobby's recent games, 统计, 复盘; "Against the
    computer"), in the page's first chunk (``core``).
    ``hints``, ``undo`` and ``abandon`` are ``None`` where the kind allows what its mode's
    rules allow, else how it refuses (a kind that refuses 撤销 is *strict*: its game object
    never offers one). ``stats`` is the 统计 section its
    finished games count in (:data:`~yahtzee.review.stats.SOLO_STATS`, ``VS_STATS``,
    ``TABLE_STATS``, or a section of its own counted apart; ``None``: nowhere). ``dated``:
    its ``start`` carries the day it is played on (a dice source of the day's).
    """

    kind: GameKind
    name: str
    mode: Mode
    title: str = N_("core.kind.unknown")
    hints: Refusal | None = None
    undo: Refusal | None = None
    abandon: Refusal | None = None
    stats: str | None = None
    dated: bool = False
    hooks: KindHooks = field(default_factory=KindHooks)

    @property
    def strict(self) -> bool:
        """No 撤销 whatever the position (the game object's ``undo`` is always null)."""
        return self.undo is not None


def fixed_stream(streams: RoundStreams) -> DicePolicy:
    """The dice policy of games on one face sequence per round for everybody (the
    tutorial's, L10): a roll takes the next faces of its round's."""

    def dice(fold: Fold) -> DiceSource:
        return streams.turn(fold.game.round, fold.drawn)

    return dice


class KeyedDice(Generic[K, S]):
    """The dice policy of games on secret streams (:class:`~yahtzee.dice.KeyedStreams`),
    one per key that a game's turn names (每日挑战's day, 同骰竞速's race): a roll takes
    the next faces of its round in its key's stream. ``key_of(fold)`` names the key (an
    :class:`~yahtzee.errors.IllegalMoveError` for a game without one), ``make(key)`` makes
    its stream from the server's secret (every process shares it, so every process rolls
    the same faces), and the ``kept`` streams used last are cached (K4)."""

    def __init__(self, key_of: Callable[[Fold], K], make: Callable[[K], S], kept: int) -> None:
        self._key_of = key_of
        self._make = make
        self._streams: LruCache[K, S] = LruCache(kept)

    def stream(self, key: K) -> S:
        """The dice stream of ``key``."""
        return self._streams.get_or_compute(key, lambda: self._make(key))

    def __call__(self, fold: Fold) -> DiceSource:
        """The dice of the turn ``fold`` is at, from its key's stream."""
        return self.stream(self._key_of(fold)).turn(fold.game.round, fold.drawn)


#: The platform's own kinds: the plain game of each mode, which ``POST /api/games``
#: starts by its name, and the tutorial (新手教程, L10: a solo game on fixed dice, kept out
#: of every record and of 统计, replaced by any new game without asking).
PLATFORM_KINDS: tuple[KindRules, ...] = (
    KindRules(
        GameKind.SOLO,
        N_("server.kind.solo"),
        Mode.SOLO,
        title=N_("core.kind.solo"),
        stats=SOLO_STATS,
    ),
    KindRules(
        GameKind.VS_COMPUTER,
        N_("server.kind.vs_computer"),
        Mode.VS_COMPUTER,
        title=N_("core.kind.vs_computer"),
        stats=VS_STATS,
    ),
    KindRules(
        GameKind.TABLE,
        N_("server.kind.table"),
        Mode.TABLE,
        title=N_("core.kind.table"),
        stats=TABLE_STATS,
    ),
    KindRules(
        GameKind.TUTORIAL,
        N_("server.kind.tutorial"),
        Mode.SOLO,
        title=N_("core.kind.tutorial"),
        undo=no_undo(N_("server.kind.tutorial")),
        hooks=KindHooks(dice=fixed_stream(TutorialStream())),
    ),
)


class KindRegistry:
    """The rules of every kind the app knows: the platform's and its features', declared
    once each (a second declaration of a kind raises), with the hooks their makers give
    once built (:meth:`hook`)."""

    def __init__(self, rules: Iterable[KindRules] = PLATFORM_KINDS) -> None:
        self._rules: dict[GameKind, KindRules] = {}
        for one in rules:
            if one.kind in self._rules:
                raise ValueError(f"the kind {one.kind.value!r} is declared twice")
            self._rules[one.kind] = one

    def hook(self, kind: GameKind, hooks: KindHooks) -> None:
        """Give the declared ``kind`` its maker's hooks (once)."""
        rules = self.declared(kind)
        if rules.hooks != KindHooks():
            raise ValueError(f"the kind {kind.value!r} has its hooks already")
        self._rules[kind] = replace(rules, hooks=hooks)

    def declared(self, kind: GameKind) -> KindRules:
        """The rules of ``kind``; :class:`~yahtzee.errors.IllegalMoveError` for a kind
        nobody declared (no game of it can be started)."""
        rules = self._rules.get(kind)
        if rules is None:
            raise IllegalMoveError(f"no kind of game {kind.value!r}")
        return rules

    def __getitem__(self, kind: GameKind) -> KindRules:
        """The rules of a stored game's ``kind``: a kind no longer declared (its feature
        removed since) reads as a game its mode's rules alone govern, counted nowhere."""
        rules = self._rules.get(kind)
        if rules is None:  # (called just "a game")
            return KindRules(kind, N_("server.kind.unknown"), Mode.SOLO)
        return rules

    def __iter__(self) -> Iterator[KindRules]:
        return iter(self._rules.values())


def kind_names(kinds: Iterable[KindRules]) -> tuple[tuple[str, str], ...]:
    """Each kind's name and the catalog key of its title, in order (``GET
    /api/config``'s ``kinds``)."""
    return tuple((rules.kind.value, rules.title) for rules in kinds)


def apart_sections(kinds: Iterable[KindRules]) -> tuple[str, ...]:
    """The 统计 sections of their own that ``kinds`` count in (``GET /api/stats`` lists
    each, with its games' number, mean and best), in order."""
    shared = {SOLO_STATS, VS_STATS, TABLE_STATS}
    found: list[str] = []
    for rules in kinds:
        if rules.stats is not None and rules.stats not in shared and rules.stats not in found:
            found.append(rules.stats)
    return tuple(found)
