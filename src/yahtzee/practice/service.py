"""练习 for the API (L6-L8): which puzzle comes next, and the grading of an answer.

The order of puzzles (L7, L8):

1. a puzzle asked for from the review page (「练习这一步」: a game and a decision);
2. else the player's own mistake that is due (FSRS), earliest first;
3. else a bank puzzle near the player's rating: a random sample of the bank (of the
   chosen theme, 「专项练习」), without the last puzzles served, the nearest rated wins.

Before choosing, the mistakes of the player's newly finished games become cards (at most
:data:`IMPORTS_PER_REQUEST` games a request, so one request's cost stays bounded: the
rest follow on the next ones). Every computation (reviews, grading, explanations) runs in
the server's CPU pool (:class:`~yahtzee.server.cpu.CpuPool`: a worker process, as the
requester's job, issue 22) through the module-level functions below, and every call of the
practice tables in a worker thread: neither on the event loop.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from yahtzee.errors import GameNotFoundError, IllegalMoveError, NotReviewableError
from yahtzee.game import Status
from yahtzee.i18n import msg
from yahtzee.practice.settings import PracticeSettings
from yahtzee.practice.store import NewCard, PracticeStore, Serving
from yahtzee.review import MARK_NAMES, MARKS, MISTAKE_MARKS, Choice, mark_of, review_events
from yahtzee.server.cpu import CpuJobs
from yahtzee.server.limits import Guard, Rate
from yahtzee.solver import ValueTable, load_table
from yahtzee.storage import Storage
from yahtzee.training.bank import (
    BankLine,
    answer_text,
    bank_lines,
    decision_position,
)
from yahtzee.training.explain import explain
from yahtzee.training.progress import Glicko
from yahtzee.training.puzzle import Answer, PuzzlePosition, grade
from yahtzee.training.themes import THEMES, themes_of

# The buckets of 练习's rates (F5's shared table).
SERVINGS = "practice_servings"  # per player (F14)
ADDRESS_SERVINGS = "address_servings"  # per client address (F14)
IMPORTS_PER_REQUEST = 3
IMPORT_WINDOW = 200
"""Only the player's most recent finished games are looked at for import (a bound on the
rows one request reads, as the stats have)."""
SAMPLE = 40
"""Bank puzzles whose ratings are read per request; the nearest to the player's wins."""
NOT_AGAIN = 30
"""A puzzle is not served again within this many servings of the player."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


def mine_key(game_id: str, decision: int) -> str:
    """The key of decision ``decision`` of game ``game_id`` as a puzzle."""
    return f"mine:{game_id}:{decision}"


def option_json(choice: Choice, best: Choice) -> dict[str, Any]:
    """An option as the answer shows it: the review's form plus its loss."""
    out = choice.to_json()
    out["loss"] = round(max(0.0, best.value - choice.value), 4)
    return out


def _card(game_id: str, i: int, position: PuzzlePosition, d: Any) -> NewCard:
    return NewCard(
        puzzle_key=mine_key(game_id, i),
        position=str(position),
        themes=themes_of(position, d.best, d.chosen),
        game_id=game_id,
        decision=i,
        chosen=answer_text(Answer.of(d.chosen)),
        loss=d.loss,
    )


# -- the CPU jobs (run in the CPU pool's worker processes: plain data in and out) ------------


def cards_of_game(game_id: str, events: Sequence[Any]) -> list[NewCard]:
    """The player's mistakes in a finished game, as cards (``events``: its stored log)."""
    human = review_events(events).human
    decisions = human.decisions
    # U18: the review's own mistakes (托管's are not the player's, K2), as 复盘 and 统计
    # count them.
    return [
        _card(game_id, i, decision_position(decisions, i), decisions[i]) for i in human.mistakes
    ]


def card_of_decision(game_id: str, events: Sequence[Any], decision: int) -> NewCard:
    """Decision ``decision`` of a finished game as a card (「练习这一步」)."""
    decisions = review_events(events).human.decisions
    if not 0 <= decision < len(decisions):
        raise IllegalMoveError(
            f"game {game_id} has decisions 0..{len(decisions) - 1}, not {decision}"
        )
    return _card(game_id, decision, decision_position(decisions, decision), decisions[decision])


def grading(position: str, answer: Answer) -> dict[str, Any]:
    """The exact grade of ``answer`` in ``position`` (its text form) as the answer's JSON
    shows it, without the ratings (which the practice tables give); its words are catalog
    messages (the route says them in the reader's language, :func:`yahtzee.i18n.render`)."""
    table = load_table()
    graded = grade(PuzzlePosition.parse(position), answer, table)
    best = graded.best
    return {
        "loss": round(graded.loss, 4),
        "mark": graded.mark,
        "mark_name": msg(MARK_NAMES[graded.mark]),
        "chosen": option_json(graded.chosen, best),
        "best": option_json(best, best),
        "options": [option_json(o, best) for o in graded.options],
        "explanation": explain(graded, table),
        "exact_loss": graded.loss,
    }


@dataclass(frozen=True, slots=True)
class _Bank:
    """The bank in memory, by theme."""

    all: tuple[BankLine, ...]
    by_theme: dict[str, tuple[BankLine, ...]]

    @classmethod
    def load(cls) -> _Bank:
        lines = bank_lines()
        by_theme = {t: tuple(p for p in lines if t in p.themes) for t in THEMES}
        return cls(lines, by_theme)


class PracticeService:
    """``GET /api/puzzles/next``, ``POST /api/puzzles/{id}/answer``, the progress (统计).

    A puzzle the player has answered before, whichever way it comes back (「练习这一步」
    asked again, a card due again, a bank puzzle drawn again), is served as a review:
    graded, rescheduled, no rating moved (F15, :mod:`yahtzee.practice.store`)."""

    def __init__(
        self,
        store: PracticeStore,
        games: Storage,
        *,
        guard: Guard,
        limits: PracticeSettings | None = None,
        rng: random.Random | None = None,
        now: Callable[[], datetime] = _utc_now,
    ) -> None:
        self.store = store
        self.games = games
        # Each serving is a row (F14): the player's and its client address's rates, in
        # the shared table.
        limits = limits or PracticeSettings()
        self.guard = guard
        self.servings = Rate(SERVINGS, limits.servings_per_hour, 3600.0)
        self.address_servings = Rate(ADDRESS_SERVINGS, limits.servings_per_hour_per_address, 3600.0)
        self._rng = rng or random.Random()
        self._now = now
        self._bank: _Bank | None = None
        self._table: ValueTable | None = None

    @property
    def table(self) -> ValueTable:
        """The solver's table (looked up once: finding it costs about a millisecond)."""
        if self._table is None:
            self._table = load_table()
        return self._table

    @property
    def bank(self) -> _Bank:
        """The bank's lines (read on first use: 4,700 lines, tens of milliseconds)."""
        if self._bank is None:
            self._bank = _Bank.load()
        return self._bank

    def warm_up(self) -> None:
        """Read the bank and find the solver's table now (startup), not on a player's
        first request."""
        _ = self.bank
        _ = self.table

    # -- the player's own games ---------------------------------------------------------

    async def import_games(self, player_id: str, cpu: CpuJobs) -> int:
        """Turn the mistakes of up to :data:`IMPORTS_PER_REQUEST` newly finished games (of
        the latest :data:`IMPORT_WINDOW`) into cards; returns how many games were imported."""
        finished = await self.games.finished_games(player_id, limit=IMPORT_WINDOW)
        if not finished:
            return 0
        done = await self.store.imported_games(player_id)
        todo = [g.id for g in finished if g.id not in done][:IMPORTS_PER_REQUEST]
        for game_id in todo:
            events = await self.games.events(game_id)
            cards = await cpu(cards_of_game, game_id, events)
            await self.store.import_game(player_id, game_id, cards, self._now())
        return len(todo)

    async def _from_game(
        self, player_id: str, game_id: str, decision: int, cpu: CpuJobs
    ) -> NewCard:
        stored = await self.games.get_game(game_id)
        if stored is None or stored.player_id != player_id:
            raise GameNotFoundError(f"no game {game_id} for this player")
        if stored.status is not Status.FINISHED:
            raise NotReviewableError(f"game {game_id} is not finished")
        events = await self.games.events(game_id)
        return await cpu(card_of_decision, game_id, events, decision)

    # -- next ---------------------------------------------------------------------------

    async def charge_serving(self, player_id: str, address: str) -> None:
        """A token of the player's servings and one of its client address's, or 429
        (``--max-practice-servings-per-hour``, ``-per-address``)."""
        guard = self.guard
        await guard.take(
            guard.charge(self.servings, player_id) + guard.charge(self.address_servings, address)
        )

    async def next(
        self,
        player_id: str,
        *,
        cpu: CpuJobs,
        theme: str | None = None,
        game_id: str | None = None,
        decision: int | None = None,
    ) -> dict[str, Any]:
        """The next puzzle (see the module docstring) and the player's rating; the reviews
        it needs run as ``cpu``'s jobs."""
        if game_id is not None:
            card = await self._from_game(player_id, game_id, decision or 0, cpu)
            row = await self.store.add_card(player_id, card, self._now())
            return await self._serve(
                player_id, "mine", row.puzzle_key, row.position, row.themes, row.rating
            )
        await self.import_games(player_id, cpu)
        return await self._next(player_id, theme)

    async def _next(self, player_id: str, theme: str | None) -> dict[str, Any]:
        now = self._now()
        due = await self.store.due_card(player_id, now, theme)
        if due is not None:
            return await self._serve(
                player_id, "mine", due.puzzle_key, due.position, due.themes, due.rating
            )
        pool = self.bank.by_theme[theme] if theme is not None else self.bank.all
        recent = await self.store.recent_keys(player_id, NOT_AGAIN)
        fresh = [
            p for p in self._rng.sample(pool, min(len(pool), SAMPLE * 2)) if p.key not in recent
        ]
        sample = fresh[:SAMPLE] or list(pool[:1])
        ratings = await self.store.bank_ratings([p.key for p in sample])
        me = (await self.store.player_rating(player_id)).rating
        # Nearest rating wins; among equals (every unrated puzzle is 1500) the sample's
        # random order decides.
        pick = min(sample, key=lambda p: abs(ratings[p.key].rating - me))
        return await self._serve(
            player_id, "bank", pick.key, str(pick.puzzle().position), pick.themes, ratings[pick.key]
        )

    async def _serve(
        self,
        player_id: str,
        source: str,
        key: str,
        position: str,
        themes: Sequence[str],
        rating: Glicko,
    ) -> dict[str, Any]:
        serving = Serving(
            id=secrets.token_urlsafe(12),
            player_id=player_id,
            puzzle_key=key,
            source=source,
            position=position,
            themes=tuple(themes),
            served_at=self._now().isoformat(timespec="microseconds"),
            puzzle_rating=rating.rating,
        )
        player = await self.store.serve(serving)
        puzzle = PuzzlePosition.parse(position).to_json()
        puzzle.update(
            id=serving.id,
            source=source,
            themes=list(themes),
            rating=round(rating.rating),
            rating_settling=rating.settling,
        )
        if source == "mine":
            puzzle["game_id"] = key.split(":")[1]
        # Said before the answer: a puzzle answered before is a review (F15).
        puzzle["review"] = await self.store.answered_before(player_id, key)
        return {
            "puzzle": puzzle,
            "rating": round(player.rating),
            "rating_settling": player.settling,
        }

    # -- answer -------------------------------------------------------------------------

    async def answer(
        self, player_id: str, serving_id: str, body: object, cpu: CpuJobs
    ) -> dict[str, Any]:
        """Grade the answer to the player's current puzzle (see docs/api.md): the serving
        is read, the answer graded as ``cpu``'s job, then recorded with the ratings."""
        answer = Answer.from_json(body)
        serving = await self.store.serving(player_id, serving_id)
        out = await cpu(grading, serving.position, answer)
        loss = out.pop("exact_loss")
        answered = await self.store.answer(
            player_id,
            serving_id,
            answer=answer_text(answer),
            loss=loss,
            mark=out["mark"],
            now=self._now(),
        )
        out["rating"] = round(answered.player_after.rating)
        out["rating_change"] = round(answered.player_after.rating - answered.player_before.rating)
        out["rating_settling"] = answered.player_after.settling
        # The difficulty shown with the puzzle, which the answer was rated against (L14).
        out["puzzle_rating"] = round(answered.puzzle_shown)
        out["puzzle_rating_settling"] = answered.puzzle_before.settling
        out["review"] = answered.review
        return out

    # -- progress -----------------------------------------------------------------------

    async def progress(self, player_id: str) -> dict[str, Any]:
        """统计's practice part: the rating over time, the rate of best answers per theme,
        and how many of the player's own mistakes they have since answered right."""
        history, cards, rating = await self.store.progress(player_id)
        now = self._now().isoformat(timespec="microseconds")
        per_theme = []
        for tid, key in THEMES.items():
            rows = [h for h in history if tid in h.themes]
            best = sum(1 for h in rows if h.mark == "best")
            per_theme.append({"theme": tid, "name": msg(key), "answers": len(rows), "best": best})
        marks = {m: sum(1 for h in history if h.mark == m) for m in MARKS}
        return {
            "rating": round(rating.rating),
            "rating_settling": rating.settling,
            "answers": len(history),
            "marks": marks,
            "rating_history": [
                {"at": h.answered_at, "rating": round(h.rating_after)} for h in history
            ],
            "themes": per_theme,
            "mine": {
                "puzzles": len(cards),
                # U18: of the player's mistakes (a 「练习这一步」 card may be a smaller slip).
                "answered_right": sum(
                    1 for c in cards if c.best_answers > 0 and mark_of(c.loss) in MISTAKE_MARKS
                ),
                "due": sum(1 for c in cards if c.due <= now),
            },
        }
