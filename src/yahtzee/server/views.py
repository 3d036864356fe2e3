"""JSON views of the API (the game object, records) and their OpenAPI schemas.

Handlers build plain dicts with the functions here and return them as ``JSONResponse``:
the pydantic models below document the shapes in the OpenAPI page (returning a Response
directly skips FastAPI's output validation, which would double the cost of a game action
for no benefit). The API tests validate every response against its documented model
instead, and the models forbid undocumented fields, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, create_model

from yahtzee.game import GameKind, Mode, Result, SeatKind, Status, ranking
from yahtzee.players import Difficulty
from yahtzee.rules import CATEGORIES, Category, Dice, Scorecard, needs_zero_confirmation
from yahtzee.server.explain import Advice
from yahtzee.server.game_view import GameView, options_for
from yahtzee.storage import Records


def dump_json(content: Any) -> bytes:
    """``content`` as the bytes :class:`~starlette.responses.JSONResponse` would send.

    orjson writes the same compact UTF-8 as ``json.dumps(..., ensure_ascii=False,
    separators=(",", ":"))`` for the dicts, lists, strings, integers, booleans and nulls
    of these views, in a tenth of the time (a game object: ~19 -> ~1.5 us).
    """
    return orjson.dumps(content)


@lru_cache(maxsize=4096)
def card_json(card: Scorecard) -> dict[str, Any]:
    """One player's column: the 13 boxes (``None`` while open) and the totals (R4-R7).

    Memoised (a card is immutable and a column repeats across a turn's responses); the
    dict is shared, so callers only serialise it.
    """
    return {
        "boxes": {c.value: p for c, p in zip(CATEGORIES, card.boxes, strict=True)},
        "upper_subtotal": card.upper_subtotal,
        "upper_bonus": card.upper_bonus,
        "lower_total": card.lower_total,
        "yahtzee_bonus": card.yahtzee_bonus,
        "total": card.total,
    }


@lru_cache(maxsize=4096)
def preview_json(card: Scorecard, dice: Dice, final: bool = True) -> dict[str, Any]:
    """U1: what ``dice`` would score in each open box of ``card`` (memoised, shared);
    ``final``: a box written now cannot be taken back (no 撤销, U18)."""
    options = options_for(card, dice)
    return {
        c.value: {
            "points": o.points,
            "yahtzee_bonus": o.yahtzee_bonus,
            "upper_bonus": o.upper_bonus,
            "allowed": o.legal,
            "needs_confirmation": o.legal and needs_zero_confirmation(options, c),
            "final": final,
        }
        for c, o in options.items()
    }


def seats_json(loaded: GameView) -> list[dict[str, Any]]:
    """T2: every seat in playing order — who sits there, its card and, for a person, the
    hints left (a computer: its ``difficulty``; null fields for the other kind)."""
    state = loaded.game
    out = []
    for i, (seat, card) in enumerate(zip(loaded.seats, state.cards, strict=True)):
        column = card_json(card)
        human = seat.kind is SeatKind.HUMAN
        out.append(
            {
                "index": i,
                "kind": seat.kind.value,
                "name": seat.name,
                "difficulty": seat.difficulty,
                "scores": column["boxes"],
                "upper_subtotal": column["upper_subtotal"],
                "upper_bonus": column["upper_bonus"],
                "lower_total": column["lower_total"],
                "yahtzee_bonus": column["yahtzee_bonus"],
                "total": column["total"],
                "hints_left": state.hints[i] if human else None,
            }
        )
    return out


def game_json(loaded: GameView) -> dict[str, Any]:
    """The game object of ``docs/api.md``: ``seats`` and ``turn`` for every game (T2);
    solo and vs games also keep the fields they had before (``players`` keyed by kind,
    ``difficulty``, ``hints_left`` of seat 0, ``computer_turn``)."""
    stored, state = loaded.record, loaded.game
    in_progress = stored.status is Status.IN_PROGRESS
    table = stored.mode is Mode.TABLE
    preview = None
    if in_progress and state.kind is SeatKind.HUMAN and state.dice is not None:
        # U18: whether 撤销 could take the box back is the rules' (and a strict kind's).
        final = loaded.strict or state.score_is_final
        preview = preview_json(state.current_card, state.dice, final)
    return {
        "id": stored.id,
        "version": stored.version,
        "mode": stored.mode.value,
        "kind": stored.kind.value,
        "difficulty": stored.difficulty.value if stored.difficulty is not None else None,
        "status": stored.status.value,
        "round": state.round,
        "current_player": state.kind.value,
        "dice": list(state.dice.values) if state.dice is not None else None,
        "rolls_left": state.rolls_left,
        # solo/vs: the person's (seat 0); a table: the seat on turn's (0 for a computer)
        "hints_left": state.hints[state.turn if table else 0],
        # solo/vs: each seat keyed by its kind, as the page has always read them (a table
        # seats several people: null, see ``seats``)
        "players": None
        if table
        else {k.value: card_json(c) for k, c in zip(state.seats, state.cards, strict=True)},
        "seats": seats_json(loaded),
        "turn": state.turn,
        "preview": preview,
        "computer_turn": loaded.computer_turn,
        "computer_turns": list(loaded.computer_turns),
        "turns": list(loaded.turns),
        "result": stored.result.value if stored.result is not None else None,
        "ranking": [p.to_json() for p in ranking([c.total for c in state.cards])]
        if state.is_over
        else None,
        # U7: only a 单人挑战 can be a record (older databases flagged vs games and games
        # of other solo kinds too, K2).
        "new_record": bool(stored.new_record) and stored.kind is GameKind.SOLO,
        # the day a game of a dated kind is played on (its dice's day); the field keeps the
        # name the page has always read
        "daily": loaded.date.isoformat() if loaded.date is not None else None,
        "undo": _undo_json(loaded),
    }


def _undo_json(loaded: GameView) -> dict[str, Any] | None:
    """撤销: the box that ``POST .../undo`` would take back, and whose it is (or null)."""
    undo = loaded.undo()
    return None if undo is None else {"seat": undo[0], "category": undo[1].value}


def hint_json(advice: Advice, loaded: GameView) -> dict[str, Any]:
    """The hint response: ``hold`` or ``category`` (the other is null) and the game."""
    hint, why = advice.event, advice.explanation
    return {
        "hold": list(hint.hold) if hint.hold is not None else None,
        "category": hint.category.value if hint.category is not None else None,
        "value": round(why.advised.value, 2) if why is not None else None,
        "alternative": why.alternative.to_json() if why and why.alternative else None,
        "game": game_json(loaded),
    }


def records_json(
    records: Records,
    current: GameView | None = None,
    tables: Mapping[str, tuple[int, int]] | None = None,
) -> dict[str, Any]:
    """``GET /api/records``; ``current`` is the player's unfinished game, if any;
    ``tables`` gives each recent table game's (seats, best place of a person) (T6)."""
    tables = tables or {}
    return {
        "best_score": records.best_score,
        "wins": records.wins,
        "losses": records.losses,
        "draws": records.draws,
        "games_played": records.games_played,
        "recent": [
            {
                "id": r.id,
                "finished_at": r.finished_at,
                "mode": r.mode.value,
                "kind": r.kind.value,
                "difficulty": r.difficulty.value if r.difficulty is not None else None,
                "human_total": r.human_total,
                "computer_total": r.computer_total,
                "result": r.result.value,
                "seats": tables[r.id][0] if r.id in tables else None,
                "place": tables[r.id][1] if r.id in tables else None,
            }
            for r in records.recent
        ],
        "current_game": game_json(current) if current is not None else None,
    }


# -- OpenAPI documentation models ------------------------------------------------------


class _Out(BaseModel):
    """A documented response shape: an undocumented field is an error in the API tests."""

    model_config = ConfigDict(extra="forbid")


class ErrorDetail(_Out):
    """``code`` is stable (see docs/api.md); ``message`` is fit to show a player, in the
    request's language (``Accept-Language``, G1)."""

    code: str = Field(examples=["stale_version"])
    message: str = Field(examples=["This move is out of date: refresh and try again."])


class ErrorOut(_Out):
    """Every error response."""

    error: ErrorDetail


class CardOut(_Out):
    """One player's scorecard; ``boxes`` maps the 13 category ids to points or null."""

    boxes: dict[Category, int | None]
    upper_subtotal: int
    upper_bonus: int
    lower_total: int
    yahtzee_bonus: int
    total: int


class PreviewOut(_Out):
    """What the current dice would score in one open box (U1)."""

    points: int
    yahtzee_bonus: int
    upper_bonus: int
    allowed: bool = Field(description="false for a box the forced Joker rule (R6) forbids")
    needs_confirmation: bool = Field(
        description="scoring here writes 0 while another allowed box would score (U2): "
        "the score action is refused without confirm_zero"
    )
    final: bool = Field(
        description="a box written now cannot be taken back: no undo in vs, the tutorial, "
        "the daily challenge and friends' rooms, after a turn's undo, nor for the game's last "
        "box (U18)"
    )


class StepOut(_Out):
    """One step of the computer's turn: a roll (``hold``, ``dice``) or a score."""

    action: Literal["roll", "score"]
    hold: list[bool] | None = None
    dice: list[int]
    category: Category | None = None
    points: int | None = None


class ComputerTurnOut(_Out):
    """The computer's most recent turn, for the page to replay at a human pace (U8)."""

    round: int
    steps: list[StepOut]


class SeatTurnOut(ComputerTurnOut):
    """One computer seat's turn played since a person last acted (T3)."""

    seat: int


class SeatOut(_Out):
    """One seat of the game (T2), in playing order."""

    index: int
    kind: SeatKind
    name: str | None = Field(description="a person's name as typed (shown as text only)")
    difficulty: Difficulty | None = Field(description="a computer's level; null for a person")
    scores: dict[Category, int | None]
    upper_subtotal: int
    upper_bonus: int
    lower_total: int
    yahtzee_bonus: int
    total: int
    hints_left: int | None = Field(description="a person's hints left; null for a computer")


class PlaceOut(_Out):
    """One line of the ranking (T4): equal totals share a place (1, 1, 3)."""

    seat: int
    total: int
    place: int = Field(ge=1, le=6)


class TurnOut(_Out):
    """One finished turn of either player, for the page's turn log (P4)."""

    round: int = Field(ge=1, le=13)
    seat: int = Field(ge=0, le=5, description="the seat's index (T2)")
    player: SeatKind
    dice: list[int]
    category: Category
    points: int = Field(description="what the box took (without the Yahtzee bonus)")
    yahtzee_bonus: int = Field(description="100 when this turn earned a Yacht bonus, else 0")
    proxy: str | None = Field(
        default=None,
        description="present when autoplay wrote this box for an away person: the computer "
        "level that chose it (U11)",
    )


class UndoOut(_Out):
    """The box that may be taken back (撤销) and the seat that wrote it."""

    seat: int = Field(ge=0, le=5)
    category: Category


class GameOut(_Out):
    """The game object."""

    id: str
    version: int = Field(description="send it back with every action; +1 per logged event")
    mode: Mode = Field(description="the rules' shape of the game: who sits at it")
    kind: str = Field(
        description="what the game is (K2): one of GET /api/config's kinds (solo, "
        "vs_computer, table, tutorial and the features' own)"
    )
    difficulty: Difficulty | None
    status: Status
    round: int = Field(ge=1, le=13)
    current_player: SeatKind
    dice: list[int] | None
    rolls_left: int
    hints_left: int = Field(
        description="solo/vs: the person's; a table: the seat on turn's (0 for a computer)"
    )
    players: dict[SeatKind, CardOut] | None = Field(
        description="solo/vs (kept for compatibility): 'human' and, in vs games, "
        "'computer'; null in a table game (see seats)"
    )
    seats: list[SeatOut] = Field(description="every seat in playing order (T2)")
    turn: int = Field(ge=0, le=5, description="the index of the seat whose turn it is")
    preview: dict[Category, PreviewOut] | None
    computer_turn: ComputerTurnOut | None
    computer_turns: list[SeatTurnOut] = Field(
        description="the computers' turns played since a person last acted, in order (T3)"
    )
    turns: list[TurnOut] = Field(description="every finished turn of this game, in order")
    result: Result | None
    ranking: list[PlaceOut] | None = Field(
        description="a finished game's seats by total, best first (T4); null while playing"
    )
    new_record: bool = Field(
        description="a finished solo game whose total beats every earlier solo total (U7); "
        "always false in vs games"
    )
    daily: str | None = Field(
        None,
        description="the day a game of a dated kind is played on (the daily challenge, D1: "
        "the day's dice); null for every other game",
    )
    undo: UndoOut | None = Field(
        None,
        description="undo: the box just written that POST .../undo would take back, until the "
        "next roll (solo and table games; null in vs and in a kind that refuses undo)",
    )


class AlternativeOut(_Out):
    """The best choice other than the advice, and its value: ``hold`` to roll on, or
    ``category`` to write now (with rolls left: stop rolling and write the dice's best box,
    valued as that box)."""

    hold: list[bool] | None
    category: Category | None
    value: float


class HintOut(_Out):
    """The expert's advice: ``hold`` while rolling on is best, else ``category``."""

    hold: list[bool] | None
    category: Category | None
    value: float | None = Field(
        description="expected points still to be added to the total by following the advice"
    )
    alternative: AlternativeOut | None = Field(
        description="the best other choice and its value (null when there is no other)"
    )
    game: GameOut


class RecentGameOut(_Out):
    """One recent finished game."""

    id: str
    finished_at: str
    mode: Mode
    kind: str = Field(description="what the game was (K2): the lobby lists it by this")
    difficulty: Difficulty | None
    human_total: int = Field(description="a table game: the best total of its people")
    computer_total: int | None
    result: Result
    seats: int | None = Field(description="a table game's seats (T6); null otherwise")
    place: int | None = Field(
        description="a table game's best place of a person (2 for second); null otherwise"
    )


class RecordsOut(_Out):
    """This browser's records (U9), over finished games."""

    best_score: int | None = Field(description="the best finished solo total (vs games excluded)")
    wins: int
    losses: int
    draws: int
    games_played: int
    recent: list[RecentGameOut]
    current_game: GameOut | None = Field(
        description="the unfinished game (the lobby's Continue), or null"
    )


class HealthOut(_Out):
    """Liveness; ``degraded`` (503) while writes to the database fail (F6)."""

    status: Literal["ok", "degraded"]
    storage: Literal["unavailable"] | None = None
    detail: str | None = None


class CategoryInfo(_Out):
    """One box of the scorecard."""

    id: Category
    name_key: str = Field(examples=["core.box.ones"], description="its name's catalog key (G1)")
    upper: bool
    face: int | None = Field(description="the face an upper box counts; null for lower boxes")
    points: int | None = Field(
        description="the points the box scores when its dice fit (full house 25, small "
        "straight 30, large straight 40, yahtzee 50); null for a box that adds up dice"
    )


class DifficultyInfo(_Out):
    """One computer level (B1), weakest first."""

    id: Difficulty
    name_key: str = Field(
        examples=[Difficulty.EXPERT.name_key], description="its name's key in the catalogs (G1)"
    )
    summary_key: str = Field(description="the key of its line on how it plays")


class LanguageInfo(_Out):
    """A language a player may choose (G3), named in itself."""

    id: str = Field(examples=["zh-Hant"], description="its tag, as <html lang> writes it")
    name: str = Field(examples=["繁體中文"])  # i18n-ok: a language's name in itself is data


class LimitsOut(_Out):
    """The game's numbers."""

    dice: int
    rolls_per_turn: int
    hints_per_game: int
    rounds: int
    upper_bonus_threshold: int
    upper_bonus: int
    yahtzee_bonus: int
    min_table_seats: int
    max_seats: int
    max_name_chars: int


class PlatformConfigOut(_Out):
    """Names, limits and defaults (``GET /api/config``, also embedded in the page): the
    platform's part; :func:`config_out` adds the features' sections."""

    categories: list[CategoryInfo]
    difficulties: list[DifficultyInfo]
    languages: list[LanguageInfo]
    default_difficulty: Difficulty = Field(description="the level of a vs game without one")
    suggested_difficulty: Difficulty = Field(description="the lobby's first offer (P5)")
    modes: dict[str, str] = Field(
        description="the games POST /api/games starts, by its mode (solo, vs_computer, "
        "table, tutorial): the catalog key of each one's title"
    )
    kinds: dict[str, str] = Field(description="each kind of game's title, as a catalog key (K2)")
    results: dict[Result, str] = Field(description="each result's name, as a catalog key")
    limits: LimitsOut


def config_out(sections: Mapping[str, type[BaseModel]]) -> type[BaseModel]:
    """``GET /api/config``'s model, ``ConfigOut``: the platform's fields, then one field per
    feature section (its name, its model: the feature's ``config_model``)."""
    fields: dict[str, Any] = {name: (model, ...) for name, model in sections.items()}
    model: type[BaseModel] = create_model(
        "ConfigOut", __base__=PlatformConfigOut, __module__=__name__, **fields
    )
    return model


class KeepChoiceOut(_Out):
    """Keep these faces and roll the rest (all five: stop and score)."""

    keep: list[int]
    value: float


class BoxChoiceOut(_Out):
    """Write the dice in ``category`` for ``points``."""

    category: Category
    points: int
    value: float


class StopChoiceOut(_Out):
    """With rolls left: stop rolling and write the dice in ``category`` (its best box)."""

    stop: Literal[True]
    category: Category
    points: int
    value: float


AdviceChoice = KeepChoiceOut | StopChoiceOut | BoxChoiceOut


class AdviceOut(_Out):
    """The expert's ranking of a position (``yahtzee advise --json``)."""

    state_value: float = Field(description="expected points still to come under optimal play")
    options: list[AdviceChoice] = Field(description="best first")
    best: AdviceChoice | None
