"""``/api/puzzles``: 练习 (L6-L8) — the next puzzle, an answer, the progress."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from yahtzee.errors import InvalidPuzzleError
from yahtzee.i18n import Lang, render, text
from yahtzee.practice.service import PracticeService
from yahtzee.practice.views import (
    AnswerOut,
    NextPuzzleOut,
    PracticeConfigOut,
    ProgressOut,
)
from yahtzee.review import MARK_NAMES
from yahtzee.rules import Category
from yahtzee.server.jsonbody import JsonBody, JsonBodyRoute, StrictBody
from yahtzee.server.routers._common import (
    Acting,
    ClientAddress,
    Cpu,
    PlayerId,
    Reader,
    cost,
    errors,
)
from yahtzee.training.themes import THEME_HELP, THEMES, parse_theme

router = APIRouter(prefix="/api/puzzles", tags=["practice"], route_class=JsonBodyRoute)

# The work budget's units of each route (issue 22; docs/api.md lists them): the next
# puzzle may review up to three of the player's new games, an answer is graded exactly.
NEXT_COST = 2
ANSWER_COST = 1
PROGRESS_COST = 2

Face = Annotated[int, Field(ge=1, le=6)]


class AnswerIn(StrictBody):
    """A keep (faces to hold and roll again, or ``"stop"`` to score now) or a box."""

    keep: Annotated[list[Face], Field(max_length=4)] | Literal["stop"] | None = None
    category: Annotated[Category, Field(strict=False)] | None = None

    def as_json(self) -> dict[str, Any]:
        """The answer in the domain's JSON form (fields that were given)."""
        out: dict[str, Any] = {}
        if self.keep is not None:
            out["keep"] = self.keep
        if self.category is not None:
            out["category"] = self.category.value
        return out


def practice_service(request: Request) -> PracticeService:
    """The process-wide practice service (``app.state.practice``, :data:`FEATURE`)."""
    svc: PracticeService = request.app.state.practice
    return svc


#: The practice service (练习).
Practice = Annotated[PracticeService, Depends(practice_service)]


def _theme(theme: str | None) -> str | None:
    if theme is None or theme == "":
        return None
    try:
        return parse_theme(theme)
    except ValueError as exc:
        raise InvalidPuzzleError(str(exc)) from None


@router.get(
    "/next",
    response_model=NextPuzzleOut,
    responses=errors(404, 409, 422, 429, 503),
    summary="The next puzzle (practice)",
    dependencies=[cost(NEXT_COST)],
)
async def next_puzzle(
    player: Acting,
    practice: Practice,
    cpu: Cpu,
    address: ClientAddress,
    theme: Annotated[
        str | None, Query(max_length=40, description="a theme id: practice by theme")
    ] = None,
    game: Annotated[
        str | None,
        Query(max_length=80, description="practise a decision of a reviewed game: the game"),
    ] = None,
    decision: Annotated[int | None, Query(ge=0, le=200, description="its decision index")] = None,
) -> JSONResponse:
    """A due mistake of the player's own games, else a bank puzzle near their rating (of
    ``theme`` when given); with ``game`` and ``decision``, that decision of a finished
    game of the player. Serving a puzzle makes the one served before stale. 429 over
    ``--max-practice-servings-per-hour`` (per player) or its ``-per-address`` limit."""
    # Each serving is a row (F14): capped per player and per client address.
    await practice.charge_serving(player, address)
    out = await practice.next(player, cpu=cpu, theme=_theme(theme), game_id=game, decision=decision)
    return JSONResponse(out)


@router.post(
    "/{puzzle_id}/answer",
    response_model=AnswerOut,
    responses=errors(404, 409, 413, 415, 422, 429, 503),
    summary="Answer the puzzle being served",
    dependencies=[cost(ANSWER_COST)],
)
async def answer_puzzle(
    puzzle_id: str,
    cpu: Cpu,
    body: JsonBody[AnswerIn],
    player: Acting,
    practice: Practice,
    lang: Reader,
) -> JSONResponse:
    """Grade the answer exactly: its loss, mark, every option best first, the
    explanation (in the request's language), and the ratings after it. 409
    ``already_answered`` for a second answer, 404 ``not_found`` for a puzzle that is not
    the one being served (stale or another player's), 409 ``illegal_action`` for an answer
    that is not an option."""
    out = await practice.answer(player, puzzle_id[:80], body.as_json(), cpu)
    return JSONResponse(render(out, lang))


@router.get(
    "/progress",
    response_model=ProgressOut,
    responses=errors(429),
    summary="Practice progress (statistics)",
    dependencies=[cost(PROGRESS_COST)],
)
async def progress(player: PlayerId, practice: Practice, lang: Reader) -> JSONResponse:
    """The puzzle rating over time, the rate of best answers per theme (the themes named
    in the request's language), and how many of the player's own mistakes they have since
    answered right."""
    return JSONResponse(render(await practice.progress(player), lang))


def themes_json(lang: Lang) -> dict[str, Any]:
    """The themes (id, name, one sentence) and the marks' names, in ``lang``."""
    return {
        "themes": [
            {"id": t, "name": text(lang, key), "help": text(lang, THEME_HELP[t])}
            for t, key in THEMES.items()
        ],
        "marks": {mark: text(lang, key) for mark, key in MARK_NAMES.items()},
    }


@router.get("/themes", response_model=PracticeConfigOut, summary="The practice themes")
async def themes(lang: Reader) -> JSONResponse:
    """The themes (id, name, one sentence) and the marks' names, in the request's
    language."""
    return JSONResponse(themes_json(lang))
